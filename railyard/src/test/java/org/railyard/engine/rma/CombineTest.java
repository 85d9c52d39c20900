package org.railyard.engine.rma;

import static org.assertj.core.api.Assertions.assertThat;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.railyard.testkit.KindValues;
import org.railyard.types.Kind;
import org.railyard.types.Reduction;

/**
 * {@link Combine} against the reference, {@link Reduction#apply} on arrays: every predefined
 * operation, REPLACE and NO_OP, on every kind, at an aligned and a misaligned place, in place in
 * the memory; a combination {@code apply} rejects is declined with the memory untouched.
 */
class CombineTest {
    private static final Reduction[] OPS = {Reduction.SUM, Reduction.PROD, Reduction.MIN, Reduction.MAX,
        Reduction.LAND, Reduction.LOR, Reduction.LXOR, Reduction.BAND, Reduction.BOR, Reduction.BXOR,
        Reduction.MAXLOC, Reduction.MINLOC, RmaOps.REPLACE, RmaOps.NO_OP};
    /** Odd, so that MAXLOC and MINLOC leave a last unpaired value, and longer than a vector. */
    private static final int N = 1001;

    static Stream<Arguments> cases() {
        List<Arguments> all = new ArrayList<>();
        for (Reduction op : OPS) {
            for (Kind k : Kind.values()) {
                for (long at : new long[] {0, 3}) {
                    all.add(Arguments.of(op, k, at));
                }
            }
        }
        return all.stream();
    }

    @ParameterizedTest(name = "{0} {1} at byte {2}")
    @MethodSource("cases")
    void combinesInPlaceAsTheReferenceDoesOrDeclinesUntouched(Reduction op, Kind k, long at) {
        Random rnd = new Random(31L * op.name().hashCode() + k.ordinal());
        Object target = KindValues.random(k, N, rnd);
        Object in = KindValues.random(k, N + 5, rnd);
        int inOff = 5;
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment seg = arena.allocate(at + (long) N * k.size + 16, 8);
            k.copyOut(target, 0, 0, seg, at, (long) N * k.size);
            Object inView = k.newArray(N);
            System.arraycopy(in, inOff, inView, 0, N);
            boolean took = Combine.inPlace(seg, at, k, op, N, in, inOff);
            Object now = k.newArray(N);
            k.copyIn(seg, at, now, 0, 0, (long) N * k.size);
            if (KindValues.accepts(op, k)) {
                assertThat(took).as("every combination apply takes is combined in place").isTrue();
                assertThat(now).isEqualTo(KindValues.combined(op, k, inView, target, N));
            } else {
                assertThat(took).isFalse();
                assertThat(now).isEqualTo(target);
            }
        }
    }
}
