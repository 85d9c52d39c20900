package org.railyard.engine.rma;

import org.railyard.types.Kind;
import org.railyard.types.Reduction;

/** The two operations MPI defines for one-sided accumulates only: REPLACE and NO_OP. */
public final class RmaOps {
    /** {@code inout = in}: the target takes the origin's values. */
    public static final Reduction REPLACE = Reduction.of("REPLACE", false, 1,
            (Kind k, Object in, int inOff, Object inout, int ioOff, int n) -> System.arraycopy(in, inOff, inout, ioOff, n));
    /** {@code inout} unchanged. */
    public static final Reduction NO_OP = Reduction.of("NO_OP", false, 1,
            (Kind k, Object in, int inOff, Object inout, int ioOff, int n) -> { });

    private RmaOps() {
    }
}
