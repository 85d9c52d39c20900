package org.railyard.stack;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** DCCPWindCCtrl (with the DCCP-like protocols it needs) alone: pipe within the window, and the congestion timeout. */
class DccpWindCCtrlTest {
    @Test
    void thePipeNeverExceedsTheWindowAndTheQueueHoldsOneFrame() {
        Harness h = new Harness(Harness.DCCP_LIKE, StackSettings.defaults(), "drop=0.05,seed=4");
        h.delayNanos = 200_000;
        long maxPipe = 0;
        double maxWindow = 0;
        int sent = 0;
        for (int steps = 0; steps < 2000; steps++) {
            double w = h.sender.cwnd;
            long pipeBefore = h.sender.pipe;
            sent = h.sendWhileWritable(sent, 100);
            // sending only ever fills the pipe up to the window (a loss may shrink the window below
            // what is already in flight; that is not sending beyond it)
            if (h.sender.pipe > pipeBefore) {
                assertThat((double) h.sender.pipe).isLessThanOrEqualTo(Math.ceil(w));
            }
            maxPipe = Math.max(maxPipe, h.sender.pipe);
            maxWindow = Math.max(maxWindow, w);
            h.step(20_000);
        }
        assertThat((double) maxPipe).isLessThanOrEqualTo(Math.ceil(maxWindow));
        assertThat(sent).isGreaterThan(500);
        // queue capacity: ceil(frame limit / datagram payload) segments
        assertThat(h.sender.find(DccpWindCCtrl.class).drained()).isFalse();
        h.close();
    }

    @Test
    void whenNoAcknowledgementComesBackTheWindowRestartsAfterTheCongestionTimeout() {
        StackSettings s = StackSettings.defaults();
        Harness h = new Harness(Harness.DCCP_LIKE, s, "");
        h.sendNumbered(0, 20, 100, 100_000);
        h.ackFaults.drop = 1.0;
        // the acknowledgements already in the network arrive: the last progress the sender sees
        h.step(100_000);
        for (int i = 0; i < 40; i++) {
            if (h.sender.writable(100)) {
                h.send(Harness.numbered(i, 100));
            }
        }
        DccpWindCCtrl w = h.sender.find(DccpWindCCtrl.class);
        h.step(s.congestionTimeout().toNanos() - 1_000);
        assertThat(w.timeouts).isZero();
        h.step(2_000);
        assertThat(w.timeouts).isEqualTo(1);
        assertThat(h.sender.cwnd).isEqualTo(1.0);
        assertThat(h.sender.pipe).isLessThanOrEqualTo(1);
        h.close();
    }
}
