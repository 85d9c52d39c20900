package org.railyard.apps.obstacle;

import java.io.PrintStream;
import java.util.Locale;
import org.railyard.Comm;
import org.railyard.Railyard;

/**
 * The synchronous parallel solve of the demo's problem run several times in one job, each with a
 * solver of its own, so that the first solve (classes loading, code interpreted and being
 * compiled) can be told from the later ones (warm): every rank prints, per solve,
 * {@code solve S rank R wall W s iterations I per-iteration us: compute C halo H send D test T}.
 *
 * <pre>
 * railyard run -np 2 org.railyard.apps.obstacle.RepeatedSolves 48 4     # n = 48, 4 solves
 * </pre>
 */
public final class RepeatedSolves {
    private RepeatedSolves() {
    }

    public static void main(String[] args) {
        if (args.length != 2) {
            System.err.println("usage: RepeatedSolves N SOLVES");
            System.exit(2);
        }
        int n = Integer.parseInt(args[0]);
        int solves = Integer.parseInt(args[1]);
        try (Railyard ry = Railyard.init(args)) {
            run(ry.world(), n, solves, System.out);
        }
    }

    /** Runs {@code solves} solves of the n^3 demo problem on {@code world} (collective); returns their iteration counts. */
    static int[] run(Comm world, int n, int solves, PrintStream out) {
        if (n < 1 || solves < 1) {
            throw new IllegalArgumentException("N and SOLVES must be at least 1, not " + n + " and " + solves);
        }
        ObstacleProblem problem = ObstacleProblem.membraneOnBump(n);
        RichardsonSettings settings = RichardsonSettings.defaults();
        Decomposition d = Decomposition.of(n, world.size(), ObstacleDemo.DEFAULT_DECOMP);
        int[] iterations = new int[solves];
        for (int s = 0; s < solves; s++) {
            try (ParallelSolver solver = new ParallelSolver(world, problem, settings, d)) {
                world.barrier();
                long t0 = System.nanoTime();
                SolveResult r = solver.solve(ProgressListener.NONE);
                long wall = System.nanoTime() - t0;
                double[] t = solver.timeBreakdown();
                int it = r.iterations();
                iterations[s] = it;
                out.println(String.format(Locale.ROOT, "solve %d rank %d wall %.3f s iterations %d per-iteration us:"
                        + " compute %.1f halo %.1f send %.1f test %.1f", s, world.rank(), wall * 1e-9, it,
                        t[0] * 1e6 / it, t[1] * 1e6 / it, t[2] * 1e6 / it, t[3] * 1e6 / it));
            }
        }
        return iterations;
    }
}
