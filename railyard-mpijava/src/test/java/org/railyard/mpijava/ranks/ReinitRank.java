package org.railyard.mpijava.ranks;

import mpi.MPI;
import mpi.Status;

/**
 * Issue 26, item 6: a test driver that runs several programs in one JVM, each with its own
 * {@code MPI.Init} and {@code MPI.Finalize}, as MPJ Express lets it. Three rounds of collectives,
 * ring messages and objects; Init twice without Finalize stays an error. Any number of ranks;
 * prints "done".
 */
public class ReinitRank {
    public static void main(String[] args) throws Exception {
        for (int round = 0; round < 3; round++) {
            MPI.Init(args);
            int me = MPI.COMM_WORLD.Rank();
            int np = MPI.COMM_WORLD.Size();
            Check.fails(() -> MPI.Init(args), "already called", "Init twice in one round");
            int[] sum = new int[1];
            MPI.COMM_WORLD.Allreduce(new int[] {me + round}, 0, sum, 0, 1, MPI.INT, MPI.SUM);
            Check.equal(sum[0], np * (np - 1) / 2 + np * round, "Allreduce in round " + round);
            int right = (me + 1) % np;
            int left = (me - 1 + np) % np;
            Object[] in = new Object[1];
            Status s = MPI.COMM_WORLD.Sendrecv(new Object[] {"round " + round + " from " + me}, 0, 1, MPI.OBJECT, right, round,
                    in, 0, 1, MPI.OBJECT, left, round);
            Check.equal(in[0], "round " + round + " from " + left, "objects in round " + round);
            Check.equal(s.source, left, "source in round " + round);
            MPI.COMM_WORLD.Barrier();
            MPI.Finalize();
            Check.fails(() -> MPI.COMM_WORLD.Barrier(), "Finalize", "a call between rounds");
        }
        System.out.println("done");
    }
}
