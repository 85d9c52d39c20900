package org.railyard.stack;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

/** DCCPAck alone: the sender learns exactly which segments the network delivered and which it lost. */
class DccpAckTest {
    @Test
    void ackVectorsTellTheSenderExactlyWhatWasLostThroughReorderingAndLostAcks() {
        Harness h = new Harness(List.of("DCCPAck", "TransportDrive"), StackSettings.defaults(),
                "drop=0.08,reorder=0.1,seed=21");
        DccpAck d = h.sender.find(DccpAck.class);
        int n = 2000;
        h.sendNumbered(0, n, 100, 2_000);
        // a few more, loss-free, so the last lost ones have three successors acknowledged
        h.dataFaults.drop = 0;
        h.dataFaults.reorder = 0;
        h.ackFaults.drop = 0;
        h.sendNumbered(n, n + 8, 100, 2_000);
        h.runUntil(() -> h.inFlight() == 0, 100_000, 100);
        assertThat(h.dataFaults.dropped).isPositive();
        assertThat(h.ackFaults.dropped).isPositive();
        assertThat(d.lost).isEqualTo(h.dataFaults.dropped);
        assertThat(d.acked).isEqualTo(n + 8 - h.dataFaults.dropped);
        assertThat(h.sender.pipe).isZero();
        assertThat(h.delivered).hasSize((int) (n + 8 - h.dataFaults.dropped));
        h.close();
    }
}
