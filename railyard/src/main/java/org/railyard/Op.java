package org.railyard;

import org.railyard.engine.Reduction;

/** Reduction operations for {@link Comm#reduce} and {@link Comm#allreduce}. */
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

    private final Reduction reduction;

    private Op(Reduction reduction) {
        this.reduction = reduction;
    }

    /** The engine's reduction behind this operation. */
    public Reduction reduction() {
        return reduction;
    }

    @Override
    public String toString() {
        return reduction.name();
    }
}
