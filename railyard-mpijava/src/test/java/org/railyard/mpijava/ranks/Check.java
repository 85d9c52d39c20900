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

    /** {@code actual} equals {@code expected}; arrays (of any element type, nested too) by their elements. */
    static void equal(Object actual, Object expected, String what) {
        if (!Arrays.deepEquals(new Object[] {actual}, new Object[] {expected})) {
            throw new AssertionError("rank " + rank() + ": " + what + ": expected " + show(expected) + " but got " + show(actual));
        }
    }

    private static String show(Object o) {
        String one = Arrays.deepToString(new Object[] {o});
        return one.substring(1, one.length() - 1);
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
