package org.railyard.mpijava.ranks;

import java.lang.management.ManagementFactory;
import java.util.Locale;
import mpi.MPI;

/**
 * The collectives of the facade that a solver calls in its loop (Barrier, Allreduce, Bcast,
 * Allgather, Alltoall) with primitive arrays of predefined types, each called {@code WARM}
 * times and then {@code MEASURED} times more; for the measured calls it prints {@code ALLOC
 * <what> <B/call>}: the heap bytes every thread of this JVM allocated, per call. A Bcast is
 * followed by a Barrier, so that the root cannot run calls ahead of the others. Results are
 * checked once each. Ends with {@code done}.
 */
public final class CollectiveAllocRank {
    private static final int WARM = 2000;
    private static final int MEASURED = 5000;

    private CollectiveAllocRank() {
    }

    interface Call {
        void run() throws Exception;
    }

    private static long allocated() {
        var mx = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
        Check.that(mx.isThreadAllocatedMemorySupported(), "this JVM cannot count allocated bytes");
        mx.setThreadAllocatedMemoryEnabled(true);
        return mx.getTotalThreadAllocatedBytes();
    }

    private static void measure(String what, Call call, Runnable check) throws Exception {
        call.run();
        check.run();
        for (int i = 1; i < WARM; i++) {
            call.run();
        }
        MPI.COMM_WORLD.Barrier();
        long before = allocated();
        for (int i = 0; i < MEASURED; i++) {
            call.run();
        }
        double perCall = (allocated() - before) / (double) MEASURED;
        System.out.println(String.format(Locale.ROOT, "ALLOC %s %.1f", what, perCall));
    }

    public static void main(String[] args) throws Exception {
        MPI.Init(args);
        var w = MPI.COMM_WORLD;
        int me = w.Rank();
        int p = w.Size();
        double[] one = {me + 1.0};
        double[] sum = new double[1];
        byte[] s = new byte[256 * p];
        byte[] r = new byte[256 * p];
        for (int i = 0; i < s.length; i++) {
            s[i] = (byte) (me * 31 + i);
        }
        measure("Barrier", w::Barrier, () -> { });
        measure("Allreduce", () -> w.Allreduce(one, 0, sum, 0, 1, MPI.DOUBLE, MPI.SUM),
                () -> Check.that(sum[0] == p * (p + 1) / 2.0, "Allreduce: " + sum[0]));
        measure("Bcast", () -> {
            w.Bcast(r, 0, 256, MPI.BYTE, 0);
            w.Barrier();
        }, () -> { });
        measure("Allgather", () -> w.Allgather(s, 0, 256, MPI.BYTE, r, 0, 256, MPI.BYTE),
                () -> Check.that(r[256 * (p - 1)] == (byte) ((p - 1) * 31), "Allgather: " + r[256 * (p - 1)]));
        measure("Alltoall", () -> w.Alltoall(s, 0, 256, MPI.BYTE, r, 0, 256, MPI.BYTE),
                () -> Check.that(r[256 * (p - 1)] == (byte) ((p - 1) * 31 + 256 * me), "Alltoall: " + r[256 * (p - 1)]));
        System.out.println("done");
        MPI.Finalize();
    }
}
