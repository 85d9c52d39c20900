/**
 * The collective operations: schedules of point-to-point rounds, their algorithms, and the choice
 * among them ({@link org.railyard.engine.coll.Collectives} is the entry point). The package reaches
 * the engine only through {@link org.railyard.engine.coll.CollServices}.
 *
 * <h2>Algorithms (p processes, n bytes; thresholds in {@link org.railyard.engine.coll.CollTuning}, all settable)</h2>
 * <table>
 * <tr><th>collective</th><th>choice</th></tr>
 * <tr><td>any of barrier, bcast, reduce and allreduce (commutative operations), gather, scatter,
 *   allgather(v), alltoall, gatherv, scatterv, alltoallv</td><td>site-aware
 *   ({@link org.railyard.engine.coll.CollSites}, {@link org.railyard.engine.coll.CollSitesMoves}) when the intracommunicator's members run on several
 *   sites ({@code railyard.site}), {@code railyard.coll.sites} is on and no other algorithm is forced:
 *   each pair of sites exchanges one message each way at most, and each site runs the node-aware
 *   or flat algorithms inside; else as below</td></tr>
 * <tr><td>barrier</td><td>blocking, p &ge; 2, all on one node: the counter barrier over the
 *   communicator's shared segment ({@link org.railyard.engine.coll.CollCounter}, no message);
 *   else node-aware (fan-in, dissemination among node leaders, fan-out) when several ranks share
 *   a node and there are several nodes; else dissemination</td></tr>
 * <tr><td>bcast</td><td>blocking, p &ge; 3, n &ge; 64 KiB (a quarter of that per doubling of p
 *   beyond 8), all on one node: the communicator's shared
 *   segment ({@link org.railyard.engine.coll.CollShm}: the root copies in, the others copy out after a barrier);
 *   blocking, p &ge; 2, smaller, all on one node: the same through one counter barrier
 *   ({@link org.railyard.engine.coll.CollCounter}); else
 *   node-aware two-level as for barrier; else binomial scatter + ring
 *   allgather (van de Geijn) for n &ge; 12 KiB on p &ge; 8 processes over several nodes; else
 *   binomial tree; pipelined in 128 KiB segments ({@code pipeline}) from the size
 *   {@code railyard.coll.bcast.pipeline} sets (off by default) or when forced; flat (the root
 *   sends to each, {@code linear}) only when forced</td></tr>
 * <tr><td>reduce</td><td>blocking, p &ge; 3, n &ge; 128 KiB, all on one node: the shared segment (as
 *   allreduce, then only the root copies out; any operation); else
 *   commutative, n &ge; 64 KiB and count &ge; pof2: Rabenseifner
 *   (recursive-halving reduce-scatter + binomial gather); else binomial tree (a non-commutative
 *   operation reduces to rank 0 in rank order, which forwards to the root)</td></tr>
 * <tr><td>allreduce</td><td>blocking, p &ge; 3, n &ge; 128 KiB, all on one node: the shared segment
 *   (each member folds a p-th of the vector from everyone's copy, in rank order, any operation);
 *   blocking, p &ge; 2, n &le; 4 KiB, all on one node: the counter barrier (each member writes its
 *   vector into the segment, passes the barrier, folds all in rank order, any operation); else
 *   commutative: node-aware (node reduce, leaders allreduce, node bcast)
 *   when two-level applies; else ring if n &ge; 512 KiB and p is not a power of two; else
 *   Rabenseifner if n &ge; 64 KiB and count &ge; pof2; else recursive doubling. Non-commutative:
 *   recursive doubling, which keeps rank order (adjacent-pair fold for non-powers of two)</td></tr>
 * <tr><td>reduce_scatter(_block)</td><td>blocking, p &ge; 3, total &ge; 128 KiB, all on one node: the
 *   shared segment (each member writes the others' blocks in, then folds its own from every copy in
 *   rank order); else total &lt; 2 KiB: recursive-doubling allreduce and a local
 *   copy; commutative: ring reduce-scatter; else binomial reduce to 0 + linear scatterv</td></tr>
 * <tr><td>scan, exscan</td><td>recursive doubling (Hillis-Steele), any operation</td></tr>
 * <tr><td>gather, scatter</td><td>p &times; block &lt; 16 KiB: binomial tree; else linear</td></tr>
 * <tr><td>gatherv, scatterv</td><td>linear (only the root knows every count)</td></tr>
 * <tr><td>allgather(v)</td><td>blocking, p &ge; 3, total &ge; 64 KiB, all on one node: the shared
 *   segment; else p a power of two and total &lt; 512 KiB: recursive doubling;
 *   other p and total &lt; 80 KiB: Bruck; else ring</td></tr>
 * <tr><td>alltoall</td><td>blocking, p &ge; 3, block &ge; 128 KiB, all on one node: the shared segment; else
 *   block &le; 256 B and p &ge; 16: Bruck; block &ge; 256 KiB over several nodes (1 MiB on one):
 *   pairwise exchange; else everything posted at once (linear)</td></tr>
 * <tr><td>alltoallv</td><td>average block &ge; 256 KiB over several nodes (1 MiB on one): pairwise
 *   exchange; else linear (the two exchange the same messages, so ranks may choose differently)</td></tr>
 * <tr><td>alltoallw, neighbour_*</td><td>linear</td></tr>
 * <tr><td>intercommunicator</td><td>barrier, bcast, allreduce, allgather, reduce and
 *   reduce_scatter(_block) through the two group leaders; allgatherv, alltoall(v, w), gather(v) and
 *   scatter(v) straight between the groups ({@link org.railyard.engine.coll.CollInter}); scan, exscan and the neighbourhood
 *   collectives are refused on an intercommunicator</td></tr>
 * </table>
 * Every algorithm handles any p, zero counts (nothing is sent for an empty block) and every
 * root; reduction vectors are split only between items ({@link org.railyard.types.Reduction#width()}).
 */
package org.railyard.engine.coll;
