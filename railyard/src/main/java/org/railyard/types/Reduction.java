package org.railyard.types;

import org.railyard.error.ErrorClass;
import org.railyard.error.RailyardException;

/**
 * A reduction operation over arrays of one {@link Kind}: {@code inout[i] = in[i] (op) inout[i]}.
 * The left operand {@code in} always comes from lower ranks, so non-commutative operations see
 * the rank order MPI prescribes: every collective algorithm either keeps that order or is not
 * chosen for a non-commutative operation (see {@link Collectives}).
 *
 * <p>An operation works on <em>items</em> of {@link #width()} consecutive elements: 1 for the
 * arithmetic operations, 2 for {@link #MAXLOC} and {@link #MINLOC}, whose items are (value, index)
 * pairs interleaved in one primitive array. Counts passed to a reduction collective are in
 * elements and must be a multiple of the width; algorithms that split a vector into blocks split
 * it only between items.
 *
 * <p>User-defined operations: {@link #of} wraps a function, or a subclass overrides {@link #apply}.
 * {@code apply} is called by the thread driving progress, under the engine's progress lock: it
 * must be quick, must not call the library, and must not keep references to its arrays.
 */
public abstract class Reduction {
    private final String name;
    private final boolean commutative;
    private final int width;

    protected Reduction(String name, boolean commutative) {
        this(name, commutative, 1);
    }

    /** An operation on items of {@code width} elements (2 for a pair operation such as MAXLOC). */
    protected Reduction(String name, boolean commutative, int width) {
        if (width < 1) {
            throw new RailyardException(ErrorClass.OP, "operation " + name + ": item width " + width + " must be at least 1");
        }
        this.name = name;
        this.commutative = commutative;
        this.width = width;
    }

    public final String name() {
        return name;
    }

    public final boolean commutative() {
        return commutative;
    }

    /** Elements per item; a collective never splits an item between two blocks. */
    public final int width() {
        return width;
    }

    /**
     * Combines {@code count} elements: {@code inout[ioOff + i] = in[inOff + i] op inout[ioOff + i]}.
     * Both arrays are Java primitive arrays of {@code kind}; {@code count} and both offsets are
     * multiples of {@link #width()}.
     */
    public abstract void apply(Kind kind, Object in, int inOff, Object inout, int ioOff, int count);

    /** The body of a user-defined operation; same contract as {@link Reduction#apply}. */
    @FunctionalInterface
    public interface Function {
        void apply(Kind kind, Object in, int inOff, Object inout, int ioOff, int count);
    }

    /**
     * A user-defined operation. A non-commutative one is applied in rank order
     * ({@code in} from the lower ranks); it must still be associative, as in MPI.
     */
    public static Reduction of(String name, boolean commutative, int width, Function f) {
        java.util.Objects.requireNonNull(f, "function");
        return new Reduction(name, commutative, width) {
            @Override
            public void apply(Kind kind, Object in, int inOff, Object inout, int ioOff, int count) {
                f.apply(kind, in, inOff, inout, ioOff, count);
            }
        };
    }

    @Override
    public String toString() {
        return name;
    }

    protected final RailyardException unsupported(Kind kind) {
        return new RailyardException(ErrorClass.OP, "operation " + name + " does not apply to datatype " + kind);
    }

    /** The predefined arithmetic and logical operations. */
    public static final Reduction SUM = new Arith("SUM", 0);
    public static final Reduction PROD = new Arith("PROD", 1);
    public static final Reduction MIN = new Arith("MIN", 2);
    public static final Reduction MAX = new Arith("MAX", 3);
    public static final Reduction LAND = new Logic("LAND", 0);
    public static final Reduction LOR = new Logic("LOR", 1);
    public static final Reduction LXOR = new Logic("LXOR", 2);
    public static final Reduction BAND = new Bits("BAND", 0);
    public static final Reduction BOR = new Bits("BOR", 1);
    public static final Reduction BXOR = new Bits("BXOR", 2);
    /** (value, index) pairs: the largest value, and on a tie the lower index. */
    public static final Reduction MAXLOC = new Loc("MAXLOC", true);
    /** (value, index) pairs: the smallest value, and on a tie the lower index. */
    public static final Reduction MINLOC = new Loc("MINLOC", false);

    private static final class Arith extends Reduction {
        private final int op;

        Arith(String name, int op) {
            super(name, true);
            this.op = op;
        }

        @Override
        public void apply(Kind kind, Object in, int inOff, Object inout, int ioOff, int n) {
            switch (kind) {
                case DOUBLE -> {
                    double[] a = (double[]) in, b = (double[]) inout;
                    for (int i = 0; i < n; i++) {
                        double x = a[inOff + i], y = b[ioOff + i];
                        b[ioOff + i] = switch (op) { case 0 -> x + y; case 1 -> x * y; case 2 -> Math.min(x, y); default -> Math.max(x, y); };
                    }
                }
                case FLOAT -> {
                    float[] a = (float[]) in, b = (float[]) inout;
                    for (int i = 0; i < n; i++) {
                        float x = a[inOff + i], y = b[ioOff + i];
                        b[ioOff + i] = switch (op) { case 0 -> x + y; case 1 -> x * y; case 2 -> Math.min(x, y); default -> Math.max(x, y); };
                    }
                }
                case LONG -> {
                    long[] a = (long[]) in, b = (long[]) inout;
                    for (int i = 0; i < n; i++) {
                        long x = a[inOff + i], y = b[ioOff + i];
                        b[ioOff + i] = switch (op) { case 0 -> x + y; case 1 -> x * y; case 2 -> Math.min(x, y); default -> Math.max(x, y); };
                    }
                }
                case INT -> {
                    int[] a = (int[]) in, b = (int[]) inout;
                    for (int i = 0; i < n; i++) {
                        int x = a[inOff + i], y = b[ioOff + i];
                        b[ioOff + i] = switch (op) { case 0 -> x + y; case 1 -> x * y; case 2 -> Math.min(x, y); default -> Math.max(x, y); };
                    }
                }
                case SHORT -> {
                    short[] a = (short[]) in, b = (short[]) inout;
                    for (int i = 0; i < n; i++) {
                        int x = a[inOff + i], y = b[ioOff + i];
                        b[ioOff + i] = (short) switch (op) { case 0 -> x + y; case 1 -> x * y; case 2 -> Math.min(x, y); default -> Math.max(x, y); };
                    }
                }
                case BYTE -> {
                    byte[] a = (byte[]) in, b = (byte[]) inout;
                    for (int i = 0; i < n; i++) {
                        int x = a[inOff + i], y = b[ioOff + i];
                        b[ioOff + i] = (byte) switch (op) { case 0 -> x + y; case 1 -> x * y; case 2 -> Math.min(x, y); default -> Math.max(x, y); };
                    }
                }
                case CHAR -> {
                    char[] a = (char[]) in, b = (char[]) inout;
                    for (int i = 0; i < n; i++) {
                        int x = a[inOff + i], y = b[ioOff + i];
                        b[ioOff + i] = (char) switch (op) { case 0 -> x + y; case 1 -> x * y; case 2 -> Math.min(x, y); default -> Math.max(x, y); };
                    }
                }
                case BOOLEAN -> throw unsupported(kind);
            }
        }
    }

    private static final class Logic extends Reduction {
        private final int op;

        Logic(String name, int op) {
            super(name, true);
            this.op = op;
        }

        private boolean f(boolean x, boolean y) {
            return switch (op) { case 0 -> x && y; case 1 -> x || y; default -> x ^ y; };
        }

        @Override
        public void apply(Kind kind, Object in, int inOff, Object inout, int ioOff, int n) {
            switch (kind) {
                case BOOLEAN -> {
                    boolean[] a = (boolean[]) in, b = (boolean[]) inout;
                    for (int i = 0; i < n; i++) {
                        b[ioOff + i] = f(a[inOff + i], b[ioOff + i]);
                    }
                }
                case INT -> {
                    int[] a = (int[]) in, b = (int[]) inout;
                    for (int i = 0; i < n; i++) {
                        b[ioOff + i] = f(a[inOff + i] != 0, b[ioOff + i] != 0) ? 1 : 0;
                    }
                }
                case LONG -> {
                    long[] a = (long[]) in, b = (long[]) inout;
                    for (int i = 0; i < n; i++) {
                        b[ioOff + i] = f(a[inOff + i] != 0, b[ioOff + i] != 0) ? 1 : 0;
                    }
                }
                case BYTE -> {
                    byte[] a = (byte[]) in, b = (byte[]) inout;
                    for (int i = 0; i < n; i++) {
                        b[ioOff + i] = (byte) (f(a[inOff + i] != 0, b[ioOff + i] != 0) ? 1 : 0);
                    }
                }
                default -> throw unsupported(kind);
            }
        }
    }

    private static final class Bits extends Reduction {
        private final int op;

        Bits(String name, int op) {
            super(name, true);
            this.op = op;
        }

        private long f(long x, long y) {
            return switch (op) { case 0 -> x & y; case 1 -> x | y; default -> x ^ y; };
        }

        @Override
        public void apply(Kind kind, Object in, int inOff, Object inout, int ioOff, int n) {
            switch (kind) {
                case INT -> {
                    int[] a = (int[]) in, b = (int[]) inout;
                    for (int i = 0; i < n; i++) {
                        b[ioOff + i] = (int) f(a[inOff + i], b[ioOff + i]);
                    }
                }
                case LONG -> {
                    long[] a = (long[]) in, b = (long[]) inout;
                    for (int i = 0; i < n; i++) {
                        b[ioOff + i] = f(a[inOff + i], b[ioOff + i]);
                    }
                }
                case SHORT -> {
                    short[] a = (short[]) in, b = (short[]) inout;
                    for (int i = 0; i < n; i++) {
                        b[ioOff + i] = (short) f(a[inOff + i], b[ioOff + i]);
                    }
                }
                case BYTE -> {
                    byte[] a = (byte[]) in, b = (byte[]) inout;
                    for (int i = 0; i < n; i++) {
                        b[ioOff + i] = (byte) f(a[inOff + i], b[ioOff + i]);
                    }
                }
                case CHAR -> {
                    char[] a = (char[]) in, b = (char[]) inout;
                    for (int i = 0; i < n; i++) {
                        b[ioOff + i] = (char) f(a[inOff + i], b[ioOff + i]);
                    }
                }
                case BOOLEAN -> {
                    boolean[] a = (boolean[]) in, b = (boolean[]) inout;
                    for (int i = 0; i < n; i++) {
                        b[ioOff + i] = f(a[inOff + i] ? 1 : 0, b[ioOff + i] ? 1 : 0) != 0;
                    }
                }
                default -> throw unsupported(kind);
            }
        }
    }

    /**
     * MAXLOC and MINLOC over (value, index) pairs interleaved in one array of INT, LONG, SHORT,
     * FLOAT or DOUBLE (the index has the value's type, as in the mpiJava pair datatypes). The
     * tie rule makes the operation commutative, so every algorithm may use it.
     */
    private static final class Loc extends Reduction {
        private final boolean max;

        Loc(String name, boolean max) {
            super(name, true, 2);
            this.max = max;
        }

        /** True if the {@code in} pair wins over the {@code inout} pair. */
        private boolean wins(double v, double i, double w, double j) {
            return v == w ? i < j : (max ? v > w : v < w);
        }

        private boolean wins(long v, long i, long w, long j) {
            return v == w ? i < j : (max ? v > w : v < w);
        }

        /** True if the pair at {@code in[x]} wins over the pair at {@code inout[y]}. */
        private boolean winsAt(Kind kind, Object in, int x, Object inout, int y) {
            return switch (kind) {
                case INT -> {
                    int[] a = (int[]) in, b = (int[]) inout;
                    yield wins(a[x], a[x + 1], b[y], b[y + 1]);
                }
                case LONG -> {
                    long[] a = (long[]) in, b = (long[]) inout;
                    yield wins(a[x], a[x + 1], b[y], b[y + 1]);
                }
                case SHORT -> {
                    short[] a = (short[]) in, b = (short[]) inout;
                    yield wins(a[x], a[x + 1], b[y], b[y + 1]);
                }
                case DOUBLE -> {
                    double[] a = (double[]) in, b = (double[]) inout;
                    yield wins(a[x], a[x + 1], b[y], b[y + 1]);
                }
                case FLOAT -> {
                    float[] a = (float[]) in, b = (float[]) inout;
                    yield wins(a[x], a[x + 1], b[y], b[y + 1]);
                }
                default -> throw unsupported(kind);
            };
        }

        @Override
        public void apply(Kind kind, Object in, int inOff, Object inout, int ioOff, int n) {
            for (int i = 0; i + 1 < n; i += 2) {
                if (winsAt(kind, in, inOff + i, inout, ioOff + i)) {
                    System.arraycopy(in, inOff + i, inout, ioOff + i, 2);
                }
            }
        }
    }
}
