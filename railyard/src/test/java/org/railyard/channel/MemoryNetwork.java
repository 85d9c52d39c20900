package org.railyard.channel;

import java.lang.foreign.MemorySegment;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.Queue;
import java.util.Random;
import java.util.function.LongSupplier;
import org.railyard.transport.Link;
import org.railyard.transport.LinkSource;
import org.railyard.transport.Transport;
import org.railyard.wire.FrameHeader;

/**
 * A network of two processes (ranks 0 and 1) inside one JVM, for channel tests with injected time:
 * each rail is a pair of in-memory links (frames as byte arrays in FIFO queues) with a bandwidth
 * in bytes per millisecond of the test clock. A rail can be cut: from then on its frames vanish in
 * both directions without any error, as when a cable is pulled under TCP (the channel must find
 * out by silence); or reset, which the link reports as a failure. A cut rail connects again only
 * after {@link #heal}. The drop layer is seeded: {@link #cutAfter} cuts a rail after a random number
 * of frames drawn from the test's seed.
 */
final class MemoryNetwork {
    static final int MAX_FRAME = 64 * 1024;

    private final LongSupplier clock;
    private final int rails;
    final Wire[] wires;
    final Endpoint[] ends = {new Endpoint(0), new Endpoint(1)};
    private final Random random;
    /** The peer process is gone: connections and probes are refused. */
    boolean peerGone;

    MemoryNetwork(LongSupplier clock, long seed, long... bytesPerMilli) {
        this.clock = clock;
        this.rails = bytesPerMilli.length;
        this.random = new Random(seed);
        this.wires = new Wire[rails];
        for (int i = 0; i < rails; i++) {
            wires[i] = new Wire(i, bytesPerMilli[i]);
        }
    }

    /** Cuts rail {@code r} silently after a seeded random number of frames in [min, max). */
    void cutAfter(int r, int min, int max) {
        wires[r].cutAfterFrames = wires[r].framesCarried + min + random.nextInt(max - min);
    }

    void cut(int r) {
        wires[r].cut = true;
    }

    void heal(int r) {
        wires[r].cut = false;
    }

    /**
     * Rail {@code r}'s links say they {@link Link#reroutes reroute} (as through a site's gateways):
     * a channel of one such rail keeps acknowledgements and retransmission.
     */
    void rerouting(int r) {
        wires[r].reroutes = true;
    }

    /**
     * The {@code n}th frame committed on rail {@code r} from now vanishes, and nothing else: no
     * error, the rail carries on (a frame that was inside a gateway when it died, while the rail was
     * already taken over by the next one).
     */
    void loseOne(int r, int n) {
        wires[r].loseFrame = wires[r].framesCarried + n;
    }

    /** Breaks rail {@code r}'s current links with an error both ends see at once. */
    void reset(int r) {
        for (MemLink l : wires[r].links) {
            l.fail("connection reset by peer");
        }
    }

    /** The physical rail: what is in flight each way, its rate, whether it is cut. */
    final class Wire {
        final int index;
        final long bytesPerMilli;
        boolean cut;
        long cutAfterFrames = Long.MAX_VALUE;
        long loseFrame = -1;
        boolean reroutes;
        long framesCarried;
        long epoch;
        final List<MemLink> links = new ArrayList<>();

        Wire(int index, long bytesPerMilli) {
            this.index = index;
            this.bytesPerMilli = bytesPerMilli;
        }

        boolean carries() {
            if (framesCarried >= cutAfterFrames) {
                cut = true;
                cutAfterFrames = Long.MAX_VALUE;
            }
            return !cut;
        }

        /** A new connection on this rail: two links, the ends of one stream. */
        MemLink[] connect() {
            epoch++;
            Queue<byte[]> ab = new ArrayDeque<>();
            Queue<byte[]> ba = new ArrayDeque<>();
            MemLink a = new MemLink(this, 1, ab, ba);
            MemLink b = new MemLink(this, 0, ba, ab);
            for (MemLink l : links) {
                l.open = false; // the old connection is dead for good
            }
            links.clear();
            links.add(a);
            links.add(b);
            return new MemLink[] {a, b};
        }
    }

    /** One end of a rail's connection. Sending appends to {@code out}; the rate limits what {@link #poll} takes. */
    final class MemLink implements Link {
        final Wire wire;
        final int peer;
        final Queue<byte[]> out;
        final Queue<byte[]> in;
        final MemorySegment staging = MemorySegment.ofArray(new byte[4 * MAX_FRAME]);
        int claimed;
        boolean open = true;
        String failure;
        long credit;
        long lastPoll = clock.getAsLong();
        long pending;

        MemLink(Wire wire, int peer, Queue<byte[]> out, Queue<byte[]> in) {
            this.wire = wire;
            this.peer = peer;
            this.out = out;
            this.in = in;
        }

        void fail(String why) {
            if (open) {
                open = false;
                failure = why;
            }
        }

        @Override public Transport transport() { return TestTransport.INSTANCE; }
        @Override public int peer() { return peer; }
        @Override public int maxFrame() { return MAX_FRAME; }

        @Override
        public long tryClaim(int frameLength) {
            if (!open) {
                return CLOSED;
            }
            // bounded like a socket buffer: a slow rail pushes back
            if (pending > 8L * MAX_FRAME) {
                return BACK_PRESSURED;
            }
            claimed = frameLength;
            return 0;
        }

        @Override public MemorySegment claimSegment() { return staging; }

        @Override
        public void commit() {
            byte[] f = staging.asSlice(0, claimed).toArray(java.lang.foreign.ValueLayout.JAVA_BYTE);
            wire.framesCarried++;
            if (wire.framesCarried == wire.loseFrame) {
                return;
            }
            if (wire.carries()) {
                out.add(f);
                pending += f.length;
            }
        }

        private MemLink peerLink() {
            for (MemLink l : wire.links) {
                if (l != this) {
                    return l;
                }
            }
            return this;
        }

        @Override public int flush() { return 0; }

        @Override
        public int poll(FrameHandler handler, int limit) {
            if (!open) {
                return 0;
            }
            long now = clock.getAsLong();
            // a token bucket with a small burst, like tc tbf: an idle rail cannot bank its idle time
            credit = Math.min(credit + (now - lastPoll) * wire.bytesPerMilli / 1_000_000L, 2L * MAX_FRAME);
            lastPoll = now;
            int n = 0;
            MemLink sender = peerLink();
            while (n < limit && !in.isEmpty() && open) {
                byte[] f = in.peek();
                if (wire.cut) {
                    in.clear(); // vanished on the cable
                    sender.pending = 0;
                    break;
                }
                if (credit < f.length) {
                    break;
                }
                in.poll();
                credit -= f.length;
                sender.pending -= f.length;
                n++;
                MemorySegment seg = MemorySegment.ofArray(f);
                if (!handler.onFrame(this, seg, 0, f.length)) {
                    break;
                }
            }
            return n;
        }

        @Override public boolean isOpen() { return open; }
        @Override public String failure() { return failure; }
        @Override public String describe() { return "mem rail " + wire.index; }
        @Override public boolean reroutes() { return wire.reroutes; }

        @Override
        public void close() {
            open = false;
        }
    }

    /** What each process's channel table gets its links from. */
    final class Endpoint implements LinkSource {
        final int rank;
        final Queue<Event> events = new ArrayDeque<>();
        int probes;

        Endpoint(int rank) {
            this.rank = rank;
        }

        @Override
        public Event poll() {
            return events.poll();
        }

        @Override
        public void connect(int peer) {
            for (int r = 0; r < rails; r++) {
                connectRail(peer, r);
            }
        }

        @Override
        public void connectRail(int peer, int rail) {
            Wire w = wires[rail];
            if (w.cut || peerGone) {
                events.add(new Event(peer, rail, rails, 0, null, peerGone ? "connection refused" : "rail " + rail + " is cut",
                        peerGone));
                return;
            }
            MemLink[] pair = w.connect();
            // pair[0] is rank 0's end (its peer is 1), pair[1] rank 1's end
            ends[0].events.add(new Event(1, rail, rails, w.epoch, pair[0], null, false));
            ends[1].events.add(new Event(0, rail, rails, w.epoch, pair[1], null, false));
        }

        @Override
        public void probe(int peer) {
            probes++;
            events.add(new Event(peer, PROBE, 0, 0, null, peerGone ? "connection refused" : "no answer", peerGone));
        }

        @Override public void railLost(int peer, int rail, long epoch) { }
        @Override public void lost(int peer) { }
        @Override public void close() { }
    }

    /** The transport the in-memory links claim to belong to. */
    static final class TestTransport implements Transport {
        static final TestTransport INSTANCE = new TestTransport();

        @Override public String name() { return "mem"; }
        @Override public int priority() { return 1; }
        @Override public int maxFrame() { return MAX_FRAME; }
        @Override public boolean start(org.railyard.transport.TransportEnv env) { return true; }
        @Override public boolean reaches(org.railyard.bootstrap.AddressCard self, org.railyard.bootstrap.AddressCard peer) { return true; }
        @Override public String offer(int peer, org.railyard.bootstrap.AddressCard card) { return ""; }
        @Override public Link complete(int peer, String p, int m, java.nio.channels.SocketChannel h) { throw new UnsupportedOperationException(); }
        @Override public void abandon(int peer, String p) { }
        @Override public Link accept(int peer, String p, java.nio.channels.SocketChannel h) { throw new UnsupportedOperationException(); }
        @Override public void close() { }
    }

    /** For assertions: the packet sequence number of a frame. */
    static long psn(byte[] f) {
        return FrameHeader.psn(MemorySegment.ofArray(f), 0);
    }
}
