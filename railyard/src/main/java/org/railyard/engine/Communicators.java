package org.railyard.engine;

import java.util.Arrays;
import org.railyard.error.ErrorClass;
import org.railyard.error.RailyardException;

/**
 * Making communicators beyond dup and split: from a group, with a Cartesian or graph topology,
 * Cartesian sub-grids, and intercommunicators (create from two intracommunicators, merge, dup).
 * Every call is collective over the communicator it starts from, and agrees on fresh context ids
 * the way {@link Engine#dup} does: an allreduce (MAX) of every member's lowest unused id.
 */
public final class Communicators {
    private Communicators() {
    }

    /** Collective over intracommunicator {@code c}: {@code n} consecutive context ids no member uses. */
    private static int agree(Engine e, CommState c, int n) {
        long[] mine = {e.freeContext()};
        long[] max = new long[1];
        e.collectives().allreduce(c, mine, 0, max, 0, 1, Kind.LONG, Reduction.MAX);
        int ctx = (int) max[0];
        e.contextsUsed(ctx + n);
        return ctx;
    }

    private static void intra(Engine e, CommState c, String what) {
        e.checkComm(c);
        if (c.isInter()) {
            throw new RailyardException(ErrorClass.COMM, what + " needs an intracommunicator; " + c.name() + " is an intercommunicator");
        }
    }

    /**
     * Collective over {@code c}: a communicator over {@code group} (world ranks, all members of
     * {@code c}, in the new rank order; every member of {@code c} passes the same group). Members
     * outside the group get null.
     */
    public static CommState create(Engine e, CommState c, int[] group) {
        intra(e, c, "create");
        boolean[] seen = new boolean[e.size()];
        for (int w : group) {
            if (w < 0 || w >= e.size() || c.localRank(w) < 0) {
                throw new RailyardException(ErrorClass.RANK, "world rank " + w + " of the group is not a member of " + c.name());
            }
            if (seen[w]) {
                throw new RailyardException(ErrorClass.ARG, "world rank " + w + " appears twice in the group");
            }
            seen[w] = true;
        }
        int ctx = agree(e, c, 2);
        int child = ++c.children;
        return seen[e.rank()] ? new CommState(ctx, group.clone(), e.size(), e.rank(), c.name() + ".create" + child) : null;
    }

    /**
     * Collective over {@code c}: one communicator per node, holding the members of {@code c} that
     * run on this process's node, ordered by {@code key} then by rank in {@code c} (MPI's
     * {@code MPI_Comm_split_type} with {@code MPI_COMM_TYPE_SHARED}). Nodes are told apart as
     * the shared-memory transport tells them (host name and boot id, or {@code railyard.node}).
     */
    public static CommState splitShared(Engine e, CommState c, int key) {
        intra(e, c, "split by node");
        return e.split(c, e.collectives().nodes(c).nodeOf[c.rank], key);
    }

    /**
     * Collective over {@code c}: a communicator with a Cartesian topology over the first
     * {@code prod(dims)} ranks of {@code c}; the others get null. Without {@code reorder} they keep
     * their order. With it, when those processes run on several nodes, they may be placed anew
     * ({@link #cartOrder}) so that fewer grid neighbours sit on different nodes; the choice log
     * says when that happens.
     */
    public static CommState cart(Engine e, CommState c, int[] dims, boolean[] periods, boolean reorder) {
        intra(e, c, "cart create");
        CartTopology topo = new CartTopology(dims, periods);
        int[] order = reorder && topo.size() <= c.size() ? reordered(e, c, topo, "cart " + Arrays.toString(dims)) : null;
        return withTopology(e, c, topo, "cart", order);
    }

    /** The placement reorder chooses for {@code topo} on {@code c} (logged), or null to keep the ranks' order. */
    private static int[] reordered(Engine e, CommState c, Topology topo, String what) {
        int[] order = placement(e, c, topo);
        if (order != null) {
            e.choice("rank " + e.rank() + ": " + what + " on " + c.name() + ": ranks reordered by node ("
                    + e.collectives().nodes(c).count + " nodes; rank i of the topology is rank order[i] of " + c.name()
                    + "): order " + (order.length <= 64 ? Arrays.toString(order)
                            : Arrays.toString(Arrays.copyOf(order, 64)).replace("]", ", ...]")));
        }
        return order;
    }

    /** The layout of {@code topo} over {@code c}'s nodes ({@link #cartOrder}, {@link #graphOrder}), or null to keep the ranks' order. */
    private static int[] placement(Engine e, CommState c, Topology topo) {
        CollNodes nodes = e.collectives().nodes(c);
        if (nodes.count < 2) {
            return null;
        }
        return topo instanceof CartTopology cart ? cartOrder(cart, nodes.nodeOf) : graphOrder(topo, nodes.nodeOf);
    }

    /** This process's rank in the topology reorder would make of {@code c}, or {@link Engine#UNDEFINED} if it has none. */
    private static int mapped(Engine e, CommState c, Topology topo, String kind) {
        checkFits(c, topo, kind);
        if (c.rank >= topo.size()) {
            return Engine.UNDEFINED;
        }
        int[] order = placement(e, c, topo);
        if (order != null) {
            for (int i = 0; i < order.length; i++) {
                if (order[i] == c.rank) {
                    return i;
                }
            }
        }
        return c.rank;
    }

    /** This process's rank in {@code cart(e, c, dims, periods, true)}, or {@link Engine#UNDEFINED} if it has none. */
    public static int cartMap(Engine e, CommState c, int[] dims, boolean[] periods) {
        intra(e, c, "cart map");
        return mapped(e, c, new CartTopology(dims, periods), "cart");
    }

    /**
     * A placement of the first {@code t.size()} ranks on the grid (entry i: the rank that takes
     * cart rank i) with fewer neighbour links between nodes ({@code nodeOf}: node index of each
     * rank) than their own order has, or null when none of the candidates does better. The
     * candidates take the ranks node by node (in rank order within a node) and lay them along
     * the grid with one dimension outermost, so that each node fills slabs across that
     * dimension; one candidate per dimension, each scored by counting the links it cuts. With
     * ranks dealt to the nodes in turn (a cyclic placement) their own order may cut every link of
     * a dimension, where slabs cut only their boundaries.
     */
    static int[] cartOrder(CartTopology t, int[] nodeOf) {
        int n = t.size();
        int[] byNode = byNode(nodeOf, n);
        int[] dims = t.dims();
        int[] best = null;
        long bestCut = cutLinks(t, nodeOf, null);
        for (int outer = 0; outer < dims.length; outer++) {
            // cells counted with dimension outer slowest, the others in their order
            int[] loop = new int[dims.length];
            loop[0] = outer;
            for (int d = 0, k = 1; d < dims.length; d++) {
                if (d != outer) {
                    loop[k++] = d;
                }
            }
            int[] order = new int[n];
            int[] cell = new int[dims.length];
            for (int i = 0; i < n; i++) {
                order[t.rank(cell)] = byNode[i];
                for (int k = dims.length - 1; k >= 0; k--) {
                    int d = loop[k];
                    if (++cell[d] < dims[d]) {
                        break;
                    }
                    cell[d] = 0;
                }
            }
            long cut = cutLinks(t, nodeOf, order);
            if (cut < bestCut) {
                bestCut = cut;
                best = order;
            }
        }
        return best;
    }

    /**
     * A placement of the first {@code t.size()} ranks on the vertices of a graph (entry i: the rank
     * that takes vertex i): the ranks node by node, so each node holds a run of consecutive
     * vertices, if that cuts fewer edges between nodes than their own order; else null. Graphs
     * numbered with some locality (rings, meshes, trees in breadth-first order) keep most edges
     * inside a node that way.
     */
    static int[] graphOrder(Topology t, int[] nodeOf) {
        int[] order = byNode(nodeOf, t.size());
        return cutLinks(t, nodeOf, order) < cutLinks(t, nodeOf, null) ? order : null;
    }

    /** The first {@code n} ranks ordered by node index ({@code nodeOf}), then by rank. */
    private static int[] byNode(int[] nodeOf, int n) {
        int nodes = 0;
        for (int r = 0; r < n; r++) {
            nodes = Math.max(nodes, nodeOf[r] + 1);
        }
        int[] start = new int[nodes + 1];
        for (int r = 0; r < n; r++) {
            start[nodeOf[r] + 1]++;
        }
        for (int i = 0; i < nodes; i++) {
            start[i + 1] += start[i];
        }
        int[] order = new int[n];
        for (int r = 0; r < n; r++) {
            order[start[nodeOf[r]]++] = r;
        }
        return order;
    }

    /** Links between neighbours (each way, as {@code neighbours} lists them) whose ranks run on different nodes. */
    private static long cutLinks(Topology t, int[] nodeOf, int[] order) {
        long cut = 0;
        for (int r = 0; r < t.size(); r++) {
            int here = nodeOf[order == null ? r : order[r]];
            for (int nb : t.neighbours(r)) {
                if (nb >= 0 && nodeOf[order == null ? nb : order[nb]] != here) {
                    cut++;
                }
            }
        }
        return cut;
    }

    /**
     * Collective over {@code c}: a communicator with a graph topology over the first
     * {@code index.length} ranks; the others get null. Without {@code reorder} they keep their
     * order. With it, when they run on several nodes, the ranks taken node by node (node i's
     * processes holding a run of consecutive vertices) replace their order if that cuts fewer
     * edges between nodes ({@link #graphOrder}); the choice log says when.
     */
    public static CommState graph(Engine e, CommState c, int[] index, int[] edges, boolean reorder) {
        intra(e, c, "graph create");
        GraphTopology topo = new GraphTopology(index, edges);
        int[] order = reorder && topo.size() <= c.size() ? reordered(e, c, topo, "graph of " + topo.size() + " vertices")
                : null;
        return withTopology(e, c, topo, "graph", order);
    }

    /** This process's rank in {@code graph(e, c, index, edges, true)}, or {@link Engine#UNDEFINED} if it has none. */
    public static int graphMap(Engine e, CommState c, int[] index, int[] edges) {
        intra(e, c, "graph map");
        return mapped(e, c, new GraphTopology(index, edges), "graph");
    }

    /**
     * Collective over {@code c}: a communicator over the same processes with a distributed graph
     * topology, each process giving its own edges ({@link DistGraphTopology}). The edges must agree
     * (as many edges from i to j in i's destinations as in j's sources); every process checks the
     * counts its peers announce, and if any disagree, all fail with an ARG error naming the first
     * pair found, instead of a neighbourhood collective waiting for a message that never comes.
     */
    public static CommState distGraph(Engine e, CommState c, int[] sources, int[] destinations, boolean reorder) {
        intra(e, c, "distributed graph create");
        int n = c.size();
        // a bad rank fails here alike on every process only if all pass bad ones; so the verdict is shared below
        RailyardException local = null;
        DistGraphTopology topo = null;
        try {
            topo = new DistGraphTopology(n, c.rank, sources, destinations);
        } catch (RailyardException x) {
            local = x;
        }
        int[] out = new int[n];
        int[] in = new int[n];
        if (topo != null) {
            for (int d : destinations) {
                out[d]++;
            }
        }
        int[] announced = new int[n];
        e.collectives().alltoall(c, out, 0, 1, Kind.INT, announced, 0, 1, Kind.INT);
        String mismatch = null;
        if (topo != null) {
            for (int r : sources) {
                in[r]++;
            }
            for (int r = 0; r < n && mismatch == null; r++) {
                if (in[r] != announced[r]) {
                    mismatch = "process " + c.rank + " of " + c.name() + " lists " + in[r] + " edge(s) from " + r
                            + " among its sources, but " + r + " lists " + announced[r] + " to " + c.rank
                            + " among its destinations";
                }
            }
        }
        // the first failing process, if any, tells everyone
        long[] bad = {local != null || mismatch != null ? c.rank : Long.MAX_VALUE};
        long[] first = new long[1];
        e.collectives().allreduce(c, bad, 0, first, 0, 1, Kind.LONG, Reduction.MIN);
        if (local != null) {
            throw local;
        }
        if (mismatch != null) {
            throw new RailyardException(ErrorClass.ARG, "distributed graph edges disagree: " + mismatch);
        }
        if (first[0] != Long.MAX_VALUE) {
            throw new RailyardException(ErrorClass.ARG, "distributed graph create failed: process " + first[0] + " of "
                    + c.name() + " gave edges that name no process or disagree with its peers");
        }
        return withTopology(e, c, topo, "distgraph", null);
    }

    /**
     * Collective over {@code c}: a communicator over the same processes with a distributed graph
     * topology whose edges any process may give (MPI's {@code MPI_Dist_graph_create}): this one
     * gives {@code degrees[i]} edges from {@code sources[i]}, to the next {@code degrees[i]}
     * entries of {@code destinations}. Every edge is sent to the two processes it joins, so each
     * learns its own sources and destinations; both lists follow the order of the edges' givers
     * (by rank, then as each gave them), so repeated edges between two processes pair up in the
     * neighbourhood collectives. A process with a malformed list fails with its own error, and
     * the others with an ARG error naming it.
     */
    public static CommState distGraph(Engine e, CommState c, int[] sources, int[] degrees, int[] destinations,
                                      boolean reorder) {
        intra(e, c, "distributed graph create");
        int n = c.size();
        RailyardException local = null;
        try {
            checkEdgeList(n, sources, degrees, destinations);
        } catch (RailyardException x) {
            local = x;
        }
        // the verdict first, so that no process waits in the exchange for one that gave up
        long[] bad = {local != null ? c.rank : Long.MAX_VALUE};
        long[] first = new long[1];
        e.collectives().allreduce(c, bad, 0, first, 0, 1, Kind.LONG, Reduction.MIN);
        if (local != null) {
            throw local;
        }
        if (first[0] != Long.MAX_VALUE) {
            throw new RailyardException(ErrorClass.ARG, "distributed graph create failed: process " + first[0] + " of "
                    + c.name() + " gave a malformed edge list");
        }
        // each edge (s, d) as two ints to s and to d (once when s == d)
        int[] scounts = new int[n];
        forEachEdge(sources, degrees, destinations, (s, d) -> {
            scounts[s] += 2;
            if (d != s) {
                scounts[d] += 2;
            }
        });
        int[] rcounts = new int[n];
        e.collectives().alltoall(c, scounts, 0, 1, Kind.INT, rcounts, 0, 1, Kind.INT);
        int[] sdispls = displacements(scounts);
        int[] rdispls = displacements(rcounts);
        int[] send = new int[sdispls[n - 1] + scounts[n - 1]];
        int[] fill = sdispls.clone();
        forEachEdge(sources, degrees, destinations, (s, d) -> {
            send[fill[s]++] = s;
            send[fill[s]++] = d;
            if (d != s) {
                send[fill[d]++] = s;
                send[fill[d]++] = d;
            }
        });
        int[] recv = new int[rdispls[n - 1] + rcounts[n - 1]];
        e.collectives().alltoallv(c, send, 0, scounts, sdispls, Kind.INT, recv, 0, rcounts, rdispls, Kind.INT);
        int ins = 0;
        int outs = 0;
        for (int i = 0; i < recv.length; i += 2) {
            ins += recv[i + 1] == c.rank ? 1 : 0;
            outs += recv[i] == c.rank ? 1 : 0;
        }
        int[] from = new int[ins];
        int[] to = new int[outs];
        ins = 0;
        outs = 0;
        // blocks arrive in the givers' rank order, each in its giver's order
        for (int i = 0; i < recv.length; i += 2) {
            if (recv[i + 1] == c.rank) {
                from[ins++] = recv[i];
            }
            if (recv[i] == c.rank) {
                to[outs++] = recv[i + 1];
            }
        }
        return withTopology(e, c, new DistGraphTopology(n, c.rank, from, to), "distgraph", null);
    }

    private static void checkEdgeList(int n, int[] sources, int[] degrees, int[] destinations) {
        if (sources == null || degrees == null || destinations == null) {
            throw new RailyardException(ErrorClass.ARG, "distributed graph sources, degrees and destinations must not be null");
        }
        if (degrees.length != sources.length) {
            throw new RailyardException(ErrorClass.ARG, "distributed graph: " + sources.length + " sources but "
                    + degrees.length + " degrees");
        }
        long total = 0;
        for (int i = 0; i < sources.length; i++) {
            if (sources[i] < 0 || sources[i] >= n) {
                throw new RailyardException(ErrorClass.RANK, "distributed graph source " + sources[i]
                        + " is out of range [0, " + n + ")");
            }
            if (degrees[i] < 0) {
                throw new RailyardException(ErrorClass.ARG, "distributed graph degree " + degrees[i] + " of source "
                        + sources[i] + " is negative");
            }
            total += degrees[i];
        }
        if (total != destinations.length) {
            throw new RailyardException(ErrorClass.ARG, "distributed graph degrees add up to " + total + " but "
                    + destinations.length + " destinations are given");
        }
        for (int d : destinations) {
            if (d < 0 || d >= n) {
                throw new RailyardException(ErrorClass.RANK, "distributed graph destination " + d
                        + " is out of range [0, " + n + ")");
            }
        }
    }

    private interface EdgeVisitor {
        void edge(int source, int destination);
    }

    private static void forEachEdge(int[] sources, int[] degrees, int[] destinations, EdgeVisitor v) {
        int at = 0;
        for (int i = 0; i < sources.length; i++) {
            for (int k = 0; k < degrees[i]; k++) {
                v.edge(sources[i], destinations[at++]);
            }
        }
    }

    private static int[] displacements(int[] counts) {
        int[] d = new int[counts.length];
        for (int i = 1; i < counts.length; i++) {
            d[i] = d[i - 1] + counts[i - 1];
        }
        return d;
    }

    private static void checkFits(CommState c, Topology topo, String kind) {
        if (topo.size() > c.size()) {
            throw new RailyardException(ErrorClass.ARG, "a " + kind + " topology of " + topo.size()
                    + " processes does not fit " + c.name() + " of " + c.size());
        }
    }

    /**
     * The communicator of the topology over the first {@code topo.size()} ranks of {@code c}, taken
     * in {@code order} (position i held by rank {@code order[i]} of {@code c}) or, when it is null,
     * in their order.
     */
    private static CommState withTopology(Engine e, CommState c, Topology topo, String kind, int[] order) {
        int n = topo.size();
        checkFits(c, topo, kind);
        int ctx = agree(e, c, 2);
        int child = ++c.children;
        if (c.rank >= n) {
            return null;
        }
        int[] members = new int[n];
        for (int i = 0; i < n; i++) {
            members[i] = c.worldRanks[order == null ? i : order[i]];
        }
        CommState s = new CommState(ctx, members, e.size(), e.rank(), c.name() + "." + kind + child);
        s.topology = topo;
        return s;
    }

    /**
     * Collective over Cartesian {@code c}: the sub-grids that keep the dimensions flagged in
     * {@code remain}; this process gets the one through its own coordinates, ranked in row-major
     * order of the kept coordinates.
     */
    public static CommState cartSub(Engine e, CommState c, boolean[] remain) {
        intra(e, c, "cart sub");
        if (!(c.topology() instanceof CartTopology cart)) {
            throw new RailyardException(ErrorClass.COMM, c.name() + " has no Cartesian topology");
        }
        int nd = cart.ndims();
        if (remain.length != nd) {
            throw new RailyardException(ErrorClass.ARG, "remain has " + remain.length + " entries for " + nd + " dimensions");
        }
        int[] dims = cart.dims();
        boolean[] periods = cart.periods();
        int[] coords = cart.coords(c.rank);
        int color = 0;
        int key = 0;
        int kept = 0;
        for (int d = 0; d < nd; d++) {
            if (remain[d]) {
                key = key * dims[d] + coords[d];
                kept++;
            } else {
                color = color * dims[d] + coords[d];
            }
        }
        int[] subDims = new int[kept];
        boolean[] subPeriods = new boolean[kept];
        for (int d = 0, j = 0; d < nd; d++) {
            if (remain[d]) {
                subDims[j] = dims[d];
                subPeriods[j++] = periods[d];
            }
        }
        CommState s = e.split(c, color, key);
        s.topology = new CartTopology(subDims, subPeriods);
        return s;
    }

    /**
     * Collective over {@code local} (and, through the two leaders, over the remote group): an
     * intercommunicator between {@code local} and the group whose leader is {@code remoteLeader}
     * in {@code peer}. The leaders ({@code localLeader} in each group) exchange their groups and
     * context proposals over {@code peer} with {@code tag}; each broadcasts what it learnt.
     */
    public static CommState intercommCreate(Engine e, CommState local, int localLeader, CommState peer, int remoteLeader,
                                            int tag) {
        intra(e, local, "intercomm create");
        if (localLeader < 0 || localLeader >= local.size()) {
            throw new RailyardException(ErrorClass.RANK, "local leader " + localLeader + " is out of range [0, "
                    + local.size() + ") for " + local.name());
        }
        long[] proposal = {e.freeContext()};
        long[] localMax = new long[1];
        e.collectives().allreduce(local, proposal, 0, localMax, 0, 1, Kind.LONG, Reduction.MAX);
        long[] agreed = new long[2];
        int[] remote;
        if (local.rank == localLeader) {
            long[] mine = {localMax[0], local.size()};
            long[] theirs = new long[2];
            exchange(e, peer, mine, theirs, Kind.LONG, 2, 2, remoteLeader, tag);
            remote = new int[(int) theirs[1]];
            exchange(e, peer, local.worldRanks, remote, Kind.INT, local.size(), remote.length, remoteLeader, tag);
            agreed[0] = Math.max(localMax[0], theirs[0]);
            agreed[1] = remote.length;
            e.collectives().bcast(local, agreed, Kind.LONG, 0, 2, localLeader);
        } else {
            e.collectives().bcast(local, agreed, Kind.LONG, 0, 2, localLeader);
            remote = new int[(int) agreed[1]];
        }
        e.collectives().bcast(local, remote, Kind.INT, 0, remote.length, localLeader);
        for (int w : remote) {
            if (local.localRank(w) >= 0) {
                throw new RailyardException(ErrorClass.COMM, "the groups of an intercommunicator must be disjoint; world rank "
                        + w + " is in both");
            }
        }
        int ctx = (int) agreed[0];
        e.contextsUsed(ctx + 4);
        return new CommState(ctx, local.worldRanks.clone(), remote, e.size(), e.rank(), local.name() + ".inter" + (++local.children));
    }

    /** Sends {@code out} to and receives {@code in} from {@code peerRank} of {@code c}, with {@code tag}. */
    private static void exchange(Engine e, CommState c, Object out, Object in, Kind k, int outCount, int inCount,
                                 int peerRank, int tag) {
        Transfer r = e.irecv(c, in, k, 0, inCount, peerRank, tag);
        Transfer s = e.isend(c, out, k, 0, outCount, peerRank, tag, Engine.MODE_STANDARD);
        e.await(s);
        e.await(r);
    }

    /**
     * The leaders of intercommunicator {@code c}'s two groups swap {@code mine} for the remote
     * group's values, on the collective context (so no user message can match), and each
     * broadcasts the answer in its group. Collective over both groups.
     */
    private static long[] acrossGroups(Engine e, CommState c, long[] mine) {
        long[] theirs = new long[mine.length];
        int tag = (c.collSeq++ & 0x3F_FFFF) << 8;
        if (c.rank == 0) {
            Transfer r = e.irecvUnchecked(c, c.context + 1, theirs, Kind.LONG, 0, mine.length, 0, tag);
            Transfer s = e.isendUnchecked(c, c.context + 1, mine, Kind.LONG, 0, mine.length, 0, tag, Engine.MODE_STANDARD);
            e.await(s);
            e.await(r);
        }
        e.collectives().bcast(c.localView(), theirs, Kind.LONG, 0, mine.length, 0);
        return theirs;
    }

    private static void inter(Engine e, CommState c, String what) {
        e.checkComm(c);
        if (!c.isInter()) {
            throw new RailyardException(ErrorClass.COMM, what + " needs an intercommunicator; " + c.name() + " is not one");
        }
    }

    /** Collective over both groups: the context proposal of this group (the maximum over its members). */
    private static long groupProposal(Engine e, CommState c) {
        long[] proposal = {e.freeContext()};
        long[] max = new long[1];
        e.collectives().allreduce(c.localView(), proposal, 0, max, 0, 1, Kind.LONG, Reduction.MAX);
        return max[0];
    }

    /**
     * Collective over both groups of {@code c}: an intracommunicator over their union. The group
     * that passes {@code high = false} comes first; if both pass the same, the group whose leader
     * has the lower world rank comes first.
     */
    public static CommState merge(Engine e, CommState c, boolean high) {
        inter(e, c, "merge");
        int[] localGroup = c.localGroup();
        long[] mine = {groupProposal(e, c), high ? 1 : 0, localGroup[0]};
        long[] theirs = acrossGroups(e, c, mine);
        boolean theirHigh = theirs[1] != 0;
        boolean first = high == theirHigh ? localGroup[0] < theirs[2] : !high;
        int[] remote = c.worldRanks;
        int[] all = new int[localGroup.length + remote.length];
        System.arraycopy(first ? localGroup : remote, 0, all, 0, first ? localGroup.length : remote.length);
        System.arraycopy(first ? remote : localGroup, 0, all, first ? localGroup.length : remote.length,
                first ? remote.length : localGroup.length);
        int ctx = (int) Math.max(mine[0], theirs[0]);
        e.contextsUsed(ctx + 2);
        return new CommState(ctx, all, e.size(), e.rank(), c.name() + ".merge" + (++c.children));
    }

    /**
     * Collective: a copy of {@code c} with fresh contexts, keeping its topology; for an
     * intercommunicator, over the same two groups.
     */
    public static CommState dup(Engine e, CommState c) {
        if (c.isInter()) {
            return interDup(e, c);
        }
        CommState s = e.dup(c);
        s.topology = c.topology;
        return s;
    }

    /** Collective over both groups of {@code c}: an intercommunicator over the same groups with fresh contexts. */
    public static CommState interDup(Engine e, CommState c) {
        inter(e, c, "dup");
        long[] mine = {groupProposal(e, c)};
        long[] theirs = acrossGroups(e, c, mine);
        int ctx = (int) Math.max(mine[0], theirs[0]);
        e.contextsUsed(ctx + 4);
        return new CommState(ctx, c.localGroup(), c.worldRanks.clone(), e.size(), e.rank(), c.name() + ".dup" + (++c.children));
    }
}
