package org.railyard.apps.obstacle;

import java.util.function.DoubleSupplier;

/**
 * The outer loop of the projected Richardson method, shared by {@link SequentialSolver} and
 * {@link ParallelSolver} so that both test convergence at the same iterations in the same way, a
 * condition of their bitwise agreement.
 */
final class RichardsonLoop {
    private RichardsonLoop() {
    }

    /**
     * Iterates until the residual meets the tolerance at a test or the iteration bound is reached.
     *
     * @param step one whole iteration: every owned point updated, the next iterate made current
     * @param residual the relative residual of the last iteration over the whole problem
     */
    static SolveResult run(RichardsonSettings settings, ProgressListener listener, Runnable step, DoubleSupplier residual) {
        return run(settings, listener, step, residual, 0);
    }

    /** As above, going on after {@code done} iterations (a run resumed from a checkpoint taken at a test). */
    static SolveResult run(RichardsonSettings settings, ProgressListener listener, Runnable step, DoubleSupplier residual,
                           int done) {
        long start = System.nanoTime();
        int k = done;
        double last = Double.NaN;
        boolean converged = false;
        while (k < settings.maxIterations() && !converged) {
            step.run();
            k++;
            if (settings.checksAt(k)) {
                last = residual.getAsDouble();
                converged = last <= settings.tolerance();
                listener.onCheck(k, last);
            }
        }
        return new SolveResult(k, last, converged, (System.nanoTime() - start) * 1e-9);
    }
}
