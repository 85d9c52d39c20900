import java.util.SplittableRandom;
import mpi.MPI;

/**
 * Monte Carlo estimate of pi, written against the mpiJava API as an MPJ Express program would be:
 * every process throws darts at the unit square with its own random stream, and the hits are
 * summed on rank 0 with Reduce.
 *
 * <pre>
 * railyard run -np 4 -cp examples.jar PiMonteCarlo [darts per process, default 2000000]
 * </pre>
 */
public class PiMonteCarlo {
    public static void main(String[] args) throws Exception {
        String[] rest = MPI.Init(args);
        int rank = MPI.COMM_WORLD.Rank();
        int size = MPI.COMM_WORLD.Size();

        // Rank 0 decides the work per process and tells the others.
        long[] darts = {2_000_000};
        if (rank == 0 && rest.length > 0) {
            darts[0] = Long.parseLong(rest[0]);
        }
        MPI.COMM_WORLD.Bcast(darts, 0, 1, MPI.LONG, 0);

        double t0 = MPI.Wtime();
        SplittableRandom random = new SplittableRandom(12345L + 7919L * rank);
        long hits = 0;
        for (long i = 0; i < darts[0]; i++) {
            double x = random.nextDouble();
            double y = random.nextDouble();
            if (x * x + y * y <= 1.0) {
                hits++;
            }
        }
        long[] total = new long[1];
        MPI.COMM_WORLD.Reduce(new long[] {hits}, 0, total, 0, 1, MPI.LONG, MPI.SUM, 0);
        double elapsed = MPI.Wtime() - t0;

        if (rank == 0) {
            long all = darts[0] * size;
            double pi = 4.0 * total[0] / all;
            System.out.printf("processes %d, darts %d, hits %d%n", size, all, total[0]);
            System.out.printf("pi ~ %.6f (error %.6f) in %.3f s on %s%n", pi, Math.abs(pi - Math.PI), elapsed,
                    MPI.Get_processor_name());
        }
        MPI.Finalize();
    }
}
