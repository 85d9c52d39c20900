package org.railyard.engine.rma;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.VarHandle;
import org.railyard.types.Kind;
import org.railyard.types.Reduction;

/**
 * Accumulates and atomics applied by the origin itself to a window's memory mapped in its process
 * (a shared window). Each element is updated atomically: ints, longs, floats and doubles that lie
 * on their natural alignment by a compare-and-set loop (or one {@code getAndAdd} for integer SUM)
 * on a {@link VarHandle}; other kinds and misaligned elements under the window's spin lock, a
 * word of the mapping every member takes with a compare-and-set and releases with a release
 * store. The mapped memory holds values in the host's order (little endian on every host this
 * library runs on, matching {@link Kind#wire}).
 */
final class SharedAccess {
    private static final VarHandle INT = ValueLayout.JAVA_INT.varHandle();
    private static final VarHandle LONG = ValueLayout.JAVA_LONG.varHandle();

    /** The spin lock word: a long the whole mapping shares; 0 free, 1 held. */
    private final MemorySegment lockWord;

    /** Thread-safe: any thread may apply operations at once (the memory is what they share). */
    SharedAccess(MemorySegment lockWord) {
        this.lockWord = lockWord;
    }

    /**
     * For every value of {@code count} elements of {@code s} at byte {@code base} of {@code seg}:
     * {@code old = v; v = in[i] op v}, with {@code old} written to {@code fetched[i]} when it is
     * not null. {@code in} may be null for NO_OP.
     */
    void accumulate(MemorySegment seg, long base, Shape s, int count, Reduction op, Object in, Object fetched) {
        Kind k = s.kind;
        int[] at = {0};
        s.forEachRun(count, (first, len) -> {
            for (long j = 0; j < len; j++) {
                long off = base + (first + j) * k.size;
                one(seg, off, k, op, in, at[0], fetched);
                at[0]++;
            }
        });
    }

    /** {@code fetched[0] = v; if v equals compare[0] (bit for bit) then v = in[0]}: one value of {@code k} at {@code off}. */
    void compareAndSwap(MemorySegment seg, long off, Kind k, Object in, Object compare, Object fetched) {
        if (atomic(seg, off, k)) {
            if (k == Kind.INT || k == Kind.FLOAT) {
                int c = bitsInt(k, compare);
                int v = (int) INT.compareAndExchange(seg, off, c, bitsInt(k, in));
                setBitsInt(k, fetched, v);
            } else {
                long c = bitsLong(k, compare);
                long v = (long) LONG.compareAndExchange(seg, off, c, bitsLong(k, in));
                setBitsLong(k, fetched, v);
            }
            return;
        }
        lock();
        try {
            k.copyIn(seg, off, fetched, 0, 0, k.size);
            if (k.size == 1 ? seg.get(ValueLayout.JAVA_BYTE, off) == byteOf(k, compare) : sameBits(k, fetched, compare)) {
                k.copyOut(in, 0, 0, seg, off, k.size);
            }
        } finally {
            unlock();
        }
    }

    private void one(MemorySegment seg, long off, Kind k, Reduction op, Object in, int i, Object fetched) {
        if (atomic(seg, off, k)) {
            if (op == RmaOps.NO_OP) {
                if (k.size == 4) {
                    setBitsInt(k, fetched, i, (int) INT.getVolatile(seg, off));
                } else {
                    setBitsLong(k, fetched, i, (long) LONG.getVolatile(seg, off));
                }
                return;
            }
            if (op == Reduction.SUM && k == Kind.INT) {
                int old = (int) INT.getAndAdd(seg, off, ((int[]) in)[i]);
                if (fetched != null) {
                    ((int[]) fetched)[i] = old;
                }
                return;
            }
            if (op == Reduction.SUM && k == Kind.LONG) {
                long old = (long) LONG.getAndAdd(seg, off, ((long[]) in)[i]);
                if (fetched != null) {
                    ((long[]) fetched)[i] = old;
                }
                return;
            }
            Object a1 = k.newArray(1);
            Object b1 = k.newArray(1);
            System.arraycopy(in, i, a1, 0, 1);
            if (k.size == 4) {
                while (true) {
                    int cur = (int) INT.getVolatile(seg, off);
                    setBitsInt(k, b1, 0, cur);
                    op.apply(k, a1, 0, b1, 0, 1);
                    if (INT.compareAndSet(seg, off, cur, bitsInt(k, b1))) {
                        setBitsInt(k, fetched, i, cur);
                        return;
                    }
                }
            }
            while (true) {
                long cur = (long) LONG.getVolatile(seg, off);
                setBitsLong(k, b1, 0, cur);
                op.apply(k, a1, 0, b1, 0, 1);
                if (LONG.compareAndSet(seg, off, cur, bitsLong(k, b1))) {
                    setBitsLong(k, fetched, i, cur);
                    return;
                }
            }
        }
        Object a1 = k.newArray(1);
        Object b1 = k.newArray(1);
        lock();
        try {
            k.copyIn(seg, off, b1, 0, 0, k.size);
            if (fetched != null) {
                System.arraycopy(b1, 0, fetched, i, 1);
            }
            if (in != null) {
                System.arraycopy(in, i, a1, 0, 1);
                op.apply(k, a1, 0, b1, 0, 1);
            }
            k.copyOut(b1, 0, 0, seg, off, k.size);
        } finally {
            unlock();
        }
    }

    private static boolean atomic(MemorySegment seg, long off, Kind k) {
        return (k == Kind.INT || k == Kind.LONG || k == Kind.FLOAT || k == Kind.DOUBLE)
                && ((seg.address() + off) & (k.size - 1)) == 0;
    }

    private void lock() {
        while (!LONG.compareAndSet(lockWord, 0L, 0L, 1L)) {
            Thread.onSpinWait();
        }
    }

    private void unlock() {
        LONG.setRelease(lockWord, 0L, 0L);
    }

    private static int bitsInt(Kind k, Object a) {
        return k == Kind.FLOAT ? Float.floatToRawIntBits(((float[]) a)[0]) : ((int[]) a)[0];
    }

    private static long bitsLong(Kind k, Object a) {
        return k == Kind.DOUBLE ? Double.doubleToRawLongBits(((double[]) a)[0]) : ((long[]) a)[0];
    }

    private static void setBitsInt(Kind k, Object a, int v) {
        setBitsInt(k, a, 0, v);
    }

    private static void setBitsLong(Kind k, Object a, long v) {
        setBitsLong(k, a, 0, v);
    }

    private static void setBitsInt(Kind k, Object a, int i, int v) {
        if (a == null) {
            return;
        }
        if (k == Kind.FLOAT) {
            ((float[]) a)[i] = Float.intBitsToFloat(v);
        } else {
            ((int[]) a)[i] = v;
        }
    }

    private static void setBitsLong(Kind k, Object a, int i, long v) {
        if (a == null) {
            return;
        }
        if (k == Kind.DOUBLE) {
            ((double[]) a)[i] = Double.longBitsToDouble(v);
        } else {
            ((long[]) a)[i] = v;
        }
    }

    private static byte byteOf(Kind k, Object a) {
        return k == Kind.BOOLEAN ? (byte) (((boolean[]) a)[0] ? 1 : 0) : ((byte[]) a)[0];
    }

    /** Bit-for-bit equality of element 0 of two arrays of {@code k} (2 bytes and more). */
    private static boolean sameBits(Kind k, Object a, Object b) {
        return switch (k) {
            case CHAR -> ((char[]) a)[0] == ((char[]) b)[0];
            case SHORT -> ((short[]) a)[0] == ((short[]) b)[0];
            case INT -> ((int[]) a)[0] == ((int[]) b)[0];
            case LONG -> ((long[]) a)[0] == ((long[]) b)[0];
            case FLOAT -> Float.floatToRawIntBits(((float[]) a)[0]) == Float.floatToRawIntBits(((float[]) b)[0]);
            case DOUBLE -> Double.doubleToRawLongBits(((double[]) a)[0]) == Double.doubleToRawLongBits(((double[]) b)[0]);
            default -> false;
        };
    }
}
