package org.railyard.engine;

import java.lang.foreign.MemorySegment;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.BooleanSupplier;

import org.railyard.bootstrap.Bootstrap;
import org.railyard.bootstrap.StartupTiming;
import org.railyard.channel.ChannelTable;
import org.railyard.channel.FrameSink;
import org.railyard.channel.LocalMemory;
import org.railyard.channel.VirtualChannel;
import org.railyard.engine.coll.Collectives;
import org.railyard.engine.comm.CommState;
import org.railyard.engine.comm.Communicators;
import org.railyard.engine.p2p.PointToPoint;
import org.railyard.engine.progress.Progress;
import org.railyard.engine.request.StatusSink;
import org.railyard.engine.request.Transfer;
import org.railyard.engine.rma.Rma;
import org.railyard.error.ErrorClass;
import org.railyard.error.RailyardException;
import org.railyard.types.Kind;
import org.railyard.util.BackoffIdle;
import org.railyard.util.Config;
import org.railyard.util.CpuBinding;
import org.railyard.util.Futex;
import org.railyard.util.IdlePlan;
import org.railyard.util.TimerSlack;
import org.railyard.wire.FrameHeader;
import org.railyard.wire.FrameType;

/**
 * The engine of one process, assembled from its components: the channel floor below
 * ({@link ChannelTable}), {@code engine.progress} (who drives progress, and how threads wait),
 * {@code engine.p2p} (matching and the eager, rendezvous and cross-memory read protocols), the
 * collectives ({@link Collectives}) and the value flows of iterative schemes ({@link ValueFlows}).
 * The engine checks the arguments of every call, hands it to its component, routes the frames the
 * channel floor delivers, and opens and closes the whole.
 *
 * <p>Dependencies point one way: p2p uses progress and the channel floor; progress uses no floor
 * (the engine hands it the channel floor's doorbell as a {@link Progress.Bell} and the duty cycle
 * as parts); neither knows the collectives. The request type ({@link Transfer}),
 * {@link Kind}, {@link StatusSink} and {@link CommState} are shared by the components.
 *
 * <p>Threads: see {@code engine.progress} for who may drive progress and when. Several application
 * threads may call at once (MPI_THREAD_MULTIPLE): calls are serialised by the progress lock, and
 * each waits on its own request.
 */
public final class Engine implements FrameSink, Transfer.Owner {
    public static final int ANY_SOURCE = PointToPoint.ANY_SOURCE;
    public static final int ANY_TAG = PointToPoint.ANY_TAG;
    public static final int PROC_NULL = PointToPoint.PROC_NULL;
    public static final int UNDEFINED = CommState.UNDEFINED;
    public static final int TAG_UB = (1 << 30) - 1;
    public static final int MODE_STANDARD = PointToPoint.MODE_STANDARD;
    public static final int MODE_SYNC = PointToPoint.MODE_SYNC;

    private final Bootstrap bootstrap;
    private final int rank;
    private final int size;
    private final String node;
    private final ChannelTable channels;
    private final Progress progress;
    private final PointToPoint p2p;
    private final List<String> transportNames;
    private final boolean printChoices;
    private final List<String> choiceLog = new ArrayList<>();
    private final Collectives collectives;
    private final Communicators communicators;
    private final ValueFlows values = new ValueFlows(this);
    private final Rma rma;
    private final Checkpoints checkpoints;
    /** The stall report's watch, or null when {@code railyard.stall.report} is off. */
    private final StallWatch stallWatch;

    private Engine(Bootstrap bootstrap) {
        // the processors this process may use (cgroup quota included), counted before the binding below narrows them to one
        int processors = IdlePlan.processors();
        int ranksHere = IdlePlan.ranksOnNode(Config.env(), bootstrap.size());
        // on the calling thread: the progress agent started below inherits the binding
        String binding = CpuBinding.apply(Config.env());
        StartupTiming.mark("binding");
        this.bootstrap = bootstrap;
        this.rank = bootstrap.rank();
        this.size = bootstrap.size();
        this.printChoices = Config.bool(Config.PRINT_CHOICES_PROP, Config.PRINT_CHOICES_DEFAULT);
        this.channels = ChannelTable.open(bootstrap, this, printChoices ? this::choice : null,
                s -> System.getLogger("org.railyard.engine").log(System.Logger.Level.WARNING, s));
        this.node = channels.node();
        this.transportNames = channels.transportNames();
        long requested = Config.bytes(Config.EAGER_LIMIT_PROP, Config.EAGER_LIMIT_DEFAULT);
        long eagerLimit = Math.min(requested, channels.minFrame() - FrameHeader.LENGTH);
        // cross-memory reads need a transport that shares the node's memory (shm) and the call
        LocalMemory memory = channels.localMemory();
        String noReads = !Config.bool(Config.CMA_PROP, Config.CMA_DEFAULT) ? Config.CMA_PROP + "=false"
                : memory == null ? "no transport of this process shares the node's memory" : memory.whyNoReads();
        boolean remoteRead = noReads == null;
        // an empty message has nothing to read; with more ranks than processors reads pay from a smaller size
        long remoteReadMin = Math.max(1, Config.bytes(Config.CMA_MIN_PROP,
                ranksHere > processors ? Config.CMA_MIN_CROWDED_DEFAULT : Config.CMA_MIN_DEFAULT));
        this.collectives = new Collectives(new CollPort(this));
        this.communicators = new Communicators(new CommPort(this, collectives), size, rank);
        this.rma = new Rma(new RmaPort(this));
        // how long a waiter polls depends on the share of the processors this node's ranks get, and
        // on whether a relay process must get one between them: IdlePlan
        IdlePlan.Reach reach = IdlePlan.reach(transportNames, Config.bool(Config.LISTEN_PROP, Config.LISTEN_DEFAULT));
        long spins = Config.number(Config.IDLE_SPINS_PROP, IdlePlan.spins(reach, ranksHere, processors));
        long maxPark = Config.number(Config.IDLE_MAX_PARK_PROP, Config.IDLE_MAX_PARK_DEFAULT) * 1000;
        long yields = Config.number(Config.IDLE_YIELDS_PROP, IdlePlan.yields(reach, ranksHere, processors));
        boolean sleepFirst = Config.bool(Config.IDLE_SLEEP_FIRST_PROP, IdlePlan.sleepFirst(reach, ranksHere, processors));
        boolean onInput = IdlePlan.sleepsOnInput(reach) && channels.sleepOnInput();
        TimerSlack.configured(); // each thread reads it at its first park; a bad value fails here, not in a wait
        long maxSleep = Config.number(Config.IDLE_MAX_SLEEP_PROP, Config.IDLE_MAX_SLEEP_DEFAULT) * 1000;
        this.progress = new Progress(new ChannelBell(channels), DUTY_PARTS, this::dutyPart, this::agentNeeded, spins,
                yields, maxPark, maxSleep, sleepFirst);
        this.p2p = new PointToPoint(rank, size, channels, progress, eagerLimit, remoteRead ? memory : null, remoteReadMin,
                this::choice);
        choice("rank " + rank + ": bootstrap " + bootstrap.name() + ", node " + node + ", transports " + transportNames
                + ", eager limit " + eagerLimit + " B (larger messages use rendezvous), idle spins " + spins
                + ", yields " + yields + (sleepFirst ? ", doorbell sleep from the first park" : "")
                + " (" + ranksHere + " ranks on " + processors + " processors"
                + (reach == IdlePlan.Reach.DIRECT ? "" : ", peers " + reach.name().toLowerCase(java.util.Locale.ROOT)) + "), "
                + (onInput ? "waiters sleep on the relay connection's input"
                : channels.bellEnabled() ? "long waits sleep on a doorbell the node's peers ring"
                        : "waiters park (doorbell off: " + (Futex.available() ? Config.DOORBELL_PROP + "=false"
                                : Futex.unavailableReason()) + ")")
                + ", " + binding
                + ", cross-memory reads of native buffers "
                + (remoteRead ? "on from " + remoteReadMin + " B" : "off (" + noReads + ")"));
        this.checkpoints = new Checkpoints(rank, size, channels, p2p, communicators, collectives, progress);
        progress.startAgent("railyard-progress-" + rank);
        Duration stall = Config.duration(Config.STALL_REPORT_PROP, Duration.ZERO);
        this.stallWatch = stall.isZero() ? null : new StallWatch(stall, progress::waiters, this::stallReport);
    }

    /**
     * What this process waits for, after a wait of {@code seconds}: the progress floor's state, the
     * collectives under way with their pending sends and receives, point-to-point's queues and
     * every channel's sequencing. Taken under the progress lock, waiting for it at most 2 s.
     */
    private String stallReport(long seconds) {
        StringBuilder sb = new StringBuilder("rank " + rank + " of " + size + ": an application thread has waited "
                + seconds + " s (" + Config.STALL_REPORT_PROP + "); " + progress.describe() + "\n");
        ReentrantLock lock = progress.lock();
        boolean held = false;
        try {
            held = lock.tryLock(2, java.util.concurrent.TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        if (!held) {
            return sb.append("  the progress lock stayed held; no more to say").toString();
        }
        try {
            collectives.describe(sb);
            p2p.describe(sb, 16);
            sb.append(channels.diagnose());
        } finally {
            lock.unlock();
        }
        return sb.toString();
    }

    /** Stores an application checkpoint with the library state a restart resumes from (see {@code Railyard.checkpoint}). */
    public void checkpoint(byte[] state) {
        checkComm(world());
        checkpoints.take(state);
    }

    /** The application bytes of the checkpoint this rank resumed from, or null. */
    public byte[] restoredState() {
        return checkpoints.restoredState();
    }

    /** The parts of one duty cycle: the channel floor, the collective schedules, the windows. */
    private static final int DUTY_PARTS = 3;

    /** Runs part {@code i} of a duty cycle (the progress lock held); the work it did. */
    private int dutyPart(int i) {
        return switch (i) {
            case 0 -> channels.progress();
            case 1 -> collectives.progress();
            default -> rma.progress();
        };
    }

    /**
     * True if the agent has something to advance while the application computes: a rendezvous
     * (a send waiting for the answer to its request, a receive large enough to be met by one), a
     * collective schedule, an open window, a frame still to send, or a channel with
     * acknowledgements and timers of its own. Eager frames, for a posted receive or not, can wait
     * in their links until the application reads them, as in an MPI without a progress thread.
     * Lock held.
     */
    private boolean agentNeeded() {
        return !(p2p.quiet() && collectives.idle() && rma.quiet() && channels.quiet());
    }

    /**
     * The application leaves the library with an operation under way that it does not wait for
     * (a non-blocking call returns its request): ends the agent's rest if it has work to advance.
     */
    public void leftWork() {
        progress.leftWork();
    }

    /** The channel floor's bell (its doorbell, or a relayed rank's input bell), as the progress component sleeps on it. */
    private record ChannelBell(ChannelTable channels) implements Progress.Bell {
        @Override
        public boolean usable() {
            return channels.bellUsable();
        }

        @Override
        public boolean sleep(long nanos, java.util.function.IntSupplier lastLook) {
            return channels.sleepOnBell(nanos, lastLook);
        }

        @Override
        public void wakeSleepers() {
            channels.wakeSleepers();
        }

        @Override
        public boolean allRing() {
            return channels.allRing();
        }
    }

    /**
     * Starts the engine of this process: the channel floor opens the transports allowed by
     * {@code railyard.transports} and publishes this process's address card; connections open
     * later, on first use.
     */
    public static Engine start(Bootstrap bootstrap) {
        return new Engine(bootstrap);
    }

    /**
     * The node a world rank runs on in the engine's node layout: the process manager's plan when
     * the bootstrap has one, else the rank's address card ({@link ChannelTable#nodeOf}); equal
     * strings mean shared memory is possible.
     */
    public String nodeOf(int worldRank) {
        return channels.nodeOf(worldRank);
    }

    /** The site of a world rank (setting railyard.site of that process; empty when unset). */
    public String siteOf(int worldRank) {
        return channels.siteOf(worldRank);
    }

    public int rank() {
        return rank;
    }

    public int size() {
        return size;
    }

    public CommState world() {
        return communicators.world();
    }

    public CommState self() {
        return communicators.self();
    }

    public String nodeName() {
        return node;
    }

    /** The job's identity, as the bootstrap gives it. */
    public String jobId() {
        return bootstrap.jobId();
    }

    /**
     * The memory of this node's processes that a started transport shares (the collectives'
     * segments, mapped windows, cross-memory reads), or null: everything then goes as messages.
     */
    LocalMemory localMemory() {
        return channels.localMemory();
    }

    /** Standard sends up to this many bytes go eagerly. */
    public long eagerLimit() {
        return p2p.eagerLimit();
    }

    // ================================================================== argument checks

    void checkComm(CommState c) {
        if (progress.closed()) {
            throw new RailyardException(ErrorClass.NOT_INITIALIZED, "Railyard was closed in this process");
        }
        c.checkUsable();
    }

    private static void checkDest(CommState c, int dest, String what) {
        if (dest != PROC_NULL && (dest < 0 || dest >= c.size())) {
            throw new RailyardException(ErrorClass.RANK, what + " rank " + dest + " is out of range [0, " + c.size()
                    + ") for communicator " + c.name() + " (or PROC_NULL)");
        }
    }

    private static void checkSource(CommState c, int source) {
        if (source != PROC_NULL && source != ANY_SOURCE && (source < 0 || source >= c.size())) {
            throw new RailyardException(ErrorClass.RANK, "source rank " + source + " is out of range [0, " + c.size()
                    + ") for communicator " + c.name() + " (or ANY_SOURCE, PROC_NULL)");
        }
    }

    private static void checkSendTag(int tag) {
        if (tag < 0 || tag > TAG_UB) {
            throw new RailyardException(ErrorClass.TAG, "tag " + tag + " is out of range [0, " + TAG_UB + "]");
        }
    }

    private static void checkRecvTag(int tag) {
        if (tag != ANY_TAG && (tag < 0 || tag > TAG_UB)) {
            throw new RailyardException(ErrorClass.TAG, "tag " + tag + " is out of range [0, " + TAG_UB + "] (or ANY_TAG)");
        }
    }

    private static void checkBuffer(Object buf, Kind k, int off, int count) {
        if (k == null) {
            throw new RailyardException(ErrorClass.TYPE, "datatype is null");
        }
        k.checkRange(buf, off, count);
        if ((long) count * k.size > Integer.MAX_VALUE) {
            throw new RailyardException(ErrorClass.COUNT, "message of " + (long) count * k.size
                    + " bytes is larger than the limit of " + Integer.MAX_VALUE + " bytes");
        }
    }

    // ================================================================== point to point

    public void send(CommState c, Object buf, Kind k, int off, int count, int dest, int tag, int mode) {
        checkComm(c);
        checkDest(c, dest, "dest");
        checkSendTag(tag);
        checkBuffer(buf, k, off, count);
        if (dest != PROC_NULL) {
            p2p.send(c, buf, k, off, count, c.worldRanks[dest], tag, mode);
        }
    }

    /**
     * A small message straight into the rail's memory when nothing is queued ahead of it: no
     * request at all. Called with the lock held; also by collective schedules (context {@code ctx}).
     */
    boolean sendEagerDirect(CommState c, int ctx, Object buf, Kind k, int off, int count, int destWorld, int tag) {
        return p2p.sendEagerDirect(ctx, buf, k, off, count, destWorld, tag);
    }

    public Transfer isend(CommState c, Object buf, Kind k, int off, int count, int dest, int tag, int mode) {
        checkComm(c);
        checkDest(c, dest, "dest");
        checkSendTag(tag);
        checkBuffer(buf, k, off, count);
        return isendUnchecked(c, c.context, buf, k, off, count, dest, tag, mode);
    }

    Transfer isendUnchecked(CommState c, int ctx, Object buf, Kind k, int off, int count, int dest, int tag, int mode) {
        return p2p.isend(c, ctx, buf, k, off, count, dest, tag, mode);
    }

    public void recv(CommState c, Object buf, Kind k, int off, int count, int source, int tag, StatusSink status) {
        checkComm(c);
        checkSource(c, source);
        checkRecvTag(tag);
        checkBuffer(buf, k, off, count);
        if (source == PROC_NULL) {
            status.setStatus(PROC_NULL, ANY_TAG, 0, k.size);
            return;
        }
        p2p.recv(c, buf, k, off, count, source == ANY_SOURCE ? ANY_SOURCE : c.worldRanks[source], tag, status);
    }

    public Transfer irecv(CommState c, Object buf, Kind k, int off, int count, int source, int tag) {
        checkComm(c);
        checkSource(c, source);
        checkRecvTag(tag);
        checkBuffer(buf, k, off, count);
        return irecvUnchecked(c, c.context, buf, k, off, count, source, tag);
    }

    Transfer irecvUnchecked(CommState c, int ctx, Object buf, Kind k, int off, int count, int source, int tag) {
        return p2p.irecv(c, ctx, buf, k, off, count, source, tag);
    }

    /** A pooled send of a collective schedule; see {@link PointToPoint#isendScheduled}. Lock held. */
    Transfer isendScheduled(CommState c, int ctx, Object buf, Kind k, int off, int count, int dest, int tag,
                            boolean mayBeRead) {
        return p2p.isendScheduled(c, ctx, buf, k, off, count, dest, tag, mayBeRead);
    }

    /** A pooled receive of a collective schedule; see {@link PointToPoint#irecvScheduled}. Lock held. */
    Transfer irecvScheduled(CommState c, int ctx, Object buf, Kind k, int off, int count, int source, int tag) {
        return p2p.irecvScheduled(c, ctx, buf, k, off, count, source, tag);
    }

    /** Gives back a request of a collective schedule; see {@link PointToPoint#recycle}. Lock held. */
    void recycle(Transfer t) {
        p2p.recycle(t);
    }

    /** Cancels a receive that has not matched yet; true if it was cancelled. */
    public boolean cancel(Transfer t) {
        return p2p.cancel(t);
    }

    public boolean iprobe(CommState c, int source, int tag, StatusSink out) {
        checkComm(c);
        checkSource(c, source);
        checkRecvTag(tag);
        if (source == PROC_NULL) {
            out.setStatus(PROC_NULL, ANY_TAG, 0, 1);
            return true;
        }
        int srcWorld = source == ANY_SOURCE ? ANY_SOURCE : c.worldRanks[source];
        ReentrantLock lock = progress.lock();
        lock.lock();
        try {
            progress.dutyAndWake();
            return p2p.probeLocked(c, source, srcWorld, tag, out);
        } finally {
            lock.unlock();
        }
    }

    public void probe(CommState c, int source, int tag, StatusSink out) {
        BackoffIdle idle = progress.waiterIdle();
        while (!iprobe(c, source, tag, out)) {
            idle.idle(0);
        }
    }

    /** True if this process may read other processes' memory ({@code railyard.cma} on, and the call available). */
    boolean crossMemoryReads() {
        return p2p.crossMemoryReads();
    }

    /** Rendezvous messages this process read from a sender's memory, and their bytes (cross-memory reads). */
    public long remoteReads() {
        return p2p.remoteReads();
    }

    /** See {@link #remoteReads()}. */
    public long remoteReadBytes() {
        return p2p.remoteReadBytes();
    }

    // ================================================================== frames from the channel floor

    @Override
    public void onFrame(VirtualChannel from, MemorySegment seg, long off, int length) {
        byte type = FrameHeader.type(seg, off);
        int src = from.peer();
        if (FrameHeader.source(seg, off) != src) {
            from.protocolError("frame names source rank " + FrameHeader.source(seg, off) + " on the connection of rank " + src);
            return;
        }
        if (type == FrameType.VALUE) {
            values.onFrame(from, seg, off, length);
        } else {
            p2p.onFrame(from, type, seg, off, length);
        }
    }

    @Override
    public void onChannelDown(VirtualChannel ch, String why, boolean orderly) {
        p2p.onChannelDown(ch, why, orderly);
    }

    /** Hands {@code seg[off, off + length)} to {@link #onFrame} under the progress lock, as a poll would (tests). */
    void deliverForTest(VirtualChannel from, MemorySegment seg, long off, int length) {
        progress.lock().lock();
        try {
            onFrame(from, seg, off, length);
        } finally {
            progress.lock().unlock();
        }
    }

    /** A request is done: a point-to-point one stops being addressable by id. */
    @Override
    public void completed(Transfer t) {
        p2p.completed(t);
    }

    // ================================================================== waiting

    /** Waits for {@code t}, driving progress; throws its error if it failed. */
    public void await(Transfer t) {
        await(t, Long.MAX_VALUE);
    }

    /** Waits at most {@code timeoutNanos}; false if still pending then. Throws the error of a failed transfer. */
    public boolean await(Transfer t, long timeoutNanos) {
        if (!progress.await(t, timeoutNanos)) {
            return false;
        }
        t.throwIfFailed();
        return true;
    }

    /** Drives progress once; true if {@code t} is complete (throws if it failed). */
    public boolean test(Transfer t) {
        if (t.state == Transfer.PENDING) {
            progress.tryDuty();
        }
        if (t.state == Transfer.PENDING) {
            return false;
        }
        t.throwIfFailed();
        return true;
    }

    /** Waits until one of {@code ts} (nulls ignored) is complete; returns its index. */
    public int awaitAny(Transfer[] ts) {
        int i = progress.awaitAny(ts);
        ts[i].throwIfFailed();
        return i;
    }

    /** The value flows of iterative schemes (P2PSAP's send / receive / wait). */
    public ValueFlows values() {
        return values;
    }

    /** Who drives progress; for the engine's other parts. */
    Progress progress() {
        return progress;
    }

    /** The channel floor; for the engine's other parts. */
    ChannelTable channels() {
        return channels;
    }

    PointToPoint pointToPoint() {
        return p2p;
    }

    /** One duty cycle; the caller holds the progress lock. Returns the work done. */
    int progressOnce() {
        return progress.dutyLocked();
    }

    /**
     * Drives progress, as {@link #await} does, until {@code done} (evaluated under the progress
     * lock) holds; false if {@code timeoutNanos} pass first.
     */
    boolean driveUntil(BooleanSupplier done, long timeoutNanos) {
        return progress.driveUntil(done, timeoutNanos);
    }

    /**
     * Asks the progress agent to drive as soon as no application thread is inside the library
     * ({@link Progress#wakeAgent}): for a component that leaves work only the agent will advance
     * while the program computes (a passive-target operation, a queue to drain).
     */
    void wakeAgent() {
        progress.wakeAgent();
    }

    /** Duty cycles the progress agent has begun (tests: who drove progress). */
    long agentCycles() {
        return progress.agentCycles();
    }

    /** Sleeps of this process's waiting threads that a ring of the doorbell ended before their time. */
    public long doorbellWakes() {
        return channels.bellWakes();
    }

    // ================================================================== collectives and communicators

    /** The collective algorithms, blocking and not, and the schedules under way. */
    public Collectives collectives() {
        return collectives;
    }

    /** One-sided communication: the windows of this process. */
    public Rma rma() {
        return rma;
    }

    /** WORLD, SELF and the making and freeing of communicators. */
    public Communicators communicators() {
        return communicators;
    }

    /** The progress lock; held by whoever advances transfers and collective schedules. */
    ReentrantLock progressLock() {
        return progress.lock();
    }

    // ================================================================== choices, shutdown

    void choice(String s) {
        synchronized (choiceLog) {
            choiceLog.add(s);
        }
        if (printChoices) {
            System.err.println("railyard: " + s);
        }
    }

    /** Every choice made so far, and the state of each channel. */
    public String describeChoices() {
        StringBuilder sb = new StringBuilder();
        synchronized (choiceLog) {
            for (String s : choiceLog) {
                sb.append(s).append('\n');
            }
        }
        progress.lock().lock();
        try {
            sb.append(channels.describe());
        } finally {
            progress.lock().unlock();
        }
        return sb.toString();
    }

    /**
     * Ends the job: asks the process manager to end every process when the bootstrap speaks an
     * abort (PMI-2's {@code cmd=abort} under srun or Hydra, PMI-1's under Hydra; bounded by
     * {@link Bootstrap#ABORT_BOUND}), then ends this process with {@code code} (1 for 0). Under the
     * Railyard launcher the exit alone makes it stop the others.
     */
    public void abort(int code) {
        String why = "rank " + rank + " called abort(" + code + ")";
        System.err.println("railyard: " + why);
        try {
            bootstrap.abort(code, why);
        } catch (RuntimeException e) {
            System.err.println("railyard: rank " + rank + " could not ask the " + bootstrap.name()
                    + " process manager to end the job (" + e.getMessage() + "); exiting with the code");
        }
        System.err.flush();
        Runtime.getRuntime().halt(code == 0 ? 1 : code);
    }

    /**
     * Says goodbye to every peer, waits (bounded) until all queued frames are written, and closes
     * the connections and the bootstrap.
     */
    public void close() {
        if (progress.closed()) {
            return;
        }
        ReentrantLock lock = progress.lock();
        lock.lock();
        try {
            channels.sayGoodbye();
        } finally {
            lock.unlock();
        }
        long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
        BackoffIdle idle = new BackoffIdle(1000, 100, 1000, 1_000_000);
        while (System.nanoTime() < deadline) {
            int work;
            lock.lock();
            try {
                work = channels.progress();
                if (channels.allSent()) {
                    break;
                }
            } finally {
                lock.unlock();
            }
            idle.idle(work);
        }
        progress.stopAgent();
        if (stallWatch != null) {
            stallWatch.stop();
        }
        lock.lock();
        try {
            channels.closeAll();
        } finally {
            lock.unlock();
        }
        collectives.close();
        bootstrap.close();
    }
}
