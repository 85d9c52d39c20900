package org.railyard.engine.p2p;

import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Consumer;
import org.railyard.channel.ChannelTable;
import org.railyard.channel.LocalMemory;
import org.railyard.channel.Outbound;
import org.railyard.channel.VirtualChannel;
import org.railyard.types.Kind;
import org.railyard.engine.request.StatusSink;
import org.railyard.engine.request.Transfer;
import org.railyard.engine.comm.CommState;
import org.railyard.engine.progress.Progress;
import org.railyard.error.ErrorClass;
import org.railyard.error.RailyardException;
import org.railyard.wire.FrameHeader;
import org.railyard.wire.CheckpointImage;
import org.railyard.wire.FrameType;

/**
 * Point-to-point messaging of one process: posting sends and receives, matching
 * ({@link Matching}), and the {@link Protocol}s that carry a message, one per message chosen by
 * {@link #protocolFor} (sender) or by the announcing frame (receiver):
 * <ul>
 * <li><b>eager</b> ({@link Eager}): a standard send of at most {@link #eagerLimit()} bytes goes as
 *     one EAGER frame, straight into the rail's memory when nothing is queued ahead (no request),
 *     else queued; it completes when the frame is in the link's memory. Unmatched on arrival, its
 *     payload is copied aside.</li>
 * <li><b>cross-memory read</b> ({@link CrossMemoryRead}): a larger or synchronous send to a peer
 *     of this node over shared memory alone, from native memory, when reads are on: the receiver
 *     reads the payload from the sender's memory.</li>
 * <li><b>rendezvous</b> ({@link Rendezvous}): every other larger or synchronous send; unmatched on
 *     arrival, only the envelope is kept.</li>
 * </ul>
 * Every method that touches state runs holding the progress lock ({@link Progress#lock()}); the
 * blocking calls take it themselves and wait through {@link Progress}. Depends on the channel
 * floor and on {@code engine.progress}; knows nothing of collectives.
 */
public final class PointToPoint implements Transfer.Owner {
    public static final int ANY_SOURCE = -1;
    public static final int ANY_TAG = -1;
    public static final int PROC_NULL = -2;
    public static final int MODE_STANDARD = 0;
    public static final int MODE_SYNC = 1;

    private static final System.Logger LOG = System.getLogger("org.railyard.engine");

    private final int rank;
    private final ChannelTable channels;
    private final Progress progress;
    private final ReentrantLock lock;
    private final long eagerLimit;
    private final TransferTable table = new TransferTable();
    private final Matching matching = new Matching();
    private final TransferPools pools;
    private final Eager eager = new Eager();
    private final Rendezvous rendezvous = new Rendezvous(table);
    private final CrossMemoryRead reads;

    /**
     * @param eagerLimit standard sends up to this many bytes go eagerly
     * @param cma        the node's memory, when cross-memory reads of native payloads are on (and
     *                   possible here); null when they are off
     * @param cmaMin     smallest payload offered for a read
     * @param choice     where the choices made on the user's behalf are logged
     */
    public PointToPoint(int rank, int size, ChannelTable channels, Progress progress, long eagerLimit, LocalMemory cma,
                        long cmaMin, Consumer<String> choice) {
        this.rank = rank;
        this.channels = channels;
        this.progress = progress;
        this.lock = progress.lock();
        this.eagerLimit = eagerLimit;
        this.pools = new TransferPools(this, rank);
        this.reads = new CrossMemoryRead(rank, size, channels, cma, cmaMin, rendezvous, choice);
    }

    /** Standard sends up to this many bytes go eagerly. */
    public long eagerLimit() {
        return eagerLimit;
    }

    /** True if this process may read other processes' memory ({@code railyard.cma} on, and the call available). */
    public boolean crossMemoryReads() {
        return reads.enabled();
    }

    /** Rendezvous messages this process read from a sender's memory. */
    public long remoteReads() {
        return reads.reads();
    }

    /** Bytes of {@link #remoteReads()}. */
    public long remoteReadBytes() {
        return reads.readBytes();
    }

    // ================================================================== checkpoint (lock held)

    /**
     * True if no transfer in flight is one the agent could advance while the application is away:
     * no send waits for the answer to its request to send, no receive is large enough to be met by
     * one. An eager message for a posted receive waits in its link until the application reads it,
     * as it would for a thread that computes. Lock held.
     */
    public boolean quiet() {
        return table.forAgent() == 0;
    }

    /**
     * What keeps this process from a checkpoint now, or null: a send or receive in flight, or a
     * rendezvous message announced and not received (its payload is still with its sender).
     */
    public String pendingForCheckpoint() {
        if (table.registered() > 0) {
            return table.registered() + " send(s) or receive(s) in flight";
        }
        if (matching.anyPosted()) {
            return "a receive is posted and not matched";
        }
        String[] why = {null};
        matching.forEachUnexpected(u -> {
            if (u.rendezvous && why[0] == null) {
                why[0] = "a rendezvous message from rank " + u.source + " (tag " + u.tag + ", " + u.bytes
                        + " bytes) arrived and no receive took it";
            }
        });
        return why[0];
    }

    /** Records the transfer ids' state and the eager messages held unmatched, payloads included. */
    public void checkpoint(CheckpointImage img) {
        img.generations = table.generations();
        img.freeSlots = table.freeSlots();
        matching.forEachUnexpected(u -> {
            byte[] payload = u.bytes == 0 ? new byte[0] : java.util.Arrays.copyOf(u.data, (int) u.bytes);
            img.held.add(new CheckpointImage.HeldMessage(u.context, u.source, u.tag, payload));
        });
    }

    /** A rank started from a checkpoint: transfer ids go on as before, the held messages are held again in their order. */
    public void resume(CheckpointImage img) {
        table.resume(img.generations, img.freeSlots);
        for (CheckpointImage.HeldMessage m : img.held) {
            byte[] b = m.payload();
            matching.addUnexpected(m.context(), m.source(), m.tag(), b.length, eager, false, channels.channel(m.source()), 0,
                    0, MemorySegment.ofArray(b), 0);
        }
    }

    // ================================================================== blocking calls

    /** A blocking send to world rank {@code destWorld} (arguments checked by the caller). */
    public void send(CommState c, Object buf, Kind k, int off, int count, int destWorld, int tag, int mode) {
        SendTransfer t;
        lock.lock();
        try {
            if (mode == MODE_STANDARD && sendEagerDirect(c.context(), buf, k, off, count, destWorld, tag)) {
                return;
            }
            t = pools.acquireSend();
            t.pattern(Outbound.BLOCKING); // the EPC communication marker: blocking point-to-point
            postSend(t, c, c.context(), buf, k, off, count, destWorld, tag, mode);
        } finally {
            lock.unlock();
        }
        try {
            await(t);
        } finally {
            lock.lock();
            try {
                pools.releaseSend(t);
            } finally {
                lock.unlock();
            }
        }
    }

    /**
     * A small message straight into the rail's memory when nothing is queued ahead of it: no
     * request at all. Called with the lock held; also by collective schedules (context {@code ctx}).
     */
    public boolean sendEagerDirect(int ctx, Object buf, Kind k, int off, int count, int destWorld, int tag) {
        long bytes = (long) count * k.size;
        if (bytes > eagerLimit) {
            return false;
        }
        VirtualChannel ch = channels.existing(destWorld);
        if (ch == null) {
            return false;
        }
        return eager.sendNow(ch, ctx, rank, tag, buf, k, off, bytes);
    }

    /** A blocking receive from world rank {@code srcWorld} or ANY_SOURCE (arguments checked by the caller). */
    public void recv(CommState c, Object buf, Kind k, int off, int count, int srcWorld, int tag, StatusSink status) {
        RecvTransfer t;
        lock.lock();
        try {
            if (recvUnexpectedEager(c, buf, k, off, count, srcWorld, tag, status)) {
                return;
            }
            t = pools.acquireRecv();
            postRecv(t, c, c.context(), buf, k, off, count, srcWorld, tag, false);
        } finally {
            lock.unlock();
        }
        try {
            await(t);
            t.fillStatus(status);
        } finally {
            lock.lock();
            try {
                pools.releaseRecv(t);
            } finally {
                lock.unlock();
            }
        }
    }

    private void await(Transfer t) {
        progress.await(t, Long.MAX_VALUE);
        t.throwIfFailed();
    }

    /** A blocking receive whose message is already here (eager): copied out with no request. */
    private boolean recvUnexpectedEager(CommState c, Object buf, Kind k, int off, int count, int srcWorld, int tag,
                                        StatusSink status) {
        Unexpected u = matching.findUnexpected(c.context(), srcWorld, tag);
        if (u == null || u.rendezvous || u.bytes > (long) count * k.size) {
            return false; // the general path handles rendezvous and reports truncation
        }
        matching.unlink(u);
        k.copyIn(u.dataSeg, 0, buf, off, 0, u.bytes);
        status.setStatus(c.localRank(u.source), u.tag, u.bytes, k.size);
        matching.release(u);
        return true;
    }

    // ================================================================== non-blocking calls

    /** A non-blocking send on context {@code ctx}; {@code dest} is a rank of {@code c} or PROC_NULL. */
    public Transfer isend(CommState c, int ctx, Object buf, Kind k, int off, int count, int dest, int tag, int mode) {
        lock.lock();
        try {
            return isendInto(pools.newSend(), c, ctx, buf, k, off, count, dest, tag, mode);
        } finally {
            lock.unlock();
        }
    }

    /** Posts send {@code t} (complete at once to PROC_NULL); lock held. */
    private SendTransfer isendInto(SendTransfer t, CommState c, int ctx, Object buf, Kind k, int off, int count, int dest,
                                   int tag, int mode) {
        // the EPC communication marker: collectives use the communicator's second context
        t.pattern(ctx == c.context() ? Outbound.NONBLOCKING : Outbound.COLLECTIVE);
        if (dest == PROC_NULL) {
            t.init(c, ctx, buf, k, off, 0, PROC_NULL, tag);
            t.nothingToDo();
            return t;
        }
        postSend(t, c, ctx, buf, k, off, count, c.worldRank(dest), tag, mode);
        return t;
    }

    /** A non-blocking receive on context {@code ctx}; {@code source} is a rank of {@code c}, ANY_SOURCE or PROC_NULL. */
    public Transfer irecv(CommState c, int ctx, Object buf, Kind k, int off, int count, int source, int tag) {
        lock.lock();
        try {
            return irecvInto(pools.newRecv(), c, ctx, buf, k, off, count, source, tag, false);
        } finally {
            lock.unlock();
        }
    }

    /**
     * A receive posted ahead of any need (a window's standing receive of each member's headers):
     * as {@link #irecv}, but it does not make the source's channel wanted (see
     * {@link org.railyard.channel.VirtualChannel#wanted}); whoever waits on that source marks it
     * while it waits. Called with the lock held.
     */
    public Transfer irecvStanding(CommState c, int ctx, Object buf, Kind k, int off, int count, int source, int tag) {
        return irecvInto(pools.newRecv(), c, ctx, buf, k, off, count, source, tag, true);
    }

    /** Posts receive {@code t} (complete at once from PROC_NULL); lock held. */
    private RecvTransfer irecvInto(RecvTransfer t, CommState c, int ctx, Object buf, Kind k, int off, int count, int source,
                                   int tag, boolean standing) {
        if (source == PROC_NULL) {
            t.init(c, ctx, buf, k, off, 0, PROC_NULL, tag);
            t.statusSource = PROC_NULL;
            t.statusTag = ANY_TAG;
            t.nothingToDo();
            return t;
        }
        postRecv(t, c, ctx, buf, k, off, count, source == ANY_SOURCE ? ANY_SOURCE : c.worldRank(source), tag, standing);
        return t;
    }

    /**
     * A send of a collective schedule, taken from the pool: the schedule hands it back with
     * {@link #recycle} once it has seen it done, so a collective called in a loop allocates no
     * requests. With {@code mayBeRead} false, a receiver on this node is not offered a read of
     * the buffer. Called with the lock held.
     */
    public Transfer isendScheduled(CommState c, int ctx, Object buf, Kind k, int off, int count, int dest, int tag,
                                   boolean mayBeRead) {
        SendTransfer t = pools.acquireSend();
        t.mayBeRead = mayBeRead;
        return isendInto(t, c, ctx, buf, k, off, count, dest, tag, MODE_STANDARD);
    }

    /** A receive of a collective schedule, from the pool; as {@link #isendScheduled}. Called with the lock held. */
    public Transfer irecvScheduled(CommState c, int ctx, Object buf, Kind k, int off, int count, int source, int tag) {
        return irecvInto(pools.acquireRecv(), c, ctx, buf, k, off, count, source, tag, false);
    }

    /**
     * Gives back a request of {@link #isendScheduled} or {@link #irecvScheduled} that completed
     * and that its schedule will not look at again. One that failed or was cancelled is not
     * taken back (a receive that could not be cancelled may still be written to). Lock held.
     */
    public void recycle(Transfer t) {
        if (t.state != Transfer.DONE) {
            return;
        }
        if (t instanceof RecvTransfer r) {
            pools.releaseRecv(r);
        } else {
            pools.releaseSend((SendTransfer) t);
        }
    }

    /** Cancels a receive that has not matched yet; true if it was cancelled. */
    public boolean cancel(Transfer t) {
        lock.lock();
        try {
            if (t instanceof RecvTransfer r && t.state == Transfer.PENDING && matching.isPosted(r)) {
                matching.unlinkPosted(r);
                t.state = Transfer.CANCELLED;
                completed(t);
                return true;
            }
            return false;
        } finally {
            lock.unlock();
        }
    }

    /**
     * A probe, lock held: true and the message's status in {@code out} if one matching
     * {@code (c, srcWorld, tag)} is here; throws if the source's channel is down.
     */
    public boolean probeLocked(CommState c, int source, int srcWorld, int tag, StatusSink out) {
        Unexpected u = matching.findUnexpected(c.context(), srcWorld, tag);
        if (u != null) {
            out.setStatus(c.localRank(u.source), u.tag, u.bytes, 1);
            return true;
        }
        if (srcWorld != ANY_SOURCE) {
            VirtualChannel ch = channels.channel(srcWorld);
            ch.wanted();
            if (ch.gone()) {
                throw new RailyardException(ErrorClass.PEER_FAILED, "probe of rank " + source + " of " + c.name()
                        + ": " + ch.failure());
            }
        }
        return false;
    }

    // ================================================================== posting

    private void postSend(SendTransfer t, CommState c, int ctx, Object buf, Kind k, int off, int count, int destWorld,
                          int tag, int mode) {
        t.init(c, ctx, buf, k, off, count, destWorld, tag);
        t.sourceWorld = rank;
        t.sent = 0;
        t.remoteCookie = 0;
        // a send that is not eager has work the agent can advance: the CTS to answer, the data that follows
        table.register(t, !goesEagerly(t, mode));
        VirtualChannel ch = channels.channel(destWorld);
        if (ch.gone()) {
            t.fail(ErrorClass.PEER_FAILED, "cannot send to rank " + c.localRank(destWorld) + " of " + c.name()
                    + " (world rank " + destWorld + "): " + ch.failure());
            return;
        }
        protocolFor(t, ch, mode).start(t, ch);
        ch.progressSend();
    }

    /**
     * The protocol of send {@code t} to {@code ch}, by one rule: a standard send of at most the
     * eager limit is {@link Eager}; a larger or synchronous one is a {@link CrossMemoryRead} when
     * that protocol offers the payload's address ({@link CrossMemoryRead#offer}: reads on, a send
     * that may be read, at least {@code railyard.cma.min} bytes in native memory, a peer of this
     * node over shared memory alone that has not refused), recorded in {@code t.readAddress};
     * else a {@link Rendezvous}.
     */
    private Protocol protocolFor(SendTransfer t, VirtualChannel ch, int mode) {
        t.readAddress = 0;
        if (goesEagerly(t, mode)) {
            return eager;
        }
        t.readAddress = reads.offer(t, ch);
        return t.readAddress != 0 ? reads : rendezvous;
    }

    /** The first step of {@link #protocolFor}'s rule: a standard send of at most the eager limit goes eagerly. */
    private boolean goesEagerly(SendTransfer t, int mode) {
        return mode == MODE_STANDARD && t.capacityBytes <= eagerLimit;
    }

    private void postRecv(RecvTransfer t, CommState c, int ctx, Object buf, Kind k, int off, int count, int srcWorld, int tag,
                          boolean standing) {
        t.init(c, ctx, buf, k, off, count, srcWorld, tag);
        t.nextMatch = null;
        t.prevMatch = null;
        t.rendezvous = false;
        t.readDone = false;
        t.channel = null;
        t.received = 0;
        t.messageBytes = 0;
        table.register(t, t.capacityBytes > eagerLimit);
        Unexpected u = matching.findUnexpected(ctx, srcWorld, tag);
        if (u != null) {
            matching.unlink(u);
            t.matched(u.source, u.tag, u.bytes);
            u.protocol.matched(t, u.channel, u.dataSeg, 0, u.senderCookie, u.readAddress);
            matching.release(u);
            return;
        }
        if (srcWorld != ANY_SOURCE) {
            VirtualChannel ch = channels.existing(srcWorld);
            if (!standing) {
                // a peer this rank only ever receives from is connected to after a while all the same,
                // so that one that died before it ever connected fails this receive instead of hanging it
                ch = channels.channel(srcWorld);
                ch.wanted();
            }
            if (ch != null && ch.gone()) {
                t.fail(ErrorClass.PEER_FAILED, "cannot receive from rank " + c.localRank(srcWorld) + " of " + c.name()
                        + " (world rank " + srcWorld + "): " + ch.failure());
                return;
            }
        }
        matching.post(t);
    }


    // ================================================================== frames from the channel floor

    /** A point-to-point frame (EAGER, RTS, CTS, DATA) from {@code from}, whose source was checked. Lock held. */
    public void onFrame(VirtualChannel from, byte type, MemorySegment seg, long off, int length) {
        switch (type) {
            case FrameType.EAGER, FrameType.RTS -> onEnvelope(from, seg, off, length, type == FrameType.RTS);
            case FrameType.CTS -> rendezvous.onCts(from, seg, off);
            case FrameType.DATA -> rendezvous.onData(from, seg, off, length);
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
        // the protocol is the announcing frame's: EAGER, an RTS, or an RTS whose read offer this process accepts
        Protocol protocol = rts ? rendezvous : eager;
        long readAddress = 0;
        if (rts && (FrameHeader.flags(seg, off) & FrameHeader.FLAG_REMOTE_READ) != 0) {
            if (length != FrameHeader.LENGTH + FrameHeader.REMOTE_READ_PAYLOAD || FrameHeader.arg(seg, off) == 0) {
                from.protocolError("RTS offering a cross-memory read is " + length + " bytes long with address "
                        + FrameHeader.arg(seg, off) + " (expected " + (FrameHeader.LENGTH + FrameHeader.REMOTE_READ_PAYLOAD)
                        + " bytes and an address)");
                return;
            }
            readAddress = reads.accept(src, seg, off);
            protocol = readAddress != 0 ? reads : rendezvous;
        }
        long cookie = rts ? FrameHeader.cookie(seg, off) : 0;
        RecvTransfer t = matching.findPosted(ctx, src, tag);
        if (t != null) {
            matching.unlinkPosted(t);
            t.matched(src, tag, bytes);
            protocol.matched(t, from, seg, off + FrameHeader.LENGTH, cookie, readAddress);
            return;
        }
        matching.addUnexpected(ctx, src, tag, bytes, protocol, rts, from, cookie, readAddress, seg, off + FrameHeader.LENGTH);
    }

    /**
     * The channel to {@code ch.peer()} is down: every pending transfer with that peer fails, and
     * (unless the peer left in order) every posted receive from any source. Lock held.
     */
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
                boolean fromPeer = r.rendezvous ? r.matchedSource == peer : (matching.isPosted(r) && r.peer == peer);
                boolean wildcard = !orderly && matching.isPosted(r) && r.peer == ANY_SOURCE;
                if (fromPeer || wildcard) {
                    victims.add(t);
                }
            }
        });
        for (Transfer t : victims) {
            if (t instanceof RecvTransfer r && matching.isPosted(r)) {
                matching.unlinkPosted(r);
            }
            String who = t.comm == null ? "world rank " + peer : "rank " + t.comm.localRank(peer) + " of " + t.comm.name()
                    + " (world rank " + peer + ")";
            t.fail(ErrorClass.PEER_FAILED, (t instanceof SendTransfer ? "send to " : "receive from ") + who + " failed: " + why);
        }
    }

    /** True if {@code t} is a rendezvous send whose RTS is out and that waits for the receiver's CTS (diagnostics, tests). */
    public static boolean waitsForCts(Transfer t) {
        return t instanceof SendTransfer s && s.phase == SendTransfer.PHASE_WAIT_CTS;
    }

    /**
     * Appends what point-to-point waits for, for a stall report: the posted receives, the
     * unexpected messages and every transfer addressable on the wire (rendezvous in flight), at
     * most {@code max} lines of each. Called holding the progress lock.
     */
    public void describe(StringBuilder sb, int max) {
        matching.describe(sb, max);
        int[] n = {0};
        table.forEach(t -> {
            if (n[0]++ < max) {
                sb.append("  in flight: ").append(t.describe()).append('\n');
            }
        });
        sb.append("  ").append(n[0]).append(" transfers in flight\n");
    }

    /** A transfer is done: its id is no longer valid on the wire. */
    @Override
    public void completed(Transfer t) {
        table.unregister(t);
    }
}
