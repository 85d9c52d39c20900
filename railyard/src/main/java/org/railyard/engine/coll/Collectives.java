package org.railyard.engine.coll;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.locks.ReentrantLock;
import org.railyard.engine.Kind;
import org.railyard.engine.Transfer;
import org.railyard.engine.comm.CommState;
import org.railyard.engine.comm.Topology;
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
 * the engine's choice log ({@link PointToPoint#choice}, {@code Engine.describeChoices()}, and standard error with
 * {@code RAILYARD_PRINT_CHOICES=true} or {@code railyard run --print-choices}), for example
 * {@code rank 0: WORLD (4 ranks): allreduce [1 KiB, 2 KiB) SUM: recursive doubling}.
 */
public final class Collectives {
    /** The root of an intercommunicator broadcast passes this as root; the rest of its group passes PROC_NULL. */
    public static final int ROOT = -3;

    private static final String[] NAMES = {"barrier", "bcast", "reduce", "allreduce", "reduce_scatter", "scan",
        "exscan", "gather", "gatherv", "scatter", "scatterv", "allgather", "allgatherv", "alltoall", "alltoallv",
        "alltoallw", "neighbour_allgather", "neighbour_alltoall", "reduce_scatter_block", "neighbour_allgatherv",
        "neighbour_alltoallv", "neighbour_alltoallw"};
    private static final int BARRIER = 0;
    private static final int BCAST = 1;
    private static final int REDUCE = 2;
    private static final int ALLREDUCE = 3;
    private static final int REDUCE_SCATTER = 4;
    private static final int SCAN = 5;
    private static final int EXSCAN = 6;
    private static final int GATHER = 7;
    private static final int GATHERV = 8;
    private static final int SCATTER = 9;
    private static final int SCATTERV = 10;
    private static final int ALLGATHER = 11;
    private static final int ALLGATHERV = 12;
    private static final int ALLTOALL = 13;
    private static final int ALLTOALLV = 14;
    private static final int ALLTOALLW = 15;
    private static final int NEIGHBOUR_ALLGATHER = 16;
    private static final int NEIGHBOUR_ALLTOALL = 17;
    private static final int REDUCE_SCATTER_BLOCK = 18;
    private static final int NEIGHBOUR_ALLGATHERV = 19;
    private static final int NEIGHBOUR_ALLTOALLV = 20;
    private static final int NEIGHBOUR_ALLTOALLW = 21;
    /** The collectives an intercommunicator offers ({@link CollInter}). */
    private static final int[] ON_INTER = {BARRIER, BCAST, ALLREDUCE, ALLGATHER, ALLGATHERV, ALLTOALL, ALLTOALLV,
        ALLTOALLW, GATHER, GATHERV, SCATTER, SCATTERV, REDUCE, REDUCE_SCATTER, REDUCE_SCATTER_BLOCK};
    private static final int SIZE_CLASSES = 34;

    static final String DISSEMINATION = "dissemination";
    static final String NODE_AWARE = "node-aware";
    static final String BINOMIAL = "binomial";
    static final String BINOMIAL_VIA_0 = "binomial via rank 0";
    static final String SCATTER_RING = "scatter-ring";
    static final String RABENSEIFNER = "rabenseifner";
    static final String RECURSIVE_DOUBLING = "recursive-doubling";
    static final String RING = "ring";
    static final String ALLREDUCE_COPY = "allreduce";
    static final String REDUCE_SCATTERV = "reduce-scatterv";
    static final String LINEAR = "linear";
    static final String PIPELINE = "pipeline";
    static final String BRUCK = "bruck";
    static final String PAIRWISE = "pairwise";
    static final String INTER = "inter-leaders";
    static final String LOCAL = "local";

    // the algorithms railyard.coll.<name>.algorithm may force, per collective: constant arrays, so
    // that choosing (a varargs call otherwise) allocates nothing on each call
    private static final String[] BARRIER_ALGOS = {NODE_AWARE, DISSEMINATION};
    private static final String[] BCAST_ALGOS = {BINOMIAL, SCATTER_RING, NODE_AWARE, LINEAR, PIPELINE};
    private static final String[] REDUCE_ALGOS = {BINOMIAL, RABENSEIFNER};
    private static final String[] ALLREDUCE_ALGOS = {RECURSIVE_DOUBLING, RABENSEIFNER, RING, NODE_AWARE};
    private static final String[] REDUCE_SCATTER_ALGOS = {ALLREDUCE_COPY, RING, REDUCE_SCATTERV};
    private static final String[] REDUCE_SCATTER_NONCOMMUTATIVE_ALGOS = {ALLREDUCE_COPY, REDUCE_SCATTERV};
    private static final String[] GATHER_ALGOS = {BINOMIAL, LINEAR};
    private static final String[] ALLGATHER_ALGOS = {RING, BRUCK, RECURSIVE_DOUBLING};
    private static final String[] ALLTOALL_ALGOS = {BRUCK, PAIRWISE, LINEAR};
    private static final String[] ALLTOALLV_ALGOS = {PAIRWISE, LINEAR};

    private final PointToPoint p2p;
    private final CollTuning tuning = new CollTuning();
    /** Schedules under way; touched only under the progress lock. */
    private CollSchedule activeHead;
    /** Finished schedules of blocking calls, kept for reuse (guarded by itself). */
    private final CollSchedule[] pool = new CollSchedule[8];
    /** The communicators with a shared segment mapped ({@link CollShm}), to unmap them at the end. */
    private final List<CommState> segments = new ArrayList<>();
    private int pooled;

    public Collectives(PointToPoint p2p) {
        this.p2p = p2p;
    }

    CollTuning tuning() {
        return tuning;
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
    private Transfer start(CollSchedule s) {
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
    private CollSchedule schedule(CommState c, int id, Reduction op, long bytes, String algorithm) {
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
    private void finish(Transfer t) {
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

    private static String bytesLabel(long b) {
        if (b >= 1L << 30 && b % (1L << 30) == 0) {
            return (b >> 30) + " GiB";
        }
        if (b >= 1L << 20 && b % (1L << 20) == 0) {
            return (b >> 20) + " MiB";
        }
        if (b >= 1024 && b % 1024 == 0) {
            return (b >> 10) + " KiB";
        }
        return b + " B";
    }

    /** The forced algorithm if it is one of {@code allowed}, else {@code dflt}. */
    private String pick(int id, String dflt, String[] allowed) {
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
    private Transfer viaReads(CommState c, int id, CollShm shm, CollTeam t, int which, Object sbuf, int soff, Kind sk,
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
    private CollSchedule barrierOf(CommState c, int id, CollTeam t, long bytes) {
        CollSchedule s = schedule(c, id, null, bytes, CollShm.READS);
        CollTree.dissemination(s, t);
        return s;
    }

    /** The block size from which alltoall(v) goes pairwise: larger when every member is on one node. */
    private long alltoallLong(CommState c) {
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
     * several nodes, or some member could not map it (shared memory is not among its transports,
     * say: {@link CollShm#attach} agrees on that once). Every member decides alike from the same
     * settings.
     */
    private CollShm shared(CommState c, int id, long bytes, long from) {
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
        if (nodes(c).count != 1) {
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

    private boolean twoLevel(CommState c) {
        return tuning.nodeAware && c.size() > 2 && nodes(c).twoLevel();
    }

    // ================================================================== argument checks

    private void check(CommState c, int id) {
        p2p.checkComm(c);
        if (c.isInter() && Arrays.stream(ON_INTER).noneMatch(x -> x == id)) {
            throw new RailyardException(ErrorClass.COMM, NAMES[id] + " is not available on intercommunicator " + c.name()
                    + " (" + String.join(", ", Arrays.stream(ON_INTER).mapToObj(x -> NAMES[x]).toList()) + " are)");
        }
    }

    /**
     * Gather or scatter on an intercommunicator: the root's buffer holds a block per process of
     * the other group ({@code rootBuf}, checked at the root), each of those processes one block
     * ({@code buf}, checked there); see {@link CollInter#blocks}.
     */
    private Transfer interBlocks(int id, CommState c, int root, Object rootBuf, int rootOff, int[] rootCounts,
                                 int[] rootDispls, Kind rootKind, Object buf, int off, int count, Kind kind) {
        boolean gather = id == GATHER || id == GATHERV;
        if (interSender(c, root)) {
            checkBuffer(NAMES[id], gather ? " send buffer" : " receive buffer", -1, buf, kind, off, count);
        } else if (root == ROOT) {
            checkBlocks(NAMES[id], gather, rootBuf, rootKind, rootOff, rootCounts, rootDispls,
                    c.size());
        }
        CollSchedule s = schedule(c, id, null, (long) count * kind.size, INTER);
        CollInter.blocks(s, c, root, gather, rootBuf, rootOff, rootCounts, rootDispls, rootKind, buf, off, count, kind);
        return start(s);
    }

    /**
     * On an intercommunicator, true if this process is in the group opposite the root (it names
     * the root's rank in the other group, which must exist); false at the root ({@link #ROOT})
     * and the rest of its group ({@link CommState#PROC_NULL}).
     */
    private static boolean interSender(CommState c, int root) {
        if (root == ROOT || root == CommState.PROC_NULL) {
            return false;
        }
        checkRoot(c, root);
        return true;
    }

    private static void checkRoot(CommState c, int root) {
        if (root < 0 || root >= c.size()) {
            throw new RailyardException(ErrorClass.RANK, "root rank " + root + " is out of range [0, " + c.size()
                    + ") for communicator " + c.name());
        }
    }

    private static void checkBuffer(String what, Object buf, Kind k, int off, int count) {
        checkBuffer(what, null, -1, buf, k, off, count);
    }

    /**
     * Checks the buffer of one block, named {@code what + block + " " + r} in an error (or
     * {@code what} alone when {@code block} is null). The name is built only to report an error:
     * a collective that checks p blocks a call allocates nothing for it.
     */
    private static void checkBuffer(String what, String block, int r, Object buf, Kind k, int off, int count) {
        if (k == null) {
            throw new RailyardException(ErrorClass.TYPE, name(what, block, r) + " datatype is null");
        }
        try {
            k.checkRange(buf, off, count);
        } catch (RailyardException e) {
            throw new RailyardException(e.errorClass(), name(what, block, r) + ": " + e.getMessage());
        }
        if ((long) count * k.size > Integer.MAX_VALUE) {
            throw new RailyardException(ErrorClass.COUNT, name(what, block, r) + " of " + (long) count * k.size
                    + " bytes is larger than the limit of " + Integer.MAX_VALUE + " bytes");
        }
    }

    private static String name(String what, String block, int r) {
        return block == null ? what : r < 0 ? what + block : what + block + " " + r;
    }

    /**
     * Checks one block per rank (counts and displacements in elements, relative to {@code off});
     * errors name them the receive (or send) blocks of {@code what}.
     */
    private static void checkBlocks(String what, boolean receive, Object buf, Kind k, int off, int[] counts, int[] displs,
                                    int p) {
        String side = receive ? " receive" : " send";
        if (counts == null || counts.length < p || (displs != null && displs.length < p)) {
            throw new RailyardException(ErrorClass.ARG, what + side + ": counts and displacements need " + p + " entries");
        }
        for (int r = 0; r < p; r++) {
            if (counts[r] < 0) {
                throw new RailyardException(ErrorClass.COUNT, what + side + ": count " + counts[r] + " for rank " + r
                        + " is negative");
            }
            if (counts[r] > 0) {
                checkBuffer(what, receive ? " receive block of rank" : " send block of rank", r, buf, k,
                        off + (displs == null ? 0 : displs[r]), counts[r]);
            }
        }
    }

    private static void checkOp(Reduction op, Kind k, long count) {
        if (op == null) {
            throw new RailyardException(ErrorClass.OP, "operation is null");
        }
        if (count % op.width() != 0) {
            throw new RailyardException(ErrorClass.COUNT, "count " + count + " is not a whole number of " + op.name()
                    + " items of " + op.width() + " elements");
        }
    }

    /** The root's view of a vector it reduces into: the receive buffer itself if it is a Java array of the kind. */
    private static boolean direct(Object buf, Kind k) {
        return buf != null && CollSchedule.isArray(buf) && Kind.ofBuffer(buf) == k;
    }

    private static long sum(int[] counts, int p) {
        long s = 0;
        for (int i = 0; i < p; i++) {
            s += counts[i];
        }
        return s;
    }

    // ================================================================== barrier, bcast

    public Transfer ibarrier(CommState c) {
        check(c, BARRIER);
        if (c.isInter()) {
            CollSchedule s = schedule(c, BARRIER, null, 0, INTER);
            CollInter.barrier(s, c);
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
        return reduce(c, sbuf, soff, rbuf, roff, count, k, op, root, false);
    }

    private Transfer reduce(CommState c, Object sbuf, int soff, Object rbuf, int roff, int count, Kind k, Reduction op,
                            int root, boolean blocking) {
        check(c, REDUCE);
        if (c.isInter()) {
            checkOp(op, k, count);
            Object acc = null;
            CollSchedule s = schedule(c, REDUCE, op, (long) count * k.size, INTER);
            if (interSender(c, root)) {
                checkBuffer("reduce send buffer", sbuf, k, soff, count);
                acc = s.scratch(k, count);
                s.copy(k, sbuf, soff, acc, 0, count);
            } else if (root == ROOT) {
                checkBuffer("reduce receive buffer", rbuf, k, roff, count);
            }
            CollInter.reduce(s, c, root, acc, rbuf, roff, k, count);
            return start(s);
        }
        checkRoot(c, root);
        checkBuffer("reduce send buffer", sbuf, k, soff, count);
        checkOp(op, k, count);
        boolean isRoot = c.rank == root;
        if (isRoot) {
            checkBuffer("reduce receive buffer", rbuf, k, roff, count);
        }
        int p = c.size();
        long bytes = (long) count * k.size;
        CollShm shm = blocking ? shared(c, REDUCE, bytes, tuning.reduceShared) : null;
        if (shm != null) {
            return sharedReduce(c, REDUCE, shm, root, sbuf, soff, rbuf, roff, count, k, op);
        }
        String algo;
        if (p == 1 || count == 0) {
            algo = LOCAL;
        } else if (op.commutative()) {
            algo = pick(REDUCE, bytes >= tuning.reduceLong && count / op.width() >= Integer.highestOneBit(p)
                    ? RABENSEIFNER : BINOMIAL, REDUCE_ALGOS);
        } else {
            algo = root == 0 ? BINOMIAL : BINOMIAL_VIA_0;
        }
        CollSchedule s = schedule(c, REDUCE, op, bytes, algo);
        Object acc;
        int accOff;
        if (isRoot && direct(rbuf, k)) {
            acc = rbuf;
            accOff = roff;
            s.copy(k, sbuf, soff, rbuf, roff, count);
        } else {
            acc = count == 0 ? null : s.scratch(k, count);
            accOff = 0;
            s.copy(k, sbuf, soff, acc, 0, count);
        }
        CollTeam t = CollTeam.of(c);
        switch (algo) {
            case LOCAL -> { }
            case RABENSEIFNER -> CollReduce.rabenseifnerReduce(s, t, root, acc, accOff, k, count, op.width());
            case BINOMIAL_VIA_0 -> {
                CollTree.binomialReduce(s, t, 0, acc, accOff, k, count);
                if (c.rank == 0) {
                    s.send(acc, k, accOff, count, root);
                } else if (isRoot) {
                    s.recv(acc, k, accOff, count, 0);
                }
                s.round();
            }
            default -> CollTree.binomialReduce(s, t, root, acc, accOff, k, count);
        }
        if (isRoot && acc != rbuf && count > 0) {
            s.copy(k, acc, accOff, rbuf, roff, count);
        }
        return start(s);
    }

    public void reduce(CommState c, Object sbuf, int soff, Object rbuf, int roff, int count, Kind k, Reduction op, int root) {
        finish(reduce(c, sbuf, soff, rbuf, roff, count, k, op, root, true));
    }

    /**
     * Reduction of everyone's {@code sbuf} delivered to everyone's {@code rbuf}. On an
     * intercommunicator each group receives the reduction of the other group's vectors.
     */
    public Transfer iallreduce(CommState c, Object sbuf, int soff, Object rbuf, int roff, int count, Kind k, Reduction op) {
        return allreduce(c, sbuf, soff, rbuf, roff, count, k, op, false);
    }

    private Transfer allreduce(CommState c, Object sbuf, int soff, Object rbuf, int roff, int count, Kind k, Reduction op,
                               boolean blocking) {
        check(c, ALLREDUCE);
        checkBuffer("allreduce send buffer", sbuf, k, soff, count);
        checkBuffer("allreduce receive buffer", rbuf, k, roff, count);
        checkOp(op, k, count);
        int p = c.size();
        long bytes = (long) count * k.size;
        int items = count / op.width();
        if (c.isInter()) {
            CollSchedule s = schedule(c, ALLREDUCE, op, bytes, INTER);
            Object acc = s.scratch(k, count);
            s.copy(k, sbuf, soff, acc, 0, count);
            CollInter.allreduce(s, c, acc, rbuf, roff, k, count);
            return start(s);
        }
        CollShm shm = blocking ? shared(c, ALLREDUCE, bytes, tuning.allreduceShared) : null;
        if (shm != null) {
            return sharedReduce(c, ALLREDUCE, shm, -1, sbuf, soff, rbuf, roff, count, k, op);
        }
        String algo;
        if (p == 1 || count == 0) {
            algo = LOCAL;
        } else if (!op.commutative()) {
            algo = RECURSIVE_DOUBLING;
        } else {
            String dflt = twoLevel(c) ? NODE_AWARE
                    : bytes >= tuning.allreduceRing && Integer.bitCount(p) != 1 && items >= p ? RING
                    : bytes >= tuning.allreduceLong && items >= Integer.highestOneBit(p) ? RABENSEIFNER
                    : RECURSIVE_DOUBLING;
            algo = pick(ALLREDUCE, dflt, ALLREDUCE_ALGOS);
            if (algo == NODE_AWARE && !nodes(c).twoLevel()) {
                algo = RECURSIVE_DOUBLING;
            }
        }
        CollSchedule s = schedule(c, ALLREDUCE, op, bytes, algo);
        boolean direct = direct(rbuf, k);
        Object acc = direct ? rbuf : s.scratch(k, count);
        int accOff = direct ? roff : 0;
        s.copy(k, sbuf, soff, acc, accOff, count);
        CollTeam t = CollTeam.of(c);
        switch (algo) {
            case LOCAL -> { }
            case NODE_AWARE -> nodes(c).allreduce(s, c.rank, acc, accOff, k, count, op.width(), bytes >= tuning.allreduceLong);
            case RING -> CollReduce.ring(s, t, acc, accOff, k, count, op.width());
            case RABENSEIFNER -> CollReduce.rabenseifner(s, t, acc, accOff, k, count, op.width());
            default -> CollReduce.recursiveDoubling(s, t, acc, accOff, k, count);
        }
        if (!direct) {
            s.copy(k, acc, 0, rbuf, roff, count);
        }
        return start(s);
    }

    /**
     * reduce ({@code root} a rank) or allreduce ({@code root} -1) through the shared segment: the
     * result is folded in the receive buffer itself when it is a Java array of the kind (at the
     * root, or everywhere for allreduce), else in a scratch array copied out at the end.
     */
    private Transfer sharedReduce(CommState c, int id, CollShm shm, int root, Object sbuf, int soff, Object rbuf, int roff,
                                  int count, Kind k, Reduction op) {
        CollSchedule s = schedule(c, id, op, (long) count * k.size, CollShm.NAME);
        boolean receives = root < 0 || c.rank == root;
        boolean direct = receives && direct(rbuf, k);
        Object acc = direct ? rbuf : s.scratch(k, count);
        int accOff = direct ? roff : 0;
        shm.reduce(s, CollTeam.of(c), root, sbuf, soff, acc, accOff, k, count, op.width());
        if (receives && !direct) {
            s.copy(k, acc, 0, rbuf, roff, count);
        }
        return start(s);
    }

    public void allreduce(CommState c, Object sbuf, int soff, Object rbuf, int roff, int count, Kind k, Reduction op) {
        finish(allreduce(c, sbuf, soff, rbuf, roff, count, k, op, true));
    }

    /**
     * Element-wise reduction of everyone's {@code sbuf} (of {@code sum(counts)} elements), whose
     * block r ({@code counts[r]} elements, in rank order) goes to rank r's {@code rbuf}. On an
     * intercommunicator, the reduction of the other group's vectors, with {@code counts} per
     * process of this group (both groups' totals must agree, as in MPI).
     */
    public Transfer ireduceScatter(CommState c, Object sbuf, int soff, Object rbuf, int roff, int[] counts, Kind k,
                                   Reduction op) {
        return reduceScatter(REDUCE_SCATTER, c, sbuf, soff, rbuf, roff, counts, k, op, false);
    }

    /** {@link #ireduceScatter} with {@code count} elements for every rank. */
    public Transfer ireduceScatterBlock(CommState c, Object sbuf, int soff, Object rbuf, int roff, int count, Kind k,
                                        Reduction op) {
        return reduceScatter(REDUCE_SCATTER_BLOCK, c, sbuf, soff, rbuf, roff, blocks(c, count), k, op, false);
    }

    /** {@code count} for each rank of the local group; an array shared between calls, only read. */
    private static int[] blocks(CommState c, int count) {
        return CollTree.regular(c.localSize(), count)[0];
    }

    private Transfer reduceScatter(int id, CommState c, Object sbuf, int soff, Object rbuf, int roff, int[] counts,
                                   Kind k, Reduction op, boolean blocking) {
        check(c, id);
        // on an intercommunicator the counts are those of the local group, which the result is scattered over
        int p = c.localSize();
        if (counts == null || counts.length < p) {
            throw new RailyardException(ErrorClass.ARG, NAMES[id] + ": counts need " + p + " entries");
        }
        for (int r = 0; r < p; r++) {
            if (counts[r] < 0) {
                throw new RailyardException(ErrorClass.COUNT, NAMES[id] + ": count " + counts[r] + " for rank " + r
                        + " is negative");
            }
        }
        long total = sum(counts, p);
        checkBuffer(NAMES[id], " send buffer", -1, sbuf, k, soff, (int) Math.min(Integer.MAX_VALUE, total));
        int mine = counts[c.rank];
        checkBuffer(NAMES[id], " receive buffer", -1, rbuf, k, roff, mine);
        if (op == null) {
            checkOp(null, k, 0);
        }
        for (int r = 0; r < p; r++) {
            checkOp(op, k, counts[r]);
        }
        int n = (int) total;
        long bytes = total * k.size;
        if (c.isInter()) {
            CollSchedule s = schedule(c, id, op, bytes, INTER);
            Object acc = n == 0 ? null : s.scratch(k, n);
            s.copy(k, sbuf, soff, acc, 0, n);
            CollInter.reduceScatter(s, c, acc, c.rank == 0 && n > 0 ? s.scratch(k, n) : null, k, n, counts,
                    starts(s, counts, p), rbuf, roff);
            return start(s);
        }
        CollShm shm = blocking ? shared(c, id, bytes, tuning.reduceScatterShared) : null;
        if (shm != null) {
            CollSchedule s = schedule(c, id, op, bytes, CollShm.NAME);
            boolean direct = direct(rbuf, k);
            Object acc = direct || mine == 0 ? rbuf : s.scratch(k, mine);
            int accOff = direct ? roff : 0;
            shm.reduceScatter(s, CollTeam.of(c), sbuf, soff, counts, starts(s, counts, p), k, acc, accOff, op.width());
            if (!direct && mine > 0) {
                s.copy(k, acc, 0, rbuf, roff, mine);
            }
            return start(s);
        }
        String algo = p == 1 || n == 0 ? LOCAL
                : bytes < tuning.reduceScatterShort ? pick(id, ALLREDUCE_COPY, REDUCE_SCATTER_ALGOS)
                : op.commutative() ? pick(id, RING, REDUCE_SCATTER_ALGOS)
                : pick(id, REDUCE_SCATTERV, REDUCE_SCATTER_NONCOMMUTATIVE_ALGOS);
        if (algo == RING && !op.commutative()) {
            algo = REDUCE_SCATTERV;
        }
        CollSchedule s = schedule(c, id, op, bytes, algo);
        int[] starts = starts(s, counts, p);
        Object acc = n == 0 ? null : s.scratch(k, n);
        s.copy(k, sbuf, soff, acc, 0, n);
        CollTeam t = CollTeam.of(c);
        switch (algo) {
            case LOCAL -> { }
            case ALLREDUCE_COPY -> CollReduce.recursiveDoubling(s, t, acc, 0, k, n);
            case RING -> CollReduce.ringReduceScatter(s, t, acc, 0, k, starts);
            default -> {
                CollTree.binomialReduce(s, t, 0, acc, 0, k, n);
                CollTree.linearScatterv(s, t, 0, acc, 0, counts, starts, k, rbuf, roff, mine, k);
            }
        }
        if (algo != REDUCE_SCATTERV && mine > 0) {
            s.copy(k, acc, starts[c.rank], rbuf, roff, mine);
        }
        return start(s);
    }

    /**
     * Where each of the first {@code p} blocks of {@code counts} starts when they lie end to end;
     * entry p is the total. In an int array that schedule {@code s} keeps for its next use.
     */
    private static int[] starts(CollSchedule s, int[] counts, int p) {
        int[] starts = s.ints(p + 1);
        starts[0] = 0;
        for (int r = 0; r < p; r++) {
            starts[r + 1] = starts[r] + counts[r];
        }
        return starts;
    }

    public void reduceScatter(CommState c, Object sbuf, int soff, Object rbuf, int roff, int[] counts, Kind k, Reduction op) {
        finish(reduceScatter(REDUCE_SCATTER, c, sbuf, soff, rbuf, roff, counts, k, op, true));
    }

    public void reduceScatterBlock(CommState c, Object sbuf, int soff, Object rbuf, int roff, int count, Kind k,
                                   Reduction op) {
        finish(reduceScatter(REDUCE_SCATTER_BLOCK, c, sbuf, soff, rbuf, roff, blocks(c, count), k, op, true));
    }

    /** Inclusive prefix reduction: rank r gets the reduction of ranks 0 to r, in rank order. */
    public Transfer iscan(CommState c, Object sbuf, int soff, Object rbuf, int roff, int count, Kind k, Reduction op) {
        return scan(SCAN, c, sbuf, soff, rbuf, roff, count, k, op);
    }

    /** Exclusive prefix reduction: rank r gets the reduction of ranks 0 to r - 1; rank 0's buffer is left untouched. */
    public Transfer iexscan(CommState c, Object sbuf, int soff, Object rbuf, int roff, int count, Kind k, Reduction op) {
        return scan(EXSCAN, c, sbuf, soff, rbuf, roff, count, k, op);
    }

    private Transfer scan(int id, CommState c, Object sbuf, int soff, Object rbuf, int roff, int count, Kind k,
                          Reduction op) {
        check(c, id);
        checkBuffer(NAMES[id], " send buffer", -1, sbuf, k, soff, count);
        checkBuffer(NAMES[id], " receive buffer", -1, rbuf, k, roff, count);
        checkOp(op, k, count);
        boolean exclusive = id == EXSCAN;
        CollSchedule s = schedule(c, id, op, (long) count * k.size, c.size() == 1 || count == 0 ? LOCAL : RECURSIVE_DOUBLING);
        if (count == 0) {
            return start(s);
        }
        Object partial = s.scratch(k, count);
        s.copy(k, sbuf, soff, partial, 0, count);
        boolean direct = direct(rbuf, k);
        Object result = direct ? rbuf : s.scratch(k, count);
        int resOff = direct ? roff : 0;
        if (!exclusive) {
            s.copy(k, sbuf, soff, result, resOff, count);
        }
        CollReduce.scan(s, CollTeam.of(c), partial, result, resOff, k, count, exclusive);
        if (!direct && (!exclusive || c.rank > 0)) {
            s.copy(k, result, 0, rbuf, roff, count);
        }
        return start(s);
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
        check(c, GATHER);
        int p = c.size();
        if (c.isInter()) {
            int[][] cd = CollTree.regular(p, rcount);
            return interBlocks(GATHER, c, root, rbuf, roff, cd[0], cd[1], rk, sbuf, soff, scount, sk);
        }
        checkRoot(c, root);
        checkBuffer("gather send buffer", sbuf, sk, soff, scount);
        if (c.rank == root) {
            checkBuffer("gather receive buffer", rbuf, rk, roff, (int) Math.min(Integer.MAX_VALUE, (long) p * rcount));
            checkSame("gather", scount, sk, rcount, rk);
        }
        long total = (long) scount * sk.size * p;
        String algo = p == 1 ? LOCAL : pick(GATHER, total < tuning.gatherLong ? BINOMIAL : LINEAR, GATHER_ALGOS);
        CollSchedule s = schedule(c, GATHER, null, total, algo);
        CollTeam t = CollTeam.of(c);
        switch (algo) {
            case LOCAL -> s.copy(sk, sbuf, soff, scount, rk, rbuf, roff);
            case BINOMIAL -> CollTree.binomialGather(s, t, root, sbuf, soff, scount, sk, rbuf, roff, rcount, rk);
            default -> {
                int[][] cd = c.rank == root ? CollTree.regular(p, rcount) : new int[2][];
                CollTree.linearGatherv(s, t, root, sbuf, soff, scount, sk, rbuf, roff, cd[0], cd[1], rk);
            }
        }
        return start(s);
    }

    private static void checkSame(String what, int scount, Kind sk, int rcount, Kind rk) {
        if ((long) scount * sk.size != (long) rcount * rk.size) {
            throw new RailyardException(ErrorClass.COUNT, what + ": the root's send block (" + scount + " " + sk
                    + ") and receive block (" + rcount + " " + rk + ") differ in size");
        }
    }

    public void gather(CommState c, Object sbuf, int soff, int scount, Kind sk, Object rbuf, int roff, int rcount, Kind rk,
                       int root) {
        finish(igather(c, sbuf, soff, scount, sk, rbuf, roff, rcount, rk, root));
    }

    /** Gathers {@code scount} elements from each rank r into root's {@code rbuf} at {@code roff + displs[r]}; counts are the root's. */
    public Transfer igatherv(CommState c, Object sbuf, int soff, int scount, Kind sk, Object rbuf, int roff, int[] counts,
                             int[] displs, Kind rk, int root) {
        check(c, GATHERV);
        if (c.isInter()) {
            return interBlocks(GATHERV, c, root, rbuf, roff, counts, displs, rk, sbuf, soff, scount, sk);
        }
        checkRoot(c, root);
        checkBuffer("gatherv send buffer", sbuf, sk, soff, scount);
        int p = c.size();
        if (c.rank == root) {
            checkBlocks("gatherv", true, rbuf, rk, roff, counts, displs, p);
        }
        CollSchedule s = schedule(c, GATHERV, null, (long) scount * sk.size, LINEAR);
        CollTree.linearGatherv(s, CollTeam.of(c), root, sbuf, soff, scount, sk, rbuf, roff, counts, displs, rk);
        return start(s);
    }

    public void gatherv(CommState c, Object sbuf, int soff, int scount, Kind sk, Object rbuf, int roff, int[] counts,
                        int[] displs, Kind rk, int root) {
        finish(igatherv(c, sbuf, soff, scount, sk, rbuf, roff, counts, displs, rk, root));
    }

    /** Scatters root's {@code sbuf}, block r at {@code soff + r * scount}, to everyone's {@code rbuf}; send arguments matter at the root. */
    public Transfer iscatter(CommState c, Object sbuf, int soff, int scount, Kind sk, Object rbuf, int roff, int rcount,
                             Kind rk, int root) {
        check(c, SCATTER);
        int p = c.size();
        if (c.isInter()) {
            int[][] cd = CollTree.regular(p, scount);
            return interBlocks(SCATTER, c, root, sbuf, soff, cd[0], cd[1], sk, rbuf, roff, rcount, rk);
        }
        checkRoot(c, root);
        checkBuffer("scatter receive buffer", rbuf, rk, roff, rcount);
        if (c.rank == root) {
            checkBuffer("scatter send buffer", sbuf, sk, soff, (int) Math.min(Integer.MAX_VALUE, (long) p * scount));
            checkSame("scatter", scount, sk, rcount, rk);
        }
        long total = (long) rcount * rk.size * p;
        String algo = p == 1 ? LOCAL : pick(SCATTER, total < tuning.gatherLong ? BINOMIAL : LINEAR, GATHER_ALGOS);
        CollSchedule s = schedule(c, SCATTER, null, total, algo);
        CollTeam t = CollTeam.of(c);
        switch (algo) {
            case LOCAL -> s.copy(sk, sbuf, soff, scount, rk, rbuf, roff);
            case BINOMIAL -> CollTree.binomialScatter(s, t, root, sbuf, soff, scount, sk, rbuf, roff, rcount, rk);
            default -> {
                int[][] cd = c.rank == root ? CollTree.regular(p, scount) : new int[2][];
                CollTree.linearScatterv(s, t, root, sbuf, soff, cd[0], cd[1], sk, rbuf, roff, rcount, rk);
            }
        }
        return start(s);
    }

    public void scatter(CommState c, Object sbuf, int soff, int scount, Kind sk, Object rbuf, int roff, int rcount, Kind rk,
                        int root) {
        finish(iscatter(c, sbuf, soff, scount, sk, rbuf, roff, rcount, rk, root));
    }

    /** Scatters {@code counts[r]} elements at {@code soff + displs[r]} of root's {@code sbuf} to rank r. */
    public Transfer iscatterv(CommState c, Object sbuf, int soff, int[] counts, int[] displs, Kind sk, Object rbuf, int roff,
                              int rcount, Kind rk, int root) {
        check(c, SCATTERV);
        if (c.isInter()) {
            return interBlocks(SCATTERV, c, root, sbuf, soff, counts, displs, sk, rbuf, roff, rcount, rk);
        }
        checkRoot(c, root);
        checkBuffer("scatterv receive buffer", rbuf, rk, roff, rcount);
        int p = c.size();
        if (c.rank == root) {
            checkBlocks("scatterv", false, sbuf, sk, soff, counts, displs, p);
        }
        CollSchedule s = schedule(c, SCATTERV, null, (long) rcount * rk.size, LINEAR);
        CollTree.linearScatterv(s, CollTeam.of(c), root, sbuf, soff, counts, displs, sk, rbuf, roff, rcount, rk);
        return start(s);
    }

    public void scatterv(CommState c, Object sbuf, int soff, int[] counts, int[] displs, Kind sk, Object rbuf, int roff,
                         int rcount, Kind rk, int root) {
        finish(iscatterv(c, sbuf, soff, counts, displs, sk, rbuf, roff, rcount, rk, root));
    }

    // ================================================================== allgather

    /** Everyone's {@code scount} elements to everyone's {@code rbuf}, block r at {@code roff + r * rcount}. */
    public Transfer iallgather(CommState c, Object sbuf, int soff, int scount, Kind sk, Object rbuf, int roff, int rcount,
                               Kind rk) {
        int[][] cd = CollTree.regular(c.size(), rcount);
        return allgatherv(ALLGATHER, c, sbuf, soff, scount, sk, rbuf, roff, cd[0], cd[1], rk, false);
    }

    /** Everyone's {@code scount} elements to everyone's {@code rbuf}, rank r's at {@code roff + displs[r]}. */
    public Transfer iallgatherv(CommState c, Object sbuf, int soff, int scount, Kind sk, Object rbuf, int roff, int[] counts,
                                int[] displs, Kind rk) {
        return allgatherv(ALLGATHERV, c, sbuf, soff, scount, sk, rbuf, roff, counts, displs, rk, false);
    }

    private Transfer allgatherv(int id, CommState c, Object sbuf, int soff, int scount, Kind sk, Object rbuf, int roff,
                                int[] counts, int[] displs, Kind rk, boolean blocking) {
        check(c, id);
        int p = c.size();
        checkBuffer(NAMES[id], " send buffer", -1, sbuf, sk, soff, scount);
        checkBlocks(NAMES[id], true, rbuf, rk, roff, counts, displs, p);
        if (c.isInter()) {
            CollSchedule s = schedule(c, id, null, sum(counts, p) * rk.size, INTER);
            if (id == ALLGATHER) {
                // regular blocks, one per process of the other group: through the leaders
                CollInter.allgather(s, c, sbuf, soff, scount, sk, rbuf, roff, p == 0 ? 0 : counts[0], rk);
            } else {
                CollInter.allgatherv(s, c, sbuf, soff, scount, sk, rbuf, roff, counts, displs, rk);
            }
            return start(s);
        }
        if ((long) scount * sk.size != (long) counts[c.rank] * rk.size) {
            throw new RailyardException(ErrorClass.COUNT, NAMES[id] + ": send block of " + scount + " " + sk
                    + " differs in size from this rank's receive block of " + counts[c.rank] + " " + rk);
        }
        long total = sum(counts, p) * rk.size;
        CollShm shm = blocking ? shared(c, id, total, tuning.allgatherShared) : null;
        if (shm != null) {
            CollTeam t = CollTeam.of(c);
            if (total >= tuning.allgatherReads && shm.tryReads(CollShm.ALLGATHER)) {
                Transfer read = viaReads(c, id, shm, t, CollShm.ALLGATHER, sbuf, soff, sk, rbuf, (long) scount * sk.size,
                        total, at -> shm.readBlocks(t, at, sbuf, soff, scount, sk, rbuf, roff, counts, displs, rk, 0, NAMES[id]));
                if (read != null) {
                    return read;
                }
            }
            CollSchedule s = schedule(c, id, null, total, CollShm.NAME);
            shm.allgatherv(s, t, sbuf, soff, scount, sk, rbuf, roff, counts, displs, rk);
            return start(s);
        }
        boolean pof2 = Integer.bitCount(p) == 1;
        String dflt = p == 1 ? LOCAL
                : pof2 && total < tuning.allgatherLong ? RECURSIVE_DOUBLING
                : !pof2 && total < tuning.allgatherShort ? BRUCK : RING;
        String algo = dflt == LOCAL ? LOCAL : pick(id, dflt, ALLGATHER_ALGOS);
        if (algo == RECURSIVE_DOUBLING && Integer.bitCount(p) != 1) {
            algo = BRUCK;
        }
        CollSchedule s = schedule(c, id, null, total, algo);
        s.copiedBelow = tuning.exchangeReads;
        CollTeam t = CollTeam.of(c);
        switch (algo) {
            case LOCAL -> s.copy(sk, sbuf, soff, scount, rk, rbuf, roff + displs[0]);
            case RING -> CollGather.ring(s, t, sbuf, soff, scount, sk, rbuf, roff, counts, displs, rk);
            case BRUCK -> CollGather.bruck(s, t, sbuf, soff, scount, sk, rbuf, roff, counts, displs, rk);
            default -> CollGather.recursiveDoubling(s, t, sbuf, soff, scount, sk, rbuf, roff, counts, displs, rk);
        }
        return start(s);
    }

    public void allgather(CommState c, Object sbuf, int soff, int scount, Kind sk, Object rbuf, int roff, int rcount, Kind rk) {
        int[][] cd = CollTree.regular(c.size(), rcount);
        finish(allgatherv(ALLGATHER, c, sbuf, soff, scount, sk, rbuf, roff, cd[0], cd[1], rk, true));
    }

    public void allgatherv(CommState c, Object sbuf, int soff, int scount, Kind sk, Object rbuf, int roff, int[] counts,
                           int[] displs, Kind rk) {
        finish(allgatherv(ALLGATHERV, c, sbuf, soff, scount, sk, rbuf, roff, counts, displs, rk, true));
    }

    // ================================================================== alltoall

    /** Block r of everyone's {@code sbuf} ({@code scount} elements at {@code soff + r * scount}) to rank r, in sender order. */
    public Transfer ialltoall(CommState c, Object sbuf, int soff, int scount, Kind sk, Object rbuf, int roff, int rcount,
                              Kind rk) {
        return alltoall(c, sbuf, soff, scount, sk, rbuf, roff, rcount, rk, false);
    }

    public void alltoall(CommState c, Object sbuf, int soff, int scount, Kind sk, Object rbuf, int roff, int rcount, Kind rk) {
        finish(alltoall(c, sbuf, soff, scount, sk, rbuf, roff, rcount, rk, true));
    }

    private Transfer alltoall(CommState c, Object sbuf, int soff, int scount, Kind sk, Object rbuf, int roff, int rcount,
                              Kind rk, boolean blocking) {
        check(c, ALLTOALL);
        int p = c.size();
        checkBuffer("alltoall send buffer", sbuf, sk, soff, (int) Math.min(Integer.MAX_VALUE, (long) p * scount));
        checkBuffer("alltoall receive buffer", rbuf, rk, roff, (int) Math.min(Integer.MAX_VALUE, (long) p * rcount));
        checkSame("alltoall", scount, sk, rcount, rk);
        long block = (long) scount * sk.size;
        if (c.isInter()) {
            CollSchedule s = schedule(c, ALLTOALL, null, block, INTER);
            int[][] sc = CollTree.regular(p, scount);
            int[][] rc = CollTree.regular(p, rcount);
            CollInter.alltoall(s, c, sbuf, soff, sc[0], sc[1], sk, rbuf, roff, rc[0], rc[1], rk);
            return start(s);
        }
        CollShm shm = blocking ? shared(c, ALLTOALL, block, tuning.alltoallShared) : null;
        if (shm != null) {
            CollTeam t = CollTeam.of(c);
            if (block >= tuning.alltoallReads && shm.tryReads(CollShm.ALLTOALL)) {
                int[][] rc = CollTree.regular(p, rcount);
                Transfer read = viaReads(c, ALLTOALL, shm, t, CollShm.ALLTOALL, sbuf, soff, sk, rbuf, block, block,
                        at -> shm.readBlocks(t, at, sbuf, soff + t.me * scount, scount, sk, rbuf, roff, rc[0], rc[1], rk,
                                block, NAMES[ALLTOALL]));
                if (read != null) {
                    return read;
                }
            }
            CollSchedule s = schedule(c, ALLTOALL, null, block, CollShm.NAME);
            shm.alltoall(s, t, sbuf, soff, scount, sk, rbuf, roff, rcount, rk);
            return start(s);
        }
        String dflt = p == 1 ? LOCAL
                : block <= tuning.alltoallShort && p >= tuning.alltoallBruckMinP ? BRUCK
                : block >= alltoallLong(c) ? PAIRWISE : LINEAR;
        String algo = dflt == LOCAL ? LOCAL : pick(ALLTOALL, dflt, ALLTOALL_ALGOS);
        CollSchedule s = schedule(c, ALLTOALL, null, block, algo);
        s.copiedBelow = tuning.exchangeReads;
        CollTeam t = CollTeam.of(c);
        if (algo == BRUCK) {
            CollExchange.bruck(s, t, sbuf, soff, scount, sk, rbuf, roff, rcount, rk);
        } else {
            int[][] sc = CollTree.regular(p, scount);
            int[][] rc = CollTree.regular(p, rcount);
            if (algo == PAIRWISE) {
                CollExchange.pairwise(s, t, sbuf, soff, sc[0], sc[1], sk, rbuf, roff, rc[0], rc[1], rk);
            } else {
                CollExchange.linear(s, t, sbuf, soff, sc[0], sc[1], sk, rbuf, roff, rc[0], rc[1], rk);
            }
        }
        return start(s);
    }

    /** Rank r gets {@code scounts[r]} elements at {@code soff + sdispls[r]}; what rank r sends here lands at {@code roff + rdispls[r]}. */
    public Transfer ialltoallv(CommState c, Object sbuf, int soff, int[] scounts, int[] sdispls, Kind sk, Object rbuf,
                               int roff, int[] rcounts, int[] rdispls, Kind rk) {
        check(c, ALLTOALLV);
        int p = c.size();
        checkBlocks("alltoallv", false, sbuf, sk, soff, scounts, sdispls, p);
        checkBlocks("alltoallv", true, rbuf, rk, roff, rcounts, rdispls, p);
        long most = Math.max(sum(scounts, p) * sk.size, sum(rcounts, p) * rk.size);
        if (c.isInter()) {
            CollSchedule s = schedule(c, ALLTOALLV, null, most / Math.max(1, p), INTER);
            CollInter.alltoall(s, c, sbuf, soff, scounts, sdispls, sk, rbuf, roff, rcounts, rdispls, rk);
            return start(s);
        }
        String algo = pick(ALLTOALLV, most / p >= alltoallLong(c) ? PAIRWISE : LINEAR, ALLTOALLV_ALGOS);
        CollSchedule s = schedule(c, ALLTOALLV, null, most / p, algo);
        s.copiedBelow = tuning.exchangeReads;
        if (algo == PAIRWISE) {
            CollExchange.pairwise(s, CollTeam.of(c), sbuf, soff, scounts, sdispls, sk, rbuf, roff, rcounts, rdispls, rk);
        } else {
            CollExchange.linear(s, CollTeam.of(c), sbuf, soff, scounts, sdispls, sk, rbuf, roff, rcounts, rdispls, rk);
        }
        return start(s);
    }

    public void alltoallv(CommState c, Object sbuf, int soff, int[] scounts, int[] sdispls, Kind sk, Object rbuf, int roff,
                          int[] rcounts, int[] rdispls, Kind rk) {
        finish(ialltoallv(c, sbuf, soff, scounts, sdispls, sk, rbuf, roff, rcounts, rdispls, rk));
    }

    /**
     * The most general exchange: a count, a displacement and a type per peer, each displacement
     * in elements of its own type (from the start of the buffer; a byte buffer holds any mix).
     */
    public Transfer ialltoallw(CommState c, Object sbuf, int[] scounts, int[] sdispls, Kind[] sks, Object rbuf,
                               int[] rcounts, int[] rdispls, Kind[] rks) {
        check(c, ALLTOALLW);
        int p = c.size();
        if (sks == null || rks == null || sks.length < p || rks.length < p) {
            throw new RailyardException(ErrorClass.TYPE, "alltoallw needs a send and a receive type for each of " + p + " ranks");
        }
        long bytes = 0;
        for (int r = 0; r < p; r++) {
            if (scounts[r] > 0 || (r == c.rank && !c.isInter())) {
                checkBuffer("alltoallw", " send block of rank", r, sbuf, sks[r], sdispls[r], scounts[r]);
            }
            if (rcounts[r] > 0 || (r == c.rank && !c.isInter())) {
                checkBuffer("alltoallw", " receive block of rank", r, rbuf, rks[r], rdispls[r], rcounts[r]);
            }
            bytes += (long) scounts[r] * sks[r].size;
        }
        if (c.isInter()) {
            CollSchedule s = schedule(c, ALLTOALLW, null, bytes / Math.max(1, p), INTER);
            CollInter.alltoallw(s, c, sbuf, 0, scounts, sdispls, sks, null, rbuf, 0, rcounts, rdispls, rks, null);
            return start(s);
        }
        CollSchedule s = schedule(c, ALLTOALLW, null, bytes / p, LINEAR);
        s.copiedBelow = tuning.exchangeReads;
        CollExchange.linearW(s, CollTeam.of(c), sbuf, scounts, sdispls, sks, rbuf, rcounts, rdispls, rks);
        return start(s);
    }

    public void alltoallw(CommState c, Object sbuf, int[] scounts, int[] sdispls, Kind[] sks, Object rbuf, int[] rcounts,
                          int[] rdispls, Kind[] rks) {
        finish(ialltoallw(c, sbuf, scounts, sdispls, sks, rbuf, rcounts, rdispls, rks));
    }

    // ================================================================== neighbourhood

    /** Sends {@code sbuf} to every neighbour of the topology; block j of {@code rbuf} comes from neighbour j. */
    public Transfer ineighbourAllgather(CommState c, Object sbuf, int soff, int scount, Kind sk, Object rbuf, int roff,
                                        int rcount, Kind rk) {
        return neighbour(NEIGHBOUR_ALLGATHER, c, false, sbuf, soff, scount, sk, rbuf, roff, rcount, rk);
    }

    /** Block j of {@code sbuf} to neighbour j; block j of {@code rbuf} from neighbour j. */
    public Transfer ineighbourAlltoall(CommState c, Object sbuf, int soff, int scount, Kind sk, Object rbuf, int roff,
                                       int rcount, Kind rk) {
        return neighbour(NEIGHBOUR_ALLTOALL, c, true, sbuf, soff, scount, sk, rbuf, roff, rcount, rk);
    }

    private Transfer neighbour(int id, CommState c, boolean alltoall, Object sbuf, int soff, int scount, Kind sk,
                               Object rbuf, int roff, int rcount, Kind rk) {
        Topology topo = topology(c, id);
        int nin = topo.sources(c.rank).length;
        int nout = topo.destinations(c.rank).length;
        checkBuffer(NAMES[id], " send buffer", -1, sbuf, sk, soff, alltoall ? nout * scount : scount);
        checkBuffer(NAMES[id], " receive buffer", -1, rbuf, rk, roff, nin * rcount);
        CollSchedule s = schedule(c, id, null, (long) scount * sk.size, LINEAR);
        int[][] sc = CollTree.regular(nout, scount);
        int[][] rc = CollTree.regular(nin, rcount);
        CollExchange.neighbours(s, topo, sbuf, soff, sc[0], alltoall ? sc[1] : new int[nout], same(sk, nout), rbuf, roff,
                rc[0], rc[1], same(rk, nin));
        return start(s);
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
        int id = NEIGHBOUR_ALLGATHERV;
        Topology topo = topology(c, id);
        int nin = topo.sources(c.rank).length;
        int nout = topo.destinations(c.rank).length;
        checkType(NAMES[id] + " send", sk);
        checkType(NAMES[id] + " receive", rk);
        checkBuffer(NAMES[id], " send buffer", -1, sbuf, sk, soff, scount);
        int[] scounts = new int[nout];
        java.util.Arrays.fill(scounts, scount);
        return neighbourBlocks(id, c, topo, sbuf, soff, scounts, new int[nout], same(sk, nout), rbuf, roff, rcounts,
                rdispls, same(rk, nin));
    }

    /**
     * Block j of {@code sbuf} ({@code scounts[j]} elements at {@code soff + sdispls[j]}) goes to
     * neighbour j; block j of {@code rbuf} ({@code rcounts[j]} elements at {@code roff + rdispls[j]})
     * comes from neighbour j. Blocks of {@link CommState#PROC_NULL} neighbours move nothing.
     */
    public Transfer ineighbourAlltoallv(CommState c, Object sbuf, int soff, int[] scounts, int[] sdispls, Kind sk,
                                        Object rbuf, int roff, int[] rcounts, int[] rdispls, Kind rk) {
        int id = NEIGHBOUR_ALLTOALLV;
        Topology topo = topology(c, id);
        checkType(NAMES[id] + " send", sk);
        checkType(NAMES[id] + " receive", rk);
        return neighbourBlocks(id, c, topo, sbuf, soff, scounts, sdispls, same(sk, topo.destinations(c.rank).length),
                rbuf, roff, rcounts, rdispls, same(rk, topo.sources(c.rank).length));
    }

    /**
     * {@link #ineighbourAlltoallv} with a type per neighbour on each side. As in
     * {@link #ialltoallw}, each displacement is in elements of its own block's type, counted from
     * the start of the buffer (not in bytes as in MPI; a byte buffer holds any mix).
     */
    public Transfer ineighbourAlltoallw(CommState c, Object sbuf, int[] scounts, int[] sdispls, Kind[] sks, Object rbuf,
                                        int[] rcounts, int[] rdispls, Kind[] rks) {
        int id = NEIGHBOUR_ALLTOALLW;
        return neighbourBlocks(id, c, topology(c, id), sbuf, 0, scounts, sdispls, sks, rbuf, 0, rcounts, rdispls, rks);
    }

    /**
     * The neighbourhood exchange with a count, displacement and type per block, which the v and w
     * forms share: checks the types and the blocks of both sides, then builds and starts the schedule.
     */
    private Transfer neighbourBlocks(int id, CommState c, Topology topo, Object sbuf, int soff, int[] scounts,
                                     int[] sdispls, Kind[] sks, Object rbuf, int roff, int[] rcounts, int[] rdispls,
                                     Kind[] rks) {
        int nin = topo.sources(c.rank).length;
        int nout = topo.destinations(c.rank).length;
        checkNeighbourTypes(NAMES[id] + " send", c, sks, nout);
        checkNeighbourTypes(NAMES[id] + " receive", c, rks, nin);
        long sbytes = checkNeighbourBlocks(NAMES[id] + " send", c, sbuf, soff, scounts, sdispls, sks, nout);
        long rbytes = checkNeighbourBlocks(NAMES[id] + " receive", c, rbuf, roff, rcounts, rdispls, rks, nin);
        CollSchedule s = schedule(c, id, null, Math.max(sbytes, rbytes) / Math.max(Math.max(nin, nout), 1), LINEAR);
        CollExchange.neighbours(s, topo, sbuf, soff, scounts, sdispls, sks, rbuf, roff, rcounts, rdispls, rks);
        return start(s);
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

    /** The topology of {@code c}, which collective {@code id} needs; a COMM error if there is none. */
    private Topology topology(CommState c, int id) {
        check(c, id);
        Topology topo = c.topology();
        if (topo == null) {
            throw new RailyardException(ErrorClass.COMM, NAMES[id] + " needs a communicator with a topology; "
                    + c.name() + " has none");
        }
        return topo;
    }

    private static Kind[] same(Kind k, int n) {
        Kind[] ks = new Kind[n];
        java.util.Arrays.fill(ks, k);
        return ks;
    }

    private static void checkType(String what, Kind k) {
        if (k == null) {
            throw new RailyardException(ErrorClass.TYPE, what + " datatype is null");
        }
    }

    /** Checks that an array of {@code entries} (-1: null) covers the {@code n} neighbours of this process. */
    private static void checkNeighbourEntries(String what, ErrorClass ec, int entries, CommState c, int n) {
        if (Math.max(entries, 0) < n) {
            throw new RailyardException(ec, what + (entries < 0 ? " are null" : " have " + entries + " entries")
                    + " but rank " + c.rank + " of " + c.name() + " has " + n + " neighbours");
        }
    }

    private static void checkNeighbourTypes(String what, CommState c, Kind[] ks, int n) {
        checkNeighbourEntries(what + " types", ErrorClass.TYPE, ks == null ? -1 : ks.length, c, n);
        for (int j = 0; j < n; j++) {
            if (ks[j] == null) {
                throw new RailyardException(ErrorClass.TYPE, what + " datatype for neighbour " + j + " is null");
            }
        }
    }

    /**
     * Checks one block per neighbour: {@code counts} and {@code displs} have an entry for each of
     * the {@code n} neighbours, no count is negative, and every non-empty block
     * ({@code counts[j]} elements of {@code ks[j]} at {@code off + displs[j]}) lies inside
     * {@code buf}. Blocks of {@link CommState#PROC_NULL} neighbours are checked too. Returns the bytes
     * of all blocks.
     */
    private static long checkNeighbourBlocks(String what, CommState c, Object buf, int off, int[] counts, int[] displs,
                                             Kind[] ks, int n) {
        checkNeighbourEntries(what + " counts", ErrorClass.ARG, counts == null ? -1 : counts.length, c, n);
        checkNeighbourEntries(what + " displacements", ErrorClass.ARG, displs == null ? -1 : displs.length, c, n);
        long bytes = 0;
        for (int j = 0; j < n; j++) {
            if (counts[j] < 0) {
                throw new RailyardException(ErrorClass.COUNT, what + ": count " + counts[j] + " for neighbour " + j
                        + " is negative");
            }
            if (counts[j] > 0) {
                // an offset past int range is reported as out of the buffer, not wrapped round
                int at = (int) Math.max(Integer.MIN_VALUE, Math.min(Integer.MAX_VALUE, (long) off + displs[j]));
                checkBuffer(what, " block of neighbour", j, buf, ks[j], at, counts[j]);
                bytes += (long) counts[j] * ks[j].size;
            }
        }
        return bytes;
    }
}
