package org.railyard.stack;

import java.lang.foreign.MemorySegment;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.function.BooleanSupplier;
import org.railyard.wire.FrameHeader;
import org.railyard.wire.FrameType;
import org.railyard.wire.SegmentHeader;

/**
 * Two ends of one flow in one thread, for testing micro-protocols alone or composed: a sender
 * session at end A and a receiver session at end B, each over its own multiplexer, joined by a
 * simulated network. The network carries each datagram after a fixed delay of injected time, through
 * a {@link SeededFaults} layer per direction (data A to B, acknowledgements B to A). Time moves only
 * when {@link #step} says; every timer fires on the {@link ManualClock}, never on the machine's.
 */
final class Harness {
    /** A clock a test moves by hand. */
    static final class ManualClock implements Clock {
        long now = 1_000_000_000L;

        @Override
        public long nanos() {
            return now;
        }
    }

    /** The DCCP-like composition: window congestion control with TCP's congestion avoidance, acks as datagrams. */
    static final List<String> DCCP_LIKE = List.of("DCCPWindCCtrl", "TCPCongAvoid", "DCCPAck", "TransportDrive");

    static final int TOKEN_A = 0x1111;
    static final int TOKEN_B = 0x2222;

    final ManualClock clock = new ManualClock();
    final SegmentPool poolA;
    final SegmentPool poolB;
    final Session sender;
    final Session receiver;
    final SeededFaults dataFaults;
    final SeededFaults ackFaults;
    /** Frames delivered at B, copied. */
    final List<byte[]> delivered = new ArrayList<>();
    /** Sequence numbers of the data segments A sent, in order (what entered the network). */
    final List<Long> seqs = new ArrayList<>();
    /** Acknowledgement numbers B sent, in order (what entered the network). */
    final List<Long> acks = new ArrayList<>();
    /** Datagrams sent by A (after faults: what entered the network), and by B. */
    long datagramsAtoB, datagramsBtoA;
    /** Whether A's network interface takes datagrams (a test can close it to fill the layers above). */
    boolean aWritable = true;
    /** One-way delay of the network, nanoseconds of the manual clock. */
    long delayNanos = 50_000;

    private final ArrayDeque<InFlight> toB = new ArrayDeque<>();
    private final ArrayDeque<InFlight> toA = new ArrayDeque<>();
    private final TransportDrive.Mux muxA;
    private final TransportDrive.Mux muxB;

    private record InFlight(long due, Segment segment) { }

    /** The usual link: datagrams of 512 bytes, frames of up to 4096. */
    Harness(List<String> names, StackSettings settings, String faults) {
        this(names, settings, 512, 4096, faults);
    }

    /**
     * @param names the composition, top to bottom, TransportDrive last
     * @param faults the SeededFaults spec of each direction, e.g. "drop=0.1,reorder=0.05,seed=3"
     */
    Harness(List<String> names, StackSettings settings, int datagram, int frameLimit, String faults) {
        poolA = new SegmentPool(datagram, frameLimit);
        poolB = new SegmentPool(datagram, frameLimit);
        Session[] atA = new Session[1];
        Session[] atB = new Session[1];
        muxA = new TransportDrive.Mux(TOKEN_A, (port, role) -> role == Session.Role.SENDER ? atA[0] : null);
        muxB = new TransportDrive.Mux(TOKEN_B, (port, role) -> role == Session.Role.RECEIVER ? atB[0] : null);
        dataFaults = new SeededFaults(faults, 1);
        ackFaults = new SeededFaults(faults, 2);
        wire(muxA, dataFaults, toB, true);
        wire(muxB, ackFaults, toA, false);
        sender = new Session(Session.Role.SENDER, SegmentHeader.PORT_VALUES, 0, Composer.instantiate(names), clock, poolA,
                settings, muxA, TOKEN_B, (s, f) -> f.release());
        receiver = new Session(Session.Role.RECEIVER, SegmentHeader.PORT_VALUES, 0, Composer.instantiate(names), clock,
                poolB, settings, muxB, TOKEN_A, (s, f) -> {
                    byte[] b = new byte[f.payloadLength()];
                    MemorySegment.copy(f.mem, SegmentHeader.LENGTH, MemorySegment.ofArray(b), 0, b.length);
                    delivered.add(b);
                    f.release();
                });
        atA[0] = sender;
        atB[0] = receiver;
    }

    private void wire(TransportDrive.Mux mux, SeededFaults faults, ArrayDeque<InFlight> queue, boolean fromA) {
        MicroProtocol network = new MicroProtocol() {
            @Override
            protected void down(Segment s) {
                if (fromA) {
                    datagramsAtoB++;
                    seqs.add(SegmentHeader.seq(s.mem, 0));
                } else {
                    datagramsBtoA++;
                    acks.add(SegmentHeader.ack(s.mem, 0));
                }
                queue.add(new InFlight(clock.now + delayNanos, s));
            }

            @Override
            protected boolean writable(int frameBytes) {
                return !fromA || aWritable;
            }
        };
        mux.below = faults;
        faults.above = mux;
        faults.below = network;
        network.above = faults;
    }

    /** Sends a frame of {@code payload} bytes from A. */
    void send(byte[] payload) {
        Segment f = poolA.frameSegment();
        MemorySegment.copy(MemorySegment.ofArray(payload), 0, f.mem, SegmentHeader.LENGTH, payload.length);
        f.length = SegmentHeader.LENGTH + payload.length;
        sender.send(f);
    }

    /**
     * Sends the frames {@link #numbered} {@code from} on, {@code length} bytes each, for as long as
     * the sender takes them; returns the number of the next frame.
     */
    int sendWhileWritable(int from, int length) {
        int next = from;
        while (sender.writable(length)) {
            send(numbered(next++, length));
        }
        return next;
    }

    /** Sends the frames {@link #numbered} {@code from} to {@code to - 1}, {@code length} bytes each, at once. */
    void sendNumbered(int from, int to, int length) {
        for (int i = from; i < to; i++) {
            send(numbered(i, length));
        }
    }

    /** As {@link #sendNumbered(int, int, int)}, with the clock stepped by {@code stepNanos} after each frame. */
    void sendNumbered(int from, int to, int length, long stepNanos) {
        for (int i = from; i < to; i++) {
            send(numbered(i, length));
            step(stepNanos);
        }
    }

    /** A VALUE frame of flow (context 7, {@code tag}) with sequence number {@code seq} and {@code extra} payload bytes. */
    static byte[] value(int tag, long seq, int extra) {
        byte[] b = new byte[FrameHeader.LENGTH + extra];
        MemorySegment m = MemorySegment.ofArray(b);
        FrameHeader.write(m, 0, b.length, FrameType.VALUE, FrameHeader.FLAG_VALUE_ASYNC, 7, 0, tag, extra, seq, 0);
        for (int i = 0; i < extra; i++) {
            b[FrameHeader.LENGTH + i] = (byte) (seq + i);
        }
        return b;
    }

    /** The sequence number of a delivered VALUE frame. */
    static long seqOf(byte[] frame) {
        return FrameHeader.cookie(MemorySegment.ofArray(frame), 0);
    }

    /** A frame whose first 8 bytes are {@code n} and the rest a pattern of {@code n}. */
    static byte[] numbered(long n, int length) {
        byte[] b = new byte[Math.max(8, length)];
        MemorySegment.ofArray(b).set(java.lang.foreign.ValueLayout.JAVA_LONG_UNALIGNED, 0, n);
        for (int i = 8; i < b.length; i++) {
            b[i] = (byte) (n * 31 + i);
        }
        return b;
    }

    /** The number of a {@link #numbered} frame, after checking its pattern. */
    static long numberOf(byte[] b) {
        long n = MemorySegment.ofArray(b).get(java.lang.foreign.ValueLayout.JAVA_LONG_UNALIGNED, 0);
        for (int i = 8; i < b.length; i++) {
            if (b[i] != (byte) (n * 31 + i)) {
                throw new AssertionError("frame " + n + " damaged at byte " + i);
            }
        }
        return n;
    }

    /**
     * Advances the clock by {@code nanos}: delivers every datagram due by then (each end's batch
     * ends after its deliveries), then runs both ends' timers.
     */
    void step(long nanos) {
        clock.now += nanos;
        boolean a = deliverDue(toA, muxA);
        boolean b = deliverDue(toB, muxB);
        if (a) {
            sender.batchEnd();
        }
        if (b) {
            receiver.batchEnd();
        }
        sender.tick(clock.now);
        receiver.tick(clock.now);
        dataFaults.onTick(clock.now);
        ackFaults.onTick(clock.now);
    }

    private boolean deliverDue(ArrayDeque<InFlight> q, TransportDrive.Mux to) {
        boolean any = false;
        while (!q.isEmpty() && q.peek().due() <= clock.now) {
            Segment s = q.poll().segment();
            // the network copies: the receiving end gets a buffer of its own pool
            SegmentPool pool = to == muxA ? poolA : poolB;
            Segment c = pool.datagramSegment();
            MemorySegment.copy(s.mem, 0, c.mem, 0, s.length);
            c.length = s.length;
            s.release();
            to.up(c);
            any = true;
        }
        return any;
    }

    /** Steps of {@code nanos} until {@code done} or {@code maxSteps}; returns whether it got done. */
    boolean runUntil(BooleanSupplier done, long nanos, int maxSteps) {
        for (int i = 0; i < maxSteps; i++) {
            if (done.getAsBoolean()) {
                return true;
            }
            step(nanos);
        }
        return done.getAsBoolean();
    }

    /** Datagrams in the network, and any held back by the fault layers. */
    int inFlight() {
        return toA.size() + toB.size() + (dataFaults.holding() ? 1 : 0) + (ackFaults.holding() ? 1 : 0);
    }

    /** Closes both sessions and drains the network; afterwards both pools must be empty. */
    void close() {
        while (!toA.isEmpty()) {
            toA.poll().segment().release();
        }
        while (!toB.isEmpty()) {
            toB.poll().segment().release();
        }
        sender.close();
        receiver.close();
        dataFaults.onClose();
        ackFaults.onClose();
    }
}
