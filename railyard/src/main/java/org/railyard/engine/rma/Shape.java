package org.railyard.engine.rma;

import org.railyard.types.Kind;

/**
 * The engine's view of an element type of a one-sided operation: runs of {@code len[r]} values of
 * {@link #kind} at {@code disp[r]} values from an element's start, elements {@link #extent} values
 * apart (the api's {@code Layout}, or one value of a basic type). Immutable.
 */
public final class Shape {
    public final Kind kind;
    final int[] disp;
    final int[] len;
    /** Distance between elements, in values. */
    public final int extent;
    /** Values per element. */
    public final int size;
    /** One past the highest value one element touches. */
    final int hi;
    /** One element is {@code size} consecutive values from 0, elements back to back. */
    public final boolean contiguous;

    private static final Shape[] BASIC = new Shape[Kind.values().length];

    static {
        for (Kind k : Kind.values()) {
            BASIC[k.ordinal()] = new Shape(k, new int[] {0}, new int[] {1}, 1);
        }
    }

    /** Callers checked the runs (non-negative, sizes within int). */
    public Shape(Kind kind, int[] disp, int[] len, int extent) {
        this.kind = kind;
        this.disp = disp;
        this.len = len;
        this.extent = extent;
        int n = 0;
        int h = 0;
        int lo = Integer.MAX_VALUE;
        for (int r = 0; r < disp.length; r++) {
            n += len[r];
            if (len[r] > 0) {
                h = Math.max(h, disp[r] + len[r]);
                lo = Math.min(lo, disp[r]);
            }
        }
        this.size = n;
        this.hi = h;
        this.contiguous = n == 0 || (lo == 0 && h == n && extent == n);
    }

    /** One value of {@code k}. */
    public static Shape of(Kind k) {
        if (k == null) {
            throw new org.railyard.error.RailyardException(org.railyard.error.ErrorClass.TYPE, "datatype is null");
        }
        return BASIC[k.ordinal()];
    }

    /** One past the last value {@code count} elements touch, from their start (0 if none). */
    public long span(int count) {
        return count == 0 || size == 0 ? 0 : (long) (count - 1) * extent + hi;
    }

    /** Values in {@code count} elements. */
    public long values(int count) {
        return (long) count * size;
    }

    /**
     * Calls {@code v} for each run of consecutive values of {@code count} elements, in type-map
     * order: {@code v.run(firstValue, length)}, values counted from the first element's start.
     */
    void forEachRun(int count, RunVisitor v) {
        if (contiguous) {
            if (size > 0 && count > 0) {
                v.run(0, (long) count * size);
            }
            return;
        }
        for (int i = 0; i < count; i++) {
            long base = (long) i * extent;
            for (int r = 0; r < disp.length; r++) {
                if (len[r] > 0) {
                    v.run(base + disp[r], len[r]);
                }
            }
        }
    }

    /** A run of consecutive values: first value and length, both in values. */
    @FunctionalInterface
    interface RunVisitor {
        void run(long first, long length);
    }

    /** Encodes this shape for the wire: extent, runs, then (disp, len) pairs. */
    int[] encode() {
        int[] out = new int[2 + 2 * disp.length];
        out[0] = extent;
        out[1] = disp.length;
        for (int r = 0; r < disp.length; r++) {
            out[2 + 2 * r] = disp[r];
            out[3 + 2 * r] = len[r];
        }
        return out;
    }

    @Override
    public String toString() {
        return contiguous && size == 1 ? kind.name() : kind.name() + "[" + disp.length + " runs, " + size + " values, extent " + extent + "]";
    }
}
