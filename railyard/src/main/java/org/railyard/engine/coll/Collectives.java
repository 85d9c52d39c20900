package org.railyard.engine.coll;

import static org.railyard.engine.coll.CollChecks.*;
import static org.railyard.engine.coll.CollChoice.*;

import java.util.Arrays;
import java.util.concurrent.locks.ReentrantLock;

import org.railyard.engine.comm.CommState;
import org.railyard.engine.request.Transfer;
import org.railyard.error.ErrorClass;
import org.railyard.error.RailyardException;
import org.railyard.types.Kind;
import org.railyard.types.Reduction;

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
 * <p>Which algorithm each collective runs, and when, is the table of this package's
 * {@code package-info.java}; the thresholds are in {@link CollTuning}, all settable.
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
    /** The communicators' shared segments on one node ({@link CollShm}). */
    private final CollSegments segments;
    private int pooled;
    private final CollReductions reductions = new CollReductions(this);
    private final CollMoves moves = new CollMoves(this);
    private final CollNeighbours neighbours = new CollNeighbours(this);

    public Collectives(CollServices p2p) {
        this.p2p = p2p;
        this.segments = new CollSegments(p2p, this);
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

    /** True if no collective schedule is under way (lock held). */
    public boolean idle() {
        return activeHead == null;
    }

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

    /** Appends each collective under way and its pending sends and receives, for a stall report (lock held). */
    public void describe(StringBuilder sb) {
        int n = 0;
        for (CollSchedule s = activeHead; s != null; s = s.nextActive, n++) {
            sb.append("  collective: ").append(s).append('\n');
            s.describePending(sb);
        }
        sb.append("  ").append(n).append(" collectives under way\n");
        segments.describeCounterWaits(sb);
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
        if (t == CollSchedule.DONE) {
            return;
        }
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
    void logChoice(CommState c, int id, Reduction op, long bytes, String algorithm) {
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

    /** The shared segment of {@code c} for collective {@code id}, or null: see {@link CollSegments#shared}. */
    CollShm shared(CommState c, int id, long bytes, long from) {
        return segments.shared(c, id, bytes, from);
    }

    /** Unmaps the shared segment of {@code c}, if it has one (the communicator is freed). */
    public void release(CommState c) {
        segments.release(c);
    }

    /** Unmaps every shared segment (the engine closes). */
    public void close() {
        segments.close();
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
        check(c, BARRIER);
        CollShm shm = segments.counter(c, BARRIER);
        if (shm != null) {
            logChoice(c, BARRIER, null, 0, CollCounter.NAME);
            shm.counter().barrier();
            return;
        }
        finish(ibarrier(c));
    }

    /** The segment for the counter barrier of a blocking collective {@code id} on {@code c}, or null: {@link CollSegments#counter}. */
    CollShm counter(CommState c, int id) {
        return segments.counter(c, id);
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
        // below the shared segment's threshold: the root's copy in, one counter barrier, the copies out
        shm = blocking && count > 0 && k != null && bytes < tuning.bcastSharedFrom(c.size()) ? counter(c, BCAST) : null;
        if (shm != null && bytes <= shm.halfBytes()) {
            logChoice(c, BCAST, null, bytes, CollCounter.NAME);
            shm.counter().bcast(root, buf, k, off, count);
            return CollSchedule.DONE;
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
