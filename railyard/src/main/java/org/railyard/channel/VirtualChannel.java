package org.railyard.channel;

import java.lang.foreign.MemorySegment;
import org.railyard.transport.Capability;
import org.railyard.transport.Link;
import org.railyard.wire.FrameHeader;
import org.railyard.wire.FrameType;
import org.railyard.wire.Handshake;

/**
 * Everything that goes to and comes from one peer (seed 002, chapters 4 and 10), composed of three
 * parts that each own their state: {@link Sequencer} (packet sequence numbers, frames held back,
 * the completion filter), {@link RailScheduler} (rails, policy, windows, the stripes of the bulk
 * message under way) and {@link Failover} (acknowledgements, heartbeats, retransmission,
 * reconnection, partitions; multi-rail channels only). The channel keeps the lifecycle, the send
 * queues, and {@link #put}, the one routine that writes a frame's header and PSN on a rail.
 * Driven only by the progress agent (or a caller holding the progress lock).
 *
 * <p>Sending: envelopes (eager messages, RTS, CTS) go before bulk (rendezvous data), so a large
 * transfer never holds back the small messages behind it; envelopes keep their order of posting
 * (MPI's non-overtaking rule). Bulk data of at least the striping threshold may be striped, one
 * contiguous stripe per rail, each rail fed as it has room.
 *
 * <p>Receiving: frames go up in PSN order. With several rails, an envelope ahead of its turn is
 * held back, rendezvous data ahead of its turn goes up at once (it names its offset), and a
 * duplicate is dropped.
 *
 * <p>A channel whose peer can be reached by more than one rail, or whose one rail can be rerouted
 * ({@link Link#reroutes}: a site's second gateway), is <em>reliable</em>: it loses no
 * byte when rails fail and waits, bounded, for one to return ({@link Failover}); a striped message
 * completes on the sender only once the peer acknowledged all of it. A channel with a single
 * possible rail (shared memory, one path) keeps none of this: no acknowledgements, no copies, and
 * a broken link puts the channel down at once.
 */
public final class VirtualChannel implements Link.FrameHandler, Sequencer.Delivery {
    /** Lifecycle of a channel. */
    public enum State { IDLE, CONNECTING, UP, DOWN, CLOSED }

    /** Most rails a channel can have. */
    static final int MAX_RAILS = Handshake.MAX_RAILS;

    /** {@link #claim} when the retransmit buffer has no room for the frame. */
    private static final long FULL = -3;

    private final int peer;
    private final ChannelTable table;
    private final RailSettings settings;
    private final RailScheduler rails;
    private final Sequencer order;
    /** The failover machinery of a multi-rail channel; null on a single-rail one. */
    private Failover failover;
    private boolean reliable;
    private State state = State.IDLE;
    private final Dialing dialing;
    private String failure;
    private boolean byeSent;
    private boolean byeReceived;
    private long now;
    private boolean printedPolicy;
    private Rail polling;
    /** The header of the frame being written: filled by the outbound, written only by {@link #put}. */
    private final FrameFields header = new FrameFields();

    private final OutboundQueue envelopes = new OutboundQueue();
    private final OutboundQueue bulk = new OutboundQueue();

    VirtualChannel(ChannelTable table, int peer) {
        this.table = table;
        this.peer = peer;
        this.settings = table.settings();
        this.rails = new RailScheduler(peer, table.stats(), settings.railWindow());
        // a PSN this far ahead cannot be real: the peer's retransmit buffer holds at most this many frames
        this.order = new Sequencer(settings.retransmitBytes() / FrameHeader.LENGTH + 1);
        this.dialing = new Dialing(peer, table.connectTimeoutNanos());
    }

    /** The peer's world rank. */
    public int peer() {
        return peer;
    }

    public State state() {
        return state;
    }

    /** True once the channel is down or closed for good. */
    public boolean gone() {
        return state == State.DOWN || state == State.CLOSED;
    }

    /** Why the channel is down, or null. */
    public String failure() {
        return failure;
    }

    /** The scheduling policy, once the first rail is attached (null before). */
    public RailPolicy policy() {
        return rails.policy();
    }

    /** True if the channel has several possible rails and keeps acknowledgements and a retransmit buffer. */
    public boolean reliable() {
        return reliable;
    }

    /** True while every rail is down and the channel waits for one to return. */
    public boolean partitioned() {
        return failover != null && failover.partitioned();
    }

    /**
     * True if the peer is a process of this node reached by shared memory alone: the channel is up
     * on a single rail, a same-node transport (shm). The engine lets such a peer read large native
     * payloads itself; over any other rail (tcp between ranks of one node, say) it does not, so a
     * transport chosen for a run is the one that carries its data.
     */
    public boolean sharesMemory() {
        return state == State.UP && rails.liveCount == 1 && !reliable
                && rails.live[0].link().transport().capabilities().contains(Capability.SAME_NODE);
    }

    /** The rails that were ever attached, by index, for observation. */
    public Rail[] rails() {
        return rails.attached();
    }

    /** True if nothing waits to be sent, and on a multi-rail channel everything sent has been acknowledged. */
    public boolean idle() {
        if (!envelopes.isEmpty() || !bulk.isEmpty() || order.awaiting()) {
            return false;
        }
        for (int i = 0; i < rails.liveCount; i++) {
            if (rails.live[i].link.hasPendingOutput()) {
                return false;
            }
        }
        return !reliable || failover.drained() || byeReceived;
    }

    /** Its packet numbering (a checkpoint records it, see {@link ChannelTable#sequenceState}). */
    Sequencer sequencer() {
        return order;
    }

    /** True once the peer said it leaves the job. */
    public boolean peerLeft() {
        return byeReceived;
    }

    // ================================================================== queueing

    /** Queues an envelope (eager message, RTS, CTS); starts connecting if needed. */
    public void sendEnvelope(Outbound o) {
        envelopes.add(o);
        wake();
    }

    /** Queues rendezvous data. */
    public void sendBulk(Outbound o) {
        bulk.add(o);
        wake();
    }

    /** A receive or a wait depends on this peer: see {@link Dialing} for when this side then connects. */
    public void wanted() {
        if (state == State.IDLE) {
            dialing.wanted(table.nanoTime());
        }
    }

    /** A wait that depends on this peer began ({@code on}) or ended: see {@link Dialing#awaited}. Lock held. */
    public void awaited(boolean on) {
        dialing.awaited(on, table.nanoTime());
    }

    /** Asks for a connection if there is none yet. */
    public void wake() {
        if (state == State.IDLE) {
            state = State.CONNECTING;
            dialing.asked(table.nanoTime());
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
        if (rails.slots() == 0) {
            int n = Math.min(slots, MAX_RAILS);
            rails.open(n, RailPolicies.create(settings.policy(), table.rank(), peer));
            reliable = n > 1 || link.reroutes();
            if (reliable) {
                failover = new Failover(this, table, rails, order, now);
                order.expectReordering();
                table.reliableChannelAdded();
            }
        }
        if (index >= rails.slots()) {
            table.log("rank " + table.rank() + ": rank " + peer + " linked rail " + index + " of " + slots
                    + ", but this side counts " + rails.slots() + " rails to it (railyard.rails or railyard.rail.nets differ?); link dropped");
            link.close();
            return;
        }
        Rail r = rails.rail(index);
        if (r.up()) {
            railBroken(r, "replaced by a new connection from rank " + peer);
            if (state != State.UP) {
                link.close();
                return;
            }
        }
        r.attached(link, epoch, now, order.expected());
        rails.up(r);
        r.stats.weight(r.weight);
        r.stats.state(now, "UP", null, link.describe());
        boolean wasPartitioned = failover != null && failover.railBack();
        if (state == State.IDLE || state == State.CONNECTING) {
            state = State.UP;
        }
        if (!printedPolicy) {
            printedPolicy = true;
            table.printChoice("rank " + table.rank() + " -> rank " + peer + ": "
                    + settings.describe(rails.slots(), rails.policy().name(), reliable));
        }
        table.printChoice("rank " + table.rank() + " -> rank " + peer + ": rail " + index + " up: transport "
                + link.transport().name() + " (" + link.describe() + ")");
        if (wasPartitioned) {
            table.log("rank " + table.rank() + ": rail " + index + " to rank " + peer + " is back; sending "
                    + failover.resendCount() + " unacknowledged frames again");
        }
    }

    /** A connection attempt for rail {@code index} failed. */
    void connectFailed(int index, int slots, String why, boolean refused) {
        if (state == State.IDLE || state == State.CONNECTING) {
            // no rail ever came: the channel fails once every rail's first attempt did
            if (dialing.allFailed(slots)) {
                down(why, false);
            }
            return;
        }
        if (state != State.UP || index < 0 || index >= rails.slots()) {
            return;
        }
        rails.rail(index).lastFailure = why;
        peerGone(refused, why);
    }

    /** The answer to a probe during a partition. */
    void probed(String what, boolean refused) {
        peerGone(refused, what);
    }

    private void peerGone(boolean refused, String why) {
        if (refused && rails.liveCount == 0 && state == State.UP) {
            down("rank " + peer + " is gone: every rail is down and its handshake port refuses connections (" + why + ")", false);
        }
    }

    /**
     * A rail's link failed (socket error, end of stream, silence). On a single-rail channel the
     * channel goes down; on a multi-rail channel the rail's unacknowledged frames go again on the
     * others, and the rail is reconnected ({@link Failover#railDown}).
     */
    void railBroken(Rail r, String why) {
        if (!r.up()) {
            return;
        }
        if (!reliable) {
            linkBroken(r.link, why);
            return;
        }
        r.link.close();
        r.state = Rail.State.DOWN;
        rails.down(r);
        r.stats.state(now, "DOWN", why, null);
        if (byeReceived) {
            down("rank " + peer + " has left the job (finalized)", true);
            return;
        }
        failover.railDown(r, why, now);
    }

    // ================================================================== sending

    /**
     * Sends a message at once if nothing is queued ahead of it and a rail has room now: its first
     * frame is written, stamped, committed and flushed during this call (the latency path: a small
     * message costs no queueing and no request). Further frames, if any, are queued behind it.
     * Returns false, having written nothing, when the message must be queued with
     * {@link #sendEnvelope} instead (order first).
     */
    public boolean sendNow(Outbound o) {
        if (state != State.UP || !envelopes.isEmpty() || rails.liveCount == 0) {
            return false;
        }
        int payload = o.nextFrame(header, Integer.MAX_VALUE);
        int len = FrameHeader.LENGTH + payload;
        if (reliable && !failover.clearFor(len)) {
            return false;
        }
        Rail r = railFor(o, payload);
        if (len > r.link.maxFrame()) {
            return false;
        }
        long off = r.link.tryClaim(len);
        if (off < 0) {
            return false;
        }
        if (reliable) {
            now = table.nanoTime();
        }
        if (put(r, o, off, payload, -1, (byte) 0)) {
            written(o);
        } else {
            envelopes.add(o);
        }
        r.link.flush();
        return true;
    }

    /**
     * The one routine that puts a frame on a rail, for every path: at {@code off}, which the caller
     * claimed on {@code r}, writes the header from {@link #header} (with {@code arg} the message
     * offset of a DATA frame, or -1 to keep the described one), then the payload from {@code o},
     * stamps the packet sequence number (and keeps the retransmit copy), and commits. Returns true
     * if that was the outbound's last frame.
     */
    private boolean put(Rail r, Outbound o, long off, int payload, long messageOffset, byte extraFlags) {
        Link link = r.link;
        MemorySegment seg = link.claimSegment();
        FrameFields h = header;
        int len = FrameHeader.LENGTH + payload;
        FrameHeader.write(seg, off, len, h.type, (byte) (h.flags | extraFlags), h.context, h.source, h.tag,
                h.messageLength, h.cookie, messageOffset < 0 ? h.arg : messageOffset);
        boolean last;
        if (messageOffset < 0) {
            last = o.writePayload(seg, off + FrameHeader.LENGTH, payload);
        } else {
            o.writeBulk(seg, off + FrameHeader.LENGTH, payload, messageOffset);
            last = false;
        }
        r.stats.sent(len);
        if (FrameType.sequenced(h.type)) {
            long psn = order.stamp();
            FrameHeader.psn(seg, off, psn);
            if (reliable) {
                failover.sent(psn, r, seg, off, len, now);
            }
        } // else outside the sequence (a VALUE frame): never reordered, never sent again
        link.commit();
        return last;
    }

    /** The outbound's last frame is handed off. */
    private void written(Outbound o) {
        o.lastPsn = order.nextPsn() - 1;
        o.onWritten();
    }

    /** The rail for the frame {@link #header} describes: a value of an iterative scheme stays on the first. */
    private Rail railFor(Outbound o, int payload) {
        // a VALUE keeps its flow's order without a sequence number by never changing rails
        return FrameType.sequenced(header.type) ? rails.pick(payload, o.pattern(), false) : rails.live[0];
    }

    /** Writes queued frames while the rails take them; returns the number of frames written. */
    public int progressSend() {
        if (state != State.UP || rails.liveCount == 0) {
            return 0;
        }
        if (reliable) {
            now = table.nanoTime();
        }
        int work = 0;
        if (reliable && failover.resending()) {
            work += failover.sendAgain(now);
        }
        while (state == State.UP && rails.liveCount > 0) {
            if (!envelopes.isEmpty()) {
                Outbound o = envelopes.head();
                if (!sendSequential(railFor(o, o.nextFrame(header, Integer.MAX_VALUE)), o, envelopes)) {
                    break;
                }
            } else if (!bulk.isEmpty()) {
                if (!sendBulkFrame()) {
                    break;
                }
            } else {
                break;
            }
            work++;
        }
        for (int i = 0; i < rails.liveCount; i++) {
            if (rails.live[i].link.flush() > 0) {
                work++;
            }
        }
        return work;
    }

    /** The next frame of {@code o}, the head of {@code queue}, on {@code r}; false if the rail cannot take it now. */
    private boolean sendSequential(Rail r, Outbound o, OutboundQueue queue) {
        int payload = o.nextFrame(header, r.link.maxFrame() - FrameHeader.LENGTH);
        long off = claim(r, FrameHeader.LENGTH + payload);
        if (off < 0) {
            return false;
        }
        if (put(r, o, off, payload, -1, (byte) 0)) {
            queue.pop();
            written(o);
        }
        return true;
    }

    /**
     * Reserves {@code len} bytes for a sequenced frame on {@code r}: the offset, or
     * {@link Link#BACK_PRESSURED}, or {@link #FULL}, or {@link Link#CLOSED} (the rail has just been
     * declared broken).
     */
    private long claim(Rail r, int len) {
        if (reliable && !failover.hasRoom(len)) {
            return FULL;
        }
        long off = r.link.tryClaim(len);
        if (off == Link.CLOSED) {
            railBroken(r, r.whyBroken());
        }
        return off;
    }

    /** Plans the head bulk message if needed and hands one of its frames to a rail that has room. */
    private boolean sendBulkFrame() {
        Outbound o = bulk.head();
        if (!rails.planned()) {
            long n = o.bulkBytes();
            if (n < 0) {
                return sendSequential(rails.pick(Long.MAX_VALUE, o.pattern(), true), o, bulk);
            }
            rails.plan(o, n, reliable && n >= settings.stripeThreshold(), now);
            if (n == 0) {
                finishBulk(o);
                return true;
            }
        }
        for (int k = 0; k < rails.ranges(); k++) {
            int i = rails.range(k);
            if (i < 0) {
                continue;
            }
            Rail r = rails.railOf(i);
            if (r == null) {
                return false;
            }
            if (reliable && r.inFlight() >= rails.window(r)) {
                continue;
            }
            long payload = rails.payload(i, r.link.maxFrame());
            long off = claim(r, (int) (FrameHeader.LENGTH + payload));
            if (off == FULL) {
                return false;
            }
            if (off == Link.CLOSED) {
                return true; // a rail fewer: let the loop look again
            }
            if (off < 0) {
                continue;
            }
            o.bulkHeader(header);
            rails.handingOff(i, now);
            put(r, o, off, (int) payload, rails.next(i), rails.endsStripe(i, payload) ? FrameHeader.FLAG_ACK_REQUEST : 0);
            if (rails.handedOff(i, r, payload)) {
                finishBulk(o);
            }
            return true;
        }
        return false;
    }

    private void finishBulk(Outbound o) {
        boolean striped = rails.striped();
        rails.finishPlan();
        bulk.pop();
        o.lastPsn = order.nextPsn() - 1;
        if (striped) {
            // the completion filter: a striped message is done when the peer has all of it
            order.completeWhenAcknowledged(o);
        } else {
            o.onWritten();
        }
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
        rails.pollBegins();
        for (int i = 0; i < rails.slots() && state == State.UP; i++) {
            Rail r = rails.existing(i);
            if (r == null || !r.up() || reliable && rails.skipsQuiet(r, now)) {
                continue;
            }
            polling = r;
            n += r.link.poll(this, 64);
            if (state != State.UP || !r.up()) {
                continue;
            }
            if (!r.link.isOpen()) {
                railBroken(r, r.whyBroken());
            } else if (reliable) {
                failover.ackIfDue(r, now);
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
            if (!order.inTurn(psn)) {
                link.close();
                linkBroken(link, "frame out of sequence from rank " + peer + ": packet " + psn + ", expected " + order.expected());
                return false;
            }
            r.stats.received(length);
            order.deliverInTurn(seg, offset, length, type, this);
            return state == State.UP;
        }
        r.lastReceiveNanos = now;
        if (type == FrameType.ACK) {
            failover.onAck(r, seg, offset, now);
            return state == State.UP;
        }
        if (type == FrameType.HEARTBEAT) {
            return true;
        }
        r.stats.received(length);
        failover.received(r, seg, offset, length);
        long psn = FrameHeader.psn(seg, offset);
        if (order.inTurn(psn)) {
            order.deliverInTurn(seg, offset, length, type, this);
            return state == State.UP;
        }
        switch (order.early(psn, type, seg, offset, length)) {
            case Sequencer.HELD -> r.stats.reordered();
            case Sequencer.DELIVER_EARLY -> table.sink().onFrame(this, seg, offset, length);
            case Sequencer.DUPLICATE -> r.stats.duplicate();
            default -> {
                protocolError("packet " + psn + " is beyond anything the peer can have in flight (next expected "
                        + order.expected() + ")");
                return false;
            }
        }
        return state == State.UP;
    }

    @Override
    public boolean deliverInOrder(MemorySegment seg, long offset, int length, byte type) {
        if (type == FrameType.BYE) {
            byeReceived = true;
        } else {
            table.sink().onFrame(this, seg, offset, length);
        }
        return state == State.UP;
    }

    // ================================================================== time

    /**
     * Called about every millisecond on a multi-rail channel: acknowledgements due by time,
     * heartbeats, silent rails, reconnections, and the partition bound ({@link Failover#tick}).
     */
    void tick(long t) {
        if (state != State.UP || !reliable) {
            return;
        }
        now = t;
        failover.tick(t);
    }

    /** Called periodically: asks for a connection long wanted; gives up on one that did not come in time ({@link Dialing}). */
    void checkDeadline(long t) {
        if (state == State.IDLE && dialing.askNow(t)) {
            wake();
        }
        String late = state == State.CONNECTING ? dialing.late(t) : null;
        if (late != null) {
            down(late, false);
        }
    }

    /** Copies the rails' counters into their time series. */
    void sample(long t) {
        rails.sample(t);
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

    /** The channel fails for good (a partition outlived its bound). */
    void fail(String why) {
        down(why, false);
    }

    private void down(String why, boolean orderly) {
        state = orderly ? State.CLOSED : State.DOWN;
        failure = why;
        long t = table.nanoTime();
        rails.closeAll(t, orderly ? "CLOSED" : "DOWN", why);
        rails.sample(t); // the rails' final counters: nothing samples a channel that is down
        table.links().lost(peer);
        envelopes.clear();
        bulk.clear();
        rails.dropPlan();
        if (failover != null) {
            failover.clear();
        }
        order.clear();
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
        sendEnvelope(new ByeOutbound(table.rank()));
    }

    /** Closes every rail (this process leaves). */
    void closeRails() {
        long t = table.nanoTime();
        rails.closeAll(t, "CLOSED", "closed by this process");
        rails.sample(t); // every rail's final counters, a rail that went down before included
        if (state == State.UP) {
            state = State.CLOSED;
        }
    }

    @Override
    public String toString() {
        return "VirtualChannel[rank " + peer + ", " + state + (failure == null ? "" : ", " + failure) + ", rails "
                + rails.liveCount + "/" + rails.slots() + "]";
    }
}
