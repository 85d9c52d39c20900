package org.railyard.engine.comm;

import org.railyard.types.Topology;
import org.railyard.types.CartTopology;
import org.railyard.types.GraphTopology;
import org.railyard.types.DistGraphTopology;

import java.util.ArrayList;
import org.railyard.wire.CheckpointImage;
import java.util.Arrays;
import java.util.List;
import org.railyard.types.Kind;
import org.railyard.error.ErrorClass;
import org.railyard.error.RailyardException;

/**
 * The communicators of this process: WORLD and SELF, and every way of making more (dup, split,
 * split by node, from a group, with a Cartesian or graph topology, Cartesian sub-grids,
 * intercommunicators: create from two intracommunicators, merge, dup) and of freeing one.
 * Every call is collective over the communicator it starts from, and agrees on fresh context ids
 * by an allreduce (MAX) of every member's lowest unused id.
 */
public final class Communicators {
    private final CommServices services;
    private final int worldSize;
    private final int worldRank;
    private final CommState world;
    private final CommState self;
    /** The lowest context id this process has not used: its proposal when the members agree on one. */
    private int nextContext = 4;

    /** The communicators of world rank {@code worldRank} of {@code worldSize}; WORLD takes contexts 0-1, SELF 2-3. */
    public Communicators(CommServices services, int worldSize, int worldRank) {
        this.services = services;
        this.worldSize = worldSize;
        this.worldRank = worldRank;
        int[] all = new int[worldSize];
        for (int i = 0; i < worldSize; i++) {
            all[i] = i;
        }
        this.world = new CommState(0, all, worldSize, worldRank, "WORLD");
        this.self = new CommState(2, new int[] {worldRank}, worldSize, worldRank, "SELF");
    }

    public CommState world() {
        return world;
    }

    public CommState self() {
        return self;
    }

    private final CommRecord record = new CommRecord();

    /**
     * What keeps this process from a checkpoint, or null: a communicator made other than by an
     * intracommunicator {@code dup}, which a restarted rank could not make again without its peers.
     */
    public String pendingForCheckpoint() {
        return record.pending();
    }

    /** Records the context counter, the communicators made (their contexts in order) and every communicator's counters. */
    public void checkpoint(CheckpointImage img) {
        img.nextContext = nextContext;
        record.checkpoint(img, world, self);
    }

    /**
     * A rank started from a checkpoint: WORLD and SELF take their counters back now; the program's
     * {@code dup} calls before the checkpoint are answered in order from the record (no collective
     * runs), each with its counters.
     */
    public void resume(CheckpointImage img) {
        record.resume(img, world, self);
        nextContext = img.nextContext;
    }

    /** Collective over intracommunicator {@code c}: {@code n} consecutive context ids no member uses. */
    private int agree(CommState c, int n) {
        record.requireNothingToReplay();
        long[] mine = {nextContext};
        long[] max = new long[1];
        services.allreduce(c, mine, max, 1, CommServices.Fold.MAX);
        int ctx = (int) max[0];
        contextsUsed(ctx + n);
        return ctx;
    }

    /** Records that contexts below {@code end} are taken (agreed by a collective elsewhere). */
    private void contextsUsed(int end) {
        record.created();
        nextContext = Math.max(nextContext, end);
    }

    /** Collective over intracommunicator {@code c}: a copy with fresh contexts (no topology). */
    private CommState plainDup(CommState c) {
        services.checkComm(c);
        CommState replayed = record.replayDup(c, worldSize, worldRank);
        if (replayed != null) {
            // restarted from a checkpoint: the peers made this one long ago; the record says its context
            return replayed;
        }
        int ctx = agree(c, 2);
        CommState s = new CommState(ctx, c.worldRanks.clone(), worldSize, worldRank, c.name() + ".dup" + c.nextChild());
        record.dupMade(s);
        return s;
    }

    /**
     * Collective over {@code c}: one communicator per {@code color} (non-negative), its members
     * ordered by {@code key} then by rank in {@code c}; members passing {@link CommState#UNDEFINED} get null.
     */
    public CommState split(CommState c, int color, int key) {
        services.checkComm(c);
        if (color < 0 && color != CommState.UNDEFINED) {
            throw new RailyardException(ErrorClass.ARG, "color " + color + " must be non-negative or UNDEFINED");
        }
        int n = c.size();
        long[] mine = new long[2 * n];
        mine[2 * c.rank] = color;
        mine[2 * c.rank + 1] = key;
        long[] all = new long[2 * n];
        services.allreduce(c, mine, all, 2 * n, CommServices.Fold.SUM);
        int ctx = agree(c, 2);
        int child = c.nextChild();
        if (color == CommState.UNDEFINED) {
            return null;
        }
        List<int[]> members = new ArrayList<>();
        for (int r = 0; r < n; r++) {
            if (all[2 * r] == color) {
                members.add(new int[] {(int) all[2 * r + 1], r});
            }
        }
        members.sort((a, b) -> a[0] != b[0] ? Integer.compare(a[0], b[0]) : Integer.compare(a[1], b[1]));
        int[] group = new int[members.size()];
        for (int i = 0; i < group.length; i++) {
            group[i] = c.worldRanks[members.get(i)[1]];
        }
        return new CommState(ctx, group, worldSize, worldRank, c.name() + ".split" + child + "(" + color + ")");
    }

    /** Frees {@code c}: every later use fails; WORLD and SELF cannot be freed. */
    public void free(CommState c) {
        if (c == world || c == self) {
            throw new RailyardException(ErrorClass.COMM, "communicator " + c.name() + " cannot be freed");
        }
        c.markFreed();
        services.freed(c);
    }

    private void intra(CommState c, String what) {
        services.checkComm(c);
        if (c.isInter()) {
            throw new RailyardException(ErrorClass.COMM, what + " needs an intracommunicator; " + c.name() + " is an intercommunicator");
        }
    }

    /**
     * Collective over {@code c}: a communicator over {@code group} (world ranks, all members of
     * {@code c}, in the new rank order; every member of {@code c} passes the same group). Members
     * outside the group get null.
     */
    public CommState create(CommState c, int[] group) {
        intra(c, "create");
        boolean[] seen = new boolean[worldSize];
        for (int w : group) {
            if (w < 0 || w >= worldSize || c.localRank(w) < 0) {
                throw new RailyardException(ErrorClass.RANK, "world rank " + w + " of the group is not a member of " + c.name());
            }
            if (seen[w]) {
                throw new RailyardException(ErrorClass.ARG, "world rank " + w + " appears twice in the group");
            }
            seen[w] = true;
        }
        int ctx = agree(c, 2);
        int child = c.nextChild();
        return seen[worldRank] ? new CommState(ctx, group.clone(), worldSize, worldRank, c.name() + ".create" + child) : null;
    }

    /**
     * Collective over {@code c}: one communicator per node, holding the members of {@code c} that
     * run on this process's node, ordered by {@code key} then by rank in {@code c} (MPI's
     * {@code MPI_Comm_split_type} with {@code MPI_COMM_TYPE_SHARED}). Nodes are those of the
     * process manager's plan when the bootstrap has one (PMI-2's {@code PMI_process_mapping}),
     * else as the shared-memory transport tells them (host name and boot id, or {@code railyard.node}).
     */
    public CommState splitShared(CommState c, int key) {
        intra(c, "split by node");
        return split(c, services.nodeOf(c)[c.rank], key);
    }

    /**
     * Collective over {@code c}: a communicator with a Cartesian topology over the first
     * {@code prod(dims)} ranks of {@code c}; the others get null. Without {@code reorder} they keep
     * their order. With it, when those processes run on several nodes, they may be placed anew
     * ({@link Placement#cartOrder}) so that fewer grid neighbours sit on different nodes; the choice log
     * says when that happens.
     */
    public CommState cart(CommState c, int[] dims, boolean[] periods, boolean reorder) {
        intra(c, "cart create");
        CartTopology topo = new CartTopology(dims, periods);
        int[] order = reorder && topo.size() <= c.size() ? reordered(c, topo, "cart " + Arrays.toString(dims)) : null;
        return withTopology(c, topo, "cart", order);
    }

    /** The placement reorder chooses for {@code topo} on {@code c} (logged), or null to keep the ranks' order. */
    private int[] reordered(CommState c, Topology topo, String what) {
        int[] order = placement(c, topo);
        if (order != null) {
            services.choice("rank " + worldRank + ": " + what + " on " + c.name() + ": ranks reordered by node ("
                    + services.nodeCount(c) + " nodes; rank i of the topology is rank order[i] of " + c.name()
                    + "): order " + (order.length <= 64 ? Arrays.toString(order)
                            : Arrays.toString(Arrays.copyOf(order, 64)).replace("]", ", ...]")));
        }
        return order;
    }

    /** The layout of {@code topo} over {@code c}'s nodes ({@link Placement#cartOrder}, {@link Placement#graphOrder}), or null to keep the ranks' order. */
    private int[] placement(CommState c, Topology topo) {
        if (services.nodeCount(c) < 2) {
            return null;
        }
        int[] nodeOf = services.nodeOf(c);
        return topo instanceof CartTopology cart ? Placement.cartOrder(cart, nodeOf) : Placement.graphOrder(topo, nodeOf);
    }

    /** This process's rank in the topology reorder would make of {@code c}, or {@link CommState#UNDEFINED} if it has none. */
    private int mapped(CommState c, Topology topo, String kind) {
        checkFits(c, topo, kind);
        if (c.rank >= topo.size()) {
            return CommState.UNDEFINED;
        }
        int[] order = placement(c, topo);
        if (order != null) {
            for (int i = 0; i < order.length; i++) {
                if (order[i] == c.rank) {
                    return i;
                }
            }
        }
        return c.rank;
    }

    /** This process's rank in {@code cart(c, dims, periods, true)}, or {@link CommState#UNDEFINED} if it has none. */
    public int cartMap(CommState c, int[] dims, boolean[] periods) {
        intra(c, "cart map");
        return mapped(c, new CartTopology(dims, periods), "cart");
    }

    /**
     * Collective over {@code c}: a communicator with a graph topology over the first
     * {@code index.length} ranks; the others get null. Without {@code reorder} they keep their
     * order. With it, when they run on several nodes, the ranks taken node by node (node i's
     * processes holding a run of consecutive vertices) replace their order if that cuts fewer
     * edges between nodes ({@link Placement#graphOrder}); the choice log says when.
     */
    public CommState graph(CommState c, int[] index, int[] edges, boolean reorder) {
        intra(c, "graph create");
        GraphTopology topo = new GraphTopology(index, edges);
        int[] order = reorder && topo.size() <= c.size() ? reordered(c, topo, "graph of " + topo.size() + " vertices")
                : null;
        return withTopology(c, topo, "graph", order);
    }

    /** This process's rank in {@code graph(c, index, edges, true)}, or {@link CommState#UNDEFINED} if it has none. */
    public int graphMap(CommState c, int[] index, int[] edges) {
        intra(c, "graph map");
        return mapped(c, new GraphTopology(index, edges), "graph");
    }

    /**
     * Collective over {@code c}: a communicator over the same processes with a distributed graph
     * topology, each process giving its own edges ({@link DistGraphTopology}). The edges must agree
     * (as many edges from i to j in i's destinations as in j's sources); every process checks the
     * counts its peers announce, and if any disagree, all fail with an ARG error naming the first
     * pair found, instead of a neighbourhood collective waiting for a message that never comes.
     */
    public CommState distGraph(CommState c, int[] sources, int[] destinations, boolean reorder) {
        intra(c, "distributed graph create");
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
        services.alltoall(c, out, announced);
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
        services.allreduce(c, bad, first, 1, CommServices.Fold.MIN);
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
        return withTopology(c, topo, "distgraph", null);
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
    public CommState distGraph(CommState c, int[] sources, int[] degrees, int[] destinations,
                                      boolean reorder) {
        intra(c, "distributed graph create");
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
        services.allreduce(c, bad, first, 1, CommServices.Fold.MIN);
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
        services.alltoall(c, scounts, rcounts);
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
        services.alltoallv(c, send, scounts, sdispls, recv, rcounts, rdispls);
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
        return withTopology(c, new DistGraphTopology(n, c.rank, from, to), "distgraph", null);
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
    private CommState withTopology(CommState c, Topology topo, String kind, int[] order) {
        int n = topo.size();
        checkFits(c, topo, kind);
        int ctx = agree(c, 2);
        int child = c.nextChild();
        if (c.rank >= n) {
            return null;
        }
        int[] members = new int[n];
        for (int i = 0; i < n; i++) {
            members[i] = c.worldRanks[order == null ? i : order[i]];
        }
        CommState s = new CommState(ctx, members, worldSize, worldRank, c.name() + "." + kind + child);
        s.topology = topo;
        return s;
    }

    /**
     * Collective over Cartesian {@code c}: the sub-grids that keep the dimensions flagged in
     * {@code remain}; this process gets the one through its own coordinates, ranked in row-major
     * order of the kept coordinates.
     */
    public CommState cartSub(CommState c, boolean[] remain) {
        intra(c, "cart sub");
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
        CommState s = split(c, color, key);
        s.topology = new CartTopology(subDims, subPeriods);
        return s;
    }

    /**
     * Collective over {@code local} (and, through the two leaders, over the remote group): an
     * intercommunicator between {@code local} and the group whose leader is {@code remoteLeader}
     * in {@code peer}. The leaders ({@code localLeader} in each group) exchange their groups and
     * context proposals over {@code peer} with {@code tag}; each broadcasts what it learnt.
     */
    public CommState intercommCreate(CommState local, int localLeader, CommState peer, int remoteLeader,
                                            int tag) {
        intra(local, "intercomm create");
        if (localLeader < 0 || localLeader >= local.size()) {
            throw new RailyardException(ErrorClass.RANK, "local leader " + localLeader + " is out of range [0, "
                    + local.size() + ") for " + local.name());
        }
        long[] proposal = {nextContext};
        long[] localMax = new long[1];
        services.allreduce(local, proposal, localMax, 1, CommServices.Fold.MAX);
        long[] agreed = new long[2];
        int[] remote;
        if (local.rank == localLeader) {
            long[] mine = {localMax[0], local.size()};
            long[] theirs = new long[2];
            exchange(peer, mine, theirs, Kind.LONG, 2, 2, remoteLeader, tag);
            remote = new int[(int) theirs[1]];
            exchange(peer, local.worldRanks, remote, Kind.INT, local.size(), remote.length, remoteLeader, tag);
            agreed[0] = Math.max(localMax[0], theirs[0]);
            agreed[1] = remote.length;
            services.bcast(local, agreed, Kind.LONG, 2, localLeader);
        } else {
            services.bcast(local, agreed, Kind.LONG, 2, localLeader);
            remote = new int[(int) agreed[1]];
        }
        services.bcast(local, remote, Kind.INT, remote.length, localLeader);
        for (int w : remote) {
            if (local.localRank(w) >= 0) {
                throw new RailyardException(ErrorClass.COMM, "the groups of an intercommunicator must be disjoint; world rank "
                        + w + " is in both");
            }
        }
        int ctx = (int) agreed[0];
        contextsUsed(ctx + 4);
        return new CommState(ctx, local.worldRanks.clone(), remote, worldSize, worldRank, local.name() + ".inter" + local.nextChild());
    }

    /** Sends {@code out} to and receives {@code in} from {@code peerRank} of {@code c}, with {@code tag}. */
    private void exchange(CommState c, Object out, Object in, Kind k, int outCount, int inCount,
                                 int peerRank, int tag) {
        services.sendrecv(c, out, in, k, outCount, inCount, peerRank, tag);
    }

    /**
     * The leaders of intercommunicator {@code c}'s two groups swap {@code mine} for the remote
     * group's values, on the collective context (so no user message can match), and each
     * broadcasts the answer in its group. Collective over both groups.
     */
    private long[] acrossGroups(CommState c, long[] mine) {
        long[] theirs = new long[mine.length];
        int tag = c.nextCollectiveTag();
        if (c.rank == 0) {
            services.sendrecvCollective(c, mine, theirs, 0, tag);
        }
        services.bcast(c.localView(), theirs, Kind.LONG, mine.length, 0);
        return theirs;
    }

    private void inter(CommState c, String what) {
        services.checkComm(c);
        if (!c.isInter()) {
            throw new RailyardException(ErrorClass.COMM, what + " needs an intercommunicator; " + c.name() + " is not one");
        }
    }

    /** Collective over both groups: the context proposal of this group (the maximum over its members). */
    private long groupProposal(CommState c) {
        long[] proposal = {nextContext};
        long[] max = new long[1];
        services.allreduce(c.localView(), proposal, max, 1, CommServices.Fold.MAX);
        return max[0];
    }

    /**
     * Collective over both groups of {@code c}: an intracommunicator over their union. The group
     * that passes {@code high = false} comes first; if both pass the same, the group whose leader
     * has the lower world rank comes first.
     */
    public CommState merge(CommState c, boolean high) {
        inter(c, "merge");
        int[] localGroup = c.localGroup();
        long[] mine = {groupProposal(c), high ? 1 : 0, localGroup[0]};
        long[] theirs = acrossGroups(c, mine);
        boolean theirHigh = theirs[1] != 0;
        boolean first = high == theirHigh ? localGroup[0] < theirs[2] : !high;
        int[] remote = c.worldRanks;
        int[] all = new int[localGroup.length + remote.length];
        System.arraycopy(first ? localGroup : remote, 0, all, 0, first ? localGroup.length : remote.length);
        System.arraycopy(first ? remote : localGroup, 0, all, first ? localGroup.length : remote.length,
                first ? remote.length : localGroup.length);
        int ctx = (int) Math.max(mine[0], theirs[0]);
        contextsUsed(ctx + 2);
        return new CommState(ctx, all, worldSize, worldRank, c.name() + ".merge" + c.nextChild());
    }

    /**
     * Collective: a copy of {@code c} with fresh contexts, keeping its topology; for an
     * intercommunicator, over the same two groups.
     */
    public CommState dup(CommState c) {
        if (c.isInter()) {
            return interDup(c);
        }
        CommState s = plainDup(c);
        s.topology = c.topology;
        return s;
    }

    /** Collective over both groups of {@code c}: an intercommunicator over the same groups with fresh contexts. */
    public CommState interDup(CommState c) {
        inter(c, "dup");
        long[] mine = {groupProposal(c)};
        long[] theirs = acrossGroups(c, mine);
        int ctx = (int) Math.max(mine[0], theirs[0]);
        contextsUsed(ctx + 4);
        return new CommState(ctx, c.localGroup(), c.worldRanks.clone(), worldSize, worldRank, c.name() + ".dup" + c.nextChild());
    }
}
