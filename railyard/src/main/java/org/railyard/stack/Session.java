package org.railyard.stack;

import java.util.List;
import java.util.StringJoiner;

/**
 * One direction of one flow of a stack: the micro-protocol instances composed for it, top to
 * bottom, and the state they share. A connection has a sender session and a receiver session per
 * port (the channel's frames, the value flow), so each direction can be recomposed on its own.
 *
 * <p>Shared state (Cactus' shared data). Each field below has one writer, named in its comment; the
 * others only read it, and a field whose writer is absent from the composition keeps its initial
 * value (for example a congestion window that stays "unlimited" without congestion control).
 */
public final class Session {
    /** Which end of the flow this session is. */
    public enum Role { SENDER, RECEIVER }

    /** Where frames that reach the top of a receiver session go (the stack's delivery queue). */
    @FunctionalInterface
    public interface Upcall {
        /** A whole frame (payload of {@code frame}); the callee takes the reference. */
        void deliver(Session session, Segment frame);
    }

    /** The way below the session: the stack's multiplexer (or a test's wire). */
    public interface Lower {
        /** Sends a segment addressed by TransportDrive; takes the reference. */
        void send(Session session, Segment s);

        /** True if a datagram would be taken now. */
        boolean writable();
    }

    final Role role;
    final int port;
    final int epoch;
    final Clock clock;
    final SegmentPool pool;
    final StackSettings settings;
    final Lower lower;
    final int peerToken;
    private final Upcall upcall;
    private final MicroProtocol[] chain;
    private final Top top = new Top();

    /** SequencedSegment or DCCPAck: the next sequence number to give a new data segment. */
    public long sndNext = 1;
    /** Retransmit or DCCPAck: the oldest sequence number sent and not yet acknowledged (or given up). */
    public long sndUna = 1;
    /** Retransmit or DCCPAck: one past the highest sequence number sent. */
    public long sndMax = 1;
    /** DCCPAck: data segments in flight (sent, neither acknowledged nor found lost). */
    public long pipe;
    /** TCPNewRenoCA or TCPCongAvoid: the congestion window, in segments ("unlimited" when absent). */
    public double cwnd = Double.MAX_VALUE;
    /** RTTEstimation: the retransmission timeout, nanoseconds (the initial setting when absent). */
    public long rtoNanos;
    /** RTTEstimation: the smoothed round-trip time, nanoseconds (0 before the first sample). */
    public long srttNanos;
    /** ReliableFIFO: the next sequence number to deliver in order. */
    public long rcvNext = 1;
    /** RTTEstimation (receiver): the timestamp acknowledgements echo. */
    public int tsRecent;

    /** Counters for diagnostics and tests: frames and segments through this session. */
    public long framesIn, framesOut, segmentsIn, segmentsOut, retransmitted, superseded, stale, dropped;

    /**
     * Links {@code protocols} (top to bottom, TransportDrive last) into a session.
     *
     * @param peerToken the connection token the peer expects in every datagram
     */
    public Session(Role role, int port, int epoch, List<MicroProtocol> protocols, Clock clock, SegmentPool pool,
                   StackSettings settings, Lower lower, int peerToken, Upcall upcall) {
        if (protocols.isEmpty() || !(protocols.getLast() instanceof TransportDrive)) {
            throw new IllegalArgumentException("a composition ends with TransportDrive: " + protocols);
        }
        this.role = role;
        this.port = port;
        this.epoch = epoch & 0xff;
        this.clock = clock;
        this.pool = pool;
        this.settings = settings;
        this.lower = lower;
        this.peerToken = peerToken;
        this.upcall = upcall;
        this.rtoNanos = settings.rtoInitial().toNanos();
        this.chain = protocols.toArray(new MicroProtocol[0]);
        MicroProtocol prev = top;
        for (MicroProtocol p : chain) {
            prev.below = p;
            p.above = prev;
            prev = p;
        }
        top.session = this;
        for (MicroProtocol p : chain) {
            p.session = this;
        }
        for (MicroProtocol p : chain) {
            p.init();
        }
    }

    public Role role() {
        return role;
    }

    /** True for the sending end of the flow. */
    public boolean sender() {
        return role == Role.SENDER;
    }

    public int port() {
        return port;
    }

    public int epoch() {
        return epoch;
    }

    public Clock clock() {
        return clock;
    }

    public SegmentPool pool() {
        return pool;
    }

    public StackSettings settings() {
        return settings;
    }

    /** Sends a frame (payload of {@code frame}, borrowed or owned: the stack copies what it keeps). */
    public void send(Segment frame) {
        framesOut++;
        chain[0].down(frame);
    }

    /** Hands a received datagram segment (and its reference) to the bottom of the session. */
    public void receive(Segment s) {
        segmentsIn++;
        chain[chain.length - 1].up(s);
    }

    /** Whether a frame of {@code bytes} can be sent now. */
    public boolean writable(int bytes) {
        return chain[0].writable(bytes);
    }

    /** Raises {@code signal} to every protocol of the session, top to bottom. */
    public void signal(Signal signal, long arg) {
        for (MicroProtocol p : chain) {
            p.onSignal(signal, arg);
        }
    }

    /** Timers of every protocol. */
    public void tick(long now) {
        for (MicroProtocol p : chain) {
            p.onTick(now);
        }
    }

    /** End of a batch of received datagrams. */
    public void batchEnd() {
        for (MicroProtocol p : chain) {
            p.onBatchEnd();
        }
    }

    /** True when no protocol holds anything that still has to reach the peer. */
    public boolean drained() {
        for (MicroProtocol p : chain) {
            if (!p.drained()) {
                return false;
            }
        }
        return true;
    }

    /** Ends the session: every protocol releases what it holds. */
    public void close() {
        for (MicroProtocol p : chain) {
            p.onClose();
        }
    }

    /** The protocol of class {@code type} in this session, or null. */
    public <T extends MicroProtocol> T find(Class<T> type) {
        for (MicroProtocol p : chain) {
            if (type.isInstance(p)) {
                return type.cast(p);
            }
        }
        return null;
    }

    /** Names top to bottom: "Synchronous > Resize > ... > TransportDrive". */
    public String composition() {
        StringJoiner j = new StringJoiner(" > ");
        for (MicroProtocol p : chain) {
            j.add(p.name());
        }
        return j.toString();
    }

    /** Composition with each protocol's state, and the counters. */
    public String describe() {
        StringBuilder sb = new StringBuilder();
        sb.append(role == Role.SENDER ? "send" : "receive").append(" port ").append(port).append(" epoch ").append(epoch)
                .append(": ").append(composition());
        for (MicroProtocol p : chain) {
            String st = p.state();
            if (!st.isEmpty()) {
                sb.append("; ").append(p.name()).append(' ').append(st);
            }
        }
        sb.append("; frames in/out ").append(framesIn).append('/').append(framesOut).append(", segments in/out ")
                .append(segmentsIn).append('/').append(segmentsOut);
        if (retransmitted > 0 || superseded > 0 || stale > 0 || dropped > 0) {
            sb.append(", retransmitted ").append(retransmitted).append(", superseded ").append(superseded)
                    .append(", stale ").append(stale).append(", dropped ").append(dropped);
        }
        return sb.toString();
    }

    /** Above the first protocol: whole frames leave the session here. */
    private final class Top extends MicroProtocol {
        @Override
        protected void up(Segment s) {
            if (role == Role.RECEIVER) {
                framesIn++;
                upcall.deliver(Session.this, s);
            } else {
                // a sender session has no frames to deliver: something below passed up what it
                // should have consumed (an acknowledgement without a consumer)
                s.release();
            }
        }

        @Override
        protected void down(Segment s) {
            throw new IllegalStateException("nothing is above the top of a session");
        }
    }
}
