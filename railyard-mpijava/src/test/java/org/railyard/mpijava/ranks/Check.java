package org.railyard.mpijava.ranks;

import java.util.Arrays;
import mpi.MPI;
import mpi.MPIException;

/** Assertions for rank programs: a failed check throws, so the rank exits non-zero and the job fails. */
final class Check {
    private Check() {
    }

    static void that(boolean condition, String what) {
        if (!condition) {
            throw new AssertionError("rank " + rank() + ": " + what);
        }
    }

    static void equal(Object actual, Object expected, String what) {
        boolean same = actual instanceof int[] a && expected instanceof int[] b ? Arrays.equals(a, b)
                : actual instanceof double[] a2 && expected instanceof double[] b2 ? Arrays.equals(a2, b2)
                : actual instanceof long[] a3 && expected instanceof long[] b3 ? Arrays.equals(a3, b3)
                : actual instanceof Object[] a4 && expected instanceof Object[] b4 ? Arrays.deepEquals(a4, b4)
                : actual instanceof boolean[] a5 && expected instanceof boolean[] b5 ? Arrays.equals(a5, b5)
                : java.util.Objects.equals(actual, expected);
        if (!same) {
            throw new AssertionError("rank " + rank() + ": " + what + ": expected " + show(expected) + " but got " + show(actual));
        }
    }

    private static String show(Object o) {
        if (o instanceof int[] a) {
            return Arrays.toString(a);
        }
        if (o instanceof double[] a) {
            return Arrays.toString(a);
        }
        if (o instanceof long[] a) {
            return Arrays.toString(a);
        }
        if (o instanceof boolean[] a) {
            return Arrays.toString(a);
        }
        if (o instanceof Object[] a) {
            return Arrays.deepToString(a);
        }
        return String.valueOf(o);
    }

    /** Runs {@code r}, which must fail with an MPIException whose message contains {@code part}. */
    static void fails(Runnable r, String part, String what) {
        try {
            r.run();
        } catch (MPIException e) {
            if (e.getMessage() == null || !e.getMessage().contains(part)) {
                throw new AssertionError("rank " + rank() + ": " + what + ": expected an error mentioning '" + part
                        + "' but got: " + e.getMessage(), e);
            }
            return;
        }
        throw new AssertionError("rank " + rank() + ": " + what + ": expected an MPIException");
    }

    private static int rank() {
        try {
            return MPI.COMM_WORLD == null ? -1 : MPI.COMM_WORLD.Rank();
        } catch (RuntimeException e) {
            return -1;
        }
    }
}
