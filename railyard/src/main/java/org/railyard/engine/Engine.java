package org.railyard.engine;

import java.lang.foreign.MemorySegment;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.locks.LockSupport;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.BooleanSupplier;
import org.railyard.bootstrap.Bootstrap;
import org.railyard.channel.ChannelTable;
import org.railyard.channel.FrameSink;
import org.railyard.channel.Outbound;
import org.railyard.channel.VirtualChannel;
import org.railyard.engine.coll.Collectives;
import org.railyard.engine.comm.CommState;
import org.railyard.engine.comm.Communicators;
import org.railyard.error.ErrorClass;
import org.railyard.error.RailyardException;
import org.railyard.util.BackoffIdle;
import org.railyard.util.Config;
import org.railyard.util.CpuBinding;
import org.railyard.util.Futex;
import org.railyard.util.ProcessMemory;
import org.railyard.util.TimerSlack;
import org.railyard.wire.FrameHeader;
import org.railyard.wire.FrameType;

/**
 * The point-to-point engine of one process: matching of messages to receives (per context, source
 * and tag, in arrival order), the eager and rendezvous protocols, the progress agent, and the
 * collectives built on them ({@link Collectives}).
 *
 * <p>Threads: all engine state is guarded by one progress lock. A caller posts under the lock; a
 * caller waiting for a request drives progress itself while it can take the lock, so a blocked
 * ping-pong never hands off between threads; a background agent drives progress when no caller
 * does (a program computing while a rendezvous is under way), parking with backoff when idle.
 * Several application threads may call at once (MPI_THREAD_MULTIPLE): calls are serialised by
 * the lock, and each waits on its own request.
 *
 * <p>Protocol per message: a standard send of at most {@link #eagerLimit()} bytes goes as one EAGER
 * frame and completes when that frame is in the link's memory; a larger one (and every synchronous
 * send) sends an RTS, and its payload follows as DATA frames once the receiver has matched it and
 * answered CTS. Unexpected eager payloads are copied aside into pooled buffers; unexpected
 * rendezvous messages cost only their envelope.
 */
public final class Engine implements FrameSink {
    public static final int ANY_SOURCE = -1;
    public static final int ANY_TAG = -1;
    public static final int PROC_NULL = CommState.PROC_NULL;
    public static final int UNDEFINED = CommState.UNDEFINED;
    public static final int TAG_UB = (1 << 30) - 1;
    public static final int MODE_STANDARD = 0;
    public static final int MODE_SYNC = 1;

    private static final System.Logger LOG = System.getLogger("org.railyard.engine");

    private final Bootstrap bootstrap;
    private final int rank;
    private final int size;
    private final String node;
    private final ReentrantLock lock = new ReentrantLock();
    private final ChannelTable channels;
    private final TransferTable table = new TransferTable();
    private final long eagerLimit;
    /** Rendezvous payloads in native memory may be read by a receiver on this node ({@code railyard.cma}). */
    private final boolean remoteRead;
    /** Smallest payload offered for a cross-memory read ({@code railyard.cma.min}). */
    private final long remoteReadMin;
    /** Per world rank: 0 not yet checked, 1 its identity token checked, -1 cross-memory reads refused. */
    private final byte[] peerMemory;
    private final ProcessMemory.Reader reader = new ProcessMemory.Reader();
    private long remoteReads;
    private long remoteReadBytes;
    private final List<String> transportNames;
    private final boolean printChoices;
    private final List<String> choiceLog = new ArrayList<>();
    private final Collectives collectives;
    private final Communicators communicators;
    private final ValueFlows values = new ValueFlows(this);
    private final ThreadLocal<BackoffIdle> waiterIdle;
    /** Longest doorbell sleep when every channel rings (railyard.idle.maxsleep). */
    private final long maxSleepNanos;
    private final Thread agent;
    private volatile boolean closed;
    /** Callers driving progress in a wait loop; while there is one, the agent stays out of the way. */
    private final java.util.concurrent.atomic.AtomicInteger drivers = new java.util.concurrent.atomic.AtomicInteger();
    /** True while the agent parks long because the application has been waiting in the library a long while. */
    private volatile boolean agentParked;
    /** Parks of the agent in a row with the application in the library before it parks long (about 4 ms). */
    private static final int AGENT_BUSY_PARKS = 8;
    /**
     * Bumped (under the lock) by every call that posts or drives progress. The agent steps in only
     * after a whole idle period without a bump: the application is then computing or blocked
     * elsewhere, and nobody else moves its messages. While the application is active the agent
     * stays off the lock, so a posting call never queues behind it.
     */
    private volatile int activity;

    private Transfer postedHead, postedTail;
    private Unexpected unexpectedHead, unexpectedTail;
    private final Unexpected[] unexpectedPool = new Unexpected[32];
    private SendTransfer[] sendPool = new SendTransfer[8];
    private int sendPoolCount;
    private RecvTransfer[] recvPool = new RecvTransfer[8];
    private int recvPoolCount;

    private Engine(Bootstrap bootstrap) {
        // the processors this process may use, counted before the binding below narrows them to one
        int processors = Runtime.getRuntime().availableProcessors();
        // on the calling thread: the progress agent started below inherits the binding
        String binding = CpuBinding.apply(System.getenv());
        this.bootstrap = bootstrap;
        this.rank = bootstrap.rank();
        this.size = bootstrap.size();
        this.printChoices = Config.bool(Config.PRINT_CHOICES_PROP, Config.PRINT_CHOICES_DEFAULT);
        this.channels = ChannelTable.open(bootstrap, this, printChoices ? this::choice : null,
                s -> LOG.log(System.Logger.Level.WARNING, s));
        this.node = channels.node();
        this.transportNames = channels.transportNames();
        long requested = Config.bytes(Config.EAGER_LIMIT_PROP, Config.EAGER_LIMIT_DEFAULT);
        this.eagerLimit = Math.min(requested, channels.minFrame() - FrameHeader.LENGTH);
        boolean cma = Config.bool(Config.CMA_PROP, Config.CMA_DEFAULT);
        this.remoteRead = cma && ProcessMemory.available();
        // an empty message has nothing to read; with more ranks than processors reads pay from a smaller size
        this.remoteReadMin = Math.max(1, Config.bytes(Config.CMA_MIN_PROP,
                size > processors ? Config.CMA_MIN_CROWDED_DEFAULT : Config.CMA_MIN_DEFAULT));
        this.peerMemory = new byte[size];
        this.collectives = new Collectives(new CollPort(this));
        this.communicators = new Communicators(new CommPort(this, collectives), size, rank);
        boolean oversubscribed = size >= processors;
        // with more ranks than processors a waiter yields at once: the rank it waits for needs the
        // core (np 4 on 2 cores: barrier 40-60 us after 200 polls, 8-11 us yielding at once). So it
        // does with as many: each rank is a JVM whose agent, JIT compiler and collector need a core
        // now and then, and a waiter spinning through its polls then holds off the rank it waits
        // for (np 2 on 2 cores, RyCollPeer all --sizes 64k:1m: with 20000 polls, one or two sizes
        // of alltoall took 0.7-3.6 ms a call, mean, in five of eight runs, against 10-420 us at the
        // other sizes; with none, no such size in six runs; latency of 8 B 0.81-1.21 us either way)
        long spins = Config.number(Config.IDLE_SPINS_PROP, oversubscribed ? 0 : Config.IDLE_SPINS_DEFAULT);
        long maxPark = Config.number(Config.IDLE_MAX_PARK_PROP, Config.IDLE_MAX_PARK_DEFAULT) * 1000;
        long yields = Config.number(Config.IDLE_YIELDS_PROP, Config.IDLE_YIELDS_DEFAULT);
        TimerSlack.configured(); // each thread reads it at its first park; a bad value fails here, not in a wait
        this.maxSleepNanos = Config.number(Config.IDLE_MAX_SLEEP_PROP, Config.IDLE_MAX_SLEEP_DEFAULT) * 1000;
        this.waiterIdle = ThreadLocal.withInitial(() -> new BackoffIdle(spins, yields, 1000, maxPark, this::sleepWaiting));
        choice("rank " + rank + ": bootstrap " + bootstrap.name() + ", node " + node + ", transports " + transportNames
                + ", eager limit " + eagerLimit + " B (larger messages use rendezvous), idle spins " + spins + ", "
                + (channels.bellEnabled() ? "long waits sleep on a doorbell the node's peers ring"
                        : "waiters park (doorbell off: " + (Futex.available() ? Config.DOORBELL_PROP + "=false"
                                : Futex.unavailableReason()) + ")")
                + ", " + binding
                + ", cross-memory reads of native buffers "
                + (remoteRead ? "on from " + remoteReadMin + " B"
                        : "off (" + (cma ? ProcessMemory.unavailableReason() : Config.CMA_PROP + "=false") + ")"));
        this.agent = Thread.ofPlatform().daemon().name("railyard-progress-" + rank).start(this::agentLoop);
    }

    /**
     * Starts the engine of this process: the channel floor opens the transports allowed by
     * {@code railyard.transports} and publishes this process's address card; connections open
     * later, on first use.
     */
    public static Engine start(Bootstrap bootstrap) {
        return new Engine(bootstrap);
    }

    /** The node (host) a world rank runs on, from its address card; equal strings mean shared memory is possible. */
    public String nodeOf(int worldRank) {
        return channels.nodeOf(worldRank);
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

    /** True if shared memory is among this process's transports ({@code railyard.transports}). */
    boolean sharesMemory() {
        return channels.transportNames().contains("shm");
    }

    /** Standard sends up to this many bytes go eagerly. */
    public long eagerLimit() {
        return eagerLimit;
    }

    // ================================================================== argument checks

    void checkComm(CommState c) {
        if (closed) {
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
        if (dest == PROC_NULL) {
            return;
        }
        SendTransfer t;
        lock.lock();
        try {
            if (mode == MODE_STANDARD && sendEagerDirect(c, c.context, buf, k, off, count, c.worldRanks[dest], tag)) {
                return;
            }
            t = acquireSend();
            t.pattern(Outbound.BLOCKING); // the EPC communication marker: blocking point-to-point
            postSend(t, c, c.context, buf, k, off, count, c.worldRanks[dest], tag, mode);
        } finally {
            lock.unlock();
        }
        try {
            await(t);
        } finally {
            lock.lock();
            try {
                releaseSend(t);
            } finally {
                lock.unlock();
            }
        }
    }

    /**
     * A small message straight into the rail's memory when nothing is queued ahead of it: no
     * request at all. Called with the lock held; also by collective schedules (context {@code ctx}).
     */
    boolean sendEagerDirect(CommState c, int ctx, Object buf, Kind k, int off, int count, int destWorld, int tag) {
        long bytes = (long) count * k.size;
        if (bytes > eagerLimit) {
            return false;
        }
        activity++;
        VirtualChannel ch = channels.existing(destWorld);
        if (ch == null) {
            return false;
        }
        int len = FrameHeader.LENGTH + (int) bytes;
        long at = ch.claimDirect(len);
        if (at < 0) {
            return false;
        }
        MemorySegment seg = ch.directSegment();
        FrameHeader.write(seg, at, len, FrameType.EAGER, (byte) 0, ctx, rank, tag, (int) bytes, 0, 0);
        k.copyOut(buf, off, 0, seg, at + FrameHeader.LENGTH, bytes);
        ch.commitDirect();
        return true;
    }

    public Transfer isend(CommState c, Object buf, Kind k, int off, int count, int dest, int tag, int mode) {
        checkComm(c);
        checkDest(c, dest, "dest");
        checkSendTag(tag);
        checkBuffer(buf, k, off, count);
        return isendUnchecked(c, c.context, buf, k, off, count, dest, tag, mode);
    }

    Transfer isendUnchecked(CommState c, int ctx, Object buf, Kind k, int off, int count, int dest, int tag, int mode) {
        lock.lock();
        try {
            return isendInto(new SendTransfer(this), c, ctx, buf, k, off, count, dest, tag, mode);
        } finally {
            lock.unlock();
        }
    }

    /** Posts send {@code t} (complete at once to PROC_NULL); lock held. */
    private SendTransfer isendInto(SendTransfer t, CommState c, int ctx, Object buf, Kind k, int off, int count, int dest,
                                   int tag, int mode) {
        // the EPC communication marker: collectives use the communicator's second context
        t.pattern(ctx == c.context ? Outbound.NONBLOCKING : Outbound.COLLECTIVE);
        if (dest == PROC_NULL) {
            t.init(c, ctx, buf, k, off, 0, PROC_NULL, tag);
            t.state = Transfer.DONE;
            return t;
        }
        postSend(t, c, ctx, buf, k, off, count, c.worldRanks[dest], tag, mode);
        return t;
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
        RecvTransfer t;
        lock.lock();
        try {
            if (recvUnexpectedEager(c, buf, k, off, count, source == ANY_SOURCE ? ANY_SOURCE : c.worldRanks[source], tag, status)) {
                return;
            }
            t = acquireRecv();
            postRecv(t, c, c.context, buf, k, off, count, source == ANY_SOURCE ? ANY_SOURCE : c.worldRanks[source], tag);
        } finally {
            lock.unlock();
        }
        try {
            await(t);
            t.fillStatus(status);
        } finally {
            lock.lock();
            try {
                releaseRecv(t);
            } finally {
                lock.unlock();
            }
        }
    }

    /** A blocking receive whose message is already here (eager): copied out with no request. */
    private boolean recvUnexpectedEager(CommState c, Object buf, Kind k, int off, int count, int srcWorld, int tag,
                                        StatusSink status) {
        for (Unexpected u = unexpectedHead; u != null; u = u.next) {
            if (u.matches(c.context, srcWorld, tag)) {
                long cap = (long) count * k.size;
                if (u.rendezvous || u.bytes > cap) {
                    return false; // the general path handles rendezvous and reports truncation
                }
                unlinkUnexpected(u);
                k.copyIn(u.dataSeg, 0, buf, off, 0, u.bytes);
                status.setStatus(c.localRank(u.source), u.tag, u.bytes, k.size);
                releaseUnexpected(u);
                return true;
            }
        }
        return false;
    }

    public Transfer irecv(CommState c, Object buf, Kind k, int off, int count, int source, int tag) {
        checkComm(c);
        checkSource(c, source);
        checkRecvTag(tag);
        checkBuffer(buf, k, off, count);
        return irecvUnchecked(c, c.context, buf, k, off, count, source, tag);
    }

    Transfer irecvUnchecked(CommState c, int ctx, Object buf, Kind k, int off, int count, int source, int tag) {
        lock.lock();
        try {
            return irecvInto(new RecvTransfer(this), c, ctx, buf, k, off, count, source, tag);
        } finally {
            lock.unlock();
        }
    }

    /** Posts receive {@code t} (complete at once from PROC_NULL); lock held. */
    private RecvTransfer irecvInto(RecvTransfer t, CommState c, int ctx, Object buf, Kind k, int off, int count, int source,
                                   int tag) {
        if (source == PROC_NULL) {
            t.init(c, ctx, buf, k, off, 0, PROC_NULL, tag);
            t.statusSource = PROC_NULL;
            t.statusTag = ANY_TAG;
            t.state = Transfer.DONE;
            return t;
        }
        postRecv(t, c, ctx, buf, k, off, count, source == ANY_SOURCE ? ANY_SOURCE : c.worldRanks[source], tag);
        return t;
    }

    /**
     * A send of a collective schedule (context {@code ctx}, the communicator's second), taken from
     * the pool: the schedule hands it back with {@link #recycle} once it has seen it done, so a
     * collective called in a loop allocates no requests. With {@code mayBeRead} false, a receiver
     * on this node is not offered a read of the buffer ({@code CollSchedule.sendCopied}). Called
     * with the lock held.
     */
    Transfer isendScheduled(CommState c, int ctx, Object buf, Kind k, int off, int count, int dest, int tag,
                            boolean mayBeRead) {
        SendTransfer t = acquireSend();
        t.mayBeRead = mayBeRead;
        return isendInto(t, c, ctx, buf, k, off, count, dest, tag, MODE_STANDARD);
    }

    /** A receive of a collective schedule, from the pool; as {@link #isendScheduled}. Called with the lock held. */
    Transfer irecvScheduled(CommState c, int ctx, Object buf, Kind k, int off, int count, int source, int tag) {
        return irecvInto(acquireRecv(), c, ctx, buf, k, off, count, source, tag);
    }

    /**
     * Gives back a request of {@link #isendScheduled} or {@link #irecvScheduled} that completed
     * and that its schedule will not look at again. One that failed or was cancelled is not
     * taken back (a receive that could not be cancelled may still be written to). Lock held.
     */
    void recycle(Transfer t) {
        if (t.state != Transfer.DONE) {
            return;
        }
        if (t instanceof RecvTransfer r) {
            releaseRecv(r);
        } else {
            releaseSend((SendTransfer) t);
        }
    }

    private void postSend(SendTransfer t, CommState c, int ctx, Object buf, Kind k, int off, int count, int destWorld,
                          int tag, int mode) {
        activity++;
        t.init(c, ctx, buf, k, off, count, destWorld, tag);
        t.sourceWorld = rank;
        t.sent = 0;
        t.remoteCookie = 0;
        t.phase = mode == MODE_STANDARD && t.capacityBytes <= eagerLimit ? SendTransfer.PHASE_EAGER : SendTransfer.PHASE_RTS;
        table.register(t);
        VirtualChannel ch = channels.channel(destWorld);
        if (ch.state() == VirtualChannel.State.DOWN || ch.state() == VirtualChannel.State.CLOSED) {
            t.fail(ErrorClass.PEER_FAILED, "cannot send to rank " + c.localRank(destWorld) + " of " + c.name()
                    + " (world rank " + destWorld + "): " + ch.failure());
            return;
        }
        t.readAddress = remoteRead && t.mayBeRead && t.phase == SendTransfer.PHASE_RTS && t.capacityBytes >= remoteReadMin
                && peerMemory[destWorld] >= 0 && ch.sharesMemory() ? nativeAddress(buf, k, off) : 0;
        ch.sendEnvelope(t);
        ch.progressSend();
    }

    private void postRecv(RecvTransfer t, CommState c, int ctx, Object buf, Kind k, int off, int count, int srcWorld, int tag) {
        activity++;
        t.init(c, ctx, buf, k, off, count, srcWorld, tag);
        t.rendezvous = false;
        t.readDone = false;
        t.channel = null;
        t.received = 0;
        t.messageBytes = 0;
        table.register(t);
        for (Unexpected u = unexpectedHead; u != null; u = u.next) {
            if (u.matches(ctx, srcWorld, tag)) {
                unlinkUnexpected(u);
                t.matched(u.source, u.tag, u.bytes);
                if (u.rendezvous) {
                    startRendezvous(t, u.channel, u.senderCookie, u.readAddress);
                } else {
                    t.deliver(u.dataSeg, 0, 0, u.bytes);
                    t.finishIfComplete();
                }
                releaseUnexpected(u);
                return;
            }
        }
        if (srcWorld != ANY_SOURCE) {
            VirtualChannel ch = channels.existing(srcWorld);
            if (ch != null && (ch.state() == VirtualChannel.State.DOWN || ch.state() == VirtualChannel.State.CLOSED)) {
                t.fail(ErrorClass.PEER_FAILED, "cannot receive from rank " + c.localRank(srcWorld) + " of " + c.name()
                        + " (world rank " + srcWorld + "): " + ch.failure());
                return;
            }
        }
        t.prevMatch = postedTail;
        t.nextMatch = null;
        if (postedTail == null) {
            postedHead = t;
        } else {
            postedTail.nextMatch = t;
        }
        postedTail = t;
    }

    private void startRendezvous(RecvTransfer t, VirtualChannel ch, long senderCookie, long readAddress) {
        t.rendezvous = true;
        t.senderCookie = senderCookie;
        t.channel = ch;
        if (ch.state() != VirtualChannel.State.UP) {
            t.fail(ErrorClass.PEER_FAILED, "rank " + t.statusSource + " of " + t.comm.name() + " is gone: " + ch.failure());
            return;
        }
        if (readAddress != 0) {
            readFromSender(t, ch.peer(), readAddress);
        }
        ch.sendEnvelope(t);
    }

    /**
     * The address an RTS with {@link FrameHeader#FLAG_REMOTE_READ} offers, or 0 when this process
     * will not read it: reads are off, or refused for this peer. The sender's identity token is
     * checked on the first offer of each peer; if it cannot be read back, the process id does not
     * name the sender (another pid namespace), and the peer's offers are declined from then on.
     */
    private long acceptOffer(int peer, MemorySegment seg, long off) {
        if (!remoteRead || peerMemory[peer] < 0) {
            return 0;
        }
        if (peerMemory[peer] == 0) {
            long pid = channels.pidOf(peer);
            if (!ProcessMemory.Identity.verify(pid, FrameHeader.offerIdentityAddress(seg, off),
                    FrameHeader.offerIdentityWord(seg, off, 0), FrameHeader.offerIdentityWord(seg, off, 1))) {
                peerMemory[peer] = -1;
                choice("rank " + rank + ": cross-memory reads from world rank " + peer + " (pid " + pid + ") refused: its "
                        + "identity token could not be read back; its large messages come through the shm ring");
                return 0;
            }
            peerMemory[peer] = 1;
        }
        return FrameHeader.arg(seg, off);
    }

    /**
     * The sender offered its payload at {@code readAddress} in its own memory (an offer accepted by
     * {@link #acceptOffer}): if this receive's buffer is native memory that holds the whole
     * message, reads it from there in one copy and marks the receive so that its CTS tells the
     * sender it is done. Otherwise (a heap buffer, a message that will be truncated, a failed read)
     * the CTS asks for DATA frames as usual.
     */
    private void readFromSender(RecvTransfer t, int peer, long readAddress) {
        MemorySegment buffer = nativeSegment(t.buf);
        if (buffer == null || t.messageBytes > t.capacityBytes || peerMemory[peer] < 0) {
            return;
        }
        long pid = channels.pidOf(peer);
        MemorySegment into = buffer.asSlice((long) t.offset * t.kind.size, t.messageBytes);
        long r = reader.read(pid, into, readAddress, t.messageBytes);
        if (r != t.messageBytes) {
            peerMemory[peer] = -1;
            LOG.log(System.Logger.Level.WARNING, "rank " + rank + ": reading " + t.messageBytes + " B from world rank " + peer
                    + " (pid " + pid + ") failed: " + ProcessMemory.errorName(r) + "; its large messages come through the shm ring");
            return;
        }
        t.received = t.messageBytes;
        t.readDone = true;
        remoteReads++;
        remoteReadBytes += t.messageBytes;
    }

    /**
     * The address of element {@code off} of a buffer in native memory (a native MemorySegment or a
     * direct ByteBuffer), whose bytes are those of the message as is; 0 for any other buffer.
     */
    private static long nativeAddress(Object buf, Kind k, int off) {
        MemorySegment s = nativeSegment(buf);
        return s == null ? 0 : s.address() + (long) off * k.size;
    }

    /** The buffer as a segment of native memory, or null if it is not in native memory. */
    private static MemorySegment nativeSegment(Object buf) {
        MemorySegment s = switch (buf) {
            case MemorySegment m -> m;
            case java.nio.ByteBuffer b -> b.isDirect() ? MemorySegment.ofBuffer(b) : null;
            default -> null;
        };
        return s != null && s.isNative() ? s : null;
    }

    /** Hands {@code seg[off, off + length)} to {@link #onFrame} under the progress lock, as a poll would (tests). */
    void deliverForTest(VirtualChannel from, MemorySegment seg, long off, int length) {
        lock.lock();
        try {
            onFrame(from, seg, off, length);
        } finally {
            lock.unlock();
        }
    }

    /** True if this process may read other processes' memory ({@code railyard.cma} on, and the call available). */
    boolean crossMemoryReads() {
        return remoteRead;
    }

    /** Rendezvous messages this process read from a sender's memory, and their bytes (cross-memory reads). */
    public long remoteReads() {
        return remoteReads;
    }

    /** See {@link #remoteReads()}. */
    public long remoteReadBytes() {
        return remoteReadBytes;
    }

    private void unlinkPosted(Transfer t) {
        if (t.prevMatch == null) {
            postedHead = t.nextMatch;
        } else {
            t.prevMatch.nextMatch = t.nextMatch;
        }
        if (t.nextMatch == null) {
            postedTail = t.prevMatch;
        } else {
            t.nextMatch.prevMatch = t.prevMatch;
        }
        t.nextMatch = null;
        t.prevMatch = null;
    }

    private boolean isPosted(Transfer t) {
        return t.prevMatch != null || postedHead == t;
    }

    private RecvTransfer findPosted(int ctx, int src, int tag) {
        for (Transfer t = postedHead; t != null; t = t.nextMatch) {
            if (t.context == ctx && (t.peer == ANY_SOURCE || t.peer == src) && (t.tag == ANY_TAG || t.tag == tag)) {
                return (RecvTransfer) t;
            }
        }
        return null;
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
        switch (type) {
            case FrameType.EAGER, FrameType.RTS -> onEnvelope(from, seg, off, length, type == FrameType.RTS);
            case FrameType.CTS -> onCts(from, seg, off);
            case FrameType.DATA -> onData(from, seg, off, length);
            case FrameType.VALUE -> values.onFrame(from, seg, off, length);
            default -> from.protocolError("unexpected frame type " + FrameType.name(type));
        }
    }

    private void onEnvelope(VirtualChannel from, MemorySegment seg, long off, int length, boolean rts) {
        int ctx = FrameHeader.context(seg, off);
        int src = from.peer();
        int tag = FrameHeader.tag(seg, off);
        long bytes = FrameHeader.messageLength(seg, off);
        if (!rts && bytes != length - FrameHeader.LENGTH) {
            from.protocolError("eager frame of " + length + " bytes announces a message of " + bytes + " bytes");
            return;
        }
        long readAddress = 0;
        if (rts && (FrameHeader.flags(seg, off) & FrameHeader.FLAG_REMOTE_READ) != 0) {
            if (length != FrameHeader.LENGTH + FrameHeader.REMOTE_READ_PAYLOAD || FrameHeader.arg(seg, off) == 0) {
                from.protocolError("RTS offering a cross-memory read is " + length + " bytes long with address "
                        + FrameHeader.arg(seg, off) + " (expected " + (FrameHeader.LENGTH + FrameHeader.REMOTE_READ_PAYLOAD)
                        + " bytes and an address)");
                return;
            }
            readAddress = acceptOffer(src, seg, off);
        }
        RecvTransfer t = findPosted(ctx, src, tag);
        if (t != null) {
            unlinkPosted(t);
            t.matched(src, tag, bytes);
            if (rts) {
                startRendezvous(t, from, FrameHeader.cookie(seg, off), readAddress);
            } else {
                t.deliver(seg, off + FrameHeader.LENGTH, 0, bytes);
                t.finishIfComplete();
            }
            return;
        }
        Unexpected u = acquireUnexpected(rts ? 0 : bytes);
        u.context = ctx;
        u.source = src;
        u.tag = tag;
        u.bytes = bytes;
        u.rendezvous = rts;
        u.channel = from;
        u.senderCookie = rts ? FrameHeader.cookie(seg, off) : 0;
        u.readAddress = readAddress;
        if (!rts && bytes > 0) {
            MemorySegment.copy(seg, off + FrameHeader.LENGTH, u.dataSeg, 0, bytes);
        }
        u.next = null;
        u.prev = unexpectedTail;
        if (unexpectedTail == null) {
            unexpectedHead = u;
        } else {
            unexpectedTail.next = u;
        }
        unexpectedTail = u;
    }

    private void onCts(VirtualChannel from, MemorySegment seg, long off) {
        Transfer x = table.get(FrameHeader.cookie(seg, off));
        if (!(x instanceof SendTransfer s) || s.phase != SendTransfer.PHASE_WAIT_CTS || s.peer != from.peer()) {
            from.protocolError("CTS names no rendezvous send waiting for it (id " + FrameHeader.cookie(seg, off) + ")");
            return;
        }
        s.remoteCookie = FrameHeader.arg(seg, off);
        if ((FrameHeader.flags(seg, off) & FrameHeader.FLAG_READ_DONE) != 0) {
            if (s.readAddress == 0) {
                from.protocolError("CTS says the payload was read from memory the send never offered (id "
                        + FrameHeader.cookie(seg, off) + ")");
                return;
            }
            s.complete();
            return;
        }
        if (s.capacityBytes == 0) {
            s.complete();
            return;
        }
        s.phase = SendTransfer.PHASE_DATA;
        from.sendBulk(s);
    }

    private void onData(VirtualChannel from, MemorySegment seg, long off, int length) {
        Transfer x = table.get(FrameHeader.cookie(seg, off));
        long msgOff = FrameHeader.arg(seg, off);
        long len = length - FrameHeader.LENGTH;
        if (!(x instanceof RecvTransfer r) || !r.rendezvous || r.matchedSource != from.peer()
                || msgOff < 0 || msgOff + len > r.messageBytes) {
            from.protocolError("DATA frame for no receive expecting it (id " + FrameHeader.cookie(seg, off) + ", offset "
                    + msgOff + ", " + len + " bytes)");
            return;
        }
        r.deliver(seg, off + FrameHeader.LENGTH, msgOff, len);
        r.finishIfComplete();
    }

    @Override
    public void onChannelDown(VirtualChannel ch, String why, boolean orderly) {
        int peer = ch.peer();
        if (!orderly) {
            LOG.log(System.Logger.Level.WARNING, "rank " + rank + ": " + why);
        }
        List<Transfer> victims = new ArrayList<>();
        table.forEach(t -> {
            if (t.state != Transfer.PENDING) {
                return;
            }
            if (t instanceof SendTransfer && t.peer == peer) {
                victims.add(t);
            } else if (t instanceof RecvTransfer r) {
                boolean fromPeer = r.rendezvous ? r.matchedSource == peer : (isPosted(r) && r.peer == peer);
                boolean wildcard = !orderly && isPosted(r) && r.peer == ANY_SOURCE;
                if (fromPeer || wildcard) {
                    victims.add(t);
                }
            }
        });
        for (Transfer t : victims) {
            if (isPosted(t)) {
                unlinkPosted(t);
            }
            String who = t.comm == null ? "world rank " + peer : "rank " + t.comm.localRank(peer) + " of " + t.comm.name()
                    + " (world rank " + peer + ")";
            t.fail(ErrorClass.PEER_FAILED, (t instanceof SendTransfer ? "send to " : "receive from ") + who + " failed: " + why);
        }
    }

    void completed(Transfer t) {
        table.unregister(t);
    }

    // ================================================================== waiting

    /** Waits for {@code t}, driving progress; throws its error if it failed. */
    public void await(Transfer t) {
        await(t, Long.MAX_VALUE);
    }

    /** Waits at most {@code timeoutNanos}; false if still pending then. Throws the error of a failed transfer. */
    public boolean await(Transfer t, long timeoutNanos) {
        if (t.state == Transfer.PENDING) {
            BackoffIdle idle = waiterIdle.get();
            idle.reset();
            long start = timeoutNanos == Long.MAX_VALUE ? 0 : System.nanoTime();
            drivers.incrementAndGet();
            try {
                while (t.state == Transfer.PENDING) {
                    int work = progressIfFree();
                    if (t.state != Transfer.PENDING) {
                        break;
                    }
                    if (timeoutNanos != Long.MAX_VALUE && System.nanoTime() - start > timeoutNanos) {
                        return false;
                    }
                    idle.idle(work, t);
                }
            } finally {
                leave();
            }
        }
        throwIfFailed(t);
        return true;
    }

    /** The value flows of iterative schemes (P2PSAP's send / receive / wait). */
    public ValueFlows values() {
        return values;
    }

    /** The channel floor; for the engine's other parts. */
    ChannelTable channels() {
        return channels;
    }

    /** One duty cycle; the caller holds the progress lock. Returns the work done. */
    int progressOnce() {
        activity++;
        return channels.progress() + collectives.progress();
    }

    /**
     * Drives progress, as {@link #await} does, until {@code done} (evaluated under the progress
     * lock) holds; false if {@code timeoutNanos} pass first.
     */
    boolean driveUntil(java.util.function.BooleanSupplier done, long timeoutNanos) {
        BackoffIdle idle = waiterIdle.get();
        idle.reset();
        long start = System.nanoTime();
        drivers.incrementAndGet();
        try {
            while (true) {
                int work;
                lock.lock();
                try {
                    if (done.getAsBoolean()) {
                        return true;
                    }
                    work = progressOnce();
                    if (done.getAsBoolean()) {
                        return true;
                    }
                } finally {
                    lock.unlock();
                }
                if (System.nanoTime() - start > timeoutNanos) {
                    return false;
                }
                idle.idle(work);
            }
        } finally {
            leave();
        }
    }

    /**
     * A waiter's sleep: on the doorbell of the shared rings (a peer of this node that writes wakes
     * it), after one last duty cycle; false if the doorbell cannot be used (the waiter parks).
     */
    private boolean sleepWaiting(long nanos, BooleanSupplier done) {
        if (!channels.bellUsable()) {
            return false;
        }
        if (done == null) {
            return channels.sleepOnBell(nanos, this::progressIfFree);
        }
        // another thread may have ended this wait after the waiter looked and before it could be
        // woken: the last look asks the condition too
        return channels.sleepOnBell(sleepBound(nanos), () -> progressIfFree() > 0 || done.getAsBoolean() ? 1 : 0);
    }

    /** One duty cycle of an application thread, if no other thread is in one; the work it did. */
    private int progressIfFree() {
        return dutyIfFree(false);
    }

    /**
     * One duty cycle if no other thread is in one; the work it did. The application's cycles
     * bump {@link #activity} (the agent keeps off while they come); the agent's do not, and stop
     * once the engine is closed.
     */
    private int dutyIfFree(boolean byAgent) {
        if (!lock.tryLock()) {
            return 0;
        }
        int work = 0;
        try {
            if (!byAgent) {
                activity++;
            }
            if (!byAgent || !closed) {
                work = channels.progress() + collectives.progress();
            }
        } finally {
            lock.unlock();
        }
        if (work > 0) {
            // the work may have ended another thread's wait, and that thread may sleep
            channels.wakeSleepers();
        }
        return work;
    }

    /**
     * How long a doorbell sleep may last: {@code nanos}, or {@code railyard.idle.maxsleep} when
     * every channel rings (any frame ends the sleep, so it may be long and cost no processor).
     */
    private long sleepBound(long nanos) {
        if (maxSleepNanos > nanos && lock.tryLock()) {
            try {
                if (channels.allRing()) {
                    return maxSleepNanos;
                }
            } finally {
                lock.unlock();
            }
        }
        return nanos;
    }

    /**
     * The agent's sleep once its parks reached their bound, with nothing to do and the
     * application outside the library: on the doorbell, so that a frame that comes while the
     * application computes is taken at once (long when every channel rings).
     */
    private boolean agentSleep(long nanos, BooleanSupplier unused) {
        if (!channels.bellUsable()) {
            return false;
        }
        return channels.sleepOnBell(sleepBound(nanos), agentLastLook);
    }

    /**
     * The agent's last look before it sleeps on the doorbell, made once rather than per sleep: a
     * duty if the application is outside the library; if it came back in, 1, and the loop keeps off it.
     */
    private final java.util.function.IntSupplier agentLastLook = () -> drivers.get() > 0 ? 1 : dutyIfFree(true);

    /** Sleeps of this process's waiting threads that a ring of the doorbell ended before their time. */
    public long doorbellWakes() {
        return channels.bellWakes();
    }

    private static void throwIfFailed(Transfer t) {
        if (t.state == Transfer.FAILED) {
            RailyardException e = t.error;
            throw new RailyardException(e.errorClass(), e.getMessage(), e);
        }
    }

    /** Drives progress once; true if {@code t} is complete (throws if it failed). */
    public boolean test(Transfer t) {
        if (t.state == Transfer.PENDING) {
            progressIfFree();
        }
        if (t.state == Transfer.PENDING) {
            return false;
        }
        throwIfFailed(t);
        return true;
    }

    /** Waits until one of {@code ts} (nulls ignored) is complete; returns its index. */
    public int awaitAny(Transfer[] ts) {
        BackoffIdle idle = waiterIdle.get();
        idle.reset();
        BooleanSupplier anyDone = () -> firstDone(ts) >= 0;
        drivers.incrementAndGet();
        try {
            while (true) {
                int i = firstDone(ts);
                if (i >= 0) {
                    throwIfFailed(ts[i]);
                    return i;
                }
                idle.idle(progressIfFree(), anyDone);
            }
        } finally {
            leave();
        }
    }

    /** The index of the first of {@code ts} (nulls ignored) that is no longer pending, or -1. */
    private static int firstDone(Transfer[] ts) {
        for (int i = 0; i < ts.length; i++) {
            if (ts[i] != null && ts[i].state != Transfer.PENDING) {
                return i;
            }
        }
        return -1;
    }

    /** Cancels a receive that has not matched yet; true if it was cancelled. */
    public boolean cancel(Transfer t) {
        lock.lock();
        try {
            if (t instanceof RecvTransfer && t.state == Transfer.PENDING && isPosted(t)) {
                unlinkPosted(t);
                t.state = Transfer.CANCELLED;
                completed(t);
                return true;
            }
            return false;
        } finally {
            lock.unlock();
        }
    }

    // ================================================================== probe

    public boolean iprobe(CommState c, int source, int tag, StatusSink out) {
        checkComm(c);
        checkSource(c, source);
        checkRecvTag(tag);
        if (source == PROC_NULL) {
            out.setStatus(PROC_NULL, ANY_TAG, 0, 1);
            return true;
        }
        int srcWorld = source == ANY_SOURCE ? ANY_SOURCE : c.worldRanks[source];
        lock.lock();
        try {
            if (channels.progress() + collectives.progress() > 0) {
                channels.wakeSleepers();
            }
            for (Unexpected u = unexpectedHead; u != null; u = u.next) {
                if (u.matches(c.context, srcWorld, tag)) {
                    out.setStatus(c.localRank(u.source), u.tag, u.bytes, 1);
                    return true;
                }
            }
            if (srcWorld != ANY_SOURCE) {
                VirtualChannel ch = channels.existing(srcWorld);
                if (ch != null && (ch.state() == VirtualChannel.State.DOWN || ch.state() == VirtualChannel.State.CLOSED)) {
                    throw new RailyardException(ErrorClass.PEER_FAILED, "probe of rank " + source + " of " + c.name()
                            + ": " + ch.failure());
                }
            }
            return false;
        } finally {
            lock.unlock();
        }
    }

    public void probe(CommState c, int source, int tag, StatusSink out) {
        BackoffIdle idle = waiterIdle.get();
        idle.reset();
        while (!iprobe(c, source, tag, out)) {
            idle.idle(0);
        }
    }

    // ================================================================== collectives and communicators

    /** The collective algorithms, blocking and not, and the schedules under way. */
    public Collectives collectives() {
        return collectives;
    }

    /** WORLD, SELF and the making and freeing of communicators. */
    public Communicators communicators() {
        return communicators;
    }

    /** The progress lock; held by whoever advances transfers and collective schedules. */
    ReentrantLock progressLock() {
        return lock;
    }

    // ================================================================== pools

    private SendTransfer acquireSend() {
        SendTransfer t = sendPoolCount > 0 ? sendPool[--sendPoolCount] : new SendTransfer(this);
        t.pooled = true;
        t.mayBeRead = true;
        return t;
    }

    private void releaseSend(SendTransfer t) {
        if (t.state == Transfer.PENDING) {
            return; // still referenced by a queue (cannot happen after await); let it go
        }
        t.clear();
        if (sendPoolCount == sendPool.length) {
            sendPool = Arrays.copyOf(sendPool, sendPoolCount * 2);
        }
        sendPool[sendPoolCount++] = t;
    }

    private RecvTransfer acquireRecv() {
        RecvTransfer t = recvPoolCount > 0 ? recvPool[--recvPoolCount] : new RecvTransfer(this);
        t.pooled = true;
        return t;
    }

    private void releaseRecv(RecvTransfer t) {
        if (t.state == Transfer.PENDING) {
            return;
        }
        t.clear();
        t.channel = null;
        if (recvPoolCount == recvPool.length) {
            recvPool = Arrays.copyOf(recvPool, recvPoolCount * 2);
        }
        recvPool[recvPoolCount++] = t;
    }

    /** An unexpected-message record whose buffer holds at least {@code bytes}; size classes are powers of two. */
    private Unexpected acquireUnexpected(long bytes) {
        int cls = bytes == 0 ? 0 : 64 - Long.numberOfLeadingZeros(Math.max(bytes, 64) - 1);
        Unexpected u = unexpectedPool[cls];
        if (u != null) {
            unexpectedPool[cls] = u.next;
            return u;
        }
        u = new Unexpected();
        if (cls > 0) {
            u.data = new byte[1 << cls];
            u.dataSeg = MemorySegment.ofArray(u.data);
        }
        return u;
    }

    private void releaseUnexpected(Unexpected u) {
        u.channel = null;
        int cls = u.data == null ? 0 : 31 - Integer.numberOfLeadingZeros(u.data.length);
        u.next = unexpectedPool[cls];
        u.prev = null;
        unexpectedPool[cls] = u;
    }

    private void unlinkUnexpected(Unexpected u) {
        if (u.prev == null) {
            unexpectedHead = u.next;
        } else {
            u.prev.next = u.next;
        }
        if (u.next == null) {
            unexpectedTail = u.prev;
        } else {
            u.next.prev = u.prev;
        }
        u.next = null;
        u.prev = null;
    }

    // ================================================================== agent, choices, shutdown

    /**
     * A waiting thread leaves the library; the last one out wakes the agent if it parks long, so
     * that progress goes on while the application computes.
     */
    private void leave() {
        if (drivers.decrementAndGet() == 0 && agentParked) {
            LockSupport.unpark(agent);
        }
    }

    private void agentLoop() {
        // while the application is in the library: park, and park long once it stays there
        BackoffIdle keepOff = new BackoffIdle(0, 0, 100_000, 1_000_000);
        // while it is away (computing): progress, and when there is none, park, then sleep on the bell
        BackoffIdle idle = new BackoffIdle(0, 0, 100_000, 1_000_000, this::agentSleep);
        int seen = activity;
        int busy = 0;
        while (!closed) {
            int now = activity;
            if (drivers.get() > 0 || now != seen) {
                // the application is in the library, or was during the last period: keep off its
                // core and its lock
                seen = now;
                idle.reset();
                if (drivers.get() > 0 && ++busy >= AGENT_BUSY_PARKS) {
                    // a long wait: park until the last waiter leaves (it unparks us) or the bound
                    long bound = Math.max(maxSleepNanos, 1_000_000);
                    long start = System.nanoTime();
                    agentParked = true;
                    if (drivers.get() > 0) {
                        LockSupport.parkNanos(bound);
                    }
                    agentParked = false;
                    if (System.nanoTime() - start < bound / 2) {
                        // woken early: the application is busy with short calls, where each
                        // unpark would cost it a system call; ramp up again before parking long
                        busy = 0;
                    }
                } else {
                    keepOff.idle(0);
                }
                continue;
            }
            busy = 0;
            keepOff.reset();
            idle.idle(dutyIfFree(true));
        }
    }

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
        lock.lock();
        try {
            sb.append(channels.describe());
        } finally {
            lock.unlock();
        }
        return sb.toString();
    }

    /** Ends this process with {@code code}; the launcher stops the others. */
    public void abort(int code) {
        System.err.println("railyard: rank " + rank + " called abort(" + code + ")");
        System.err.flush();
        Runtime.getRuntime().halt(code == 0 ? 1 : code);
    }

    /**
     * Says goodbye to every peer, waits (bounded) until all queued frames are written, and closes
     * the connections and the bootstrap.
     */
    public void close() {
        if (closed) {
            return;
        }
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
        closed = true;
        LockSupport.unpark(agent);
        try {
            agent.join(2000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
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
