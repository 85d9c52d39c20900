package org.railyard.engine.rma;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;
import org.railyard.types.Kind;
import org.railyard.types.Reduction;

/**
 * A block of an accumulate combined straight in a window's mapped memory: for each value,
 * {@code v = in[inOff + i] op v}, read from the origin's array and the memory and written back to
 * the memory, with no copy of the block. The result of every predefined operation and kind is the
 * one {@link Reduction#apply} gives on arrays (same operand order, same wrap-around of the narrow
 * integer kinds, char unsigned, booleans as 0 or 1, MAXLOC and MINLOC over (value, index) pairs);
 * a combination that {@code apply} rejects, or an operation it does not know, is left to the caller
 * ({@link #inPlace} returns false and touches nothing).
 *
 * <p>Each kind has a method of its own with one counted loop over the memory, the operation chosen
 * per value by a test that is the same for the whole loop: the integer kinds and booleans in long
 * arithmetic, float and double in their own (MIN and MAX of a block without NaN on the values' bits,
 * {@link RealExtremes}); MAXLOC and MINLOC compare pair by pair. A block of fewer than
 * {@link #SHORT_BLOCK} values takes one loop of its own for every kind instead ({@link #few}): the
 * JIT compiles a loop for the trip counts its profile saw, and a per-kind loop first run on blocks
 * of one or two values stays compiled for those, slow for every long block of that kind after
 * them (docs/rma.md, rma28). The caller
 * holds the target's accumulate lock exclusively ({@link SharedAccess}). The memory holds values
 * little endian at any alignment, as {@link Kind#wire} does.
 */
final class Combine {
    private static final ValueLayout.OfInt I32 = ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);
    private static final ValueLayout.OfLong I64 = ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);
    private static final ValueLayout.OfFloat F32 = ValueLayout.JAVA_FLOAT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);
    private static final ValueLayout.OfDouble F64 = ValueLayout.JAVA_DOUBLE_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);
    private static final ValueLayout.OfByte I8 = ValueLayout.JAVA_BYTE;
    private static final ValueLayout.OfShort I16 = ValueLayout.JAVA_SHORT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);
    private static final ValueLayout.OfChar U16 = ValueLayout.JAVA_CHAR_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);

    private static final int SUM = 0, PROD = 1, MIN = 2, MAX = 3, BAND = 4, BOR = 5, BXOR = 6, LAND = 7, LOR = 8,
            LXOR = 9, MAXLOC = 10, MINLOC = 11, OTHER = -1;
    /** The operations by their codes above. */
    private static final Reduction[] CODES = {Reduction.SUM, Reduction.PROD, Reduction.MIN, Reduction.MAX,
        Reduction.BAND, Reduction.BOR, Reduction.BXOR, Reduction.LAND, Reduction.LOR, Reduction.LXOR, Reduction.MAXLOC,
        Reduction.MINLOC};

    /** Blocks of fewer values than this are combined by {@link #few}, not by their kind's loop. */
    static final int SHORT_BLOCK = 16;

    private Combine() {
    }

    /**
     * Applies {@code len} values of {@code in} (a Java array of {@code k}, from {@code inOff}) to the
     * memory at byte {@code off} of {@code seg}; false, with nothing touched, for an operation or a
     * kind it does not take (the caller then combines a copy, where {@link Reduction#apply} reports
     * the mismatch). An origin array of floats or doubles is read through {@code view}, the
     * target's, used under its lock.
     */
    static boolean inPlace(MemorySegment seg, long off, Kind k, Reduction op, int len, Object in, int inOff,
                           ArrayView view) {
        if (op == RmaOps.REPLACE) {
            k.copyOut(in, inOff, 0, seg, off, (long) len * k.size);
            return true;
        }
        if (op == RmaOps.NO_OP) {
            return true;
        }
        int c = code(op);
        if (!takes(k, c)) {
            return false;
        }
        if (c == MAXLOC || c == MINLOC) {
            pairs(seg, off, k, c == MAXLOC, len, in, inOff);
            return true;
        }
        if (len < SHORT_BLOCK) {
            few(seg, off, k, c, len, in, inOff);
            return true;
        }
        switch (k) {
            case BYTE -> bytes(seg, off, c, len, (byte[]) in, inOff);
            case BOOLEAN -> booleans(seg, off, c, len, (boolean[]) in, inOff);
            case SHORT -> shorts(seg, off, c, len, (short[]) in, inOff);
            case CHAR -> chars(seg, off, c, len, (char[]) in, inOff);
            case INT -> ints(seg, off, c, len, (int[]) in, inOff);
            case LONG -> longs(seg, off, c, len, (long[]) in, inOff);
            case FLOAT -> floats(seg, off, c, len, (float[]) in, inOff, view);
            case DOUBLE -> doubles(seg, off, c, len, (double[]) in, inOff, view);
        }
        return true;
    }

    private static int code(Reduction op) {
        for (int c = 0; c < CODES.length; c++) {
            if (CODES[c] == op) {
                return c;
            }
        }
        return OTHER;
    }

    /** The kinds {@link Reduction#apply} takes for each predefined operation. */
    private static boolean takes(Kind k, int c) {
        return switch (c) {
            case SUM, PROD, MIN, MAX -> k != Kind.BOOLEAN;
            case BAND, BOR, BXOR -> k != Kind.FLOAT && k != Kind.DOUBLE;
            case LAND, LOR, LXOR -> k == Kind.BOOLEAN || k == Kind.INT || k == Kind.LONG || k == Kind.BYTE;
            case MAXLOC, MINLOC -> k == Kind.INT || k == Kind.LONG || k == Kind.SHORT || k == Kind.FLOAT
                    || k == Kind.DOUBLE;
            default -> false;
        };
    }

    // One method per kind, so that each loop is compiled with its own profile.

    private static void bytes(MemorySegment seg, long off, int c, int len, byte[] a, int o) {
        for (int i = 0; i < len; i++) { long at = off + i; seg.set(I8, at, (byte) f(c, a[o + i], seg.get(I8, at))); }
    }

    /** Booleans as 0 or 1 (any non-zero byte of the memory is true), stored as 0 or 1. */
    private static void booleans(MemorySegment seg, long off, int c, int len, boolean[] a, int o) {
        for (int i = 0; i < len; i++) {
            long at = off + i;
            seg.set(I8, at, (byte) f(c, a[o + i] ? 1 : 0, seg.get(I8, at) != 0 ? 1 : 0));
        }
    }

    private static void shorts(MemorySegment seg, long off, int c, int len, short[] a, int o) {
        for (int i = 0; i < len; i++) { long at = off + 2L * i; seg.set(I16, at, (short) f(c, a[o + i], seg.get(I16, at))); }
    }

    /** Unsigned. */
    private static void chars(MemorySegment seg, long off, int c, int len, char[] a, int o) {
        for (int i = 0; i < len; i++) { long at = off + 2L * i; seg.set(U16, at, (char) f(c, a[o + i], seg.get(U16, at))); }
    }

    private static void ints(MemorySegment seg, long off, int c, int len, int[] a, int o) {
        for (int i = 0; i < len; i++) { long at = off + 4L * i; seg.set(I32, at, (int) f(c, a[o + i], seg.get(I32, at))); }
    }

    private static void longs(MemorySegment seg, long off, int c, int len, long[] a, int o) {
        for (int i = 0; i < len; i++) { long at = off + 8L * i; seg.set(I64, at, f(c, a[o + i], seg.get(I64, at))); }
    }

    /**
     * In float arithmetic, as {@link Reduction#apply} does, not widened; MIN and MAX of a block
     * without NaN on the values' bits ({@link RealExtremes}).
     */
    private static void floats(MemorySegment seg, long off, int c, int len, float[] a, int o, ArrayView view) {
        if ((c == MIN || c == MAX) && RealExtremes.combine(seg, off, Float.BYTES, c == MAX, len, view.of(a), o)) {
            return;
        }
        for (int i = 0; i < len; i++) { long at = off + 4L * i; seg.set(F32, at, f(c, a[o + i], seg.get(F32, at))); }
    }

    private static void doubles(MemorySegment seg, long off, int c, int len, double[] a, int o, ArrayView view) {
        if ((c == MIN || c == MAX) && RealExtremes.combine(seg, off, Double.BYTES, c == MAX, len, view.of(a), o)) {
            return;
        }
        for (int i = 0; i < len; i++) { long at = off + 8L * i; seg.set(F64, at, f(c, a[o + i], seg.get(F64, at))); }
    }

    /**
     * A short block of any kind, value by value, with the results of the kinds' own loops: floats
     * and doubles in their own arithmetic (MIN and MAX as {@link Math#min} and {@link Math#max},
     * which {@link RealExtremes} gives bit for bit), the others in long arithmetic, stored narrowed.
     */
    private static void few(MemorySegment seg, long off, Kind k, int c, int len, Object in, int inOff) {
        for (int i = 0; i < len; i++) {
            long at = off + (long) k.size * i;
            switch (k) {
                case FLOAT -> seg.set(F32, at, f(c, ((float[]) in)[inOff + i], seg.get(F32, at)));
                case DOUBLE -> seg.set(F64, at, f(c, ((double[]) in)[inOff + i], seg.get(F64, at)));
                default -> store(seg, at, k, f(c, origin(k, in, inOff + i), load(seg, at, k)));
            }
        }
    }

    private static float f(int c, float x, float y) {
        return c == SUM ? x + y : c == PROD ? x * y : c == MIN ? Math.min(x, y) : Math.max(x, y);
    }

    private static double f(int c, double x, double y) {
        return c == SUM ? x + y : c == PROD ? x * y : c == MIN ? Math.min(x, y) : Math.max(x, y);
    }

    private static long f(int c, long x, long y) {
        return switch (c) {
            case SUM -> x + y;
            case PROD -> x * y;
            case MIN -> Math.min(x, y);
            case MAX -> Math.max(x, y);
            case BAND -> x & y;
            case BOR -> x | y;
            case BXOR -> x ^ y;
            case LAND -> x != 0 && y != 0 ? 1 : 0;
            case LOR -> x != 0 || y != 0 ? 1 : 0;
            default -> (x != 0) != (y != 0) ? 1 : 0;
        };
    }

    /**
     * MAXLOC (or MINLOC): the origin's (value, index) pair replaces the memory's when its value is
     * larger (smaller), or equal with a lower index; a last unpaired value is left alone.
     */
    private static void pairs(MemorySegment seg, long off, Kind k, boolean max, int len, Object in, int inOff) {
        boolean real = k == Kind.FLOAT || k == Kind.DOUBLE;
        for (int i = 0; i + 1 < len; i += 2) {
            long at = off + (long) k.size * i;
            boolean wins;
            if (real) {
                double v = real(k, in, inOff + i), w = loadReal(seg, at, k);
                wins = v == w ? real(k, in, inOff + i + 1) < loadReal(seg, at + k.size, k) : (max ? v > w : v < w);
            } else {
                long v = origin(k, in, inOff + i), w = load(seg, at, k);
                wins = v == w ? origin(k, in, inOff + i + 1) < load(seg, at + k.size, k) : (max ? v > w : v < w);
            }
            if (wins) {
                k.copyOut(in, inOff + i, 0, seg, at, 2L * k.size);
            }
        }
    }

    private static long origin(Kind k, Object in, int i) {
        return switch (k) {
            case BYTE -> ((byte[]) in)[i];
            case SHORT -> ((short[]) in)[i];
            case CHAR -> ((char[]) in)[i];
            case INT -> ((int[]) in)[i];
            case LONG -> ((long[]) in)[i];
            case BOOLEAN -> ((boolean[]) in)[i] ? 1 : 0;
            default -> throw new IllegalArgumentException("not an integer kind: " + k);
        };
    }

    private static long load(MemorySegment seg, long at, Kind k) {
        return switch (k) {
            case BYTE -> seg.get(I8, at);
            case SHORT -> seg.get(I16, at);
            case CHAR -> seg.get(U16, at);
            case INT -> seg.get(I32, at);
            case LONG -> seg.get(I64, at);
            case BOOLEAN -> seg.get(I8, at) != 0 ? 1 : 0;
            default -> throw new IllegalArgumentException("not an integer kind: " + k);
        };
    }

    private static void store(MemorySegment seg, long at, Kind k, long v) {
        switch (k) {
            case BYTE, BOOLEAN -> seg.set(I8, at, (byte) v);
            case SHORT -> seg.set(I16, at, (short) v);
            case CHAR -> seg.set(U16, at, (char) v);
            case INT -> seg.set(I32, at, (int) v);
            case LONG -> seg.set(I64, at, v);
            default -> throw new IllegalArgumentException("not an integer kind: " + k);
        }
    }

    private static double real(Kind k, Object in, int i) {
        return k == Kind.FLOAT ? ((float[]) in)[i] : ((double[]) in)[i];
    }

    private static double loadReal(MemorySegment seg, long at, Kind k) {
        return k == Kind.FLOAT ? seg.get(F32, at) : seg.get(F64, at);
    }
}
