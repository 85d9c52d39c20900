package org.railyard.transport.ring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.railyard.fuzz.Fuzz;
import org.railyard.wire.FrameHeader;

/**
 * A shared-memory ring is memory a peer process writes: whatever it holds, a {@link RingLink}
 * polling it delivers only sound frames that lie inside the ring and were published, or closes
 * with a reason; it never throws and never loops. Input: the ring's consumer and producer positions
 * (two little-endian longs), then bytes written into the data from the consumer's index on,
 * wrapping (corpus in {@code fuzz/ring}).
 */
class RingFuzzTest {
    private static final long RING = 1024;
    private static final int FRAME = 256;
    private static final ValueLayout.OfLong LONG = ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);

    /** The ring's positions were refused when it was wrapped (the one clean error of this decoder). */
    static final class Refused extends RuntimeException {
        private static final long serialVersionUID = 1L;

        Refused(String why) {
            super(why);
        }
    }

    /**
     * Polls a ring made of {@code input}; true if the link closed (asserting why), false if it
     * stays open; {@link Refused} if the ring was refused when wrapped.
     */
    private static boolean pollOver(byte[] input) throws Exception {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment in = arena.allocate(FrameRing.bytesFor(RING), 4096);
            MemorySegment out = arena.allocate(FrameRing.bytesFor(RING), 4096);
            MemorySegment bytes = MemorySegment.ofArray(input);
            long head = input.length >= 8 ? bytes.get(LONG, 0) : 0;
            long tail = input.length >= 16 ? bytes.get(LONG, 8) : input.length;
            in.set(LONG, 0, tail);
            in.set(LONG, 128, head);
            for (int i = 16; i < input.length; i++) {
                in.set(ValueLayout.JAVA_BYTE, FrameRing.HEADER + ((head + i - 16) & (RING - 1)), input[i]);
            }
            FrameRing reader;
            try {
                reader = new FrameRing(in, RING, FRAME);
            } catch (IllegalArgumentException e) {
                throw new Refused(e.getMessage());
            }
            RingLink link = new RingLink(null, 1, new FrameRing(out, RING, FRAME), reader, null, null, "fuzz ring", null);
            long end = FrameRing.bytesFor(RING);
            for (int round = 0; round < 4 && link.isOpen(); round++) {
                link.poll((l, seg, off, len) -> {
                    assertThat(seg).isSameAs(in);
                    assertThat(off).isGreaterThanOrEqualTo(FrameRing.HEADER);
                    assertThat(off + len).as("frame inside the ring").isLessThanOrEqualTo(end);
                    assertThat(FrameHeader.validate(seg, off, FRAME)).isNull();
                    assertThat(FrameHeader.frameLength(seg, off)).isEqualTo(len);
                    return true;
                }, 64);
            }
            if (!link.isOpen()) {
                assertThat(link.failure()).as("a closed link says why").isNotBlank();
                return true;
            }
            return false;
        }
    }

    @Test
    void aRingOfArbitraryBytesDeliversSoundFramesOrClosesWithAReason() {
        Fuzz fuzz = Fuzz.of("ring", Refused.class, RingFuzzTest::pollOver).budget(11, 3000);
        assertThat(fuzz.run()).as("rings polled (not refused)").isBetween(1000, 3000 + fuzz.corpus().size());
    }

    @Test
    void theCorpusHoldsRingsThatDeliverAndRingsThatClose() throws Exception {
        int closed = 0;
        java.util.List<byte[]> corpus = Fuzz.neverThrowing("ring", b -> { }).corpus();
        int refused = 0;
        for (byte[] sample : corpus) {
            try {
                // bounded: a reader that loops on a corrupt padding record must fail, not hang the build
                closed += assertTimeoutPreemptively(Duration.ofSeconds(10), () -> pollOver(sample)) ? 1 : 0;
            } catch (Refused e) {
                refused++;
            }
        }
        assertThat(closed).as("samples that close the link").isBetween(1, corpus.size() - 1);
        assertThat(refused).as("samples refused").isBetween(1, corpus.size() - 1);
    }
}
