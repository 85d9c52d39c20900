package org.railyard.stack;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** TCPCongAvoid (in the DCCP-like composition) alone: growth, and one halving per window of losses. */
class TcpCongAvoidTest {
    @Test
    void theWindowGrowsPerAcknowledgementAndIsHalvedOncePerWindowOfLosses() {
        Harness h = new Harness(Harness.DCCP_LIKE, StackSettings.defaults(), "");
        h.delayNanos = 500_000;
        TcpCongAvoid c = h.sender.find(TcpCongAvoid.class);
        assertThat(h.sender.cwnd).isEqualTo(4.0);
        int sent = 0;
        for (int k = 0; k < 10; k++) {
            sent = h.sendWhileWritable(sent, 100);
            h.step(100_000);
        }
        assertThat(h.sender.cwnd).as("slow start: doubled in one round trip").isBetween(7.0, 9.0);
        double before = h.sender.cwnd;
        // three losses within one window: one reduction
        long base = h.dataFaults.index();
        h.dataFaults.dropAt.add(base + 1);
        h.dataFaults.dropAt.add(base + 2);
        h.dataFaults.dropAt.add(base + 3);
        double peak = before;
        for (int k = 0; k < 30; k++) {
            sent = h.sendWhileWritable(sent, 100);
            h.step(100_000);
            if (c.reductions == 0) {
                peak = Math.max(peak, h.sender.cwnd);
            }
        }
        assertThat(c.reductions).as("three losses in one window, one halving").isEqualTo(1);
        // halved from the window at the moment of the loss, which grew a little within the last step
        assertThat(c.ssthresh()).isBetween(peak / 2, peak / 2 + 2);
        h.close();
    }
}
