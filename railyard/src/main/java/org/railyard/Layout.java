package org.railyard;

import java.util.Arrays;
import org.railyard.error.ErrorClass;
import org.railyard.error.RailyardException;

/**
 * The layout of one element of a derived type for one-sided operations ({@link Window}): runs of
 * consecutive values of one base {@link Datatype}, each at a displacement counted in base values
 * from the element's start, and the element's extent (where the next element begins), also in base
 * values. {@code count} elements of a layout at offset {@code off} cover values
 * {@code off + i * extent + disp[r] .. + len[r] - 1} for each element {@code i} and run {@code r}.
 *
 * <p>Like the mpiJava facade's derived types, a layout has one base type, so that it fits one Java
 * array: a struct of several base types is refused. A basic {@link Datatype} is the layout of one
 * run of one value ({@link #of(Datatype)}). Layouts are immutable and may be shared by threads.
 */
public final class Layout {
    private final Datatype base;
    private final int[] disp;
    private final int[] len;
    private final int extent;
    private final int size;
    private final int lo;
    private final int hi;
    private volatile org.railyard.engine.rma.Shape shape;

    private Layout(Datatype base, int[] disp, int[] len, int extent) {
        if (base == null) {
            throw new RailyardException(ErrorClass.TYPE, "layout base datatype is null");
        }
        if (disp.length != len.length) {
            throw new RailyardException(ErrorClass.ARG, "layout has " + disp.length + " displacements but "
                    + len.length + " run lengths");
        }
        long total = 0;
        int l = Integer.MAX_VALUE;
        int h = 0;
        for (int r = 0; r < disp.length; r++) {
            if (len[r] < 0) {
                throw new RailyardException(ErrorClass.ARG, "layout run " + r + " has negative length " + len[r]);
            }
            if (disp[r] < 0) {
                throw new RailyardException(ErrorClass.ARG, "layout run " + r + " has negative displacement " + disp[r]);
            }
            if (len[r] > 0) {
                l = Math.min(l, disp[r]);
                h = Math.max(h, disp[r] + len[r]);
            }
            total += len[r];
        }
        if (total > Integer.MAX_VALUE) {
            throw new RailyardException(ErrorClass.COUNT, "layout of " + total + " values is too large");
        }
        if (extent < 0) {
            throw new RailyardException(ErrorClass.ARG, "layout extent " + extent + " is negative");
        }
        this.base = base;
        this.disp = disp;
        this.len = len;
        this.extent = extent;
        this.size = (int) total;
        this.lo = total == 0 ? 0 : l;
        this.hi = h;
    }

    /** One value of {@code type}: the layout a basic datatype stands for. */
    public static Layout of(Datatype type) {
        return new Layout(type, new int[] {0}, new int[] {1}, 1);
    }

    /** {@code count} consecutive values of {@code type}. */
    public static Layout contiguous(int count, Datatype type) {
        checkCount(count, "count");
        return new Layout(type, new int[] {0}, new int[] {count}, count);
    }

    /** {@code count} blocks of {@code blocklength} values, block starts {@code stride} values apart (MPI_Type_vector). */
    public static Layout vector(int count, int blocklength, int stride, Datatype type) {
        checkCount(count, "count");
        checkCount(blocklength, "blocklength");
        if (stride < 0) {
            throw new RailyardException(ErrorClass.ARG, "vector stride " + stride + " is negative");
        }
        int[] d = new int[count];
        int[] l = new int[count];
        for (int i = 0; i < count; i++) {
            d[i] = Math.multiplyExact(i, stride);
            l[i] = blocklength;
        }
        int ext = count == 0 ? 0 : Math.addExact(Math.multiplyExact(count - 1, stride), blocklength);
        return new Layout(type, d, l, ext);
    }

    /** Blocks of the given lengths at the given displacements, in values (MPI_Type_indexed). */
    public static Layout indexed(int[] blocklengths, int[] displacements, Datatype type) {
        return runs(type, displacements, blocklengths, -1);
    }

    /**
     * Blocks of {@code blocklengths[i]} elements of {@code types[i]} at {@code displacements[i]}
     * base values (MPI_Type_struct, with every type of one base: each is a layout, a basic
     * {@link Datatype} being {@link #of} it).
     */
    public static Layout struct(int[] blocklengths, int[] displacements, Layout[] types) {
        if (blocklengths.length != displacements.length || blocklengths.length != types.length) {
            throw new RailyardException(ErrorClass.ARG, "struct has " + blocklengths.length + " block lengths, "
                    + displacements.length + " displacements and " + types.length + " types");
        }
        Datatype b = null;
        int n = 0;
        for (int i = 0; i < types.length; i++) {
            if (types[i] == null) {
                throw new RailyardException(ErrorClass.TYPE, "struct type " + i + " is null");
            }
            if (b == null) {
                b = types[i].base;
            } else if (types[i].base != b) {
                throw new RailyardException(ErrorClass.TYPE, "struct mixes base types " + b + " and " + types[i].base
                        + ": a layout must fit one Java array");
            }
            checkCount(blocklengths[i], "blocklength " + i);
            n = Math.addExact(n, Math.multiplyExact(blocklengths[i], types[i].disp.length));
        }
        int[] d = new int[n];
        int[] l = new int[n];
        int k = 0;
        int ext = 0;
        for (int i = 0; i < types.length; i++) {
            Layout t = types[i];
            for (int j = 0; j < blocklengths[i]; j++) {
                int start = Math.addExact(displacements[i], Math.multiplyExact(j, t.extent));
                for (int r = 0; r < t.disp.length; r++) {
                    d[k] = Math.addExact(start, t.disp[r]);
                    l[k++] = t.len[r];
                }
                ext = Math.max(ext, start + t.extent);
            }
        }
        return new Layout(b == null ? Datatype.BYTE : b, d, l, ext);
    }

    /**
     * The general form: runs of {@code lengths[r]} values at {@code displacements[r]} values from
     * the element's start, and an extent of {@code extent} values ({@code -1}: one past the last
     * value of any run). For facades that keep their own type maps.
     */
    public static Layout runs(Datatype base, int[] displacements, int[] lengths, int extent) {
        int[] d = displacements.clone();
        int[] l = lengths.clone();
        int ext = extent;
        if (ext < 0) {
            ext = 0;
            for (int r = 0; r < d.length && r < l.length; r++) {
                if (l[r] > 0) {
                    ext = Math.max(ext, d[r] + l[r]);
                }
            }
        }
        return new Layout(base, d, l, ext);
    }

    private static void checkCount(int n, String what) {
        if (n < 0) {
            throw new RailyardException(ErrorClass.COUNT, "layout " + what + " " + n + " is negative");
        }
    }

    /** The engine's view of this layout. */
    org.railyard.engine.rma.Shape shape() {
        org.railyard.engine.rma.Shape s = shape;
        if (s == null) {
            s = new org.railyard.engine.rma.Shape(base.kind(), disp, len, extent);
            shape = s;
        }
        return s;
    }

    /** The base type of every value. */
    public Datatype base() {
        return base;
    }

    /** Values in one element (the sum of the run lengths). */
    public int size() {
        return size;
    }

    /** Where the next element starts, in base values. */
    public int extent() {
        return extent;
    }

    /** Number of runs. */
    public int runCount() {
        return disp.length;
    }

    /** Displacement of run {@code r}, in base values from the element's start. */
    public int runDisp(int r) {
        return disp[r];
    }

    /** Length of run {@code r}, in base values. */
    public int runLength(int r) {
        return len[r];
    }

    /** Lowest value touched by one element (0 for an empty layout). */
    public int lowest() {
        return lo;
    }

    /** One past the highest value touched by one element. */
    public int highest() {
        return hi;
    }

    /** True if one element is {@code size()} consecutive values from 0 and elements follow each other. */
    public boolean contiguous() {
        return lo == 0 && hi == size && extent == size;
    }

    /** One past the last value {@code count} elements touch, relative to their start (0 if none). */
    public long span(int count) {
        return count == 0 || size == 0 ? 0 : (long) (count - 1) * extent + hi;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof Layout t && t.base == base && t.extent == extent && Arrays.equals(t.disp, disp)
                && Arrays.equals(t.len, len);
    }

    @Override
    public int hashCode() {
        return base.hashCode() * 31 + Arrays.hashCode(disp) * 7 + Arrays.hashCode(len) + extent;
    }

    @Override
    public String toString() {
        if (disp.length == 1 && disp[0] == 0 && extent == len[0]) {
            return len[0] == 1 ? base.toString() : len[0] + "x" + base;
        }
        StringBuilder sb = new StringBuilder("Layout(").append(base).append(", extent ").append(extent);
        for (int r = 0; r < disp.length && r < 8; r++) {
            sb.append(", ").append(len[r]).append('@').append(disp[r]);
        }
        return sb.append(disp.length > 8 ? ", ...)" : ")").toString();
    }
}
