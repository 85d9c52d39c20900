package org.railyard;

import org.railyard.engine.Engine;
import org.railyard.engine.coll.Collectives;
import org.railyard.types.CartTopology;
import org.railyard.engine.comm.CommState;
import org.railyard.types.GraphTopology;
import org.railyard.types.Topology;
import org.railyard.error.ErrorClass;
import org.railyard.error.RailyardException;

/**
 * A communicator: a group of processes, each with a rank in [0, size), and a private matching
 * context so that messages of one communicator never match receives of another.
 *
 * <p>Buffers are Java primitive arrays, {@link java.nio.ByteBuffer}s (addressed absolutely from
 * index 0; position and limit are ignored) or {@link java.lang.foreign.MemorySegment}s of an arena
 * any thread may use ({@code Arena.ofShared()}, {@code ofAuto()}, {@code global()}: the library's
 * progress thread, or another thread's wait, may move a message's bytes; a segment of
 * {@code Arena.ofConfined()} is refused with a BUFFER error). Offsets and counts are in elements
 * of the buffer's type, inferred from the buffer ({@code double[]} moves doubles), or given
 * explicitly with a {@link Datatype}. Messages are typed by bytes: a receive accepts any message
 * whose length fits its buffer.
 *
 * <p>Ranks are in [0, size) or {@link #PROC_NULL} (the call does nothing); receives and probes also
 * take {@link #ANY_SOURCE}. Tags are in [0, {@link #TAG_UB}]; receives also take {@link #ANY_TAG}.
 * A message longer than the receive buffer fails the receive with
 * {@link org.railyard.error.ErrorClass#TRUNCATE}. Messages between one pair of processes on one
 * communicator are received in the order they were sent.
 *
 * <p>Collectives: every member calls each collective of a communicator, in the same order. Each
 * has a blocking form and a non-blocking one ({@code ibcast}, ...) returning a {@link Request};
 * several may be outstanding on one communicator, and they progress while the program computes
 * (the engine's progress agent advances them), not only while it waits. The algorithm is chosen
 * by message size and process count and can be printed: see
 * {@link org.railyard.engine.coll.Collectives}. Send and receive arguments that MPI calls significant
 * only at the root (the receive side of gather, the send side of scatter) may be null elsewhere.
 * Counts of the v-variants are per rank; displacements are in elements from the offset.
 *
 * <p>An intercommunicator ({@link #isInter()}, from {@link #createIntercomm}) joins two groups:
 * point-to-point ranks name the remote group, {@link #size()} and {@link #rank()} are about the
 * local group, and barrier, bcast, allreduce, allgather(v), alltoall(v, w), gather(v),
 * scatter(v), reduce and reduce_scatter(_block) work across the groups: each process gets what the
 * other group gave (the root of bcast, gather, scatter and reduce passes {@link #ROOT}, the rest of
 * its group {@link #PROC_NULL}, and the other group the root's rank there; reduce_scatter spreads
 * the reduction of the other group's vectors over this group, its counts being per process of
 * this group). Scan, exscan and the neighbourhood collectives, which MPI defines within one
 * group only, are refused there.
 *
 * <p>Threads: every method may be called from several threads at once (the engine serialises
 * them; see {@link Railyard}), except that two threads must not start collectives on the same
 * communicator at the same time, as in MPI.
 */
public final class Comm extends CommCollectives {
    /** Wildcard source for receives and probes. */
    public static final int ANY_SOURCE = Engine.ANY_SOURCE;
    /** Wildcard tag for receives and probes. */
    public static final int ANY_TAG = Engine.ANY_TAG;
    /** The null process: sends to it and receives from it complete at once and move nothing. */
    public static final int PROC_NULL = Engine.PROC_NULL;
    /** The largest tag a program may use. */
    public static final int TAG_UB = Engine.TAG_UB;
    /** The root argument of an intercommunicator broadcast at the root itself. */
    public static final int ROOT = Collectives.ROOT;

    Comm(Engine engine, CommState state) {
        super(engine, state);
    }

    // ---------------------------------------------------------------- persistent operations

    /** A persistent {@link #isend}: each {@link Persistent#start} sends the buffer's current contents. */
    public Persistent sendInit(Object buf, int offset, int count, int dest, int tag) {
        return Persistent.of("sendInit to " + dest + " tag " + tag + " on " + name(),
                () -> isend(buf, offset, count, dest, tag));
    }

    /** A persistent {@link #irecv}. */
    public Persistent recvInit(Object buf, int offset, int count, int source, int tag) {
        return Persistent.of("recvInit from " + source + " tag " + tag + " on " + name(),
                () -> irecv(buf, offset, count, source, tag));
    }

    /** A persistent {@link #ibarrier} (collective: every process starts its instances in the same order). */
    public Persistent barrierInit() {
        return Persistent.of("barrierInit on " + name(), this::ibarrier);
    }

    /** A persistent {@link #ibcast} (collective). */
    public Persistent bcastInit(Object buf, int offset, int count, int root) {
        return Persistent.of("bcastInit on " + name(), () -> ibcast(buf, offset, count, root));
    }

    /** A persistent {@link #ireduce} (collective). */
    public Persistent reduceInit(Object sendbuf, int sendoffset, Object recvbuf, int recvoffset, int count, Op op, int root) {
        return Persistent.of("reduceInit on " + name(), () -> ireduce(sendbuf, sendoffset, recvbuf, recvoffset, count, op, root));
    }

    /** A persistent {@link #iallreduce} (collective). */
    public Persistent allreduceInit(Object sendbuf, int sendoffset, Object recvbuf, int recvoffset, int count, Op op) {
        return Persistent.of("allreduceInit on " + name(), () -> iallreduce(sendbuf, sendoffset, recvbuf, recvoffset, count, op));
    }

    /** A persistent {@link #iallgather} (collective). */
    public Persistent allgatherInit(Object sendbuf, int sendoffset, int sendcount, Object recvbuf, int recvoffset,
                                    int recvcount) {
        return Persistent.of("allgatherInit on " + name(),
                () -> iallgather(sendbuf, sendoffset, sendcount, recvbuf, recvoffset, recvcount));
    }

    /** A persistent {@link #iscan} (collective). */
    public Persistent scanInit(Object sendbuf, int sendoffset, Object recvbuf, int recvoffset, int count, Op op) {
        return Persistent.of("scanInit on " + name(), () -> iscan(sendbuf, sendoffset, recvbuf, recvoffset, count, op));
    }

    /** A persistent {@link #iexscan} (collective). */
    public Persistent exscanInit(Object sendbuf, int sendoffset, Object recvbuf, int recvoffset, int count, Op op) {
        return Persistent.of("exscanInit on " + name(), () -> iexscan(sendbuf, sendoffset, recvbuf, recvoffset, count, op));
    }

    /** A persistent {@link #igather} (collective). */
    public Persistent gatherInit(Object sendbuf, int sendoffset, int sendcount, Object recvbuf, int recvoffset, int recvcount,
                                 int root) {
        return Persistent.of("gatherInit on " + name(),
                () -> igather(sendbuf, sendoffset, sendcount, recvbuf, recvoffset, recvcount, root));
    }

    /** A persistent {@link #iscatter} (collective). */
    public Persistent scatterInit(Object sendbuf, int sendoffset, int sendcount, Object recvbuf, int recvoffset,
                                  int recvcount, int root) {
        return Persistent.of("scatterInit on " + name(),
                () -> iscatter(sendbuf, sendoffset, sendcount, recvbuf, recvoffset, recvcount, root));
    }

    /** A persistent {@link #ialltoall} (collective). */
    public Persistent alltoallInit(Object sendbuf, int sendoffset, int sendcount, Object recvbuf, int recvoffset,
                                   int recvcount) {
        return Persistent.of("alltoallInit on " + name(),
                () -> ialltoall(sendbuf, sendoffset, sendcount, recvbuf, recvoffset, recvcount));
    }

    /** A persistent {@link #issend}: each instance completes once the receive has matched it. */
    public Persistent ssendInit(Object buf, int offset, int count, int dest, int tag) {
        return Persistent.of("ssendInit to " + dest + " tag " + tag + " on " + name(),
                () -> issend(buf, offset, count, dest, tag));
    }

    // The vector forms below keep their own copies of the count and displacement arrays, taken
    // here: an instance started later moves what the call named, even if the caller reuses them.

    /** A persistent {@link #igatherv} (collective). */
    public Persistent gathervInit(Object sendbuf, int sendoffset, int sendcount, Object recvbuf, int recvoffset,
                                  int[] recvcounts, int[] displs, int root) {
        int[] rc = copy(recvcounts);
        int[] rd = copy(displs);
        return Persistent.of("gathervInit on " + name(),
                () -> igatherv(sendbuf, sendoffset, sendcount, recvbuf, recvoffset, rc, rd, root));
    }

    /** A persistent {@link #iscatterv} (collective). */
    public Persistent scattervInit(Object sendbuf, int sendoffset, int[] sendcounts, int[] displs, Object recvbuf,
                                   int recvoffset, int recvcount, int root) {
        int[] sc = copy(sendcounts);
        int[] sd = copy(displs);
        return Persistent.of("scattervInit on " + name(),
                () -> iscatterv(sendbuf, sendoffset, sc, sd, recvbuf, recvoffset, recvcount, root));
    }

    /** A persistent {@link #iallgatherv} (collective). */
    public Persistent allgathervInit(Object sendbuf, int sendoffset, int sendcount, Object recvbuf, int recvoffset,
                                     int[] recvcounts, int[] displs) {
        int[] rc = copy(recvcounts);
        int[] rd = copy(displs);
        return Persistent.of("allgathervInit on " + name(),
                () -> iallgatherv(sendbuf, sendoffset, sendcount, recvbuf, recvoffset, rc, rd));
    }

    /** A persistent {@link #ialltoallv} (collective). */
    public Persistent alltoallvInit(Object sendbuf, int sendoffset, int[] sendcounts, int[] sdispls, Object recvbuf,
                                    int recvoffset, int[] recvcounts, int[] rdispls) {
        int[] sc = copy(sendcounts);
        int[] sd = copy(sdispls);
        int[] rc = copy(recvcounts);
        int[] rd = copy(rdispls);
        return Persistent.of("alltoallvInit on " + name(),
                () -> ialltoallv(sendbuf, sendoffset, sc, sd, recvbuf, recvoffset, rc, rd));
    }

    /** A persistent {@link #ialltoallw} (collective). */
    public Persistent alltoallwInit(Object sendbuf, int[] sendcounts, int[] sdispls, Datatype[] sendtypes, Object recvbuf,
                                    int[] recvcounts, int[] rdispls, Datatype[] recvtypes) {
        int[] sc = copy(sendcounts);
        int[] sd = copy(sdispls);
        Datatype[] st = copy(sendtypes);
        int[] rc = copy(recvcounts);
        int[] rd = copy(rdispls);
        Datatype[] rt = copy(recvtypes);
        return Persistent.of("alltoallwInit on " + name(), () -> ialltoallw(sendbuf, sc, sd, st, recvbuf, rc, rd, rt));
    }

    /** A persistent {@link #ireduceScatter} (collective). */
    public Persistent reduceScatterInit(Object sendbuf, int sendoffset, Object recvbuf, int recvoffset, int[] recvcounts,
                                        Op op) {
        int[] rc = copy(recvcounts);
        return Persistent.of("reduceScatterInit on " + name(),
                () -> ireduceScatter(sendbuf, sendoffset, recvbuf, recvoffset, rc, op));
    }

    /** A persistent {@link #ireduceScatterBlock} (collective). */
    public Persistent reduceScatterBlockInit(Object sendbuf, int sendoffset, Object recvbuf, int recvoffset,
                                             int recvcount, Op op) {
        return Persistent.of("reduceScatterBlockInit on " + name(),
                () -> ireduceScatterBlock(sendbuf, sendoffset, recvbuf, recvoffset, recvcount, op));
    }

    /** A persistent {@link #ineighbourAllgather} (collective over the topology's neighbours). */
    public Persistent neighbourAllgatherInit(Object sendbuf, int sendoffset, int sendcount, Object recvbuf,
                                             int recvoffset, int recvcount) {
        return Persistent.of("neighbourAllgatherInit on " + name(),
                () -> ineighbourAllgather(sendbuf, sendoffset, sendcount, recvbuf, recvoffset, recvcount));
    }

    /** A persistent {@link #ineighbourAllgatherv} (collective over the topology's neighbours). */
    public Persistent neighbourAllgathervInit(Object sendbuf, int sendoffset, int sendcount, Object recvbuf,
                                              int recvoffset, int[] recvcounts, int[] displs) {
        int[] rc = copy(recvcounts);
        int[] rd = copy(displs);
        return Persistent.of("neighbourAllgathervInit on " + name(),
                () -> ineighbourAllgatherv(sendbuf, sendoffset, sendcount, recvbuf, recvoffset, rc, rd));
    }

    /** A persistent {@link #ineighbourAlltoall} (collective over the topology's neighbours). */
    public Persistent neighbourAlltoallInit(Object sendbuf, int sendoffset, int sendcount, Object recvbuf,
                                            int recvoffset, int recvcount) {
        return Persistent.of("neighbourAlltoallInit on " + name(),
                () -> ineighbourAlltoall(sendbuf, sendoffset, sendcount, recvbuf, recvoffset, recvcount));
    }

    /** A persistent {@link #ineighbourAlltoallv} (collective over the topology's neighbours). */
    public Persistent neighbourAlltoallvInit(Object sendbuf, int sendoffset, int[] sendcounts, int[] sdispls,
                                             Object recvbuf, int recvoffset, int[] recvcounts, int[] rdispls) {
        int[] sc = copy(sendcounts);
        int[] sd = copy(sdispls);
        int[] rc = copy(recvcounts);
        int[] rd = copy(rdispls);
        return Persistent.of("neighbourAlltoallvInit on " + name(),
                () -> ineighbourAlltoallv(sendbuf, sendoffset, sc, sd, recvbuf, recvoffset, rc, rd));
    }

    /** A persistent {@link #ineighbourAlltoallw} (collective over the topology's neighbours). */
    public Persistent neighbourAlltoallwInit(Object sendbuf, int[] sendcounts, int[] sdispls, Datatype[] sendtypes,
                                             Object recvbuf, int[] recvcounts, int[] rdispls, Datatype[] recvtypes) {
        int[] sc = copy(sendcounts);
        int[] sd = copy(sdispls);
        Datatype[] st = copy(sendtypes);
        int[] rc = copy(recvcounts);
        int[] rd = copy(rdispls);
        Datatype[] rt = copy(recvtypes);
        return Persistent.of("neighbourAlltoallwInit on " + name(),
                () -> ineighbourAlltoallw(sendbuf, sc, sd, st, recvbuf, rc, rd, rt));
    }

    /** A copy of a count or displacement array (null stays null, for the check at start to name). */
    private static int[] copy(int[] a) {
        return a == null ? null : a.clone();
    }

    private static Datatype[] copy(Datatype[] a) {
        return a == null ? null : a.clone();
    }

    // ---------------------------------------------------------------- communicators

    /**
     * Collective: a new communicator with the same group (groups, for an intercommunicator) and
     * topology, and a fresh context.
     */
    public Comm dup() {
        return new Comm(engine, engine.communicators().dup(state));
    }

    /**
     * Collective: splits into one communicator per {@code color}, ranks ordered by {@code key} then
     * by rank here. A process passing {@link #UNDEFINED} gets null.
     */
    public Comm split(int color, int key) {
        if (state.isInter()) {
            throw new RailyardException(ErrorClass.COMM, "split of intercommunicator " + name() + " is not supported");
        }
        CommState s = engine.communicators().split(state, color, key);
        return s == null ? null : new Comm(engine, s);
    }

    /**
     * Collective: one communicator per node, holding the processes of this communicator that run
     * on this process's node, ordered by {@code key} then by rank here (MPI's
     * {@code MPI_Comm_split_type(MPI_COMM_TYPE_SHARED)}): the processes that can share memory.
     */
    public Comm splitShared(int key) {
        return new Comm(engine, engine.communicators().splitShared(state, key));
    }

    /** Color for {@link #split} of a process that wants no new communicator. */
    public static final int UNDEFINED = Engine.UNDEFINED;

    // ---------------------------------------------------------------- groups, comparison, intercommunicators

    /** The group of this communicator (the local group, for an intercommunicator). */
    public Group group() {
        return new Group(state.localGroup(), engine.rank());
    }

    /** True for an intercommunicator. */
    public boolean isInter() {
        return state.isInter();
    }

    /** An intercommunicator's remote group. */
    public Group remoteGroup() {
        requireInter("remoteGroup");
        return new Group(state.group(), engine.rank());
    }

    /** Size of an intercommunicator's remote group. */
    public int remoteSize() {
        requireInter("remoteSize");
        return state.size();
    }

    private void requireInter(String what) {
        if (!state.isInter()) {
            throw new RailyardException(ErrorClass.COMM, what + " needs an intercommunicator; " + name() + " is not one");
        }
    }

    /**
     * {@link Group#IDENT} for the same communicator, {@link Group#CONGRUENT} for the same group(s)
     * in the same order with another context, {@link Group#SIMILAR} for the same members in
     * another order, {@link Group#UNEQUAL} otherwise.
     */
    public static int compare(Comm a, Comm b) {
        if (a.state == b.state) {
            return Group.IDENT;
        }
        if (a.isInter() != b.isInter()) {
            return Group.UNEQUAL;
        }
        int local = Group.compare(a.group(), b.group());
        int remote = a.isInter() ? Group.compare(a.remoteGroup(), b.remoteGroup()) : Group.IDENT;
        int worst = Math.max(local, remote);
        return worst == Group.IDENT ? Group.CONGRUENT : worst;
    }

    /**
     * Collective: a communicator over {@code group}, a subset of this communicator's processes,
     * ranked in the group's order; every member passes the same group, and those outside it get
     * null.
     */
    public Comm create(Group group) {
        CommState s = engine.communicators().create(state, group.worldRanks());
        return s == null ? null : new Comm(engine, s);
    }

    /**
     * Collective over this (local) intracommunicator and, through the leaders, the remote group:
     * an intercommunicator to the group whose leader is {@code remoteLeader} in {@code peer}.
     * The two leaders ({@code localLeader} here) talk over {@code peer} with {@code tag}.
     */
    public Comm createIntercomm(int localLeader, Comm peer, int remoteLeader, int tag) {
        return new Comm(engine, engine.communicators().intercommCreate(state, localLeader, peer.state, remoteLeader, tag));
    }

    /**
     * Collective over both groups of an intercommunicator: an intracommunicator over their union,
     * the group passing {@code high = false} first (if both pass the same, the group whose first
     * process has the lower world rank).
     */
    public Comm merge(boolean high) {
        return new Comm(engine, engine.communicators().merge(state, high));
    }

    // ---------------------------------------------------------------- topologies

    /**
     * Collective: a communicator with a Cartesian topology of {@code dims} (periodic where
     * {@code periods} says) over the first {@code prod(dims)} processes; the others get null.
     * Without {@code reorder} they keep their order; with it, processes spread over several nodes
     * are ranked node by node, so that each node holds consecutive rows of the grid and most
     * neighbours share a node ({@link #cartMap} tells the rank beforehand).
     */
    public Comm createCart(int[] dims, boolean[] periods, boolean reorder) {
        CommState s = engine.communicators().cart(state, dims, periods, reorder);
        return s == null ? null : new Comm(engine, s);
    }

    /**
     * Local: the rank this process would get in {@code createCart(dims, periods, true)} on this
     * communicator, or {@link #UNDEFINED} when the grid leaves it out (MPI's {@code MPI_Cart_map}).
     */
    public int cartMap(int[] dims, boolean[] periods) {
        return engine.communicators().cartMap(state, dims, periods);
    }

    /**
     * Collective: a communicator with a graph topology (MPI's cumulative {@code index} and flat
     * {@code edges}) over the first {@code index.length} processes; the others get null. With
     * {@code reorder}, processes spread over several nodes are ranked node by node when that
     * puts fewer edges between nodes ({@link #graphMap} tells the rank beforehand).
     */
    public Comm createGraph(int[] index, int[] edges, boolean reorder) {
        CommState s = engine.communicators().graph(state, index, edges, reorder);
        return s == null ? null : new Comm(engine, s);
    }

    /**
     * Local: the rank this process would get in {@code createGraph(index, edges, true)} on this
     * communicator, or {@link #UNDEFINED} when the graph leaves it out (MPI's {@code MPI_Graph_map}).
     */
    public int graphMap(int[] index, int[] edges) {
        return engine.communicators().graphMap(state, index, edges);
    }

    /**
     * Collective: a communicator over the same processes with a distributed graph topology, each
     * process naming its own edges: the processes it receives from ({@code sources}) and those it
     * sends to ({@code destinations}) in the neighbourhood collectives, in block order. The edges
     * must agree across processes; if they do not, every process gets an ARG error. Reordering
     * is allowed by MPI but never done.
     */
    public Comm distGraphCreateAdjacent(int[] sources, int[] destinations, boolean reorder) {
        return new Comm(engine, engine.communicators().distGraph(state, sources, destinations, reorder));
    }

    /**
     * Collective: a communicator over the same processes with a distributed graph topology whose
     * edges any process may give ({@code MPI_Dist_graph_create}): this process gives
     * {@code degrees[i]} edges from process {@code sources[i]}, to the next {@code degrees[i]}
     * entries of {@code destinations}; a process may give none. Each process then knows its own
     * {@link #sources()} and {@link #destinations()}, in the order of the edges' givers (by rank,
     * then as each gave them). A malformed list (a rank out of range, a negative degree, degrees
     * that do not add up to the destinations given) fails on its process with RANK or ARG, and on
     * the others with ARG. Reordering is allowed by MPI but never done.
     */
    public Comm distGraphCreate(int[] sources, int[] degrees, int[] destinations, boolean reorder) {
        return new Comm(engine, engine.communicators().distGraph(state, sources, degrees, destinations, reorder));
    }

    /** Distributed graph (or any topology): the processes this one receives from in the neighbourhood collectives. */
    public int[] sources() {
        return topologyOrFail().sources(rank());
    }

    /** Distributed graph (or any topology): the processes this one sends to in the neighbourhood collectives. */
    public int[] destinations() {
        return topologyOrFail().destinations(rank());
    }

    private Topology topologyOrFail() {
        Topology t = state.topology();
        if (t == null) {
            throw new RailyardException(ErrorClass.COMM, name() + " has no topology");
        }
        return t;
    }

    /** The topology, or null. */
    public Topology topology() {
        return state.topology();
    }

    /** The Cartesian topology; a COMM error if there is none. */
    public CartTopology cart() {
        if (state.topology() instanceof CartTopology c) {
            return c;
        }
        throw new RailyardException(ErrorClass.COMM, name() + " has no Cartesian topology");
    }

    /** The graph topology; a COMM error if there is none. */
    public GraphTopology graph() {
        if (state.topology() instanceof GraphTopology g) {
            return g;
        }
        throw new RailyardException(ErrorClass.COMM, name() + " has no graph topology");
    }

    /** Coordinates of {@code rank} in the Cartesian grid. */
    public int[] cartCoords(int rank) {
        return cart().coords(rank);
    }

    /** The rank at {@code coords} (wrapping in periodic dimensions). */
    public int cartRank(int[] coords) {
        return cart().rank(coords);
    }

    /** {@code {source, dest}} for a shift of {@code disp} along {@code dim} from this process; PROC_NULL off the grid. */
    public int[] cartShift(int dim, int disp) {
        return cart().shift(rank(), dim, disp);
    }

    /** Collective: the sub-grid through this process that keeps the dimensions flagged in {@code remainDims}. */
    public Comm cartSub(boolean[] remainDims) {
        return new Comm(engine, engine.communicators().cartSub(state, remainDims));
    }

    /** This process's neighbours in the topology, in the block order of the neighbourhood collectives. */
    public int[] neighbours() {
        Topology t = state.topology();
        if (t == null) {
            throw new RailyardException(ErrorClass.COMM, name() + " has no topology");
        }
        return t.neighbours(rank());
    }

    /** Balanced grid dimensions: fills the zeros of {@code dims} so the product is {@code nnodes}; see {@link CartTopology#dimsCreate}. */
    public static int[] dimsCreate(int nnodes, int[] dims) {
        return CartTopology.dimsCreate(nnodes, dims);
    }

    /** Marks the communicator unusable; later calls on it fail with a COMM error. */
    public void free() {
        engine.communicators().free(state);
    }

    @Override
    public String toString() {
        return "Comm[" + name() + ", rank " + rank() + " of " + size() + "]";
    }
}
