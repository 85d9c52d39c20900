package org.railyard.stack;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Asynchronous alone: the newest value wins at both ends, and nothing builds up. */
class AsynchronousTest {
    private static final List<String> ALONE = List.of("Asynchronous", "Resize", "TransportDrive");

    @Test
    void whileThePathIsFullNewerValuesReplaceWaitingOnesAndOnlyTheNewestGoesWhenItOpens() {
        Harness h = new Harness(ALONE, StackSettings.defaults(), "");
        h.aWritable = false;
        assertThat(h.sender.writable(100)).as("Asynchronous never refuses").isTrue();
        for (long seq = 1; seq <= 50; seq++) {
            h.send(Harness.value(1, seq, 40));
            h.send(Harness.value(2, seq, 40));
        }
        Asynchronous a = h.sender.find(Asynchronous.class);
        assertThat(a.waiting()).as("one waiting value per flow").isEqualTo(2);
        assertThat(h.sender.superseded).isEqualTo(98);
        h.aWritable = true;
        h.runUntil(() -> h.delivered.size() == 2, 100_000, 10);
        List<Long> got = new ArrayList<>();
        h.delivered.forEach(f -> got.add(Harness.seqOf(f)));
        assertThat(got).containsExactly(50L, 50L);
        h.close();
    }

    @Test
    void staleAndDuplicateValuesAreDroppedOnArrivalSoEachFlowOnlyMovesForward() {
        Harness h = new Harness(ALONE, StackSettings.defaults(), "dup=0.2,reorder=0.3,seed=5");
        for (long seq = 1; seq <= 400; seq++) {
            h.send(Harness.value((int) (seq % 3), seq, 20));
            h.step(5_000);
        }
        h.runUntil(() -> h.inFlight() == 0, 100_000, 100);
        long[] last = new long[3];
        for (byte[] f : h.delivered) {
            long seq = Harness.seqOf(f);
            int flow = (int) (seq % 3);
            assertThat(seq).as("flow %d", flow).isGreaterThan(last[flow]);
            last[flow] = seq;
        }
        assertThat(h.dataFaults.duplicated + h.dataFaults.reordered).isPositive();
        assertThat(h.receiver.stale).isPositive();
        assertThat(last).containsExactly(399, 400, 398);
        h.close();
        assertThat(h.poolA.outstanding()).isZero();
        assertThat(h.poolB.outstanding()).isZero();
    }
}
