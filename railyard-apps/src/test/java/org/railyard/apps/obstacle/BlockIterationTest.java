package org.railyard.apps.obstacle;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/**
 * The synchronous block iteration of {@link ParallelSolver}, with its halo planes copied in memory
 * instead of sent, must reproduce the sequential solver bit for bit: this checks the decomposition,
 * the face layers, the packing and the overlap plan without any message passing.
 */
class BlockIterationTest {

    private static double[] blockwise(ObstacleProblem problem, RichardsonSettings settings, Decomposition d, int[] iterations) {
        int p = d.ranks();
        GridBlock[] blocks = new GridBlock[p];
        int[][][] plans = new int[p][][];
        for (int r = 0; r < p; r++) {
            blocks[r] = GridBlock.of(problem, settings.delta(problem.h()), d, r);
            plans[r] = blocks[r].sweepPlan(new Faces(d, r, blocks[r]).present());
        }
        int k = 0;
        boolean converged = false;
        while (k < settings.maxIterations() && !converged) {
            // Halo exchange: each block's boundary layer into its neighbour's ghost layer.
            for (int r = 0; r < p; r++) {
                for (int f = 0; f < Decomposition.FACES; f++) {
                    int nb = d.neighbour(r, f);
                    if (nb != Decomposition.NONE) {
                        double[] plane = new double[blocks[r].faceSize(f)];
                        blocks[r].copyBox(plane, blocks[r].faceBox(f, false), true);
                        blocks[nb].copyBox(plane, blocks[nb].faceBox(Decomposition.opposite(f), true), false);
                    }
                }
            }
            double diff = 0;
            double abs = 0;
            for (int r = 0; r < p; r++) {
                blocks[r].beginIteration();
                // Shell boxes first, inner last: order must not matter.
                for (int b = plans[r].length - 1; b >= 0; b--) {
                    blocks[r].sweep(plans[r][b]);
                }
                diff = Math.max(diff, blocks[r].maxDiff());
                abs = Math.max(abs, blocks[r].maxAbs());
            }
            for (GridBlock b : blocks) {
                b.endIteration();
            }
            k++;
            if (settings.checksAt(k)) {
                converged = RichardsonSettings.relativeResidual(diff, abs) <= settings.tolerance();
            }
        }
        iterations[0] = k;
        int n = problem.n();
        double[] u = new double[n * n * n];
        for (int r = 0; r < p; r++) {
            double[] part = new double[d.volume(r)];
            blocks[r].packInterior(part);
            GridBlock.unpackInto(u, n, part, d.start(r, 0), d.count(r, 0), d.start(r, 1), d.count(r, 1), d.start(r, 2), d.count(r, 2));
        }
        return u;
    }

    @Test
    void everyDecompositionReproducesTheSequentialIteratesExactly() {
        int n = 11;
        ObstacleProblem problem = ObstacleProblem.membraneOnBump(n);
        RichardsonSettings settings = RichardsonSettings.defaults().withCheckEvery(3);
        SequentialSolver reference = new SequentialSolver(problem, settings);
        SolveResult expected = reference.solve(ProgressListener.NONE);
        double[] want = reference.solution();
        String[][] cases = {
            {"1", "slab"}, {"2", "slab"}, {"3", "slab"}, {"4", "block"}, {"5", "pencil"}, {"6", "block"},
            {"8", "block"}, {"12", "block"}, {"13", "slab"}, {"27", "block"}, {"6", "1x3x2"}, {"4", "1x1x4"},
        };
        for (String[] c : cases) {
            Decomposition d = Decomposition.of(n, Integer.parseInt(c[0]), c[1]);
            int[] iterations = new int[1];
            double[] got = blockwise(problem, settings, d, iterations);
            assertThat(iterations[0]).as("%s", d).isEqualTo(expected.iterations());
            assertThat(got).as("%s", d).containsExactly(want);
        }
    }
}
