package org.railyard;

import java.util.Objects;
import java.util.function.DoubleBinaryOperator;
import java.util.function.IntBinaryOperator;
import java.util.function.LongBinaryOperator;
import org.railyard.types.Kind;
import org.railyard.types.Reduction;

/**
 * Reduction operations for {@link Comm#reduce}, {@link Comm#allreduce}, the scans and
 * reduce-scatters. The predefined ones are commutative; a user-defined one made with {@link #of}
 * may not be, and is then applied in rank order (process 0's value on the left) by every
 * algorithm, at some cost in algorithm choice (see {@link org.railyard.engine.coll.Collectives}).
 *
 * <p>{@link #MAXLOC} and {@link #MINLOC} work on (value, index) pairs interleaved in one array of
 * int, long, short, float or double: counts are in elements, so n pairs are 2n elements. The
 * result pair holds the largest (smallest) value, and on a tie the lowest index.
 */
public final class Op {
    public static final Op SUM = new Op(Reduction.SUM);
    public static final Op PROD = new Op(Reduction.PROD);
    public static final Op MIN = new Op(Reduction.MIN);
    public static final Op MAX = new Op(Reduction.MAX);
    public static final Op LAND = new Op(Reduction.LAND);
    public static final Op LOR = new Op(Reduction.LOR);
    public static final Op LXOR = new Op(Reduction.LXOR);
    public static final Op BAND = new Op(Reduction.BAND);
    public static final Op BOR = new Op(Reduction.BOR);
    public static final Op BXOR = new Op(Reduction.BXOR);
    public static final Op MAXLOC = new Op(Reduction.MAXLOC);
    public static final Op MINLOC = new Op(Reduction.MINLOC);
    /** One-sided accumulates only ({@link Window}): the target takes the origin's value. */
    public static final Op REPLACE = new Op(org.railyard.engine.rma.RmaOps.REPLACE);
    /** One-sided accumulates only ({@link Window}): the target keeps its value (a getAccumulate is then an atomic read). */
    public static final Op NO_OP = new Op(org.railyard.engine.rma.RmaOps.NO_OP);

    /**
     * The body of a user-defined operation: combine {@code count} elements as
     * {@code inout[inoutOffset + i] = in[inOffset + i] op inout[inoutOffset + i]}. Both arrays are
     * Java primitive arrays of {@code type} ({@code double[]} for DOUBLE, ...); {@code in} holds
     * the contribution of lower ranks. Called by whichever thread drives progress, under the
     * engine's lock: it must be quick, must not call Railyard, and must not keep the arrays.
     */
    @FunctionalInterface
    public interface Function {
        void apply(Object in, int inOffset, Object inout, int inoutOffset, int count, Datatype type);
    }

    private final Reduction reduction;

    private Op(Reduction reduction) {
        this.reduction = reduction;
    }

    /** A user-defined operation; it must be associative, and says whether it is commutative. */
    public static Op of(Function f, boolean commutative) {
        return of("user", f, commutative, 1);
    }

    /**
     * A user-defined operation on items of {@code width} elements (for example 4 for 2x2
     * matrices stored flat): counts must be multiples of it, and no algorithm splits an item.
     */
    public static Op of(String name, Function f, boolean commutative, int width) {
        Objects.requireNonNull(f, "function");
        return new Op(Reduction.of(name, commutative, width,
                (Kind k, Object in, int inOff, Object inout, int ioOff, int n) -> f.apply(in, inOff, inout, ioOff, n, Datatype.of(k))));
    }

    /** An element-wise operation on doubles: {@code inout = f(in, inout)}. */
    public static Op ofDouble(DoubleBinaryOperator f, boolean commutative) {
        Objects.requireNonNull(f, "function");
        return of("user-double", (in, io, inout, oo, n, t) -> {
            double[] a = (double[]) in;
            double[] b = (double[]) inout;
            for (int i = 0; i < n; i++) {
                b[oo + i] = f.applyAsDouble(a[io + i], b[oo + i]);
            }
        }, commutative, 1);
    }

    /** An element-wise operation on longs: {@code inout = f(in, inout)}. */
    public static Op ofLong(LongBinaryOperator f, boolean commutative) {
        Objects.requireNonNull(f, "function");
        return of("user-long", (in, io, inout, oo, n, t) -> {
            long[] a = (long[]) in;
            long[] b = (long[]) inout;
            for (int i = 0; i < n; i++) {
                b[oo + i] = f.applyAsLong(a[io + i], b[oo + i]);
            }
        }, commutative, 1);
    }

    /** An element-wise operation on ints: {@code inout = f(in, inout)}. */
    public static Op ofInt(IntBinaryOperator f, boolean commutative) {
        Objects.requireNonNull(f, "function");
        return of("user-int", (in, io, inout, oo, n, t) -> {
            int[] a = (int[]) in;
            int[] b = (int[]) inout;
            for (int i = 0; i < n; i++) {
                b[oo + i] = f.applyAsInt(a[io + i], b[oo + i]);
            }
        }, commutative, 1);
    }

    /** An operation from an engine reduction (for the facades, whose user functions see their own datatypes). */
    public static Op of(Reduction reduction) {
        return new Op(Objects.requireNonNull(reduction, "reduction"));
    }

    /** The engine's reduction behind this operation. */
    public Reduction reduction() {
        return reduction;
    }

    public boolean commutative() {
        return reduction.commutative();
    }

    @Override
    public String toString() {
        return reduction.name();
    }
}
