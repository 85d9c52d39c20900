package org.railyard.engine.rma;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;

/**
 * MIN and MAX of a block of floats or doubles combined in place on their bits, in integer
 * arithmetic, with the results of {@link Math#min} and {@link Math#max} bit for bit.
 *
 * <p>The rule: a real's bits {@code b} (as a signed int or long) map to the key
 * {@code b ^ ((b >> w-1) >>> 1)}, which keeps the bits of a positive value and flips all but the
 * sign of a negative one. Over values that are not NaN the signed order of the keys is the order
 * {@code Math.min} and {@code Math.max} follow, -0.0 below +0.0 included, and the map is its own
 * inverse; so the larger (smaller) of two such values is the one of the larger (smaller) key, a
 * max (min) of integers the JIT compiles to vector instructions. NaN is outside that order: a block
 * in which either side holds a NaN is declined before anything is written, and the caller combines
 * it with {@code Math.min} or {@code Math.max}, which return the first NaN operand.
 *
 * <p>The memory holds values little endian at any alignment, as {@link Combine} takes it; the
 * origin's array is read through a segment over all of it ({@link ArrayView}), in the platform's
 * order. The caller holds the target's accumulate lock exclusively.
 */
final class RealExtremes {
    private static final ValueLayout.OfInt I32 = ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);
    private static final ValueLayout.OfLong I64 = ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);
    private static final ValueLayout.OfInt ARRAY_I32 = ValueLayout.JAVA_INT_UNALIGNED;
    private static final ValueLayout.OfLong ARRAY_I64 = ValueLayout.JAVA_LONG_UNALIGNED;
    /** The bits of +infinity: a value whose bits without the sign are above them is NaN. */
    private static final int INF32 = 0x7f80_0000;
    private static final long INF64 = 0x7ff0_0000_0000_0000L;

    private RealExtremes() {
    }

    /**
     * {@code v = max(a[o + i], v)} (or min) for {@code len} values of {@code size} bytes (4: floats,
     * 8: doubles) of the memory at {@code off}, {@code array} a segment over all of {@code a};
     * false, with nothing written, when a value of either side is NaN.
     */
    static boolean combine(MemorySegment seg, long off, int size, boolean max, int len, MemorySegment array, int o) {
        long from = (long) size * o;
        if (size == Long.BYTES) {
            if (hasNaN64(seg, off, array, from, len)) {
                return false;
            }
            extreme64(seg, off, array, from, len, max ? 0L : -1L);
        } else {
            if (hasNaN32(seg, off, array, from, len)) {
                return false;
            }
            extreme32(seg, off, array, from, len, max ? 0 : -1);
        }
        return true;
    }

    private static boolean hasNaN32(MemorySegment seg, long off, MemorySegment in, long from, int len) {
        int any = 0;
        for (int i = 0; i < len; i++) {
            any |= nan(in.get(ARRAY_I32, from + 4L * i)) | nan(seg.get(I32, off + 4L * i));
        }
        return any < 0;
    }

    private static boolean hasNaN64(MemorySegment seg, long off, MemorySegment in, long from, int len) {
        long any = 0;
        for (int i = 0; i < len; i++) {
            any |= nan(in.get(ARRAY_I64, from + 8L * i)) | nan(seg.get(I64, off + 8L * i));
        }
        return any < 0;
    }

    /** Negative when {@code b} is a NaN: its bits without the sign exceed infinity's. */
    private static int nan(int b) {
        return INF32 - (b & Integer.MAX_VALUE);
    }

    private static long nan(long b) {
        return INF64 - (b & Long.MAX_VALUE);
    }

    private static int key(int b) {
        return b ^ ((b >> 31) >>> 1);
    }

    private static long key(long b) {
        return b ^ ((b >> 63) >>> 1);
    }

    // One loop per width, each compiled with its own profile. MIN is MAX of the keys' complements,
    // complemented: flip is 0 for MAX and all ones for MIN.

    private static void extreme32(MemorySegment seg, long off, MemorySegment in, long from, int len, int flip) {
        for (int i = 0; i < len; i++) {
            long at = off + 4L * i;
            seg.set(I32, at, key(Math.max(key(in.get(ARRAY_I32, from + 4L * i)) ^ flip, key(seg.get(I32, at)) ^ flip) ^ flip));
        }
    }

    private static void extreme64(MemorySegment seg, long off, MemorySegment in, long from, int len, long flip) {
        for (int i = 0; i < len; i++) {
            long at = off + 8L * i;
            seg.set(I64, at, key(Math.max(key(in.get(ARRAY_I64, from + 8L * i)) ^ flip, key(seg.get(I64, at)) ^ flip) ^ flip));
        }
    }
}
