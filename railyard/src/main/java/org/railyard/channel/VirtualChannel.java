package org.railyard.channel;

import java.lang.foreign.MemorySegment;
import org.railyard.transport.Link;
import org.railyard.transport.LinkSource;
import org.railyard.wire.FrameHeader;
import org.railyard.wire.FrameType;
import org.railyard.wire.Handshake;
import org.railyard.wire.LinkControl;

/**
 * Everything that goes to and comes from one peer: its rails (subchannels), the order of frames
 * (one packet sequence number per direction), the queues of what waits to be sent, and on a
 * multi-rail channel the machinery that loses nothing when rails fail (seed 002, chapters 4 and 10).
 * Driven only by the progress agent (or a caller holding the progress lock).
 *
 * <h2>Sending</h2>
 * Two send queues: envelopes (eager messages, requests to send, clear-to-send answers) and bulk
 * (rendezvous data). Envelopes go first, so a large transfer under way never holds back the small
 * messages behind it; order among envelopes is the order of posting, which is what MPI's
 * non-overtaking rule needs. Each frame gets the next packet sequence number (PSN) when it is
 * handed to a rail; the {@link RailPolicy} picks the rail. Bulk data of at least the striping
 * threshold may be striped: the policy splits the message into one contiguous stripe per rail,
 * and the rails are fed frame by frame as each has room, so every rail runs at its own speed.
 *
 * <h2>Receiving</h2>
 * Frames are delivered to the engine in PSN order. With one rail they arrive in order. With several,
 * an envelope ahead of its turn is copied aside ({@link ReorderBuffer}) until the frames before it
 * arrive; rendezvous data ahead of its turn goes up at once (it names its offset, and its receive
 * exists since the CTS) and only its PSN is remembered; a frame with a PSN already delivered or
 * buffered is dropped (it was sent twice).
 *
 * <h2>Multi-rail reliability</h2>
 * A channel whose peer can be reached by more than one rail is <em>reliable</em>: TCP's own
 * acknowledgements are invisible from Java, so the channel keeps its own. Every sequenced frame is
 * copied into a bounded {@link RetransmitBuffer} when it is sent (sending waits when it is full).
 * The receiver acknowledges each rail with the channel's cumulative delivered PSN and the bytes
 * received on that rail: at once when a frame asks for it (the last frame of every stripe does), and
 * otherwise every {@code ackBytes} bytes or {@code ackInterval}. A rail that sent nothing for a
 * while sends a heartbeat. A rail is declared down on a socket error or when nothing arrived on it
 * for {@code railTimeout}; every frame it carried that is not acknowledged is sent again on the
 * rails that are left (the receiver drops the duplicates by PSN), and the lower-ranked side
 * reconnects it in the background with exponential backoff; when it is back it gets a fresh weight.
 * With no rail left (a partition) the channel waits up to {@code partitionTimeout} for one to
 * return, then fails with an error naming the peer and the bound. A striped message completes on
 * the sender only once the peer acknowledged all of it.
 *
 * <p>A channel with a single possible rail (shared memory, one path) keeps none of this: no
 * acknowledgements, no copies, and a broken link puts the channel down at once.
 */
public final class VirtualChannel implements Link.FrameHandler {
    /** Lifecycle of a channel. */
    public enum State { IDLE, CONNECTING, UP, DOWN, CLOSED }

    /** Most rails a channel can have. */
    static final int MAX_RAILS = Handshake.MAX_RAILS;

    private final int peer;
    private final ChannelTable table;
    private final RailSettings settings;
    private final Rail[] rails = new Rail[MAX_RAILS];
    private int railSlots;
    private final Rail[] live = new Rail[MAX_RAILS];
    private int liveCount;
    private RailPolicy policy;
    private boolean reliable;
    private State state = State.IDLE;
    private long nextPsn;
    private long expectedPsn;
    private long ackedPsn;
    private long connectDeadline;
    private int connectFailures;
    private String failure;
    private boolean byeSent;
    private boolean byeReceived;
    private long now;
    private long partitionSince = -1;
    private long nextProbe;
    private String lastRailFailure;
    private boolean printedPolicy;

    private Outbound envHead, envTail, bulkHead, bulkTail, awaitHead, awaitTail;

    private RetransmitBuffer retransmit;
    private ReorderBuffer reorder;
    private final LongQueue resend = new LongQueue();
    private int resendRotor;

    // the bulk message being handed off (bulkHead once planned)
    private boolean bulkPlanned;
    private boolean bulkStriped;
    private int rangeCount;
    private int rangeCursor;
    private final long[] rangeNext = new long[2 * MAX_RAILS];
    private final long[] rangeEnd = new long[2 * MAX_RAILS];
    private final int[] rangeRail = new int[2 * MAX_RAILS];
    private final int[] rangeStripe = new int[2 * MAX_RAILS];
    private final long[] share = new long[MAX_RAILS];
    private StripeTimer timer;
    private StripeTimer freeTimers;

    /** A rail that received nothing for this long counts as quiet (see {@link #progressReceive}). */
    private static final long QUIET_NANOS = 1_000_000L;
    private static final int QUIET_POLL_MASK = 15;
    private int polls;

    /** Frames that arrived ahead of their turn and were held back (for tests and diagnostics). */
    long reordered;
    private Rail polling;
    private Rail directRail;
    private long directOffset;

    VirtualChannel(ChannelTable table, int peer) {
        this.table = table;
        this.peer = peer;
        this.settings = table.settings();
    }

    /** The peer's world rank. */
    public int peer() {
        return peer;
    }

    public State state() {
        return state;
    }

    /** Why the channel is down, or null. */
    public String failure() {
        return failure;
    }

    /** The scheduling policy, once the first rail is attached (null before). */
    public RailPolicy policy() {
        return policy;
    }

    /** True if the channel has several possible rails and keeps acknowledgements and a retransmit buffer. */
    public boolean reliable() {
        return reliable;
    }

    /** True while every rail is down and the channel waits for one to return. */
    public boolean partitioned() {
        return partitionSince >= 0;
    }

    /**
     * True if the peer is a process of this node reached by shared memory alone: the channel is up
     * on a single rail, a same-node transport (shm). The engine lets such a peer read large native
     * payloads itself; over any other rail (tcp between ranks of one node, say) it does not, so a
     * transport chosen for a run is the one that carries its data.
     */
    public boolean sharesMemory() {
        return state == State.UP && liveCount == 1 && !reliable
                && live[0].link().transport().capabilities().contains(org.railyard.transport.Capability.SAME_NODE);
    }

    /** The rails that were ever attached, by index, for observation. */
    public Rail[] rails() {
        int n = 0;
        for (int i = 0; i < railSlots; i++) {
            if (rails[i] != null) {
                n++;
            }
        }
        Rail[] out = new Rail[n];
        n = 0;
        for (int i = 0; i < railSlots; i++) {
            if (rails[i] != null) {
                out[n++] = rails[i];
            }
        }
        return out;
    }

    /** True if nothing waits to be sent, and on a multi-rail channel everything sent has been acknowledged. */
    public boolean idle() {
        if (envHead != null || bulkHead != null || awaitHead != null) {
            return false;
        }
        for (int i = 0; i < liveCount; i++) {
            if (live[i].link.hasPendingOutput()) {
                return false;
            }
        }
        return !reliable || retransmit.isEmpty() || byeReceived;
    }

    /** True once the peer said it leaves the job. */
    public boolean peerLeft() {
        return byeReceived;
    }

    // ================================================================== queueing

    /** Queues an envelope (eager message, RTS, CTS); starts connecting if needed. */
    public void sendEnvelope(Outbound o) {
        o.nextOut = null;
        if (envTail == null) {
            envHead = o;
        } else {
            envTail.nextOut = o;
        }
        envTail = o;
        wake();
    }

    /** Queues rendezvous data. */
    public void sendBulk(Outbound o) {
        o.nextOut = null;
        if (bulkTail == null) {
            bulkHead = o;
        } else {
            bulkTail.nextOut = o;
        }
        bulkTail = o;
        wake();
    }

    /** Asks for a connection if there is none yet. */
    public void wake() {
        if (state == State.IDLE) {
            state = State.CONNECTING;
            connectDeadline = table.nanoTime() + table.connectTimeoutNanos();
            table.links().connect(peer);
        }
    }

    // ================================================================== rails come and go

    /**
     * A link for rail {@code index} of {@code slots}: the first makes the channel usable; a link for
     * a rail that is up replaces it (the peer found the old one dead first).
     */
    void attach(Link link, int index, int slots, long epoch) {
        if (state == State.DOWN || state == State.CLOSED) {
            link.close();
            return;
        }
        now = table.nanoTime();
        if (railSlots == 0) {
            railSlots = Math.min(slots, MAX_RAILS);
            reliable = railSlots > 1;
            policy = RailPolicies.create(settings.policy(), table.rank(), peer);
            if (reliable) {
                retransmit = new RetransmitBuffer(settings.retransmitBytes());
                reorder = new ReorderBuffer();
                table.reliableChannelAdded();
                for (int i = 0; i < railSlots; i++) {
                    // the first attempts for the other rails are under way: reconnect only if they fail
                    rail(i).nextAttemptNanos = now + settings.reconnectMin().toNanos();
                }
            }
        }
        if (index >= railSlots) {
            table.log("rank " + table.rank() + ": rank " + peer + " linked rail " + index + " of " + slots
                    + ", but this side counts " + railSlots + " rails to it (railyard.rails or railyard.rail.nets differ?); link dropped");
            link.close();
            return;
        }
        Rail r = rail(index);
        if (r.up()) {
            railBroken(r, "replaced by a new connection from rank " + peer);
            if (state != State.UP) {
                link.close();
                return;
            }
        }
        r.link = link;
        r.epoch = epoch;
        r.linkBytesSent = 0;
        r.linkBytesAcked = 0;
        r.linkBytesReceived = 0;
        r.bytesAtLastAck = 0;
        r.psnAtLastAck = expectedPsn;
        r.lastReceiveNanos = now;
        r.lastSendNanos = now;
        r.lastAckNanos = now;
        r.lastStripeDoneNanos = 0;
        r.ackRequested = false;
        r.backoffNanos = 0;
        r.weight = policy.freshWeight(r, live, liveCount);
        r.measuredBandwidth = 0;
        r.state = Rail.State.UP;
        addLive(r);
        r.stats.weight(r.weight);
        r.stats.state(now, "UP", null, link.describe());
        boolean wasPartitioned = partitionSince >= 0;
        partitionSince = -1;
        if (state == State.IDLE || state == State.CONNECTING) {
            state = State.UP;
        }
        if (!printedPolicy) {
            printedPolicy = true;
            table.printChoice("rank " + table.rank() + " -> rank " + peer + ": " + railSlots + (railSlots == 1 ? " rail" : " rails")
                    + ", rail policy " + policy.name() + (reliable ? ", striping from " + settings.stripeThreshold()
                    + " B, acknowledged with retransmission (" + (settings.retransmitBytes() >> 20) + " MiB buffer)" : ""));
        }
        table.printChoice("rank " + table.rank() + " -> rank " + peer + ": rail " + index + " up: transport "
                + link.transport().name() + " (" + link.describe() + ")");
        if (wasPartitioned) {
            table.log("rank " + table.rank() + ": rail " + index + " to rank " + peer + " is back; sending "
                    + resend.size() + " unacknowledged frames again");
        }
    }

    private Rail rail(int index) {
        Rail r = rails[index];
        if (r == null) {
            r = new Rail(index, table.stats().rail(peer, index));
            rails[index] = r;
        }
        return r;
    }

    private void addLive(Rail r) {
        int i = liveCount++;
        while (i > 0 && live[i - 1].index > r.index) {
            live[i] = live[i - 1];
            i--;
        }
        live[i] = r;
    }

    private void removeLive(Rail r) {
        int j = 0;
        for (int i = 0; i < liveCount; i++) {
            if (live[i] != r) {
                live[j++] = live[i];
            }
        }
        for (int i = j; i < liveCount; i++) {
            live[i] = null;
        }
        liveCount = j;
    }

    /** A connection attempt for rail {@code index} failed. */
    void connectFailed(int index, int slots, String why, boolean refused) {
        if (state == State.IDLE || state == State.CONNECTING) {
            // no rail ever came: the channel fails once every rail's first attempt did
            if (++connectFailures >= Math.max(1, slots)) {
                down(why, false);
            }
            return;
        }
        if (state != State.UP || index < 0 || index >= railSlots) {
            return;
        }
        rail(index).lastFailure = why;
        peerGone(refused, why);
    }

    /** The answer to a probe during a partition. */
    void probed(String what, boolean refused) {
        peerGone(refused, what);
    }

    private void peerGone(boolean refused, String why) {
        if (refused && liveCount == 0 && state == State.UP) {
            down("rank " + peer + " is gone: every rail is down and its handshake port refuses connections (" + why + ")", false);
        }
    }

    /**
     * A rail's link failed (socket error, end of stream, silence). On a single-rail channel the
     * channel goes down; on a multi-rail channel the rail's unacknowledged frames go again on the
     * others, and the rail is reconnected.
     */
    private void railBroken(Rail r, String why) {
        if (!r.up()) {
            return;
        }
        if (!reliable) {
            linkBroken(r.link, why);
            return;
        }
        r.link.close();
        r.state = Rail.State.DOWN;
        removeLive(r);
        r.stats.state(now, "DOWN", why, null);
        lastRailFailure = why;
        if (byeReceived) {
            down("rank " + peer + " has left the job (finalized)", true);
            return;
        }
        int before = resend.size();
        retransmit.collect(r.index, resend);
        while (r.pendingCount > 0) {
            StripeTimer t = r.pendingTimers[r.pendingHead];
            r.pendingTimers[r.pendingHead] = null;
            r.pendingHead = (r.pendingHead + 1) % r.pendingTimers.length;
            r.pendingCount--;
            if (t.abandon()) {
                releaseTimer(t);
            }
        }
        if (timer != null) {
            timer.invalid = true;
        }
        table.links().railLost(peer, r.index, r.epoch);
        r.backoffNanos = 0;
        r.nextAttemptNanos = now + settings.reconnectMin().toNanos();
        table.log("rank " + table.rank() + ": rail " + r.index + " to rank " + peer + " down (" + why + "); "
                + (resend.size() - before) + " unacknowledged frames go again on " + liveCount + " other rail"
                + (liveCount == 1 ? "" : "s"));
        if (liveCount == 0) {
            partitionSince = now;
            nextProbe = now;
            table.log("rank " + table.rank() + ": no rail left to rank " + peer + "; waiting up to "
                    + settings.partitionTimeout().toMillis() + " ms (railyard.partition.timeout) for one to return");
        }
    }

    // ================================================================== the short path

    /**
     * The short path for a frame that can go at once: when the channel is up and nothing is queued
     * ahead of it, reserves {@code frameLength} bytes on the rail the policy picks and returns their
     * offset in {@link #directSegment()}; the caller writes the whole frame there and calls
     * {@link #commitDirect()}. Returns -1 when the frame must be queued instead (order first).
     */
    public long claimDirect(int frameLength) {
        if (state != State.UP || envHead != null || liveCount == 0) {
            return -1;
        }
        if (reliable && (!resend.isEmpty() || !retransmit.hasRoom(frameLength))) {
            return -1;
        }
        Rail rail = live[policy.select(live, liveCount, frameLength - FrameHeader.LENGTH, Outbound.BLOCKING, false)];
        if (frameLength > rail.link.maxFrame()) {
            return -1;
        }
        long off = rail.link.tryClaim(frameLength);
        if (off < 0) {
            return -1;
        }
        directRail = rail;
        directOffset = off;
        return off;
    }

    /** The memory of the last {@link #claimDirect}. */
    public MemorySegment directSegment() {
        return directRail.link.claimSegment();
    }

    /** Stamps the sequence number on the frame written after {@link #claimDirect}, publishes and flushes it. */
    public void commitDirect() {
        Link link = directRail.link;
        MemorySegment seg = link.claimSegment();
        if (reliable) {
            now = table.nanoTime();
        }
        stamp(directRail, seg, directOffset, FrameHeader.frameLength(seg, directOffset));
        link.commit();
        link.flush();
    }

    /** PSN, retransmit copy, counters: what every sequenced frame gets when handed to a rail. */
    private void stamp(Rail r, MemorySegment seg, long off, int len) {
        r.stats.sent(len);
        if (!FrameType.sequenced(FrameHeader.type(seg, off))) {
            return; // outside the sequence (a VALUE frame): never reordered, never sent again
        }
        long psn = nextPsn++;
        FrameHeader.psn(seg, off, psn);
        if (reliable) {
            retransmit.add(psn, r.index, seg, off, len);
            r.linkBytesSent += len;
            r.lastSendNanos = now;
        }
    }

    // ================================================================== sending

    /** Writes queued frames while the rails take them; returns the number of frames written. */
    public int progressSend() {
        if (state != State.UP || liveCount == 0) {
            return 0;
        }
        if (reliable) {
            now = table.nanoTime();
        }
        int work = 0;
        if (!resend.isEmpty()) {
            work += sendAgain();
        }
        while (state == State.UP && liveCount > 0) {
            if (envHead != null) {
                if (!sendEnvelopeFrame()) {
                    break;
                }
            } else if (bulkHead != null) {
                if (!sendBulkFrame()) {
                    break;
                }
            } else {
                break;
            }
            work++;
        }
        for (int i = 0; i < liveCount; i++) {
            if (live[i].link.flush() > 0) {
                work++;
            }
        }
        return work;
    }

    private boolean sendEnvelopeFrame() {
        Outbound o = envHead;
        // a value of an iterative scheme stays on the first rail: its flow keeps its order without a sequence number
        Rail r = o.unsequenced() ? live[0]
                : live[policy.select(live, liveCount, o.nextFrameLength(Integer.MAX_VALUE) - FrameHeader.LENGTH, o.pattern(), false)];
        return sendSequential(r, o, false);
    }

    /** One frame of {@code o} through {@link Outbound#writeFrame}; false if the rail cannot take it now. */
    private boolean sendSequential(Rail r, Outbound o, boolean bulk) {
        Link link = r.link;
        int len = o.nextFrameLength(link.maxFrame());
        long off = claim(r, len);
        if (off < 0) {
            return false;
        }
        MemorySegment seg = link.claimSegment();
        boolean last = o.writeFrame(seg, off, len);
        stamp(r, seg, off, len);
        link.commit();
        if (last) {
            if (bulk) {
                popBulk();
            } else {
                envHead = o.nextOut;
                if (envHead == null) {
                    envTail = null;
                }
            }
            o.nextOut = null;
            o.lastPsn = nextPsn - 1;
            o.onWritten();
        }
        return true;
    }

    /**
     * How many unacknowledged bytes rail {@code r} may carry: {@code railWindow} per rail, shared
     * out by weight. The queue of a rail is then about as long in time on every rail (a slow rail
     * gets a short queue), so frames handed off at the same moment arrive at about the same moment
     * whatever rail they took, and the receiver holds few frames out of order.
     */
    private long window(Rail r) {
        double total = 0;
        for (int i = 0; i < liveCount; i++) {
            total += live[i].weight;
        }
        long w = total <= 0 ? settings.railWindow() : (long) (settings.railWindow() * liveCount * (r.weight / total));
        return Math.max(MIN_WINDOW, w);
    }

    /** A rail's window is never below this, so a rail with a tiny weight still carries its stripe. */
    private static final long MIN_WINDOW = 256 * 1024;

    /** {@link #claim} when the retransmit buffer has no room for the frame. */
    private static final long FULL = -3;

    /**
     * Reserves {@code len} bytes for a sequenced frame on {@code r}: the offset, or
     * {@link Link#BACK_PRESSURED}, or {@link #FULL}, or {@link Link#CLOSED} (the rail has just been
     * declared broken).
     */
    private long claim(Rail r, int len) {
        if (reliable && !retransmit.hasRoom(len)) {
            return FULL;
        }
        long off = r.link.tryClaim(len);
        if (off == Link.CLOSED) {
            railBroken(r, why(r.link));
        }
        return off;
    }

    private static String why(Link link) {
        return link.failure() == null ? "connection closed" : link.failure();
    }

    private void popBulk() {
        bulkHead = bulkHead.nextOut;
        if (bulkHead == null) {
            bulkTail = null;
        }
    }

    /** Plans the head bulk message if needed and hands one of its frames to a rail that has room. */
    private boolean sendBulkFrame() {
        Outbound o = bulkHead;
        if (!bulkPlanned) {
            long n = o.bulkBytes();
            if (n < 0) {
                return sendSequential(live[policy.select(live, liveCount, Long.MAX_VALUE, o.pattern(), true)], o, true);
            }
            plan(o, n);
            if (n == 0) {
                finishBulk(o);
                return true;
            }
        }
        for (int k = 0; k < rangeCount; k++) {
            int i = (rangeCursor + k) % rangeCount;
            if (rangeNext[i] >= rangeEnd[i]) {
                continue;
            }
            Rail r = rails[rangeRail[i]];
            if (!r.up()) {
                r = reassign(i);
                if (r == null) {
                    return false;
                }
            }
            if (reliable && r.inFlight() >= window(r)) {
                continue;
            }
            Link link = r.link;
            long payload = Math.min(((link.maxFrame() - FrameHeader.LENGTH) / 8) * 8, rangeEnd[i] - rangeNext[i]);
            int len = (int) (FrameHeader.LENGTH + payload);
            long off = claim(r, len);
            if (off == FULL) {
                return false;
            }
            if (off == Link.CLOSED) {
                return true; // a rail fewer: let the loop look again
            }
            if (off < 0) {
                continue;
            }
            MemorySegment seg = link.claimSegment();
            o.writeBulk(seg, off, len, rangeNext[i]);
            boolean stripeEnd = rangeNext[i] + payload == rangeEnd[i];
            if (stripeEnd && bulkStriped) {
                FrameHeader.addFlags(seg, off, FrameHeader.FLAG_ACK_REQUEST);
            }
            int stripe = rangeStripe[i];
            if (timer != null && stripe >= 0 && timer.start[stripe] < 0) {
                timer.start[stripe] = now;
            }
            stamp(r, seg, off, len);
            link.commit();
            rangeNext[i] += payload;
            if (stripeEnd && timer != null && stripe >= 0) {
                r.pushTimer(timer, stripe, r.linkBytesSent);
            }
            rangeCursor = i + 1;
            if (allRangesDone()) {
                finishBulk(o);
            }
            return true;
        }
        return false;
    }

    private boolean allRangesDone() {
        for (int i = 0; i < rangeCount; i++) {
            if (rangeNext[i] < rangeEnd[i]) {
                return false;
            }
        }
        return true;
    }

    /** Splits the head bulk message into ranges, one per rail it goes on. */
    private void plan(Outbound o, long n) {
        bulkPlanned = true;
        rangeCount = 0;
        rangeCursor = 0;
        bulkStriped = reliable && liveCount > 1 && n >= settings.stripeThreshold() && policy.stripes(o.pattern());
        if (!bulkStriped) {
            addRange(0, n, live[policy.select(live, liveCount, n, o.pattern(), true)].index);
            return;
        }
        policy.plan(live, liveCount, n, share);
        if (policy.adaptive()) {
            timer = acquireTimer();
        }
        long at = 0;
        for (int i = 0; i < liveCount; i++) {
            if (share[i] > 0) {
                addRange(at, at + share[i], live[i].index);
                if (timer != null) {
                    rangeStripe[rangeCount - 1] = timer.add(live[i], share[i]);
                }
                live[i].lastUsed = now;
                at += share[i];
            }
        }
        if (timer != null && timer.count < 2) {
            timer.invalid = true; // one stripe tells nothing about the others
        }
    }

    private void addRange(long from, long to, int railIndex) {
        rangeNext[rangeCount] = from;
        rangeEnd[rangeCount] = to;
        rangeRail[rangeCount] = railIndex;
        rangeStripe[rangeCount] = -1;
        rangeCount++;
    }

    /** The rail of range {@code i} died: its remaining bytes go to the heaviest rail up (null if none is). */
    private Rail reassign(int i) {
        if (liveCount == 0) {
            return null;
        }
        Rail to = live[Stripes.heaviest(live, liveCount)];
        rangeRail[i] = to.index;
        if (timer != null) {
            timer.invalid = true;
        }
        return to;
    }

    private void finishBulk(Outbound o) {
        bulkPlanned = false;
        popBulk();
        o.nextOut = null;
        o.lastPsn = nextPsn - 1;
        StripeTimer t = timer;
        timer = null;
        if (t != null && t.pending == 0) {
            releaseTimer(t);
        }
        if (bulkStriped) {
            // the completion filter: a striped message is done when the peer has all of it
            if (awaitTail == null) {
                awaitHead = o;
            } else {
                awaitTail.nextOut = o;
            }
            awaitTail = o;
            completeAcknowledged();
        } else {
            o.onWritten();
        }
    }

    private void completeAcknowledged() {
        while (awaitHead != null && awaitHead.lastPsn < ackedPsn) {
            Outbound o = awaitHead;
            awaitHead = o.nextOut;
            if (awaitHead == null) {
                awaitTail = null;
            }
            o.nextOut = null;
            o.onWritten();
        }
    }

    /** Sends again, on the rails that are up, the frames of rails that died; returns frames sent. */
    private int sendAgain() {
        int sent = 0;
        int blocked = 0;
        while (!resend.isEmpty() && liveCount > 0 && blocked < liveCount) {
            long psn = resend.peek();
            if (psn < ackedPsn || !retransmit.contains(psn)) {
                resend.poll();
                continue;
            }
            Rail r = live[Math.floorMod(resendRotor, liveCount)];
            resendRotor++;
            if (r.inFlight() >= window(r)) {
                blocked++;
                continue;
            }
            int len = retransmit.length(psn);
            long off = r.link.tryClaim(len);
            if (off < 0) {
                if (off == Link.CLOSED) {
                    railBroken(r, why(r.link));
                    blocked = 0;
                } else {
                    blocked++;
                }
                continue;
            }
            blocked = 0;
            MemorySegment seg = r.link.claimSegment();
            MemorySegment.copy(retransmit.segment(), retransmit.offset(psn), seg, off, len);
            FrameHeader.addFlags(seg, off, FrameHeader.FLAG_ACK_REQUEST);
            r.link.commit();
            retransmit.rail(psn, r.index);
            r.linkBytesSent += len;
            r.lastSendNanos = now;
            r.stats.sent(len);
            r.stats.retransmitted(len);
            resend.poll();
            sent++;
        }
        return sent;
    }

    // ================================================================== receiving

    /** Reads what the rails received and hands it up; returns frames delivered. */
    int progressReceive() {
        if (state != State.UP) {
            return 0;
        }
        if (reliable) {
            now = table.nanoTime();
        }
        int n = 0;
        polls++;
        for (int i = 0; i < railSlots && state == State.UP; i++) {
            Rail r = rails[i];
            if (r == null || !r.up()) {
                continue;
            }
            if (reliable && r.inFlight() == 0 && now - r.lastReceiveNanos > QUIET_NANOS && (polls & QUIET_POLL_MASK) != 0) {
                // a quiet rail that owes us no acknowledgement is read every 16th cycle only: reading
                // an idle socket is a system call, and with four rails it would slow the one that
                // carries a ping-pong (a rail with data in flight is read every time, so the
                // acknowledgements that time its stripes are seen at once)
                continue;
            }
            polling = r;
            n += r.link.poll(this, 64);
            if (state != State.UP || !r.up()) {
                continue;
            }
            if (!r.link.isOpen()) {
                railBroken(r, why(r.link));
            } else if (reliable && (r.ackRequested || r.linkBytesReceived - r.bytesAtLastAck >= settings.ackBytes())) {
                sendAck(r);
            }
        }
        polling = null;
        return n;
    }

    @Override
    public boolean onFrame(Link link, MemorySegment seg, long offset, int length) {
        Rail r = polling;
        byte type = FrameHeader.type(seg, offset);
        if (!FrameType.sequenced(type) && type != FrameType.ACK && type != FrameType.HEARTBEAT) {
            // outside the packet sequence (VALUE): straight up, in arrival order
            r.stats.received(length);
            table.sink().onFrame(this, seg, offset, length);
            return state == State.UP;
        }
        if (!reliable) {
            if (!FrameType.sequenced(type)) {
                return true; // control frames mean nothing on a single rail
            }
            long psn = FrameHeader.psn(seg, offset);
            if (psn != expectedPsn) {
                link.close();
                linkBroken(link, "frame out of sequence from rank " + peer + ": packet " + psn + ", expected " + expectedPsn);
                return false;
            }
            r.stats.received(length);
            deliver(seg, offset, length, type);
            return state == State.UP;
        }
        r.lastReceiveNanos = now;
        if (type == FrameType.ACK) {
            onAck(r, seg, offset);
            return state == State.UP;
        }
        if (type == FrameType.HEARTBEAT) {
            return true;
        }
        r.stats.received(length);
        r.linkBytesReceived += length;
        if ((FrameHeader.flags(seg, offset) & FrameHeader.FLAG_ACK_REQUEST) != 0) {
            r.ackRequested = true;
        }
        long psn = FrameHeader.psn(seg, offset);
        if (psn == expectedPsn) {
            deliver(seg, offset, length, type);
            while (state == State.UP && reorder.count() > 0) {
                int slot = reorder.slot(expectedPsn);
                if (slot < 0) {
                    break;
                }
                MemorySegment f = reorder.frame(slot);
                if (f == null) {
                    expectedPsn++; // delivered ahead of its turn already (rendezvous data)
                } else {
                    deliver(f, 0, reorder.length(slot), FrameHeader.type(f, 0));
                }
                reorder.free(slot);
            }
        } else if (psn > expectedPsn) {
            if (psn >= nextPsnBound()) {
                protocolError("packet " + psn + " is beyond anything the peer can have in flight (next expected " + expectedPsn + ")");
                return false;
            }
            if (type == FrameType.DATA) {
                // rendezvous data names its offset and the receive it belongs to, which the receiver
                // set up before it answered CTS: it goes up now, uncopied; its PSN is only marked,
                // so the sequence still advances over it and a second copy is still a duplicate
                if (reorder.markDelivered(psn, expectedPsn)) {
                    table.sink().onFrame(this, seg, offset, length);
                } else {
                    r.stats.duplicate();
                }
            } else if (reorder.put(psn, expectedPsn, seg, offset, length)) {
                reordered++;
                r.stats.reordered();
            } else {
                r.stats.duplicate();
            }
        } else {
            r.stats.duplicate();
        }
        return state == State.UP;
    }

    /** A PSN this far ahead cannot be real: the peer's retransmit buffer holds at most this many frames. */
    private long nextPsnBound() {
        return expectedPsn + settings.retransmitBytes() / FrameHeader.LENGTH + 1;
    }

    private void deliver(MemorySegment seg, long offset, int length, byte type) {
        expectedPsn++;
        if (type == FrameType.BYE) {
            byeReceived = true;
            return;
        }
        table.sink().onFrame(this, seg, offset, length);
    }

    private void onAck(Rail r, MemorySegment seg, long off) {
        long next = LinkControl.nextExpectedPsn(seg, off);
        long bytes = LinkControl.railBytes(seg, off);
        if (next > nextPsn || bytes > r.linkBytesSent) {
            protocolError("acknowledgement of packets below " + next + " and " + bytes + " bytes on rail " + r.index
                    + ", but only " + nextPsn + " packets and " + r.linkBytesSent + " bytes were sent");
            return;
        }
        if (bytes > r.linkBytesAcked) {
            r.linkBytesAcked = bytes;
            if (r.pendingCount > 0 && r.pendingEnd[r.pendingHead] <= bytes) {
                stripesAcknowledged(r, bytes);
            }
        }
        if (next > ackedPsn) {
            ackedPsn = next;
            retransmit.release(next);
            completeAcknowledged();
        }
    }

    /**
     * Times the stripes on {@code r} that the acknowledgement of {@code bytes} completes. A stripe
     * started when it was handed off, or when the stripe before it on the rail was through,
     * whichever was later (the rail was carrying that one until then). When one acknowledgement
     * completes several stripes (the receiver read them in one go), their span is shared out by
     * bytes: the rail carried all of them in that time, and giving the last one only the gap since
     * the one before would credit the rail with an absurd speed.
     */
    private void stripesAcknowledged(Rail r, long bytes) {
        int n = 0;
        long spanBytes = 0;
        long spanStart = Long.MAX_VALUE;
        for (int i = 0; i < r.pendingCount; i++) {
            int k = (r.pendingHead + i) % r.pendingTimers.length;
            if (r.pendingEnd[k] > bytes) {
                break;
            }
            StripeTimer t = r.pendingTimers[k];
            int stripe = r.pendingStripe[k];
            spanStart = Math.min(spanStart, Math.max(t.start[stripe], r.lastStripeDoneNanos));
            spanBytes += t.bytes[stripe];
            n++;
        }
        long span = Math.max(1, now - spanStart);
        r.lastStripeDoneNanos = now;
        for (int i = 0; i < n; i++) {
            StripeTimer t = r.pendingTimers[r.pendingHead];
            int stripe = r.pendingStripe[r.pendingHead];
            r.pendingTimers[r.pendingHead] = null;
            r.pendingHead = (r.pendingHead + 1) % r.pendingTimers.length;
            r.pendingCount--;
            t.start[stripe] = now - Math.max(1, spanBytes == 0 ? span : span * t.bytes[stripe] / spanBytes);
            if (t.done(stripe, now)) {
                if (!t.invalid && t != timer) {
                    policy.feedback(t.rails, t.bytes, t.nanos, t.count);
                    for (int j = 0; j < t.count; j++) {
                        t.rails[j].stats.weight(t.rails[j].weight);
                    }
                }
                if (t != timer) {
                    releaseTimer(t);
                }
            }
        }
    }

    private void sendAck(Rail r) {
        Link link = r.link;
        long off = link.tryClaim(LinkControl.LENGTH);
        if (off < 0) {
            return; // next time: the rail is full, so acknowledgements are not urgent for it
        }
        LinkControl.writeAck(link.claimSegment(), off, table.rank(), r.index, expectedPsn, r.linkBytesReceived);
        link.commit();
        r.bytesAtLastAck = r.linkBytesReceived;
        r.psnAtLastAck = expectedPsn;
        r.lastAckNanos = now;
        r.lastSendNanos = now;
        r.ackRequested = false;
    }

    private void sendHeartbeat(Rail r) {
        Link link = r.link;
        long off = link.tryClaim(LinkControl.LENGTH);
        if (off < 0) {
            return;
        }
        LinkControl.writeHeartbeat(link.claimSegment(), off, table.rank(), r.index);
        link.commit();
        link.flush();
        r.lastSendNanos = now;
    }

    // ================================================================== time

    /**
     * Called about every millisecond on a multi-rail channel: acknowledgements due by time,
     * heartbeats, silent rails, reconnections, and the partition bound.
     */
    void tick(long t) {
        if (state != State.UP || !reliable) {
            return;
        }
        now = t;
        long timeout = settings.railTimeout().toNanos();
        for (int i = 0; i < railSlots && state == State.UP; i++) {
            Rail r = rail(i);
            if (r.up()) {
                if (now - r.lastReceiveNanos > timeout) {
                    railBroken(r, "nothing received for " + settings.railTimeout().toMillis() + " ms (railyard.rail.timeout)");
                    continue;
                }
                if ((r.linkBytesReceived > r.bytesAtLastAck || expectedPsn > r.psnAtLastAck)
                        && now - r.lastAckNanos >= settings.ackInterval().toNanos()) {
                    sendAck(r);
                    r.link.flush();
                }
                if (now - r.lastSendNanos >= settings.heartbeat().toNanos()) {
                    sendHeartbeat(r);
                }
            } else if (table.rank() < peer && now - r.nextAttemptNanos >= 0) {
                // the lower rank reconnects; the connector ignores the request while an attempt is under way
                r.backoffNanos = r.backoffNanos == 0 ? settings.reconnectMin().toNanos()
                        : Math.min(settings.reconnectMax().toNanos(), 2 * r.backoffNanos);
                r.nextAttemptNanos = now + r.backoffNanos;
                table.links().connectRail(peer, i);
            }
        }
        if (state == State.UP && partitionSince >= 0) {
            if (now - partitionSince > settings.partitionTimeout().toNanos()) {
                down("no rail to rank " + peer + " for " + settings.partitionTimeout().toMillis()
                        + " ms (the bound railyard.partition.timeout): every path to it is down; the last rail failed with: "
                        + lastRailFailure, false);
            } else if (now - nextProbe >= 0) {
                nextProbe = now + settings.reconnectMax().toNanos();
                table.links().probe(peer);
            }
        }
    }

    /** Called periodically: gives up on a connection that did not come in time. */
    void checkDeadline(long t) {
        if (state == State.CONNECTING && t - connectDeadline > 0) {
            down("no connection to rank " + peer + " within " + table.connectTimeoutNanos() / 1_000_000 + " ms", false);
        }
    }

    /** Copies the rails' counters into their time series. */
    void sample(long t) {
        for (int i = 0; i < railSlots; i++) {
            if (rails[i] != null) {
                rails[i].stats.sample(t);
            }
        }
    }

    // ================================================================== failure and goodbye

    private void linkBroken(Link link, String why) {
        if (state != State.UP) {
            return;
        }
        if (byeReceived) {
            down("rank " + peer + " has left the job (finalized)", true);
            return;
        }
        table.log("rank " + table.rank() + ": link to rank " + peer + " (" + link.transport().name() + ") closed: " + why);
        down("connection to rank " + peer + " lost: " + why, false);
    }

    private void down(String why, boolean orderly) {
        state = orderly ? State.CLOSED : State.DOWN;
        failure = why;
        long t = table.nanoTime();
        for (int i = 0; i < railSlots; i++) {
            Rail r = rails[i];
            if (r != null && r.link != null) {
                r.link.close();
                if (r.up()) {
                    r.state = Rail.State.DOWN;
                    r.stats.state(t, orderly ? "CLOSED" : "DOWN", why, null);
                }
            }
        }
        sample(t); // the rails' final counters: nothing samples a channel that is down
        liveCount = 0;
        table.links().lost(peer);
        envHead = envTail = bulkHead = bulkTail = awaitHead = awaitTail = null;
        bulkPlanned = false;
        resend.clear();
        if (reorder != null) {
            reorder.clear();
        }
        table.sink().onChannelDown(this, why, orderly);
    }

    /**
     * The engine found a frame from this peer it cannot accept (an unknown request id, a length
     * that contradicts its envelope): the connection is closed with the reason logged.
     */
    public void protocolError(String why) {
        if (state != State.UP) {
            return;
        }
        table.log("rank " + table.rank() + ": closing connection to rank " + peer + ": " + why);
        down("protocol error from rank " + peer + ": " + why, false);
    }

    /** Queues a goodbye after everything else; the peer then reads our end of stream as orderly. */
    void sendBye() {
        if (state != State.UP || byeSent) {
            return;
        }
        byeSent = true;
        sendEnvelope(new Bye(table.rank()));
    }

    void closeRails() {
        long t = table.nanoTime();
        for (int i = 0; i < railSlots; i++) {
            Rail r = rails[i];
            if (r != null && r.link != null) {
                r.link.close();
                if (r.up()) {
                    r.state = Rail.State.DOWN;
                    r.stats.state(t, "CLOSED", "closed by this process", null);
                }
            }
        }
        sample(t); // every rail's final counters, a rail that went down before included
        liveCount = 0;
        if (state == State.UP) {
            state = State.CLOSED;
        }
    }

    /** Envelopes (first) and bulk outbounds still queued, for the engine to fail on a down channel. */
    boolean contains(Outbound o) {
        for (Outbound x = envHead; x != null; x = x.nextOut) {
            if (x == o) {
                return true;
            }
        }
        for (Outbound x = bulkHead; x != null; x = x.nextOut) {
            if (x == o) {
                return true;
            }
        }
        return false;
    }

    private StripeTimer acquireTimer() {
        StripeTimer t = freeTimers;
        if (t == null) {
            t = new StripeTimer();
        } else {
            freeTimers = t.nextFree;
        }
        t.reset();
        return t;
    }

    private void releaseTimer(StripeTimer t) {
        t.nextFree = freeTimers;
        freeTimers = t;
    }

    @Override
    public String toString() {
        return "VirtualChannel[rank " + peer + ", " + state + (failure == null ? "" : ", " + failure) + ", rails "
                + liveCount + "/" + railSlots + "]";
    }

    private static final class Bye extends Outbound {
        private final int source;

        Bye(int source) {
            this.source = source;
        }

        @Override
        protected int nextFrameLength(int maxFrame) {
            return FrameHeader.LENGTH;
        }

        @Override
        protected boolean writeFrame(MemorySegment seg, long offset, int frameLength) {
            // acknowledged at once, so a peer that is closing learns early that nothing is left to resend
            FrameHeader.write(seg, offset, frameLength, FrameType.BYE, FrameHeader.FLAG_ACK_REQUEST, 0, source, 0, 0, 0, 0);
            return true;
        }

        @Override
        protected void onWritten() {
        }
    }
}
