package org.railyard.stack;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

/** Retransmit (with the sequencing and acknowledgement it needs, no RTT estimation) alone. */
class RetransmitTest {
    private static final List<String> STACK = List.of("SequencedSegment", "ReliableFIFO", "PositiveAck", "Retransmit",
            "TransportDrive");

    @Test
    void theTimerFiresAtTheTimeoutAndBacksOffExponentially() {
        StackSettings s = StackSettings.defaults();
        Harness h = new Harness(STACK, s, "drop=1.0");
        h.send(Harness.numbered(0, 100));
        long rto = s.rtoInitial().toNanos();
        h.step(rto - 1_000);
        assertThat(h.sender.retransmitted).isZero();
        h.step(1_000);
        assertThat(h.sender.retransmitted).isEqualTo(1);
        h.step(2 * rto - 1_000);
        assertThat(h.sender.retransmitted).as("backed off to twice the timeout").isEqualTo(1);
        h.step(1_000);
        assertThat(h.sender.retransmitted).isEqualTo(2);
        // the path heals: the next retransmission (after 4 rto) gets through and is acknowledged
        h.dataFaults.drop = 0;
        h.ackFaults.drop = 0;
        h.step(4 * rto);
        h.step(100_000);
        h.step(100_000);
        assertThat(h.delivered).hasSize(1);
        assertThat(h.sender.drained()).isTrue();
        h.close();
        assertThat(h.poolA.outstanding()).isZero();
    }

    @Test
    void everythingArrivesInOrderThroughTenPercentLossBothWays() {
        Harness h = new Harness(STACK, StackSettings.defaults(), "drop=0.1,reorder=0.05,dup=0.02,seed=3");
        int n = 400;
        int sent = 0;
        for (int steps = 0; steps < 200_000 && h.delivered.size() < n; steps++) {
            while (sent < n && h.sender.writable(100)) {
                h.send(Harness.numbered(sent++, 100));
            }
            h.step(100_000);
        }
        assertThat(h.delivered).hasSize(n);
        for (int i = 0; i < n; i++) {
            assertThat(Harness.numberOf(h.delivered.get(i))).isEqualTo(i);
        }
        assertThat(h.sender.retransmitted).isPositive();
        assertThat(h.runUntil(h.sender::drained, 1_000_000, 1000)).isTrue();
        h.close();
        assertThat(h.poolA.outstanding()).isZero();
        assertThat(h.poolB.outstanding()).isZero();
    }

    @Test
    void theBufferIsBoundedByTheWindowAndTheStackRefusesBeyondIt() {
        StackSettings s = StackSettings.defaults();
        Harness h = new Harness(STACK, s, "drop=1.0");
        int accepted = h.sendWhileWritable(0, 100);
        assertThat(accepted).isEqualTo(s.window());
        h.close();
    }
}
