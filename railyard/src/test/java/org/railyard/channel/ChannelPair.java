package org.railyard.channel;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.BooleanSupplier;
import org.railyard.wire.FrameHeader;
import org.railyard.wire.FrameType;

/**
 * Two channel tables (ranks 0 and 1) over a {@link MemoryNetwork}, driven in turns on the test's
 * thread with a manual clock: every step advances the clock by {@link #STEP_NANOS} and runs one
 * duty cycle of each side. What rank 1 receives is recorded (envelopes in delivery order, bulk data
 * reassembled by offset), so a test can check order, completeness and the absence of duplicates.
 */
final class ChannelPair {
    static final long STEP_NANOS = 20_000;

    long now = 1_000_000_000L;
    final MemoryNetwork net;
    final ChannelTable[] tables = new ChannelTable[2];
    final Recorder[] sinks = {new Recorder(), new Recorder()};
    final List<String> log = new ArrayList<>();

    ChannelPair(RailSettings settings, long seed, long... bytesPerMilli) {
        net = new MemoryNetwork(() -> now, seed, bytesPerMilli);
        for (int r = 0; r < 2; r++) {
            int rank = r;
            tables[r] = new ChannelTable(r, 2, net.ends[r], sinks[r], Duration.ofSeconds(5).toNanos(), null,
                    s -> log.add("[" + rank + "] " + s), settings, () -> now);
        }
    }

    static RailSettings settings(String policy) {
        return new RailSettings(policy, 64 * 1024, Duration.ofMillis(200), Duration.ofMillis(40), Duration.ofSeconds(2),
                4L << 20, 1L << 20, 128 * 1024, Duration.ofMillis(2), Duration.ofMillis(20), Duration.ofMillis(200));
    }

    VirtualChannel sender() {
        return tables[0].channel(1);
    }

    VirtualChannel receiver() {
        return tables[1].existing(0);
    }

    void step() {
        now += STEP_NANOS;
        tables[0].progress();
        tables[1].progress();
    }

    /** Steps until {@code done}, at most {@code maxMillis} of test time; false if it never was. */
    boolean runUntil(BooleanSupplier done, long maxMillis) {
        long end = now + maxMillis * 1_000_000L;
        while (now < end) {
            if (done.getAsBoolean()) {
                return true;
            }
            step();
        }
        return done.getAsBoolean();
    }

    void runFor(long millis) {
        runUntil(() -> false, millis);
    }

    /** A message for the channel: one EAGER frame (seq in its payload), or bulk data by offset. */
    static final class Message extends Outbound {
        final int id;
        final byte[] data;
        final boolean bulk;
        boolean written;

        Message(int id, int bytes, boolean bulk, int pattern) {
            this.id = id;
            this.bulk = bulk;
            this.data = new byte[bytes];
            java.util.Random r = new java.util.Random(id);
            r.nextBytes(data);
            pattern(pattern);
        }

        @Override
        protected int nextFrame(FrameFields header, int maxPayload) {
            header.set(FrameType.EAGER, (byte) 0, 0, 0, id, data.length, 0, 0);
            return data.length;
        }

        @Override
        protected boolean writePayload(MemorySegment seg, long off, int length) {
            MemorySegment.copy(MemorySegment.ofArray(data), 0, seg, off, length);
            return true;
        }

        @Override
        protected long bulkBytes() {
            return bulk ? data.length : -1;
        }

        @Override
        protected void bulkHeader(FrameFields header) {
            header.set(FrameType.DATA, (byte) 0, 0, 0, id, data.length, id, 0);
        }

        @Override
        protected void writeBulk(MemorySegment seg, long off, int length, long messageOffset) {
            MemorySegment.copy(MemorySegment.ofArray(data), messageOffset, seg, off, length);
        }

        @Override
        protected void onWritten() {
            written = true;
        }
    }

    /** What a side received: envelopes in order, bulk data by message id, and channel failures. */
    static final class Recorder implements FrameSink {
        final List<Integer> envelopes = new ArrayList<>();
        final Map<Integer, byte[]> bulk = new HashMap<>();
        final Map<Integer, Long> bulkBytes = new HashMap<>();
        final List<Long> psns = new ArrayList<>();
        final List<Long> envelopePsns = new ArrayList<>();
        String down;

        @Override
        public void onFrame(VirtualChannel from, MemorySegment seg, long off, int length) {
            psns.add(FrameHeader.psn(seg, off));
            int id = FrameHeader.tag(seg, off);
            if (FrameHeader.type(seg, off) == FrameType.EAGER) {
                envelopes.add(id);
                envelopePsns.add(FrameHeader.psn(seg, off));
                return;
            }
            byte[] b = bulk.computeIfAbsent(id, k -> new byte[FrameHeader.messageLength(seg, off)]);
            long at = FrameHeader.arg(seg, off);
            int n = length - FrameHeader.LENGTH;
            MemorySegment.copy(seg, ValueLayout.JAVA_BYTE, off + FrameHeader.LENGTH, b, (int) at, n);
            bulkBytes.merge(id, (long) n, Long::sum);
        }

        @Override
        public void onChannelDown(VirtualChannel channel, String why, boolean orderly) {
            down = why;
        }

        /** True if message {@code m} arrived whole (every byte once, as sent). */
        boolean complete(Message m) {
            byte[] b = bulk.get(m.id);
            return b != null && bulkBytes.get(m.id) == m.data.length && java.util.Arrays.equals(b, m.data);
        }
    }
}
