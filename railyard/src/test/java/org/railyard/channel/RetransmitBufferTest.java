package org.railyard.channel;

import static org.assertj.core.api.Assertions.assertThat;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/** The retransmit buffer alone: FIFO by PSN, release by cumulative acknowledgement, growth up to its bound, back-pressure. */
class RetransmitBufferTest {

    private static MemorySegment frame(long psn, int n) {
        byte[] b = new byte[n];
        new Random(psn).nextBytes(b);
        return MemorySegment.ofArray(b);
    }

    private static void assertKept(RetransmitBuffer rb, long psn, int n) {
        MemorySegment expected = frame(psn, n);
        assertThat(rb.length(psn)).isEqualTo(n);
        byte[] got = rb.segment().asSlice(rb.offset(psn), n).toArray(ValueLayout.JAVA_BYTE);
        assertThat(got).as("frame %d", psn).isEqualTo(expected.toArray(ValueLayout.JAVA_BYTE));
    }

    @Test
    void framesSurviveWrapsAndGrowthAndLeaveInOrder() {
        RetransmitBuffer rb = new RetransmitBuffer(8L << 20);
        Random r = new Random(7);
        List<Integer> sizes = new ArrayList<>();
        long next = 100;
        long released = 100;
        for (int round = 0; round < 2000; round++) {
            int n = 48 + r.nextInt(200_000);
            if (rb.hasRoom(n)) {
                rb.add(next, (int) (next % 3), frame(next, n), 0, n);
                sizes.add(n);
                next++;
            } else {
                released += 1 + r.nextInt((int) (next - released));
                rb.release(released);
            }
            if (round % 97 == 0) {
                for (long p = released; p < next; p++) {
                    assertKept(rb, p, sizes.get((int) (p - 100)));
                }
            }
            assertThat(rb.bytes()).isLessThanOrEqualTo(8L << 20);
        }
        assertThat(next - released).as("frames kept at the end").isPositive();
    }

    @Test
    void moreSmallFramesThanItsFirstEntriesAreKeptInOrderAfterTheHeadMoved() {
        RetransmitBuffer rb = new RetransmitBuffer(8L << 20);
        for (long p = 0; p < 600; p++) {
            rb.add(p, 0, frame(p, 48), 0, 48);
        }
        rb.release(500);
        // the entries wrap around the end of their arrays, then outgrow them
        for (long p = 600; p < 3000; p++) {
            rb.add(p, (int) (p % 3), frame(p, 48), 0, 48);
        }
        assertThat(rb.frames()).isEqualTo(2500);
        for (long p = 500; p < 3000; p++) {
            assertKept(rb, p, 48);
        }
    }

    @Test
    void aFullBufferRefusesUntilAnAcknowledgementFreesRoom() {
        RetransmitBuffer rb = new RetransmitBuffer(1L << 20);
        int n = 200_000;
        long psn = 0;
        while (rb.hasRoom(n)) {
            rb.add(psn, 0, frame(psn, n), 0, n);
            psn++;
        }
        assertThat(psn).isEqualTo(5);
        rb.release(1);
        assertThat(rb.hasRoom(n)).isTrue();
        assertThat(rb.contains(0)).isFalse();
        assertThat(rb.contains(1)).isTrue();
    }

    @Test
    void theFramesOfADeadRailAreFoundInOrder() {
        RetransmitBuffer rb = new RetransmitBuffer(1L << 20);
        for (long p = 0; p < 10; p++) {
            rb.add(p, (int) (p % 2), frame(p, 100), 0, 100);
        }
        rb.release(3);
        LongQueue q = new LongQueue();
        rb.collect(1, q);
        List<Long> got = new ArrayList<>();
        while (!q.isEmpty()) {
            got.add(q.poll());
        }
        assertThat(got).containsExactly(3L, 5L, 7L, 9L);
    }
}
