package org.railyard.stack;

import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Consumer;
import org.railyard.transport.DatagramLink;
import org.railyard.transport.Link;
import org.railyard.transport.Transport;
import org.railyard.util.Config;
import org.railyard.wire.ControlMessage;
import org.railyard.wire.FrameHeader;
import org.railyard.wire.FrameType;
import org.railyard.wire.SegmentHeader;

/**
 * The micro-protocol stack of one connection over a datagram link: a {@link Link} decorator, so the
 * channel above sees what it sees over tcp (whole frames, its sequenced frames reliable and in
 * order) and the transport below sees datagrams.
 *
 * <pre>
 *               channel: claim / commit frames            poll: frames up
 *   +----------------------------------+----------------------------------+
 *   | port 0, the channel's frames     | port 1, VALUE frames             |
 *   |  sender session | receiver sess. |  sender session | receiver sess. |   composed by Composer
 *   +----------------------------------+----------------------------------+
 *   |            TransportDrive.Mux (port, kind, epoch, token)            |
 *   |            [fault injection, tests only]                            |
 *   |            link port: datagrams to and from the DatagramLink        |
 *   +---------------------------------------------------------------------+
 *              control line (the handshake socket): SWITCH / SWITCHED
 * </pre>
 *
 * <p><b>Frames down.</b> {@link #tryClaim} hands out the stack's claim buffer when the flow the
 * frame may take has room; {@link #commit} sends it down the sender session of its port: VALUE
 * frames on port 1, every other frame on port 0. <b>Frames up.</b> {@link #poll} reads datagrams,
 * runs them up their sessions, and hands the frames that come out at the top to the channel in
 * the order they came out; the sessions' timers run on every poll and {@link #flush}.
 *
 * <p><b>Reconfiguration</b> (P2PSAP's control channel), per direction of the value flow. A VALUE
 * frame carries the scheme it was sent under. When one arrives for a scheme other than the one its
 * sender session is composed for, the stack <em>quiesces</em>: that frame and every later value
 * frame wait in a held queue (an asynchronous value replaces a held value of its own flow, so the
 * queue stays bounded), while the old session drains (a reliable one until everything it sent is
 * acknowledged, an unreliable one until its queues are empty). Then it sends SWITCH(epoch + 1,
 * scheme) on the control line. The peer closes its receiver session of the old epoch (everything
 * of it was delivered: the sender waited for the acknowledgements), opens one of the new
 * composition, and answers SWITCHED. Only then does the sender <em>switch</em> (a new sender
 * session, the new epoch on every segment) and <em>resume</em>: first each flow's newest value of
 * an asynchronous old session again (the old session may have lost it; the receiver drops it if
 * it already has it), then the held frames, in order. A late datagram of the old epoch is dropped
 * by TransportDrive. So across a switch nothing is reordered or duplicated, and no frame the old
 * composition promised to deliver is lost.
 *
 * <p>Driven by one thread at a time, like every link.
 */
public final class Stack implements Link {
    /** Held value frames (during a reconfiguration) beyond which the stack refuses more. */
    private static final int HELD_LIMIT = 256;
    /** Datagrams read per poll before the received frames are handed up. */
    private static final int READ_BUDGET = 64;
    /**
     * Least time between two rounds of timers: they work in milliseconds, and a waiting caller polls
     * every few microseconds (its CPU time is another rank's on a busy machine).
     */
    private static final long TICK_NANOS = 20_000;
    /** Least time between two reads of the control line when no reconfiguration is under way. */
    private static final long CONTROL_NANOS = 1_000_000;

    private enum Switch { IDLE, DRAINING, AWAITING, RESUMING }

    private final DatagramLink link;
    private final Locality locality;
    private final StackSettings settings;
    private final Clock clock;
    private final Consumer<String> choices;
    private final SegmentPool pool;
    private final TransportDrive.Mux mux;
    private final MicroProtocol injected;
    private final LinkPort linkPort;
    private final Session[] senders = new Session[SegmentHeader.PORTS];
    private final Session[] receivers = new Session[SegmentHeader.PORTS];
    private final Segment claim;
    private int claimLength;
    private final SegmentQueue ready = new SegmentQueue();
    private final MemorySegment control = MemorySegment.ofArray(new long[1]);

    private Switch state = Switch.IDLE;
    private Scheme target;
    private long switchDeadline;
    private final SegmentQueue held = new SegmentQueue();
    private final long switchTimeout;
    private final long lingerNanos;
    private boolean open = true;
    private String failure;
    private long lastTick;
    private long lastControl;
    private final FrameHandler controlHandler = (l, seg, off, len) -> {
        onControl(seg, off);
        return true;
    };
    /** Reconfigurations completed by this end's value sender, and by its value receiver. */
    private int switchesOut, switchesIn;

    /**
     * A stack over {@code link}: port 0 composed for the synchronous scheme, port 1 for
     * {@code valueScheme}, both for {@code locality}.
     *
     * @param injected a layer put between TransportDrive and the link (fault injection), or null
     * @param choices where to tell compositions and reconfigurations, or null
     */
    public Stack(DatagramLink link, Locality locality, Scheme valueScheme, StackSettings settings, Clock clock,
                 MicroProtocol injected, Consumer<String> choices) {
        this.link = link;
        this.locality = locality;
        this.settings = settings;
        this.clock = clock;
        this.choices = choices;
        this.pool = new SegmentPool(link.maxFrame(), link.frameLimit());
        this.switchTimeout = Config.duration(Config.STACK_SWITCH_TIMEOUT_PROP, Config.STACK_SWITCH_TIMEOUT_DEFAULT).toNanos();
        this.lingerNanos = Config.duration(Config.STACK_LINGER_PROP, Config.STACK_LINGER_DEFAULT).toNanos();
        this.mux = new TransportDrive.Mux(link.token(), this::session);
        this.injected = injected;
        this.linkPort = new LinkPort();
        MicroProtocol lowest = mux;
        if (injected != null) {
            mux.below = injected;
            injected.above = mux;
            lowest = injected;
        }
        lowest.below = linkPort;
        linkPort.above = lowest;
        if (injected != null) {
            injected.init();
        }
        this.claim = Segment.borrowed(MemorySegment.ofArray(new long[(SegmentHeader.LENGTH + link.frameLimit() + 7) / 8]));
        for (int port = 0; port < SegmentHeader.PORTS; port++) {
            Scheme s = port == SegmentHeader.PORT_FRAMES ? Scheme.SYNC : valueScheme;
            senders[port] = session(Session.Role.SENDER, port, 0, s);
            receivers[port] = session(Session.Role.RECEIVER, port, 0, s);
        }
    }

    private Session session(Session.Role role, int port, int epoch, Scheme scheme) {
        Context c = new Context(scheme, locality, false);
        return new Session(role, port, epoch, Composer.instantiate(c), clock, pool, settings, mux, link.peerToken(),
                this::deliver);
    }

    private Session session(int port, Session.Role role) {
        return role == Session.Role.SENDER ? senders[port] : receivers[port];
    }

    /** The session of {@code port} playing {@code role}; for tests and diagnostics. */
    public Session sessionOf(int port, Session.Role role) {
        return session(port, role);
    }

    /** The buffers of this stack; for tests (no leak). */
    public SegmentPool pool() {
        return pool;
    }

    /** The scheme this end's value flow is composed for now. */
    public Scheme valueScheme() {
        return schemeOf(senders[SegmentHeader.PORT_VALUES]);
    }

    /** Reconfigurations completed: [0] as sender of the value flow, [1] as its receiver. */
    public int[] switches() {
        return new int[] {switchesOut, switchesIn};
    }

    private static Scheme schemeOf(Session s) {
        return s.find(Asynchronous.class) != null ? Scheme.ASYNC : Scheme.SYNC;
    }

    // ------------------------------------------------------------------------------ Link: sending

    @Override public Transport transport() { return link.transport(); }
    @Override public int peer() { return link.peer(); }
    @Override public int maxFrame() { return link.frameLimit(); }

    /**
     * Room for a frame of {@code frameLength} bytes on whichever flow it will take (the type is not
     * written yet, so both must have room), else {@link #BACK_PRESSURED}.
     */
    @Override
    public long tryClaim(int frameLength) {
        if (!open || !link.isOpen()) {
            return CLOSED;
        }
        if (frameLength > link.frameLimit()) {
            throw new IllegalArgumentException("frame of " + frameLength + " bytes exceeds the stack's limit of "
                    + link.frameLimit());
        }
        if (!senders[SegmentHeader.PORT_FRAMES].writable(frameLength) || !valuesWritable(frameLength)) {
            return BACK_PRESSURED;
        }
        claimLength = frameLength;
        return SegmentHeader.LENGTH;
    }

    private boolean valuesWritable(int frameLength) {
        return state == Switch.IDLE ? senders[SegmentHeader.PORT_VALUES].writable(frameLength) : held.size() < HELD_LIMIT;
    }

    @Override
    public MemorySegment claimSegment() {
        return claim.mem;
    }

    @Override
    public void commit() {
        claim.length = SegmentHeader.LENGTH + claimLength;
        if (FrameHeader.type(claim.mem, SegmentHeader.LENGTH) != FrameType.VALUE) {
            senders[SegmentHeader.PORT_FRAMES].send(claim);
            return;
        }
        Scheme s = schemeOfValue(claim);
        if (state != Switch.IDLE) {
            hold(claim);
        } else if (s != valueScheme()) {
            hold(claim);
            beginSwitch(s);
        } else {
            senders[SegmentHeader.PORT_VALUES].send(claim);
        }
    }

    private static Scheme schemeOfValue(Segment frame) {
        return (FrameHeader.flags(frame.mem, SegmentHeader.LENGTH) & FrameHeader.FLAG_VALUE_ASYNC) != 0
                ? Scheme.ASYNC : Scheme.SYNC;
    }

    /** Keeps a copy of a value frame while the flow is being reconfigured; an async value supersedes its flow's. */
    private void hold(Segment frame) {
        if (schemeOfValue(frame) == Scheme.ASYNC) {
            for (Segment h = held.peek(); h != null; h = h.next) {
                if (h.stamp == 0 && schemeOfValue(h) == Scheme.ASYNC && sameFlow(h, frame)) {
                    MemorySegment.copy(frame.mem, 0, h.mem, 0, frame.length);
                    h.length = frame.length;
                    senders[SegmentHeader.PORT_VALUES].superseded++;
                    return;
                }
            }
        }
        held.add(copy(frame));
    }

    private Segment copy(Segment frame) {
        Segment c = pool.frameSegment();
        MemorySegment.copy(frame.mem, 0, c.mem, 0, frame.length);
        c.length = frame.length;
        return c;
    }

    private static boolean sameFlow(Segment a, Segment b) {
        long o = SegmentHeader.LENGTH;
        return FrameHeader.context(a.mem, o) == FrameHeader.context(b.mem, o) && FrameHeader.tag(a.mem, o) == FrameHeader.tag(b.mem, o);
    }

    private void beginSwitch(Scheme to) {
        state = Switch.DRAINING;
        target = to;
        switchDeadline = clock.nanos() + switchTimeout;
        tell("value flow to rank " + link.peer() + ": reconfiguring from " + valueScheme().label() + " to "
                + to.label() + " (quiesce: draining epoch " + senders[SegmentHeader.PORT_VALUES].epoch() + ")");
    }

    /** Moves a reconfiguration of this end's value sender along; called on every poll and flush. */
    private void progressSwitch() {
        switch (state) {
            case DRAINING -> {
                Session old = senders[SegmentHeader.PORT_VALUES];
                if (old.drained()) {
                    int epoch = (old.epoch() + 1) & 0xff;
                    ControlMessage.write(control, 0, ControlMessage.SWITCH, SegmentHeader.PORT_VALUES, epoch,
                            target == Scheme.ASYNC ? ControlMessage.SCHEME_ASYNC : ControlMessage.SCHEME_SYNC);
                    if (link.sendControl(control, 0, ControlMessage.LENGTH)) {
                        state = Switch.AWAITING;
                    }
                }
            }
            case RESUMING -> {
                Session s = senders[SegmentHeader.PORT_VALUES];
                for (Segment h = held.peek(); h != null; h = held.peek()) {
                    // a replayed value (stamp 1) goes under the new composition whatever it was sent under
                    Scheme hs = schemeOfValue(h);
                    if (h.stamp == 0 && hs != valueScheme()) {
                        beginSwitch(hs);
                        return;
                    }
                    if (!s.writable(h.payloadLength())) {
                        return;
                    }
                    s.send(held.poll());
                }
                state = Switch.IDLE;
            }
            default -> { }
        }
        if (state != Switch.IDLE && state != Switch.RESUMING && clock.nanos() - switchDeadline > 0) {
            fail("reconfiguration of the value flow to rank " + link.peer() + " did not complete within "
                    + switchTimeout / 1_000_000 + " ms (state " + state + ")");
        }
    }

    private void onControl(MemorySegment seg, long off) {
        String bad = ControlMessage.validate(seg, off);
        if (bad != null) {
            fail("control line from rank " + link.peer() + ": " + bad);
            return;
        }
        int port = ControlMessage.port(seg, off);
        int epoch = ControlMessage.epoch(seg, off);
        Scheme scheme = ControlMessage.scheme(seg, off) == ControlMessage.SCHEME_ASYNC ? Scheme.ASYNC : Scheme.SYNC;
        if (ControlMessage.type(seg, off) == ControlMessage.SWITCH) {
            // everything of the old epoch is delivered or dropped by now: the sender drained first
            receivers[port].close();
            receivers[port] = session(Session.Role.RECEIVER, port, epoch, scheme);
            switchesIn++;
            ControlMessage.write(control, 0, ControlMessage.SWITCHED, port, epoch, ControlMessage.scheme(seg, off));
            if (!link.sendControl(control, 0, ControlMessage.LENGTH)) {
                fail("control line to rank " + link.peer() + " refused SWITCHED");
                return;
            }
            tell("value flow from rank " + link.peer() + ": switched to " + scheme.label() + " (epoch " + epoch + "): "
                    + receivers[port].composition());
            return;
        }
        Session old = senders[port];
        if (state != Switch.AWAITING || port != SegmentHeader.PORT_VALUES || epoch != ((old.epoch() + 1) & 0xff)) {
            fail("unexpected SWITCHED for port " + port + " epoch " + epoch + " from rank " + link.peer());
            return;
        }
        Session next = session(Session.Role.SENDER, port, epoch, target);
        List<Segment> replay = new ArrayList<>();
        Asynchronous async = old.find(Asynchronous.class);
        if (async != null) {
            async.forEachLatest(f -> replay.add(copy(f)));
        }
        old.close();
        senders[port] = next;
        switchesOut++;
        tell("value flow to rank " + link.peer() + ": switched to " + target.label() + " (epoch " + epoch + "): "
                + next.composition() + (replay.isEmpty() ? "" : "; replaying the newest of " + replay.size() + " flow(s)"));
        for (Segment r : replay) {
            // a replayed value must not be refused: it goes first, before anything held
            r.stamp = 1;
            held.addFirst(r);
        }
        state = Switch.RESUMING;
        progressSwitch();
    }

    // ------------------------------------------------------------------------------ Link: receiving

    private void deliver(Session from, Segment frame) {
        ready.add(frame);
    }

    @Override
    public int poll(FrameHandler handler, int limit) {
        if (!open) {
            return 0;
        }
        tick();
        int n = deliverReady(handler, limit);
        if (n < limit && ready.isEmpty() && link.isOpen()) {
            if (linkPort.read(READ_BUDGET) > 0) {
                for (int p = 0; p < SegmentHeader.PORTS; p++) {
                    receivers[p].batchEnd();
                    senders[p].batchEnd();
                }
            }
            n += deliverReady(handler, limit - n);
        }
        long now = clock.nanos();
        if (ready.isEmpty() && link.isOpen() && (state != Switch.IDLE || now - lastControl >= CONTROL_NANOS)) {
            // control after data, so a peer's last frames come up before its end of stream is seen;
            // a SWITCH from the peer waits for this at most CONTROL_NANOS
            lastControl = now;
            link.pollControl(controlHandler);
        }
        progressSwitch();
        link.flush();
        if (!link.isOpen() && ready.isEmpty()) {
            fail(link.failure() == null ? "link closed" : link.failure());
        }
        return n;
    }

    private int deliverReady(FrameHandler handler, int limit) {
        int n = 0;
        while (!ready.isEmpty() && n < limit && open) {
            Segment f = ready.poll();
            n++;
            boolean more;
            try {
                more = handler.onFrame(this, f.mem, SegmentHeader.LENGTH, f.payloadLength());
            } finally {
                f.release();
            }
            if (!more) {
                break;
            }
        }
        return n;
    }

    private void tick() {
        long now = clock.nanos();
        if (now - lastTick < TICK_NANOS) {
            return;
        }
        lastTick = now;
        for (int p = 0; p < SegmentHeader.PORTS; p++) {
            senders[p].tick(now);
            receivers[p].tick(now);
        }
        if (injected != null) {
            injected.onTick(now);
        }
    }

    @Override
    public int flush() {
        if (!open) {
            return 0;
        }
        tick();
        progressSwitch();
        return link.flush();
    }

    // ------------------------------------------------------------------------------ state

    @Override
    public boolean isOpen() {
        return open;
    }

    @Override
    public String failure() {
        return failure;
    }

    private void fail(String why) {
        if (open) {
            failure = why;
            closeNow();
        }
    }

    /** True when every sender session has nothing left to deliver (all acknowledged, queues empty). */
    public boolean drained() {
        for (Session s : senders) {
            if (!s.drained()) {
                return false;
            }
        }
        return state == Switch.IDLE;
    }

    /**
     * Closes the stack: first lingers, at most {@code railyard.stack.linger}, while what was sent is
     * still unacknowledged (the peer's last frames, its goodbye among them, must not be lost with
     * the connection); frames that arrive meanwhile are acknowledged and dropped. Then closes the
     * link. Idempotent.
     */
    @Override
    public void close() {
        if (!open) {
            return;
        }
        long deadline = clock.nanos() + lingerNanos;
        FrameHandler discard = (l, s, o, n) -> true;
        while (link.isOpen() && !drained() && clock.nanos() - deadline < 0) {
            poll(discard, Integer.MAX_VALUE);
            flush();
            if (!drained()) {
                LockSupport.parkNanos(20_000);
            }
        }
        closeNow();
    }

    private void closeNow() {
        open = false;
        for (int p = 0; p < SegmentHeader.PORTS; p++) {
            senders[p].close();
            receivers[p].close();
        }
        ready.clear();
        held.clear();
        if (injected != null) {
            injected.onClose();
        }
        link.close();
    }

    /** One line: the transport, the locality and each flow's composition. */
    public String describeComposition() {
        return "stack over " + link.transport().name() + " (" + locality.label() + "): frames ["
                + schemeOf(senders[0]).label() + "] " + senders[0].composition() + "; values ["
                + valueScheme().label() + "] " + senders[1].composition();
    }

    @Override
    public String describe() {
        return link.describe() + "; " + describeComposition();
    }

    /** {@link #describe()} and, one line each, every session's protocols with their state and counters. */
    public String report() {
        StringBuilder sb = new StringBuilder(describe());
        for (int p = 0; p < SegmentHeader.PORTS; p++) {
            sb.append("\n      ").append(senders[p].describe());
            sb.append("\n      ").append(receivers[p].describe());
        }
        if (mux.refused > 0) {
            sb.append(String.format(Locale.ROOT, "%n      refused %d datagrams (last: %s)", mux.refused, mux.lastRefusal));
        }
        return sb.toString();
    }

    private void tell(String s) {
        if (choices != null) {
            choices.accept(s);
        }
    }

    /**
     * The bottom of the lower chain: writes each segment as one datagram, and reads datagrams into
     * pooled segments that go up to the multiplexer (through any injected layer).
     */
    private final class LinkPort extends MicroProtocol {
        /** Datagrams the link had no room for (counted as lost; the flows recover as from any loss). */
        long refused;
        @Override
        protected void down(Segment s) {
            if (!link.send(s.buffer(s.length))) {
                refused++;
            }
            s.release();
        }

        @Override
        protected boolean writable(int frameBytes) {
            return true;
        }

        /** Reads up to {@code budget} datagrams, each straight into a pooled segment, and sends them up. */
        int read(int budget) {
            int n = 0;
            while (n < budget) {
                Segment s = pool.datagramSegment();
                int len = link.receive(s.buffer(pool.datagram()));
                if (len <= 0) {
                    s.release();
                    break;
                }
                s.length = len;
                n++;
                above.up(s);
            }
            return n;
        }

        @Override
        public String name() {
            return "link";
        }
    }
}
