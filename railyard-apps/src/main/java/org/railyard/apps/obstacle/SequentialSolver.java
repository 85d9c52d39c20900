package org.railyard.apps.obstacle;

/**
 * The reference: the projected Richardson method of seed 000, section IV, on one process, over the
 * whole grid. See {@link ObstacleProblem} for the discretisation and {@link RichardsonSettings} for
 * the iteration, its step and its stopping test.
 */
public final class SequentialSolver {
    private final ObstacleProblem problem;
    private final RichardsonSettings settings;
    private final GridBlock block;

    public SequentialSolver(ObstacleProblem problem, RichardsonSettings settings) {
        this.problem = problem;
        this.settings = settings;
        int n = problem.n();
        this.block = new GridBlock(problem, settings.delta(problem.h()), 0, n, 0, n, 0, n);
    }

    /** Iterates from the current iterate ({@code max(0, φ)} before the first solve) until the stopping test is met. */
    public SolveResult solve(ProgressListener listener) {
        return RichardsonLoop.run(settings, listener, () -> {
            block.beginIteration();
            block.sweepAll();
            block.endIteration();
        }, () -> RichardsonSettings.relativeResidual(block.maxDiff(), block.maxAbs()));
    }

    /** The current iterate, packed as {@link ObstacleProblem#index} says ({@code n^3} values). */
    public double[] solution() {
        int n = problem.n();
        double[] u = new double[n * n * n];
        block.packInterior(u);
        return u;
    }
}
