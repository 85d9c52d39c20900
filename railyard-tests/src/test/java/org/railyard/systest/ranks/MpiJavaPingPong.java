package org.railyard.systest.ranks;

import mpi.MPI;
import mpi.MPIException;

/**
 * A ping-pong written against the mpiJava API ({@code mpi.*}, Railyard's facade): every pair of
 * ranks, in one global order, exchanges messages of 8 B to 1 MiB, {@code args[0]} round trips per
 * size, each byte checked. In pair (i, j) with i &lt; j the higher rank j sends the first ping,
 * so it is j that opens the link. Prints {@code PINGPONG i-j S B: T us} (half the mean round
 * trip) and {@code OK pingpong rank R}.
 */
public final class MpiJavaPingPong {
    private MpiJavaPingPong() {
    }

    public static void main(String[] args) throws MPIException {
        MPI.Init(args);
        int reps = Integer.parseInt(args[0]);
        int rank = MPI.COMM_WORLD.Rank();
        int size = MPI.COMM_WORLD.Size();
        byte[] buf = new byte[1 << 20];
        for (int i = 0; i < size; i++) {
            for (int j = i + 1; j < size; j++) {
                if (rank != i && rank != j) {
                    continue;
                }
                int peer = rank == i ? j : i;
                boolean starts = rank == j;
                for (int bytes = 8; bytes <= (1 << 20); bytes *= 16) {
                    long t0 = System.nanoTime();
                    for (int r = 0; r < reps; r++) {
                        int tag = r;
                        if (starts) {
                            RankSupport.fillBytes(buf, 0, bytes, rank, r);
                            MPI.COMM_WORLD.Send(buf, 0, bytes, MPI.BYTE, peer, tag);
                            MPI.COMM_WORLD.Recv(buf, 0, bytes, MPI.BYTE, peer, tag);
                            RankSupport.verifyBytes(buf, 0, bytes, peer, r, "pong from rank " + peer);
                        } else {
                            MPI.COMM_WORLD.Recv(buf, 0, bytes, MPI.BYTE, peer, tag);
                            RankSupport.verifyBytes(buf, 0, bytes, peer, r, "ping from rank " + peer);
                            RankSupport.fillBytes(buf, 0, bytes, rank, r);
                            MPI.COMM_WORLD.Send(buf, 0, bytes, MPI.BYTE, peer, tag);
                        }
                    }
                    if (starts) {
                        double us = (System.nanoTime() - t0) / 1e3 / reps / 2;
                        System.out.printf(java.util.Locale.ROOT, "PINGPONG %d-%d %d B: %.1f us%n", i, j, bytes, us);
                    }
                }
            }
        }
        System.out.println("OK pingpong rank " + rank);
        MPI.Finalize();
    }
}
