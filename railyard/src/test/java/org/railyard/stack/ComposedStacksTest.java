package org.railyard.stack;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Random;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/** Every unreliable-transport composition of the composer, whole, over loss, duplication and reordering. */
class ComposedStacksTest {
    private static final String FAULTS = "drop=0.05,reorder=0.05,dup=0.01,seed=";

    @ParameterizedTest
    @EnumSource(Locality.class)
    void theSynchronousCompositionDeliversEveryFrameOnceInOrder(Locality l) {
        Harness h = new Harness(Composer.composition(new Context(Scheme.SYNC, l, false)), StackSettings.defaults(), 512,
                8192, FAULTS + l.ordinal());
        Random sizes = new Random(l.ordinal());
        int n = 300;
        int sent = 0;
        for (int steps = 0; steps < 100_000 && h.delivered.size() < n; steps++) {
            int size = 8 + sizes.nextInt(6000);
            while (sent < n && h.sender.writable(size)) {
                h.send(Harness.numbered(sent++, size));
                size = 8 + sizes.nextInt(6000);
            }
            h.step(50_000);
        }
        assertThat(h.delivered).hasSize(n);
        for (int i = 0; i < n; i++) {
            assertThat(Harness.numberOf(h.delivered.get(i))).isEqualTo(i);
        }
        assertThat(h.runUntil(h.sender::drained, 100_000, 10_000)).isTrue();
        assertThat(h.dataFaults.dropped).isPositive();
        h.close();
        assertThat(h.poolA.outstanding()).isZero();
        assertThat(h.poolB.outstanding()).isZero();
    }

    @ParameterizedTest
    @EnumSource(Locality.class)
    void theAsynchronousCompositionDeliversEachFlowForwardAndItsNewestValue(Locality l) {
        Harness h = new Harness(Composer.composition(new Context(Scheme.ASYNC, l, false)), StackSettings.defaults(), 512,
                8192, FAULTS + l.ordinal());
        long[] last = new long[4];
        int values = 2000;
        for (long seq = 1; seq <= values; seq++) {
            h.send(Harness.value((int) (seq % 4), seq, 300));
            h.step(10_000);
        }
        // the network heals: a last value per flow must get through
        h.dataFaults.drop = 0;
        for (long seq = values + 1; seq <= values + 4; seq++) {
            h.send(Harness.value((int) (seq % 4), seq, 300));
        }
        h.runUntil(() -> h.inFlight() == 0 && h.sender.drained(), 100_000, 10_000);
        for (byte[] f : h.delivered) {
            long seq = Harness.seqOf(f);
            int flow = (int) (seq % 4);
            assertThat(seq).isGreaterThan(last[flow]);
            last[flow] = seq;
        }
        assertThat(last).containsExactlyInAnyOrder(values + 1L, values + 2L, values + 3L, values + 4L);
        assertThat(h.delivered.size()).isLessThan(values + 4);
        h.close();
        assertThat(h.poolA.outstanding()).isZero();
        assertThat(h.poolB.outstanding()).isZero();
    }
}
