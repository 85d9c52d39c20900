package org.railyard.engine.coll;

import org.railyard.types.Reduction;

import static org.railyard.engine.coll.CollChecks.*;
import static org.railyard.engine.coll.CollChoice.*;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.locks.ReentrantLock;
import org.railyard.types.Kind;
import org.railyard.engine.Transfer;
import org.railyard.engine.comm.CommState;
import org.railyard.error.ErrorClass;
import org.railyard.error.RailyardException;

/**
 * Every collective operation, blocking and non-blocking, on the engine's point-to-point layer.
 * Each call checks its arguments, chooses an algorithm, builds it as a {@link CollSchedule} and
 * starts it; the non-blocking form ({@code ibcast}, ...) returns the schedule as a
 * {@link Transfer}, the blocking form waits for it. Schedules advance from the progress engine
 * (after every duty cycle, whoever runs it: a waiting caller or the background agent), never from
 * a thread of their own. Collective messages travel on each communicator's second context, so
 * they never match a user's receive.
 *
 * <p>All members of a communicator must start its collectives in the same order (as in MPI), and
 * two threads must not start collectives on one communicator at the same time; any number may be
 * outstanding.
 *
 * <h2>Algorithms (p processes, n bytes; thresholds in {@link CollTuning}, all settable)</h2>
 * <table>
 * <tr><th>collective</th><th>choice</th></tr>
 * <tr><td>any of barrier, bcast, reduce and allreduce (commutative operations), gather, scatter,
 *   allgather(v), alltoall; gatherv, scatterv, alltoallv when blocking</td><td>site-aware
 *   ({@link CollSites}, {@link CollSitesMoves}) when the intracommunicator's members run on several
 *   sites ({@code railyard.site}), {@code railyard.coll.sites} is on and no other algorithm is forced:
 *   each pair of sites exchanges one message each way at most, and each site runs the node-aware
 *   or flat algorithms inside; else as below</td></tr>
 * <tr><td>barrier</td><td>node-aware (fan-in, dissemination among node leaders, fan-out) when
 *   several ranks share a node and there are several nodes; else dissemination</td></tr>
 * <tr><td>bcast</td><td>blocking, p &ge; 3, n &ge; 64 KiB (a quarter of that per doubling of p
 *   beyond 8), all on one node: the communicator's shared
 *   segment ({@link CollShm}: the root copies in, the others copy out after a barrier); else
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
 *   (each member folds a p-th of the vector from everyone's copy, in rank order, any operation); else
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
 *   scatter(v) straight between the groups ({@link CollInter}); scan, exscan and the neighbourhood
 *   collectives are refused on an intercommunicator</td></tr>
 * </table>
 * Every algorithm handles any p, zero counts (nothing is sent for an empty block) and every
 * root; reduction vectors are split only between items ({@link Reduction#width()}).
 *
 * <p>Choices are printable: the first time a communicator runs a collective in a size class
 * (powers of two of bytes), and whenever the algorithm for that class changes, one line goes to
 * the engine's choice log ({@link CollServices#choice}, {@code Engine.describeChoices()}, and standard error with
 * {@code RAILYARD_PRINT_CHOICES=true} or {@code railyard run --print-choices}), for example
 * {@code rank 0: WORLD (4 ranks): allreduce [1 KiB, 2 KiB) SUM: recursive doubling}.
 */
public final class Collectives {
    /** The root of an intercommunicator broadcast passes this as root; the rest of its group passes PROC_NULL. */
    public static final int ROOT = -3;

    private final CollServices p2p;
    final CollTuning tuning = new CollTuning();
    /** Schedules under way; touched only under the progress lock. */
    private CollSchedule activeHead;
    /** Finished schedules of blocking calls, kept for reuse (guarded by itself). */
    private final CollSchedule[] pool = new CollSchedule[8];
    /** The communicators with a shared segment mapped ({@link CollShm}), to unmap them at the end. */
    private final List<CommState> segments = new ArrayList<>();
    private int pooled;
    private final CollReductions reductions = new CollReductions(this);
    private final CollMoves moves = new CollMoves(this);
    private final CollNeighbours neighbours = new CollNeighbours(this);

    public Collectives(CollServices p2p) {
        this.p2p = p2p;
    }

    CollTuning tuning() {
        return tuning;
    }

    /**
     * Makes {@code c} look as if its ranks ran on the given sites and nodes (tests of the
     * site-aware algorithms; one name of each per rank).
     */
    public void assumeSites(CommState c, String[] siteOfRank, String[] nodeOfRank) {
        CollState.of(c).sites = CollSites.of(siteOfRank, nodeOfRank);
    }

    /** Makes {@code c} look as if its ranks ran on the given nodes (tests of the node-aware algorithms). */
    public void assumeNodes(CommState c, String... nodeOfRank) {
        CollState.of(c).nodes = CollNodes.of(nodeOfRank);
    }

    // ================================================================== running schedules

    /** Advances the collective schedules under way; called with the progress lock held after each duty cycle. */
    public int progress() {
        if (activeHead == null) {
            return 0;
        }
        int work = 0;
        CollSchedule prev = null;
        for (CollSchedule s = activeHead; s != null; ) {
            CollSchedule next = s.nextActive;
            work += s.advance();
            if (s.isDone()) {
                if (prev == null) {
                    activeHead = next;
                } else {
                    prev.nextActive = next;
                }
                s.nextActive = null;
            } else {
                prev = s;
            }
            s = next;
        }
        return work;
    }

    /** Starts a built schedule: its first rounds run now, the rest from the progress engine. */
    Transfer start(CollSchedule s) {
        ReentrantLock lock = p2p.progressLock();
        lock.lock();
        try {
            s.advance();
            if (!s.isDone()) {
                s.nextActive = activeHead;
                activeHead = s;
            }
        } finally {
            lock.unlock();
        }
        return s;
    }

    /** A schedule from the pool, for collective {@code id} of {@code bytes} (the choice log's size; -1: not logged). */
    CollSchedule schedule(CommState c, int id, Reduction op, long bytes, String algorithm) {
        CollSchedule s = null;
        synchronized (pool) {
            if (pooled > 0) {
                s = pool[--pooled];
                pool[pooled] = null;
            }
        }
        if (s == null) {
            s = new CollSchedule(p2p, tuning.scratchKeep);
        }
        s.reset(c, NAMES[id], op);
        s.algorithm = algorithm;
        if (bytes >= 0) {
            logChoice(c, id, op, bytes, algorithm);
        }
        return s;
    }

    /**
     * Waits for a blocking collective and gives its schedule back for reuse. Under the progress
     * lock a finished schedule is never on the active list (progress unlinks it in the same pass
     * that finishes it), so no duty cycle can still be looking at it. A failed one is dropped: a
     * receive it could not cancel may still write into its buffers.
     */
    void finish(Transfer t) {
        p2p.await(t);
        CollSchedule s = (CollSchedule) t;
        ReentrantLock lock = p2p.progressLock();
        lock.lock();
        try {
            synchronized (pool) {
                if (s.succeeded() && pooled < pool.length) {
                    pool[pooled++] = s;
                }
            }
        } finally {
            lock.unlock();
        }
    }

    /** One line in the choice log per (communicator, collective, size class) and algorithm change. */
    private void logChoice(CommState c, int id, Reduction op, long bytes, String algorithm) {
        int cls = bytes == 0 ? 0 : 64 - Long.numberOfLeadingZeros(bytes);
        int slot = id * SIZE_CLASSES + Math.min(cls, SIZE_CLASSES - 1);
        CollState st = CollState.of(c);
        if (st.logged == null) {
            st.logged = new String[NAMES.length * SIZE_CLASSES];
        }
        if (st.logged[slot] == algorithm) {
            return;
        }
        st.logged[slot] = algorithm;
        String size = cls == 0 ? "0 B" : "[" + bytesLabel(1L << (cls - 1)) + ", " + bytesLabel(1L << cls) + ")";
        String forced = tuning.forced(NAMES[id]);
        p2p.choice("rank " + p2p.rank() + ": " + c.name() + " (" + (c.isInter() ? "inter, " : "") + c.localSize()
                + " ranks): " + NAMES[id] + " " + size + (op == null ? "" : " " + op.name()) + ": " + algorithm
                + (forced != null && !forced.equals(algorithm) ? " (forced " + forced + " does not apply)" : ""));
    }

    /** The forced algorithm if it is one of {@code allowed}, else {@code dflt}. */
    String pick(int id, String dflt, String[] allowed) {
        String f = tuning.forced(NAMES[id]);
        if (f != null) {
            for (String a : allowed) {
                if (a.equals(f)) {
                    return a;
                }
            }
        }
        return dflt;
    }

    /**
     * A blocking collective {@code id} through the segment by cross-memory reads: this member
     * offers its send buffer ({@code offered} bytes from {@code soff}) if both its buffers are
     * native, and passes a barrier (not logged: what follows it is); if every member offered,
     * {@code reads} (given the offset of the half) copies the blocks in, and a closing barrier,
     * returned, keeps every member in the call until all have read. Null if some member's buffer
     * is on the heap: the caller goes through the cells, and the next calls do not ask for a
     * while ({@link CollShm#heapFound}). A failed read is thrown once the closing barrier has passed.
     */
    Transfer viaReads(CommState c, int id, CollShm shm, CollTeam t, int which, Object sbuf, int soff, Kind sk,
                              Object rbuf, long offered, long bytes, java.util.function.IntFunction<RailyardException> reads) {
        int at = shm.offer(t, sbuf, soff, sk, rbuf, offered);
        finish(start(barrierOf(c, id, t, -1)));
        if (!shm.allOffered(t, at)) {
            shm.heapFound(which);
            return null;
        }
        RailyardException failed = reads.apply(at);
        Transfer closing = start(barrierOf(c, id, t, bytes));
        if (failed != null) {
            finish(closing);
            throw failed;
        }
        return closing;
    }

    /**
     * A dissemination barrier of {@code c}, logged as collective {@code id} that reads the others'
     * buffers ({@code bytes} its size class), or not logged ({@code bytes} -1).
     */
    CollSchedule barrierOf(CommState c, int id, CollTeam t, long bytes) {
        CollSchedule s = schedule(c, id, null, bytes, CollShm.READS);
        CollTree.dissemination(s, t);
        return s;
    }

    /** The block size from which alltoall(v) goes pairwise: larger when every member is on one node. */
    long alltoallLong(CommState c) {
        return nodes(c).count == 1 ? tuning.alltoallLongNode : tuning.alltoallLong;
    }

    /** The node index (0, 1, ... in order of first appearance) of each rank of {@code c}; not to be modified. */
    public int[] nodeOf(CommState c) {
        return nodes(c).nodeOf;
    }

    /** The number of nodes {@code c}'s members run on. */
    public int nodeCount(CommState c) {
        return nodes(c).count;
    }

    /** The nodes of {@code c}'s members (as assumed by a test, if one did). */
    CollNodes nodes(CommState c) {
        CollState st = CollState.of(c);
        if (st.nodes == null) {
            st.nodes = CollNodes.of(p2p, c);
        }
        return st.nodes;
    }

    /**
     * The shared segment for a blocking collective {@code id} of {@code bytes} (the size the
     * choice log gives it) on {@code c}, mapped at the first call that qualifies; null when the
     * point-to-point algorithms run instead: the segment is off ({@code railyard.coll.shm}), the
     * call moves less than {@code from} bytes or has fewer than 3 processes and the segment is not
     * forced, another algorithm is forced, the communicator is an intercommunicator or spans
     * several nodes or sites, or some member could not map it (shared memory is not among its transports,
     * say: {@link CollShm#attach} agrees on that once). Every member decides alike from the same
     * settings.
     */
    CollShm shared(CommState c, int id, long bytes, long from) {
        CollState st = CollState.of(c);
        if (!tuning.shm || c.isInter() || c.size() < 2 || bytes == 0 || st.shmRefused || st.shmSetup) {
            return null;
        }
        String f = tuning.forced(NAMES[id]);
        // between two processes every byte is copied twice either way, and the ring overlaps the
        // writer's copy with the reader's where the segment puts a barrier between them
        if (f != null ? !f.equals(CollShm.NAME) : bytes < from || c.size() < 3) {
            return null;
        }
        // members on several sites are not on one node, whatever their node names say
        if (nodes(c).count != 1 || sitesFor(c, id) != null) {
            return null;
        }
        if (st.shm == null) {
            st.shmSetup = true;
            try {
                st.shm = CollShm.attach(p2p, this, c, CollShm.halfOf(tuning.shmSize, c.size()));
            } finally {
                st.shmSetup = false;
            }
            if (st.shm == null) {
                st.shmRefused = true;
                return null;
            }
            synchronized (segments) {
                segments.add(c);
            }
        }
        return st.shm;
    }

    /** Unmaps the shared segment of {@code c}, if it has one (the communicator is freed). */
    public void release(CommState c) {
        synchronized (segments) {
            CollState st = CollState.of(c);
            if (st.shm != null) {
                st.shm.close();
                st.shm = null;
                st.shmRefused = true;
                segments.remove(c);
            }
        }
    }

    /** Unmaps every shared segment (the engine closes). */
    public void close() {
        synchronized (segments) {
            for (CommState c : List.copyOf(segments)) {
                release(c);
            }
        }
    }

    /** The sites of {@code c}'s members (as assumed by a test, if one did). */
    CollSites sites(CommState c) {
        CollState st = CollState.of(c);
        if (st.sites == null) {
            st.sites = CollSites.of(p2p, c);
        }
        return st.sites;
    }

    /**
     * The site layout when collective {@code id} on {@code c} runs site-aware, else null: the
     * (intra)communicator has members on several sites, {@code railyard.coll.sites} is on, and no
     * other algorithm is forced for the collective. Every member decides alike.
     */
    CollSites sitesFor(CommState c, int id) {
        if (!tuning.sites || c.isInter() || c.size() < 2) {
            return null;
        }
        String f = tuning.forced(NAMES[id]);
        if (f != null && !f.equals(SITE_AWARE)) {
            return null;
        }
        CollSites st = sites(c);
        return st.spansSites() ? st : null;
    }

    boolean twoLevel(CommState c) {
        return tuning.nodeAware && c.size() > 2 && nodes(c).twoLevel();
    }

    // ================================================================== argument checks

    void check(CommState c, int id) {
        p2p.checkComm(c);
        if (c.isInter() && Arrays.stream(ON_INTER).noneMatch(x -> x == id)) {
            throw new RailyardException(ErrorClass.COMM, NAMES[id] + " is not available on intercommunicator " + c.name()
                    + " (" + String.join(", ", Arrays.stream(ON_INTER).mapToObj(x -> NAMES[x]).toList()) + " are)");
        }
    }

    // ================================================================== barrier, bcast

    public Transfer ibarrier(CommState c) {
        check(c, BARRIER);
        if (c.isInter()) {
            CollSchedule s = schedule(c, BARRIER, null, 0, INTER);
            CollInter.barrier(s, c);
            return start(s);
        }
        CollSites sites = sitesFor(c, BARRIER);
        if (sites != null) {
            CollSchedule s = schedule(c, BARRIER, null, 0, SITE_AWARE);
            sites.barrier(s, c.rank);
            return start(s);
        }
        String algo = c.size() == 1 ? LOCAL : twoLevel(c) ? pick(BARRIER, NODE_AWARE, BARRIER_ALGOS) : DISSEMINATION;
        CollSchedule s = schedule(c, BARRIER, null, 0, algo);
        if (algo == NODE_AWARE) {
            nodes(c).barrier(s, c.rank);
        } else {
            CollTree.dissemination(s, CollTeam.of(c));
        }
        return start(s);
    }

    public void barrier(CommState c) {
        finish(ibarrier(c));
    }

    /**
     * Broadcast of {@code count} elements from {@code root}. On an intercommunicator, root is
     * {@link #ROOT} at the root, {@link CommState#PROC_NULL} at the rest of its group, and the
     * root's remote rank in the other group.
     */
    public Transfer ibcast(CommState c, Object buf, Kind k, int off, int count, int root) {
        return bcast(c, buf, k, off, count, root, false);
    }

    public void bcast(CommState c, Object buf, Kind k, int off, int count, int root) {
        finish(bcast(c, buf, k, off, count, root, true));
    }

    private Transfer bcast(CommState c, Object buf, Kind k, int off, int count, int root, boolean blocking) {
        check(c, BCAST);
        long bytes = (long) count * (k == null ? 1 : k.size);
        if (c.isInter()) {
            if (root != ROOT && root != CommState.PROC_NULL) {
                checkRoot(c, root);
            }
            if (root != CommState.PROC_NULL) {
                checkBuffer("bcast buffer", buf, k, off, count);
            }
            CollSchedule s = schedule(c, BCAST, null, bytes, INTER);
            CollInter.bcast(s, c, root, buf, k, off, count);
            return start(s);
        }
        checkRoot(c, root);
        checkBuffer("bcast buffer", buf, k, off, count);
        CollSites sites = count > 0 ? sitesFor(c, BCAST) : null;
        if (sites != null) {
            CollSchedule s = schedule(c, BCAST, null, bytes, SITE_AWARE);
            sites.bcast(s, c.rank, root, buf, k, off, count, 1, bytes >= tuning.bcastLong);
            return start(s);
        }
        CollShm shm = blocking ? shared(c, BCAST, bytes, tuning.bcastSharedFrom(c.size())) : null;
        if (shm != null) {
            CollSchedule s = schedule(c, BCAST, null, bytes, CollShm.NAME);
            shm.bcast(s, CollTeam.of(c), root, buf, k, off, count);
            return start(s);
        }
        int p = c.size();
        String dflt = p == 1 || count == 0 ? LOCAL
                : twoLevel(c) ? NODE_AWARE
                : bytes >= tuning.bcastLong && p >= tuning.bcastScatterMinP && count >= p && nodes(c).count > 1
                ? SCATTER_RING
                : bytes >= tuning.bcastPipeline && p >= 3 && count >= 2 ? PIPELINE : BINOMIAL;
        String algo = dflt == LOCAL ? LOCAL : pick(BCAST, dflt, BCAST_ALGOS);
        if (algo == NODE_AWARE && !nodes(c).twoLevel()) {
            algo = BINOMIAL;
        }
        CollSchedule s = schedule(c, BCAST, null, bytes, algo);
        switch (algo) {
            case LOCAL -> { }
            case NODE_AWARE -> nodes(c).bcast(s, c.rank, root, buf, k, off, count, 1, bytes >= tuning.bcastLong);
            case SCATTER_RING -> CollTree.scatterRingBcast(s, CollTeam.of(c), root, buf, k, off, count, 1);
            case LINEAR -> CollTree.linearBcast(s, CollTeam.of(c), root, buf, k, off, count);
            case PIPELINE -> CollTree.pipelinedBcast(s, CollTeam.of(c), root, buf, k, off, count,
                    (int) Math.max(1, Math.min(count, tuning.bcastSegment / (k == null ? 1 : k.size))));
            default -> CollTree.binomialBcast(s, CollTeam.of(c), root, buf, k, off, count);
        }
        return start(s);
    }

    // ================================================================== reductions

    /** Reduction of everyone's {@code sbuf} into root's {@code rbuf}, in rank order. */
    public Transfer ireduce(CommState c, Object sbuf, int soff, Object rbuf, int roff, int count, Kind k, Reduction op,
                            int root) {
        return reductions.reduce(c, sbuf, soff, rbuf, roff, count, k, op, root, false);
    }

    public void reduce(CommState c, Object sbuf, int soff, Object rbuf, int roff, int count, Kind k, Reduction op, int root) {
        finish(reductions.reduce(c, sbuf, soff, rbuf, roff, count, k, op, root, true));
    }

    /**
     * Reduction of everyone's {@code sbuf} delivered to everyone's {@code rbuf}. On an
     * intercommunicator each group receives the reduction of the other group's vectors.
     */
    public Transfer iallreduce(CommState c, Object sbuf, int soff, Object rbuf, int roff, int count, Kind k, Reduction op) {
        return reductions.allreduce(c, sbuf, soff, rbuf, roff, count, k, op, false);
    }

    public void allreduce(CommState c, Object sbuf, int soff, Object rbuf, int roff, int count, Kind k, Reduction op) {
        finish(reductions.allreduce(c, sbuf, soff, rbuf, roff, count, k, op, true));
    }

    /**
     * Element-wise reduction of everyone's {@code sbuf} (of {@code sum(counts)} elements), whose
     * block r ({@code counts[r]} elements, in rank order) goes to rank r's {@code rbuf}. On an
     * intercommunicator, the reduction of the other group's vectors, with {@code counts} per
     * process of this group (both groups' totals must agree, as in MPI).
     */
    public Transfer ireduceScatter(CommState c, Object sbuf, int soff, Object rbuf, int roff, int[] counts, Kind k,
                                   Reduction op) {
        return reductions.reduceScatter(REDUCE_SCATTER, c, sbuf, soff, rbuf, roff, counts, k, op, false);
    }

    /** {@link #ireduceScatter} with {@code count} elements for every rank. */
    public Transfer ireduceScatterBlock(CommState c, Object sbuf, int soff, Object rbuf, int roff, int count, Kind k,
                                        Reduction op) {
        return reductions.reduceScatter(REDUCE_SCATTER_BLOCK, c, sbuf, soff, rbuf, roff, blocks(c, count), k, op, false);
    }

    public void reduceScatter(CommState c, Object sbuf, int soff, Object rbuf, int roff, int[] counts, Kind k, Reduction op) {
        finish(reductions.reduceScatter(REDUCE_SCATTER, c, sbuf, soff, rbuf, roff, counts, k, op, true));
    }

    public void reduceScatterBlock(CommState c, Object sbuf, int soff, Object rbuf, int roff, int count, Kind k,
                                   Reduction op) {
        finish(reductions.reduceScatter(REDUCE_SCATTER_BLOCK, c, sbuf, soff, rbuf, roff, blocks(c, count), k, op, true));
    }

    /** Inclusive prefix reduction: rank r gets the reduction of ranks 0 to r, in rank order. */
    public Transfer iscan(CommState c, Object sbuf, int soff, Object rbuf, int roff, int count, Kind k, Reduction op) {
        return reductions.scan(SCAN, c, sbuf, soff, rbuf, roff, count, k, op);
    }

    /** Exclusive prefix reduction: rank r gets the reduction of ranks 0 to r - 1; rank 0's buffer is left untouched. */
    public Transfer iexscan(CommState c, Object sbuf, int soff, Object rbuf, int roff, int count, Kind k, Reduction op) {
        return reductions.scan(EXSCAN, c, sbuf, soff, rbuf, roff, count, k, op);
    }

    public void scan(CommState c, Object sbuf, int soff, Object rbuf, int roff, int count, Kind k, Reduction op) {
        finish(iscan(c, sbuf, soff, rbuf, roff, count, k, op));
    }

    public void exscan(CommState c, Object sbuf, int soff, Object rbuf, int roff, int count, Kind k, Reduction op) {
        finish(iexscan(c, sbuf, soff, rbuf, roff, count, k, op));
    }

    // ================================================================== gather, scatter

    /**
     * Gathers {@code scount} elements from everyone into root's {@code rbuf}, block r at
     * {@code roff + r * rcount}. The receive arguments matter only at the root.
     */
    public Transfer igather(CommState c, Object sbuf, int soff, int scount, Kind sk, Object rbuf, int roff, int rcount,
                            Kind rk, int root) {
        return moves.igather(c, sbuf, soff, scount, sk, rbuf, roff, rcount, rk, root);
    }

    public void gather(CommState c, Object sbuf, int soff, int scount, Kind sk, Object rbuf, int roff, int rcount, Kind rk,
                       int root) {
        finish(igather(c, sbuf, soff, scount, sk, rbuf, roff, rcount, rk, root));
    }

    /** Gathers {@code scount} elements from each rank r into root's {@code rbuf} at {@code roff + displs[r]}; counts are the root's. */
    public Transfer igatherv(CommState c, Object sbuf, int soff, int scount, Kind sk, Object rbuf, int roff, int[] counts,
                             int[] displs, Kind rk, int root) {
        return moves.igatherv(c, sbuf, soff, scount, sk, rbuf, roff, counts, displs, rk, root, false);
    }

    public void gatherv(CommState c, Object sbuf, int soff, int scount, Kind sk, Object rbuf, int roff, int[] counts,
                        int[] displs, Kind rk, int root) {
        finish(moves.igatherv(c, sbuf, soff, scount, sk, rbuf, roff, counts, displs, rk, root, true));
    }

    /** Scatters root's {@code sbuf}, block r at {@code soff + r * scount}, to everyone's {@code rbuf}; send arguments matter at the root. */
    public Transfer iscatter(CommState c, Object sbuf, int soff, int scount, Kind sk, Object rbuf, int roff, int rcount,
                             Kind rk, int root) {
        return moves.iscatter(c, sbuf, soff, scount, sk, rbuf, roff, rcount, rk, root);
    }

    public void scatter(CommState c, Object sbuf, int soff, int scount, Kind sk, Object rbuf, int roff, int rcount, Kind rk,
                        int root) {
        finish(iscatter(c, sbuf, soff, scount, sk, rbuf, roff, rcount, rk, root));
    }

    /** Scatters {@code counts[r]} elements at {@code soff + displs[r]} of root's {@code sbuf} to rank r. */
    public Transfer iscatterv(CommState c, Object sbuf, int soff, int[] counts, int[] displs, Kind sk, Object rbuf, int roff,
                              int rcount, Kind rk, int root) {
        return moves.iscatterv(c, sbuf, soff, counts, displs, sk, rbuf, roff, rcount, rk, root, false);
    }

    public void scatterv(CommState c, Object sbuf, int soff, int[] counts, int[] displs, Kind sk, Object rbuf, int roff,
                         int rcount, Kind rk, int root) {
        finish(moves.iscatterv(c, sbuf, soff, counts, displs, sk, rbuf, roff, rcount, rk, root, true));
    }

    // ================================================================== allgather

    /** Everyone's {@code scount} elements to everyone's {@code rbuf}, block r at {@code roff + r * rcount}. */
    public Transfer iallgather(CommState c, Object sbuf, int soff, int scount, Kind sk, Object rbuf, int roff, int rcount,
                               Kind rk) {
        int[][] cd = CollTree.regular(c.size(), rcount);
        return moves.allgatherv(ALLGATHER, c, sbuf, soff, scount, sk, rbuf, roff, cd[0], cd[1], rk, false);
    }

    /** Everyone's {@code scount} elements to everyone's {@code rbuf}, rank r's at {@code roff + displs[r]}. */
    public Transfer iallgatherv(CommState c, Object sbuf, int soff, int scount, Kind sk, Object rbuf, int roff, int[] counts,
                                int[] displs, Kind rk) {
        return moves.allgatherv(ALLGATHERV, c, sbuf, soff, scount, sk, rbuf, roff, counts, displs, rk, false);
    }

    public void allgather(CommState c, Object sbuf, int soff, int scount, Kind sk, Object rbuf, int roff, int rcount, Kind rk) {
        int[][] cd = CollTree.regular(c.size(), rcount);
        finish(moves.allgatherv(ALLGATHER, c, sbuf, soff, scount, sk, rbuf, roff, cd[0], cd[1], rk, true));
    }

    public void allgatherv(CommState c, Object sbuf, int soff, int scount, Kind sk, Object rbuf, int roff, int[] counts,
                           int[] displs, Kind rk) {
        finish(moves.allgatherv(ALLGATHERV, c, sbuf, soff, scount, sk, rbuf, roff, counts, displs, rk, true));
    }

    // ================================================================== alltoall

    /** Block r of everyone's {@code sbuf} ({@code scount} elements at {@code soff + r * scount}) to rank r, in sender order. */
    public Transfer ialltoall(CommState c, Object sbuf, int soff, int scount, Kind sk, Object rbuf, int roff, int rcount,
                              Kind rk) {
        return moves.alltoall(c, sbuf, soff, scount, sk, rbuf, roff, rcount, rk, false);
    }

    public void alltoall(CommState c, Object sbuf, int soff, int scount, Kind sk, Object rbuf, int roff, int rcount, Kind rk) {
        finish(moves.alltoall(c, sbuf, soff, scount, sk, rbuf, roff, rcount, rk, true));
    }

    /** Rank r gets {@code scounts[r]} elements at {@code soff + sdispls[r]}; what rank r sends here lands at {@code roff + rdispls[r]}. */
    public Transfer ialltoallv(CommState c, Object sbuf, int soff, int[] scounts, int[] sdispls, Kind sk, Object rbuf,
                               int roff, int[] rcounts, int[] rdispls, Kind rk) {
        return moves.ialltoallv(c, sbuf, soff, scounts, sdispls, sk, rbuf, roff, rcounts, rdispls, rk, false);
    }

    public void alltoallv(CommState c, Object sbuf, int soff, int[] scounts, int[] sdispls, Kind sk, Object rbuf, int roff,
                          int[] rcounts, int[] rdispls, Kind rk) {
        finish(moves.ialltoallv(c, sbuf, soff, scounts, sdispls, sk, rbuf, roff, rcounts, rdispls, rk, true));
    }

    /**
     * The most general exchange: a count, a displacement and a type per peer, each displacement
     * in elements of its own type (from the start of the buffer; a byte buffer holds any mix).
     */
    public Transfer ialltoallw(CommState c, Object sbuf, int[] scounts, int[] sdispls, Kind[] sks, Object rbuf,
                               int[] rcounts, int[] rdispls, Kind[] rks) {
        return moves.ialltoallw(c, sbuf, scounts, sdispls, sks, rbuf, rcounts, rdispls, rks);
    }

    public void alltoallw(CommState c, Object sbuf, int[] scounts, int[] sdispls, Kind[] sks, Object rbuf, int[] rcounts,
                          int[] rdispls, Kind[] rks) {
        finish(ialltoallw(c, sbuf, scounts, sdispls, sks, rbuf, rcounts, rdispls, rks));
    }

    // ================================================================== neighbourhood

    /** Sends {@code sbuf} to every neighbour of the topology; block j of {@code rbuf} comes from neighbour j. */
    public Transfer ineighbourAllgather(CommState c, Object sbuf, int soff, int scount, Kind sk, Object rbuf, int roff,
                                        int rcount, Kind rk) {
        return neighbours.neighbour(NEIGHBOUR_ALLGATHER, c, false, sbuf, soff, scount, sk, rbuf, roff, rcount, rk);
    }

    /** Block j of {@code sbuf} to neighbour j; block j of {@code rbuf} from neighbour j. */
    public Transfer ineighbourAlltoall(CommState c, Object sbuf, int soff, int scount, Kind sk, Object rbuf, int roff,
                                       int rcount, Kind rk) {
        return neighbours.neighbour(NEIGHBOUR_ALLTOALL, c, true, sbuf, soff, scount, sk, rbuf, roff, rcount, rk);
    }

    public void neighbourAllgather(CommState c, Object sbuf, int soff, int scount, Kind sk, Object rbuf, int roff, int rcount,
                                   Kind rk) {
        finish(ineighbourAllgather(c, sbuf, soff, scount, sk, rbuf, roff, rcount, rk));
    }

    public void neighbourAlltoall(CommState c, Object sbuf, int soff, int scount, Kind sk, Object rbuf, int roff, int rcount,
                                  Kind rk) {
        finish(ineighbourAlltoall(c, sbuf, soff, scount, sk, rbuf, roff, rcount, rk));
    }

    /**
     * Sends {@code scount} elements of {@code sbuf} to every neighbour; block j of {@code rbuf}
     * ({@code rcounts[j]} elements at {@code roff + rdispls[j]}) comes from neighbour j. Blocks of
     * {@link CommState#PROC_NULL} neighbours are left untouched.
     */
    public Transfer ineighbourAllgatherv(CommState c, Object sbuf, int soff, int scount, Kind sk, Object rbuf, int roff,
                                         int[] rcounts, int[] rdispls, Kind rk) {
        return neighbours.ineighbourAllgatherv(c, sbuf, soff, scount, sk, rbuf, roff, rcounts, rdispls, rk);
    }

    /**
     * Block j of {@code sbuf} ({@code scounts[j]} elements at {@code soff + sdispls[j]}) goes to
     * neighbour j; block j of {@code rbuf} ({@code rcounts[j]} elements at {@code roff + rdispls[j]})
     * comes from neighbour j. Blocks of {@link CommState#PROC_NULL} neighbours move nothing.
     */
    public Transfer ineighbourAlltoallv(CommState c, Object sbuf, int soff, int[] scounts, int[] sdispls, Kind sk,
                                        Object rbuf, int roff, int[] rcounts, int[] rdispls, Kind rk) {
        return neighbours.ineighbourAlltoallv(c, sbuf, soff, scounts, sdispls, sk, rbuf, roff, rcounts, rdispls, rk);
    }

    /**
     * {@link #ineighbourAlltoallv} with a type per neighbour on each side. As in
     * {@link #ialltoallw}, each displacement is in elements of its own block's type, counted from
     * the start of the buffer (not in bytes as in MPI; a byte buffer holds any mix).
     */
    public Transfer ineighbourAlltoallw(CommState c, Object sbuf, int[] scounts, int[] sdispls, Kind[] sks, Object rbuf,
                                        int[] rcounts, int[] rdispls, Kind[] rks) {
        return neighbours.ineighbourAlltoallw(c, sbuf, scounts, sdispls, sks, rbuf, rcounts, rdispls, rks);
    }

    /** Blocking {@link #ineighbourAllgatherv}. */
    public void neighbourAllgatherv(CommState c, Object sbuf, int soff, int scount, Kind sk, Object rbuf, int roff,
                                    int[] rcounts, int[] rdispls, Kind rk) {
        finish(ineighbourAllgatherv(c, sbuf, soff, scount, sk, rbuf, roff, rcounts, rdispls, rk));
    }

    /** Blocking {@link #ineighbourAlltoallv}. */
    public void neighbourAlltoallv(CommState c, Object sbuf, int soff, int[] scounts, int[] sdispls, Kind sk, Object rbuf,
                                   int roff, int[] rcounts, int[] rdispls, Kind rk) {
        finish(ineighbourAlltoallv(c, sbuf, soff, scounts, sdispls, sk, rbuf, roff, rcounts, rdispls, rk));
    }

    /** Blocking {@link #ineighbourAlltoallw}. */
    public void neighbourAlltoallw(CommState c, Object sbuf, int[] scounts, int[] sdispls, Kind[] sks, Object rbuf,
                                   int[] rcounts, int[] rdispls, Kind[] rks) {
        finish(ineighbourAlltoallw(c, sbuf, scounts, sdispls, sks, rbuf, rcounts, rdispls, rks));
    }
}
