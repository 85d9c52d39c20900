package org.railyard.apps.obstacle;

/**
 * Outcome of a solve.
 *
 * @param iterations iterations carried out
 * @param residual relative successive difference at the last convergence test
 *        (see {@link RichardsonSettings}); {@code NaN} if no test ran
 * @param converged true if the residual met the tolerance
 * @param seconds wall-clock time of the iteration (setup and gathering excluded)
 */
public record SolveResult(int iterations, double residual, boolean converged, double seconds) {
}
