package org.railyard.engine;

import org.railyard.error.ErrorClass;
import org.railyard.error.RailyardException;

/**
 * A reduction operation over arrays of one {@link Kind}: {@code inout[i] = in[i] (op) inout[i]}.
 * The left operand {@code in} always comes from lower ranks, so non-commutative operations see
 * the rank order MPI prescribes.
 */
public abstract class Reduction {
    private final String name;
    private final boolean commutative;

    protected Reduction(String name, boolean commutative) {
        this.name = name;
        this.commutative = commutative;
    }

    public final String name() {
        return name;
    }

    public final boolean commutative() {
        return commutative;
    }

    /**
     * Combines {@code count} elements: {@code inout[ioOff + i] = in[inOff + i] op inout[ioOff + i]}.
     * Both arrays are Java primitive arrays of {@code kind}.
     */
    public abstract void apply(Kind kind, Object in, int inOff, Object inout, int ioOff, int count);

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
}
