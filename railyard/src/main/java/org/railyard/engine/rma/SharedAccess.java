package org.railyard.engine.rma;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.VarHandle;
import org.railyard.types.Kind;
import org.railyard.types.Reduction;

/**
 * Accumulates and atomics applied by the origin itself to a window's memory mapped in its process
 * (a shared window, or an allocated one whose members share a node).
 *
 * <p>The rule that makes them atomic per element with respect to each other (MPI-3), whoever applies
 * them: every accumulate-family operation on member {@code t}'s memory holds {@code t}'s accumulate
 * lock ({@link SharedHeader}) while it touches it, in one of two modes.
 * <ul>
 * <li><b>Single</b>: one value of int, long, float or double on its natural alignment
 *     (fetchAndOp, compareAndSwap, an accumulate or getAccumulate of one value): the lock is held
 *     shared and the value is updated by one atomic {@link VarHandle} operation (getAndAdd,
 *     getAndSet, compareAndExchange, or a compare-and-set loop), so such updates run together.</li>
 * <li><b>Block</b>: everything else (several values, other kinds, misaligned values): the lock is
 *     held exclusively and the block is combined straight in the memory with plain loops, every
 *     predefined operation and kind ({@link Combine}), after its old values were copied out when
 *     they are fetched.</li>
 * </ul>
 * A block never overlaps a single update, and two single updates are each atomic, so no update is
 * lost and no reader sees half of one. Each call applies its values before it returns, so the
 * accumulates of one origin are applied in the order it issued them. Puts and gets do not take the
 * lock (MPI leaves a put concurrent with an accumulate to the same place undefined). The mapped
 * memory holds values in the host's order (little endian on every host this library runs on,
 * matching {@link Kind#wire}).
 */
final class SharedAccess {
    private static final VarHandle INT = ValueLayout.JAVA_INT.varHandle();
    private static final VarHandle LONG = ValueLayout.JAVA_LONG.varHandle();
    /** Values a block is combined in at a time (even: MAXLOC and MINLOC take pairs). */
    private static final int CHUNK = 8192;

    private final SharedHeader header;
    /**
     * Per target: a buffer for the values of a block that {@link Combine} does not take, used only
     * while holding that target's lock exclusively.
     */
    private final Object[] scratch;
    private final Kind[] scratchKind;
    private final int[] scratchLength;
    /** Per target: the origin array its blocks last read as a segment ({@link ArrayView}); same rule. */
    private final ArrayView[] views;

    /** Thread-safe: any thread may apply operations at once (the memory and its locks are what they share). */
    SharedAccess(SharedHeader header, int members) {
        this.header = header;
        this.scratch = new Object[members];
        this.scratchKind = new Kind[members];
        this.scratchLength = new int[members];
        this.views = new ArrayView[members];
    }

    /**
     * For every value of {@code count} elements of {@code s} at byte {@code base} of {@code seg},
     * part of member {@code t}'s memory: {@code old = v; v = in[inOff + i] op v}, with {@code old}
     * written to {@code fetched[fetchedOff + i]} when {@code fetched} is not null. {@code in} may be
     * null for NO_OP. {@code in} and {@code fetched} are Java arrays of the shape's kind.
     */
    void accumulate(int t, MemorySegment seg, long base, Shape s, int count, Reduction op, Object in, int inOff,
                    Object fetched, int fetchedOff) {
        Kind k = s.kind;
        long values = s.values(count);
        if (values == 0) {
            return;
        }
        if (values == 1 && s.contiguous && atomic(seg, base, k)) {
            header.lockSingle(t);
            try {
                single(seg, base, k, op, in, inOff, fetched, fetchedOff);
            } finally {
                header.unlockSingle(t);
            }
            return;
        }
        header.lockBlock(t);
        try {
            Object buf = scratch(t, k, (int) Math.min(values, CHUNK));
            int cap = scratchLength[t];
            if (views[t] == null) {
                views[t] = new ArrayView();
            }
            ArrayView view = views[t];
            if (s.contiguous) {
                block(seg, base, k, op, values, in, inOff, fetched, fetchedOff, buf, cap, view);
            } else {
                long[] at = {0};
                s.forEachRun(count, (first, len) -> {
                    block(seg, base + first * k.size, k, op, len, in, inOff + (int) at[0], fetched,
                            fetchedOff + (int) at[0], buf, cap, view);
                    at[0] += len;
                });
            }
        } finally {
            header.unlockBlock(t);
        }
    }

    /**
     * {@code fetched[foff] = v; if v equals compare[coff] (bit for bit) then v = in[inOff]}: one value
     * of {@code k} at byte {@code off} of {@code seg}, part of member {@code t}'s memory. The three
     * buffers are Java arrays of {@code k}.
     */
    void compareAndSwap(int t, MemorySegment seg, long off, Kind k, Object in, int inOff, Object compare, int coff,
                        Object fetched, int foff) {
        if (atomic(seg, off, k)) {
            header.lockSingle(t);
            try {
                if (k.size == 4) {
                    int v = (int) INT.compareAndExchange(seg, off, bitsInt(k, compare, coff), bitsInt(k, in, inOff));
                    setBitsInt(k, fetched, foff, v);
                } else {
                    long v = (long) LONG.compareAndExchange(seg, off, bitsLong(k, compare, coff), bitsLong(k, in, inOff));
                    setBitsLong(k, fetched, foff, v);
                }
            } finally {
                header.unlockSingle(t);
            }
            return;
        }
        header.lockBlock(t);
        try {
            k.copyIn(seg, off, fetched, foff, 0, k.size);
            if (sameBits(k, fetched, foff, compare, coff)) {
                k.copyOut(in, inOff, 0, seg, off, k.size);
            }
        } finally {
            header.unlockBlock(t);
        }
    }

    /** One value by one atomic operation; the single mode of the lock held. */
    private static void single(MemorySegment seg, long off, Kind k, Reduction op, Object in, int inOff, Object fetched,
                               int foff) {
        if (op == RmaOps.NO_OP) {
            if (k.size == 4) {
                setBitsInt(k, fetched, foff, (int) INT.getVolatile(seg, off));
            } else {
                setBitsLong(k, fetched, foff, (long) LONG.getVolatile(seg, off));
            }
            return;
        }
        if (op == Reduction.SUM && k == Kind.INT) {
            setBitsInt(k, fetched, foff, (int) INT.getAndAdd(seg, off, ((int[]) in)[inOff]));
            return;
        }
        if (op == Reduction.SUM && k == Kind.LONG) {
            setBitsLong(k, fetched, foff, (long) LONG.getAndAdd(seg, off, ((long[]) in)[inOff]));
            return;
        }
        if (op == RmaOps.REPLACE) {
            if (k.size == 4) {
                setBitsInt(k, fetched, foff, (int) INT.getAndSet(seg, off, bitsInt(k, in, inOff)));
            } else {
                setBitsLong(k, fetched, foff, (long) LONG.getAndSet(seg, off, bitsLong(k, in, inOff)));
            }
            return;
        }
        // other operations: combine a copy, then publish it if nobody changed the value meanwhile
        Object a1 = k.newArray(1);
        Object b1 = k.newArray(1);
        System.arraycopy(in, inOff, a1, 0, 1);
        if (k.size == 4) {
            while (true) {
                int cur = (int) INT.getVolatile(seg, off);
                setBitsInt(k, b1, 0, cur);
                op.apply(k, a1, 0, b1, 0, 1);
                if (INT.compareAndSet(seg, off, cur, bitsInt(k, b1, 0))) {
                    setBitsInt(k, fetched, foff, cur);
                    return;
                }
            }
        }
        while (true) {
            long cur = (long) LONG.getVolatile(seg, off);
            setBitsLong(k, b1, 0, cur);
            op.apply(k, a1, 0, b1, 0, 1);
            if (LONG.compareAndSet(seg, off, cur, bitsLong(k, b1, 0))) {
                setBitsLong(k, fetched, foff, cur);
                return;
            }
        }
    }

    /**
     * {@code len} consecutive values from byte {@code off}; the block mode held. The fetched values
     * are copied out first, then the block is combined in place ({@link Combine}); an operation
     * {@link Combine} does not take goes {@code cap} values at a time through {@code buf}, where
     * {@link Reduction#apply} reports a kind it does not apply to.
     */
    private static void block(MemorySegment seg, long off, Kind k, Reduction op, long len, Object in, int inOff,
                              Object fetched, int foff, Object buf, int cap, ArrayView view) {
        if (fetched != null) {
            k.copyIn(seg, off, fetched, foff, 0, len * k.size);
        }
        if (in == null || op == RmaOps.NO_OP || Combine.inPlace(seg, off, k, op, (int) len, in, inOff, view)) {
            return;
        }
        for (long done = 0; done < len; ) {
            int c = (int) Math.min(len - done, cap);
            long at = off + done * k.size;
            long bytes = (long) c * k.size;
            k.copyIn(seg, at, buf, 0, 0, bytes);
            op.apply(k, in, inOff + (int) done, buf, 0, c);
            k.copyOut(buf, 0, 0, seg, at, bytes);
            done += c;
        }
    }

    /** Target {@code t}'s block buffer of at least {@code values} values of {@code k}; its lock held exclusively. */
    private Object scratch(int t, Kind k, int values) {
        int want = Math.max(2, (values + 1) & ~1);
        if (scratchKind[t] != k || scratchLength[t] < want) {
            scratch[t] = k.newArray(want);
            scratchKind[t] = k;
            scratchLength[t] = want;
        }
        return scratch[t];
    }

    private static boolean atomic(MemorySegment seg, long off, Kind k) {
        return (k == Kind.INT || k == Kind.LONG || k == Kind.FLOAT || k == Kind.DOUBLE)
                && ((seg.address() + off) & (k.size - 1)) == 0;
    }

    private static int bitsInt(Kind k, Object a, int i) {
        return k == Kind.FLOAT ? Float.floatToRawIntBits(((float[]) a)[i]) : ((int[]) a)[i];
    }

    private static long bitsLong(Kind k, Object a, int i) {
        return k == Kind.DOUBLE ? Double.doubleToRawLongBits(((double[]) a)[i]) : ((long[]) a)[i];
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

    /** Bit-for-bit equality of {@code a[i]} and {@code b[j]}, Java arrays of {@code k}. */
    static boolean sameBits(Kind k, Object a, int i, Object b, int j) {
        return switch (k) {
            case BYTE -> ((byte[]) a)[i] == ((byte[]) b)[j];
            case BOOLEAN -> ((boolean[]) a)[i] == ((boolean[]) b)[j];
            case CHAR -> ((char[]) a)[i] == ((char[]) b)[j];
            case SHORT -> ((short[]) a)[i] == ((short[]) b)[j];
            case INT -> ((int[]) a)[i] == ((int[]) b)[j];
            case LONG -> ((long[]) a)[i] == ((long[]) b)[j];
            case FLOAT -> Float.floatToRawIntBits(((float[]) a)[i]) == Float.floatToRawIntBits(((float[]) b)[j]);
            case DOUBLE -> Double.doubleToRawLongBits(((double[]) a)[i]) == Double.doubleToRawLongBits(((double[]) b)[j]);
        };
    }
}
