package org.railyard.stack;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

/** DuplicateAck (in a reliable flow) alone: a single loss is repaired by fast retransmit, long before the timer. */
class DuplicateAckTest {
    private static final List<String> STACK = List.of("SequencedSegment", "ReliableFIFO", "PositiveAck", "DuplicateAck",
            "Retransmit", "RTTEstimation", "TransportDrive");

    @Test
    void threeDuplicateAcknowledgementsResendTheMissingSegmentWithinARoundTrip() {
        StackSettings s = StackSettings.defaults();
        Harness h = new Harness(STACK, s, "dropIndex=5");
        h.delayNanos = 50_000;
        h.sendNumbered(0, 12, 100, 5_000);
        // well under the 20 ms initial timeout: only a fast retransmit can have repaired segment 5
        assertThat(h.runUntil(() -> h.delivered.size() == 12, 10_000, 100)).isTrue();
        DuplicateAck d = h.sender.find(DuplicateAck.class);
        Retransmit r = h.sender.find(Retransmit.class);
        assertThat(d.fastRetransmits).isEqualTo(1);
        assertThat(r.timeouts).isZero();
        assertThat(h.sender.retransmitted).isEqualTo(1);
        for (int i = 0; i < 12; i++) {
            assertThat(Harness.numberOf(h.delivered.get(i))).isEqualTo(i);
        }
        h.close();
    }

    @Test
    void fewerThanThreeDuplicatesDoNotTriggerIt() {
        Harness h = new Harness(STACK, StackSettings.defaults(), "dropIndex=3");
        h.sendNumbered(0, 5, 100, 5_000);
        h.step(200_000);
        assertThat(h.sender.find(DuplicateAck.class).fastRetransmits).isZero();
        assertThat(h.delivered).hasSize(2);
        h.close();
    }
}
