package org.railyard.apps.obstacle;

/** Told the global residual at each convergence test of a solve. */
@FunctionalInterface
public interface ProgressListener {
    /** A listener that ignores everything. */
    ProgressListener NONE = (iteration, residual) -> { };

    /**
     * Called at each convergence test, on the solver's thread; must be cheap, since it runs inside
     * the iteration.
     *
     * @param iteration iterations done so far
     * @param residual relative successive difference of the last iteration
     */
    void onCheck(int iteration, double residual);
}
