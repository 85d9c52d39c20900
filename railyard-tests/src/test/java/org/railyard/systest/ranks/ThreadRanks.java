package org.railyard.systest.ranks;

import java.util.Arrays;
import mpi.MPI;
import mpi.MPIException;

/**
 * Rank programs for {@code railyard run --threads}, through the mpiJava facade. {@code args[0]}
 * picks one:
 * <ul>
 *   <li>{@code statics}: each rank adds {@code rank + 1} to a static counter 1000 times, then the
 *       ranks gather their counters; rank 0 prints {@code STATICS [1000, 2000, ...]} (what ranks of
 *       their own processes would see; a counter shared between ranks would show the sum);</li>
 *   <li>{@code collectives}: bcast, allreduce (SUM and MAX), gather, scatter and a barrier, each
 *       result checked; prints {@code OK collectives rank R};</li>
 *   <li>{@code throw R}: rank R throws {@code IllegalStateException("rank R gives up")} after a
 *       barrier, the others wait for a message from R that never comes;</li>
 *   <li>{@code exit R C}: rank R calls {@code System.exit(C)} after a barrier, the others wait.</li>
 * </ul>
 */
public final class ThreadRanks {
    private ThreadRanks() {
    }

    private static long counter;

    public static void main(String[] args) throws MPIException {
        MPI.Init(args);
        int rank = MPI.COMM_WORLD.Rank();
        int size = MPI.COMM_WORLD.Size();
        switch (args[0]) {
            case "statics" -> statics(rank, size);
            case "collectives" -> collectives(rank, size);
            case "throw", "exit" -> fail(args, rank);
            default -> throw new IllegalArgumentException("unknown program '" + args[0] + "'");
        }
        MPI.Finalize();
    }

    private static void statics(int rank, int size) throws MPIException {
        for (int i = 0; i < 1000; i++) {
            counter += rank + 1;
        }
        long[] all = new long[size];
        MPI.COMM_WORLD.Gather(new long[] {counter}, 0, 1, MPI.LONG, all, 0, 1, MPI.LONG, 0);
        if (rank == 0) {
            System.out.println("STATICS " + Arrays.toString(all));
        }
    }

    private static void collectives(int rank, int size) throws MPIException {
        int[] b = {rank == 0 ? 4242 : -1};
        MPI.COMM_WORLD.Bcast(b, 0, 1, MPI.INT, 0);
        RankSupport.requireEquals(4242, b[0], "bcast");
        long[] sum = new long[1];
        MPI.COMM_WORLD.Allreduce(new long[] {rank + 1}, 0, sum, 0, 1, MPI.LONG, MPI.SUM);
        RankSupport.requireEquals((long) size * (size + 1) / 2, sum[0], "allreduce SUM");
        double[] max = new double[1];
        MPI.COMM_WORLD.Allreduce(new double[] {rank * 1.5}, 0, max, 0, 1, MPI.DOUBLE, MPI.MAX);
        RankSupport.require(max[0] == (size - 1) * 1.5, "allreduce MAX: expected " + (size - 1) * 1.5 + ", got " + max[0]);
        int[] gathered = new int[size];
        MPI.COMM_WORLD.Gather(new int[] {rank * rank}, 0, 1, MPI.INT, gathered, 0, 1, MPI.INT, 0);
        if (rank == 0) {
            for (int r = 0; r < size; r++) {
                RankSupport.requireEquals((long) r * r, gathered[r], "gather from rank " + r);
            }
        }
        int[] parts = new int[size];
        for (int r = 0; r < size; r++) {
            parts[r] = 100 + r;
        }
        int[] mine = new int[1];
        MPI.COMM_WORLD.Scatter(parts, 0, 1, MPI.INT, mine, 0, 1, MPI.INT, 0);
        RankSupport.requireEquals(100 + rank, mine[0], "scatter");
        MPI.COMM_WORLD.Barrier();
        System.out.println("OK collectives rank " + rank);
    }

    private static void fail(String[] args, int rank) throws MPIException {
        int who = Integer.parseInt(args[1]);
        MPI.COMM_WORLD.Barrier();
        if (rank == who) {
            if (args[0].equals("throw")) {
                throw new IllegalStateException("rank " + rank + " gives up");
            }
            System.exit(Integer.parseInt(args[2]));
        }
        // never sent: the launcher must end this wait when rank `who` fails
        MPI.COMM_WORLD.Recv(new int[1], 0, 1, MPI.INT, who, 7);
    }
}
