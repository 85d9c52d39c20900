package org.railyard.stack;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

/** PositiveAck (over ReliableFIFO's in-order point) alone: what the receiver acknowledges, and when. */
class PositiveAckTest {
    private static final List<String> STACK = List.of("SequencedSegment", "ReliableFIFO", "PositiveAck", "TransportDrive");

    @Test
    void aBatchIsAcknowledgedOnceCumulativelyAndAGapAtOnce() {
        Harness h = new Harness(STACK, StackSettings.defaults(), "dropIndex=6");
        h.sendNumbered(0, 5, 50);
        h.step(100_000);
        assertThat(h.acks).as("one cumulative acknowledgement for the batch").containsExactly(6L);
        h.sendNumbered(5, 10, 50);
        h.step(100_000);
        // segment 6 was lost: 7, 8, 9, 10 each arrive out of order and are acknowledged at once with 6
        assertThat(h.acks.subList(1, h.acks.size())).containsExactly(6L, 6L, 6L, 6L);
        assertThat(h.delivered).hasSize(5);
        h.close();
    }

    @Test
    void everySegmentOfALongBatchIsCoveredWithinTheBurst() {
        Harness h = new Harness(STACK, StackSettings.defaults(), "");
        h.sendNumbered(0, 40, 50);
        h.step(100_000);
        assertThat(h.acks).containsExactly(17L, 33L, 41L);
        h.close();
    }
}
