package org.railyard.engine.rma;

import static org.assertj.core.api.Assertions.assertThat;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.railyard.testkit.KindValues;
import org.railyard.types.Kind;
import org.railyard.types.Reduction;

/**
 * {@link Combine} against the reference, {@link Reduction#apply} on arrays: every predefined
 * operation, REPLACE and NO_OP, on every kind, at an aligned and a misaligned place, in place in
 * the memory; a combination {@code apply} rejects is declined with the memory untouched. MIN and
 * MAX of float and double also against every pair of the values where their rules bite (NaN of
 * either sign, -0.0 and +0.0, the infinities, the extremes), bit for bit.
 */
class CombineTest {
    private static final Reduction[] OPS = {Reduction.SUM, Reduction.PROD, Reduction.MIN, Reduction.MAX,
        Reduction.LAND, Reduction.LOR, Reduction.LXOR, Reduction.BAND, Reduction.BOR, Reduction.BXOR,
        Reduction.MAXLOC, Reduction.MINLOC, RmaOps.REPLACE, RmaOps.NO_OP};
    /** Odd, so that MAXLOC and MINLOC leave a last unpaired value, and longer than a vector. */
    private static final int N = 1001;

    /** Every operation and kind, at an aligned and an odd byte, as a long block and a short one ({@link Combine#few}). */
    static Stream<Arguments> cases() {
        List<Arguments> all = new ArrayList<>();
        for (Reduction op : OPS) {
            for (Kind k : Kind.values()) {
                for (long at : new long[] {0, 3}) {
                    for (int n : new int[] {N, Combine.SHORT_BLOCK - 1}) {
                        all.add(Arguments.of(op, k, at, n));
                    }
                }
            }
        }
        return all.stream();
    }

    @ParameterizedTest(name = "{0} {1} at byte {2}, {3} values")
    @MethodSource("cases")
    void combinesInPlaceAsTheReferenceDoesOrDeclinesUntouched(Reduction op, Kind k, long at, int n) {
        Random rnd = new Random(31L * op.name().hashCode() + k.ordinal() + n);
        Object target = KindValues.random(k, n, rnd);
        Object in = KindValues.random(k, n + 5, rnd);
        int inOff = 5;
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment seg = arena.allocate(at + (long) n * k.size + 16, 8);
            k.copyOut(target, 0, 0, seg, at, (long) n * k.size);
            Object inView = k.newArray(n);
            System.arraycopy(in, inOff, inView, 0, n);
            boolean took = Combine.inPlace(seg, at, k, op, n, in, inOff, new ArrayView());
            Object now = k.newArray(n);
            k.copyIn(seg, at, now, 0, 0, (long) n * k.size);
            if (KindValues.accepts(op, k)) {
                assertThat(took).as("every combination apply takes is combined in place").isTrue();
                assertThat(now).isEqualTo(KindValues.combined(op, k, inView, target, n));
            } else {
                assertThat(took).isFalse();
                assertThat(now).isEqualTo(target);
            }
        }
    }

    /** Where MIN and MAX of reals have rules of their own; the NaN of 0.0 / 0.0 on x86 has its sign bit set. */
    private static final double[] SPECIAL = {-0.0, 0.0, Double.POSITIVE_INFINITY, Double.NEGATIVE_INFINITY, 1.5, -1.5,
        Double.MAX_VALUE, -Double.MAX_VALUE, Double.MIN_VALUE, -Double.MIN_VALUE, 3.0e38, -3.0e38, 1.0e-40};
    private static final double NEGATIVE_NAN = Double.longBitsToDouble(0xfff8_0000_0000_0000L);

    static Stream<Arguments> extremes() {
        List<Arguments> all = new ArrayList<>();
        for (Reduction op : new Reduction[] {Reduction.MIN, Reduction.MAX}) {
            for (Kind k : new Kind[] {Kind.FLOAT, Kind.DOUBLE}) {
                for (long at : new long[] {0, 3}) {
                    for (String nan : new String[] {"none", "origin", "memory", "both"}) {
                        all.add(Arguments.of(op, k, at, nan));
                    }
                }
            }
        }
        return all.stream();
    }

    /**
     * Every ordered pair of {@link #SPECIAL} (origin value, memory value) as one block, and a NaN of
     * either sign on the side named: the block's result is {@code apply}'s, bit for bit where it is
     * not NaN, NaN where it is.
     */
    @ParameterizedTest(name = "{0} {1} at byte {2}, NaN in {3}")
    @MethodSource("extremes")
    void minAndMaxOfRealsKeepNanZeroSignAndInfinities(Reduction op, Kind k, long at, String nan) {
        int m = SPECIAL.length;
        int n = m * m + (nan.equals("none") ? 0 : 4);
        double[] x = new double[n];
        double[] y = new double[n];
        for (int i = 0; i < m * m; i++) {
            x[i] = SPECIAL[i / m];
            y[i] = SPECIAL[i % m];
        }
        for (int i = m * m; i < n; i++) { // NaN of each sign against a value, and against a NaN of the other side
            double v = i % 2 == 0 ? Double.NaN : NEGATIVE_NAN;
            double w = i - m * m < 2 ? -0.0 : Double.POSITIVE_INFINITY;
            x[i] = nan.equals("origin") || nan.equals("both") ? v : w;
            y[i] = nan.equals("memory") || nan.equals("both") ? (i % 2 == 0 ? NEGATIVE_NAN : Double.NaN) : w;
        }
        Object in = k == Kind.FLOAT ? floats(x) : x;
        Object target = k == Kind.FLOAT ? floats(y) : y;
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment seg = arena.allocate(at + (long) n * k.size + 16, 8);
            k.copyOut(target, 0, 0, seg, at, (long) n * k.size);
            assertThat(Combine.inPlace(seg, at, k, op, n, in, 0, new ArrayView())).isTrue();
            Object now = k.newArray(n);
            k.copyIn(seg, at, now, 0, 0, (long) n * k.size);
            Object want = KindValues.combined(op, k, in, target, n);
            for (int i = 0; i < n; i++) {
                double got = k == Kind.FLOAT ? ((float[]) now)[i] : ((double[]) now)[i];
                double ref = k == Kind.FLOAT ? ((float[]) want)[i] : ((double[]) want)[i];
                String pair = op.name() + "(" + (k == Kind.FLOAT ? (float) x[i] : x[i]) + ", "
                        + (k == Kind.FLOAT ? (float) y[i] : y[i]) + ")";
                if (Double.isNaN(ref)) {
                    assertThat(got).as(pair).isNaN();
                } else if (k == Kind.FLOAT) {
                    assertThat(Float.floatToRawIntBits(((float[]) now)[i])).as(pair)
                            .isEqualTo(Float.floatToRawIntBits(((float[]) want)[i]));
                } else {
                    assertThat(Double.doubleToRawLongBits(got)).as(pair).isEqualTo(Double.doubleToRawLongBits(ref));
                }
            }
        }
    }

    /** A block with a NaN on either side is left to Math.min and Math.max, nothing written; one without is taken. */
    @Test
    void theBitPathDeclinesBlocksWithNanUntouched() {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment seg = arena.allocate(64, 8);
            seg.set(java.lang.foreign.ValueLayout.JAVA_DOUBLE_UNALIGNED, 8, NEGATIVE_NAN);
            MemorySegment before = arena.allocate(64, 8).copyFrom(seg);
            assertThat(RealExtremes.combine(seg, 0, 8, true, 4, MemorySegment.ofArray(new double[] {1, 2, 3, 4}), 0)).isFalse();
            assertThat(RealExtremes.combine(seg, 4, 4, false, 4, MemorySegment.ofArray(new float[] {1, 2, 3, 4}), 0)).isFalse();
            assertThat(RealExtremes.combine(seg, 16, 8, false, 3, MemorySegment.ofArray(new double[] {9, 0, 1, Double.NaN, 2}), 1)).isFalse();
            assertThat(seg.mismatch(before)).isEqualTo(-1);
            assertThat(RealExtremes.combine(seg, 16, 8, true, 4, MemorySegment.ofArray(new double[] {0, 1, 2, 3}), 0)).isTrue();
        }
    }

    private static float[] floats(double[] d) {
        float[] f = new float[d.length];
        for (int i = 0; i < d.length; i++) {
            f[i] = Double.doubleToRawLongBits(d[i]) == Double.doubleToRawLongBits(NEGATIVE_NAN)
                    ? Float.intBitsToFloat(0xffc0_0000) : (float) d[i];
        }
        return f;
    }
}
