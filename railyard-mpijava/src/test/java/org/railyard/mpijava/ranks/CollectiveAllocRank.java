package org.railyard.mpijava.ranks;

import mpi.MPI;
import org.railyard.testkit.Allocation;

/**
 * The facade's collectives with primitive arrays of predefined types (Barrier, Allreduce, Bcast,
 * Allgather, Alltoall, which a solver calls in its loop, then Reduce, Scan, Reduce_scatter,
 * Gather, Gatherv, Scatter, Scatterv, Allgatherv and Alltoallv), each called {@code WARM}
 * times and then measured over at least {@link Allocation#MIN_WINDOWS} windows (more, up to {@link Allocation#MAX_WINDOWS}, until every rank's least is under the goal) of {@code PER_WINDOW} calls (see
 * {@link Allocation}); it prints {@code ALLOC <what> <B/call> (windows ...)}: the least heap
 * bytes every thread of this JVM allocated per call in a window, then each window's figure. A
 * rooted collective (Bcast, Reduce, Gather(v), Scatter(v)) and Scan are followed by a Barrier, so
 * that no rank runs calls ahead of the others. Rank 0 of a Scan only sends; without the Barrier
 * it ran ahead, its messages waited at the others as unexpected ones, and the pool of their
 * records grew during the measured calls (up to 240 B a call in one of five runs). Results are
 * checked once each. Ends with {@code done}.
 */
public final class CollectiveAllocRank {
    private static final int WARM = 1000;
    /** Bytes per call over every thread of a rank's JVM, in its cleanest window: below the smallest object (16 B). */
    public static final double GOAL = 8;
    private static final int PER_WINDOW = 1000;

    private CollectiveAllocRank() {
    }

    private static void measure(String what, Allocation.Call call, Runnable check) throws Exception {
        call.run();
        check.run();
        for (int i = 1; i < WARM; i++) {
            call.run();
        }
        Allocation.Windows w = Allocation.perCallUntil(PER_WINDOW, GOAL, MPI.COMM_WORLD::Barrier,
                CollectiveAllocRank::everyRank, call);
        System.out.println("ALLOC " + what + " " + w);
    }

    /** True if {@code mine} is true on every rank. */
    private static boolean everyRank(boolean mine) throws Exception {
        int[] in = {mine ? 1 : 0};
        int[] all = new int[1];
        MPI.COMM_WORLD.Allreduce(in, 0, all, 0, 1, MPI.INT, MPI.MIN);
        return all[0] == 1;
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
        double[] vec = new double[4 * p];
        double[] res = new double[4 * p];
        java.util.Arrays.fill(vec, me + 1.0);
        int[] counts = new int[p];
        int[] displs = new int[p];
        for (int q = 0; q < p; q++) {
            counts[q] = 4;
            displs[q] = 4 * (p - 1 - q); // blocks laid out backwards: the v variants' own layout
        }
        measure("Reduce", () -> {
            w.Reduce(vec, 0, res, 0, 4, MPI.DOUBLE, MPI.SUM, 0);
            w.Barrier();
        }, () -> Check.that(me != 0 || res[3] == p * (p + 1) / 2.0, "Reduce: " + res[3]));
        measure("Scan", () -> {
            w.Scan(vec, 0, res, 0, 4, MPI.DOUBLE, MPI.SUM);
            w.Barrier();
        },
                () -> Check.that(res[3] == (me + 1) * (me + 2) / 2.0, "Scan: " + res[3]));
        measure("Reduce_scatter", () -> w.Reduce_scatter(vec, 0, res, 0, counts, MPI.DOUBLE, MPI.SUM),
                () -> Check.that(res[3] == p * (p + 1) / 2.0, "Reduce_scatter: " + res[3]));
        measure("Gather", () -> {
            w.Gather(s, 0, 256, MPI.BYTE, r, 0, 256, MPI.BYTE, 0);
            w.Barrier();
        }, () -> Check.that(me != 0 || r[256 * (p - 1)] == (byte) ((p - 1) * 31), "Gather: " + r[256 * (p - 1)]));
        measure("Gatherv", () -> {
            w.Gatherv(vec, 0, 4, MPI.DOUBLE, res, 0, counts, displs, MPI.DOUBLE, 0);
            w.Barrier();
        }, () -> Check.that(me != 0 || res[0] == p, "Gatherv: " + res[0]));
        measure("Scatter", () -> {
            w.Scatter(s, 0, 256, MPI.BYTE, r, 0, 256, MPI.BYTE, 0);
            w.Barrier();
        }, () -> Check.that(r[0] == (byte) (256 * me), "Scatter: " + r[0]));
        measure("Scatterv", () -> {
            w.Scatterv(vec, 0, counts, displs, MPI.DOUBLE, res, 0, 4, MPI.DOUBLE, 0);
            w.Barrier();
        }, () -> Check.that(res[0] == 1.0, "Scatterv: " + res[0]));
        measure("Allgatherv", () -> w.Allgatherv(vec, 0, 4, MPI.DOUBLE, res, 0, counts, displs, MPI.DOUBLE),
                () -> Check.that(res[0] == p, "Allgatherv: " + res[0]));
        measure("Alltoallv", () -> w.Alltoallv(vec, 0, counts, displs, MPI.DOUBLE, res, 0, counts, displs, MPI.DOUBLE),
                () -> Check.that(res[4 * (p - 1)] == 1.0, "Alltoallv: " + res[4 * (p - 1)]));
        System.out.println("done");
        MPI.Finalize();
    }
}
