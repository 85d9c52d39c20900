package org.railyard.testkit;

import java.util.Random;
import org.railyard.error.RailyardException;
import org.railyard.types.Kind;
import org.railyard.types.Reduction;

/**
 * Values of every kind for tests of reductions and accumulates: small ranges, so that MIN, MAX,
 * MAXLOC and MINLOC meet ties and the logical operations meet zeros, and the reference result of an
 * operation on arrays ({@link Reduction#apply}, what every path must agree with).
 */
public final class KindValues {
    private KindValues() {
    }

    /** {@code n} values of {@code k} drawn from about -3 to 3 (0 to 6 for char; booleans either way). */
    public static Object random(Kind k, int n, Random rnd) {
        Object a = k.newArray(n);
        for (int i = 0; i < n; i++) {
            int v = rnd.nextInt(7) - 3;
            switch (k) {
                case BYTE -> ((byte[]) a)[i] = (byte) v;
                case BOOLEAN -> ((boolean[]) a)[i] = v > 0;
                case CHAR -> ((char[]) a)[i] = (char) (v + 3);
                case SHORT -> ((short[]) a)[i] = (short) v;
                case INT -> ((int[]) a)[i] = v;
                case LONG -> ((long[]) a)[i] = (long) v << 33 | (v & 7);
                case FLOAT -> ((float[]) a)[i] = v * 0.5f;
                case DOUBLE -> ((double[]) a)[i] = v * 0.25;
            }
        }
        return a;
    }

    /** True if {@code op} applies to {@code k} (its {@link Reduction#apply} accepts it). */
    public static boolean accepts(Reduction op, Kind k) {
        try {
            op.apply(k, k.newArray(2), 0, k.newArray(2), 0, 2);
            return true;
        } catch (RailyardException e) {
            return false;
        }
    }

    /** {@code op} applied to copies: {@code in op target}, element by element, as a new array. */
    public static Object combined(Reduction op, Kind k, Object in, Object target, int n) {
        Object out = k.newArray(n);
        System.arraycopy(target, 0, out, 0, n);
        op.apply(k, in, 0, out, 0, n);
        return out;
    }
}
