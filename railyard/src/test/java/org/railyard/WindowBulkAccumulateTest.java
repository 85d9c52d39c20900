package org.railyard;

import static org.assertj.core.api.Assertions.assertThat;

import java.lang.foreign.ValueLayout;
import java.util.Arrays;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Blocks of values accumulated by several origins at once into overlapping ranges of one target,
 * while fetchAndOp updates an element inside the ranges: on a mapped window every block is
 * combined in place under the target's accumulate lock; nothing may be lost or torn. Mapped (allocate on shm) and remote (tcp) windows.
 */
class WindowBulkAccumulateTest {
    private static final int LEN = 4096;
    private static final int SPAN = 2048;
    private static final int STEP = 512;
    private static final int ROUNDS = 60;
    /** Inside every origin's range. */
    private static final int HOT = 1800;

    private static long[] longs(Window win) {
        return win.memory().toArray(ValueLayout.JAVA_LONG);
    }

    @ParameterizedTest
    @CsvSource({"shm,4", "tcp,2"})
    void overlappingBlocksAndAConcurrentFetchAndOpEndExact(String transports, int n) throws Exception {
        WorldJob.run(n, transports, (w, me) -> {
            try (Window sums = Window.allocate(w, 8L * LEN, 8); Window reals = Window.allocate(w, 8L * LEN, 8);
                 Window others = Window.allocate(w, 16L * LEN, 8)) {
                long[] ones = new long[SPAN];
                Arrays.fill(ones, 1);
                double[] halves = new double[SPAN];
                Arrays.fill(halves, 0.5);
                // BOR: the bits of the origins whose range covers it
                long[] mine = new long[SPAN];
                Arrays.fill(mine, 1L << me);
                // REPLACE: one long whose halves name the same origin; a torn value has halves of two
                long whole = (long) (me + 1) << 32 | (me + 1);
                long[] replace = new long[SPAN];
                Arrays.fill(replace, whole);
                long[] one = {1};
                long[] top = {1L << 62};
                long[] fetched = new long[1];
                w.barrier();
                sums.lockAll();
                reals.lockAll();
                others.lockAll();
                int at = me * STEP;
                for (int i = 0; i < ROUNDS; i++) {
                    sums.accumulate(ones, 0, SPAN, 0, at, Op.SUM);
                    sums.fetchAndOp(one, 0, fetched, 0, Datatype.LONG, 0, HOT, Op.SUM);
                    reals.accumulate(halves, 0, SPAN, 0, at, Op.SUM);
                    others.accumulate(mine, 0, SPAN, 0, at, Op.BOR);
                    others.fetchAndOp(top, 0, fetched, 0, Datatype.LONG, 0, HOT, Op.BXOR);
                    others.accumulate(replace, 0, SPAN, 0, LEN, Op.REPLACE);
                    if (i % 8 == 0) {
                        sums.flush(0);
                    }
                }
                others.unlockAll();
                reals.unlockAll();
                sums.unlockAll();
                w.barrier();
                long[] s = me == 0 ? longs(sums) : null;
                double[] r = me == 0 ? reals.memory().toArray(ValueLayout.JAVA_DOUBLE) : null;
                long[] o = me == 0 ? longs(others) : null;
                w.barrier();
                if (me != 0) {
                    return;
                }
                for (int i = 0; i < LEN; i++) {
                    int covering = 0;
                    long bits = 0;
                    for (int q = 0; q < n; q++) {
                        boolean in = i >= q * STEP && i < q * STEP + SPAN;
                        covering += in ? 1 : 0;
                        bits |= in ? 1L << q : 0;
                    }
                    long expect = (long) covering * ROUNDS + (i == HOT ? (long) n * ROUNDS : 0);
                    assertThat(s[i]).as("SUM long %d over %s", i, transports).isEqualTo(expect);
                    assertThat(r[i]).as("SUM double %d over %s", i, transports).isEqualTo(covering * ROUNDS * 0.5);
                    // bit 62 of HOT is flipped n * ROUNDS times (an even count) by the fetchAndOps
                    assertThat(o[i]).as("BOR %d over %s", i, transports).isEqualTo(bits);
                }
                for (int i = 0; i < SPAN; i++) {
                    long v = o[LEN + i];
                    assertThat(v >>> 32).as("REPLACE %d whole", i).isEqualTo(v & 0xFFFFFFFFL);
                    assertThat(v & 0xFFFFFFFFL).as("REPLACE %d an origin's", i).isBetween(1L, (long) n);
                }
            }
        });
    }
}
