package org.railyard;

import static org.assertj.core.api.Assertions.assertThat;

import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Random;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.railyard.testkit.KindValues;
import org.railyard.types.Kind;

/**
 * A block accumulate and a block getAccumulate of every operation (the predefined ones with
 * MAXLOC and MINLOC, REPLACE and NO_OP) on every kind it applies to, at a misaligned place of the
 * target, against the reference ({@link org.railyard.types.Reduction#apply} on arrays): the
 * mapped path (allocated on shm, combined in place by the origin) and the remote one (tcp, by the
 * target).
 */
class WindowAccumulateKindsTest {
    private static final Op[] OPS = {Op.SUM, Op.PROD, Op.MIN, Op.MAX, Op.LAND, Op.LOR, Op.LXOR, Op.BAND, Op.BOR,
        Op.BXOR, Op.MAXLOC, Op.MINLOC, Op.REPLACE, Op.NO_OP};
    /** Values of a block: odd (a last unpaired value for MAXLOC and MINLOC). */
    private static final int LEN = 301;
    /** The byte of the target's part where the block starts: no kind's alignment. */
    private static final long DISP = 3;

    @ParameterizedTest
    @CsvSource({"shm,2", "tcp,2"})
    void everyOperationOnEveryKindMatchesTheReference(String transports, int n) throws Exception {
        WorldJob.run(n, transports, (w, me) -> {
            List<String> wrong = new ArrayList<>();
            try (Window win = Window.allocate(w, DISP + 8L * LEN, 1)) {
                for (Kind k : Kind.values()) {
                    for (Op op : OPS) {
                        if (!KindValues.accepts(op.reduction(), k)) {
                            continue;
                        }
                        Random rnd = new Random(31L * op.toString().hashCode() + k.ordinal());
                        Object start = KindValues.random(k, LEN, rnd);
                        Object first = KindValues.random(k, LEN, rnd);
                        Object second = KindValues.random(k, LEN, rnd);
                        Object afterFirst = KindValues.combined(op.reduction(), k, first, start, LEN);
                        Object afterBoth = KindValues.combined(op.reduction(), k, second, afterFirst, LEN);
                        MemorySegment mine = win.memory();
                        if (me == 0) {
                            k.copyOut(start, 0, 0, mine, DISP, (long) LEN * k.size);
                        }
                        win.fence();
                        Object fetched = k.newArray(LEN);
                        if (me == 1) {
                            win.lock(Window.LOCK_EXCLUSIVE, 0);
                            win.accumulate(first, 0, LEN, 0, DISP, op);
                            win.getAccumulate(second, 0, LEN, fetched, 0, 0, DISP, op);
                            win.unlock(0);
                        }
                        win.fence();
                        // a mismatch is noted, not thrown: the other rank would wait for this one's next fence
                        String what = op + " on " + k + " over " + transports;
                        if (me == 1 && !Objects.deepEquals(fetched, afterFirst)) {
                            wrong.add("fetched, " + what);
                        } else if (me == 0) {
                            Object now = k.newArray(LEN);
                            k.copyIn(mine, DISP, now, 0, 0, (long) LEN * k.size);
                            if (!Objects.deepEquals(now, afterBoth)) {
                                wrong.add(what);
                            }
                        }
                        win.fence();
                    }
                }
            }
            assertThat(wrong).as("combinations that differ from the reference at rank " + me).isEmpty();
        });
    }
}
