package org.railyard.stack;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

/** ReliableFIFO (with SequencedSegment above it for numbers) alone over a damaging network. */
class ReliableFifoTest {
    private static final List<String> STACK = List.of("SequencedSegment", "ReliableFIFO", "TransportDrive");

    @Test
    void duplicatesAndReorderingAreUndoneExactly() {
        Harness h = new Harness(STACK, StackSettings.defaults(), "dup=0.2,reorder=0.3,seed=7");
        h.sendNumbered(0, 500, 100, 3_000);
        h.runUntil(() -> h.inFlight() == 0, 100_000, 100);
        assertThat(h.dataFaults.duplicated).isPositive();
        assertThat(h.dataFaults.reordered).isPositive();
        assertThat(h.delivered).hasSize(500);
        for (int i = 0; i < 500; i++) {
            assertThat(Harness.numberOf(h.delivered.get(i))).isEqualTo(i);
        }
        h.close();
        assertThat(h.poolB.outstanding()).isZero();
    }

    @Test
    void withLossAndNoRetransmissionItDeliversAGaplessPrefixAndHoldsTheRest() {
        Harness h = new Harness(STACK, StackSettings.defaults(), "dropIndex=40,seed=7");
        h.sendNumbered(0, 60, 100);
        h.runUntil(() -> h.inFlight() == 0, 100_000, 100);
        assertThat(h.delivered).hasSize(39);
        for (int i = 0; i < 39; i++) {
            assertThat(Harness.numberOf(h.delivered.get(i))).isEqualTo(i);
        }
        assertThat(h.receiver.rcvNext).isEqualTo(40);
        h.close();
        assertThat(h.poolB.outstanding()).as("held segments are released on close").isZero();
    }
}
