package hello;

import mpi.MPI;

/** A user's program: the mpiJava API for the job, the Railyard API for what the library chose. */
public class Hello {
    public static void main(String[] args) throws Exception {
        MPI.Init(args);
        int me = MPI.COMM_WORLD.Rank();
        int np = MPI.COMM_WORLD.Size();
        int[] one = {me + 1};
        int[] sum = new int[1];
        MPI.COMM_WORLD.Allreduce(one, 0, sum, 0, 1, MPI.INT, MPI.SUM);
        String choices = org.railyard.Railyard.current().choices();
        String bootstrap = choices.replaceAll("(?s).*bootstrap (\\S+?),.*", "$1");
        if (me == 0) {
            System.out.println("HELLO OK size=" + np + " sum=" + sum[0] + " bootstrap=" + bootstrap);
        }
        MPI.Finalize();
    }
}
