package org.railyard.stack;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

/** WindCongCtrl (in a reliable flow, with a fixed congestion window) alone: never more in flight than the window. */
class WindCongCtrlTest {
    @Test
    void theSegmentsInFlightNeverExceedTheCongestionWindow() {
        Harness h = new Harness(List.of("SequencedSegment", "ReliableFIFO", "PositiveAck", "WindCongCtrl", "Retransmit",
                "TransportDrive"), StackSettings.defaults(), "drop=0.05,reorder=0.1,seed=9");
        h.sender.cwnd = 4;
        int sent = 0;
        long maxInFlight = 0;
        for (int steps = 0; steps < 100_000 && h.delivered.size() < 200; steps++) {
            while (sent < 200 && h.sender.writable(100)) {
                h.send(Harness.numbered(sent++, 100));
            }
            maxInFlight = Math.max(maxInFlight, h.sender.sndMax - h.sender.sndUna);
            h.step(20_000);
            maxInFlight = Math.max(maxInFlight, h.sender.sndMax - h.sender.sndUna);
        }
        assertThat(h.delivered).hasSize(200);
        assertThat(maxInFlight).isEqualTo(4);
        for (int i = 0; i < 200; i++) {
            assertThat(Harness.numberOf(h.delivered.get(i))).isEqualTo(i);
        }
        h.close();
    }

    @Test
    void itsQueueIsBoundedByTheWindowSetting() {
        StackSettings s = StackSettings.defaults();
        Harness h = new Harness(List.of("SequencedSegment", "WindCongCtrl", "Retransmit", "TransportDrive"), s, "drop=1.0");
        h.sender.cwnd = 2;
        int accepted = h.sendWhileWritable(0, 100);
        assertThat(accepted).isEqualTo(s.window() + 2);
        assertThat(h.sender.sndMax - h.sender.sndUna).isEqualTo(2);
        h.close();
    }
}
