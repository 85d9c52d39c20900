package org.railyard.apps.obstacle;

/**
 * Parameters of the projected Richardson iteration (seed 000, section IV)
 * <pre>
 *   u^{k+1} = P_K( u^k - δ (A u^k - f) ),     P_K(v) = max(v, φ) pointwise,
 * </pre>
 * and of its stopping test.
 *
 * <p><b>Step δ.</b> {@code δ = ω h^2 / 6} with {@code 0 < ω ≤ 1}. The diagonal of {@code A} is
 * {@code 6/h^2}, so with {@code ω = 1} the matrix {@code I - δA} has a zero diagonal and
 * off-diagonal entries {@code 1/6}: it is non-negative with row sums at most 1 (strictly less next to
 * the boundary), hence a contraction in a weighted max norm, and so is its composition with the
 * pointwise projection {@code P_K}. That is the condition under which both the synchronous and the
 * asynchronous projected Richardson methods converge (Spiteri and Chau, reference [14] of the seed),
 * so the same δ will serve an asynchronous scheme. In the Euclidean norm, {@code δ = h^2/6} is also
 * the best fixed step for the unconstrained problem: the eigenvalues of {@code A} lie in
 * {@code [λmin, λmax]} with {@code λmin + λmax = 12/h^2}, and {@code 2/(λmin + λmax) = h^2/6}; the
 * contraction factor is then {@code cos(πh) ≈ 1 - π²h²/2}. With {@code ω = 1} the update is the
 * projected Jacobi step {@code max(φ, (Σ neighbours + h^2 f)/6)}. Smaller ω only slows it down;
 * ω is kept as a knob for experiments with damped schemes.
 *
 * <p><b>Stopping test.</b> The iteration stops when the relative successive difference {@code
 * ||u^{k+1} - u^k||_∞ / ||u^{k+1}||_∞} is at most {@code tolerance}, checked every {@code
 * checkEvery} iterations (and at the last allowed one), or after {@code maxIterations}. Point by
 * point, {@code u^k - u^{k+1} = min(u^k - φ, δ(A u^k - f))}, the natural residual of the
 * complementarity problem at {@code u^k}, so the test measures how far {@code u^k} is from
 * satisfying it, and vanishes exactly at the solution. For a contraction of factor ρ the distance
 * to the solution is at most {@code ρ/(1-ρ)} times the successive difference, and here {@code ρ = 1
 * - O(h^2)} (at worst {@code cos(πh)}, a factor near {@code 0.2 (n+1)^2}). On the demo problem with
 * {@code n = 48} the measured factor is about 0.9914, so the error is about 115 times the
 * successive difference: the default tolerance {@code 1e-7} leaves an iteration error near {@code
 * 2e-6} (relative {@code 1e-5}), far below the {@code O(h^2)} discretisation error ({@code h^2 ≈
 * 4e-4} times a modest constant), so a tighter default would cost iterations without improving the
 * answer. Checking less often saves the global reduction on the iterations in between; it can only
 * stop later, never earlier.
 *
 * @param tolerance relative successive-difference tolerance, {@code > 0}
 * @param maxIterations upper bound on iterations, {@code ≥ 1}
 * @param checkEvery iterations between two convergence tests, {@code ≥ 1}
 * @param omega relaxation factor in {@code (0, 1]}, {@code δ = ω h^2 / 6}
 */
public record RichardsonSettings(double tolerance, int maxIterations, int checkEvery, double omega) {

    /** Default tolerance: the iteration error it leaves is well below the discretisation error (see above). */
    public static final double DEFAULT_TOLERANCE = 1e-7;
    /** Default bound on iterations: a guard against a stalled run, far above what grids up to 128^3 need. */
    public static final int DEFAULT_MAX_ITERATIONS = 100_000;
    /** Default check interval: every iteration, the classic synchronous scheme. */
    public static final int DEFAULT_CHECK_EVERY = 1;

    public RichardsonSettings {
        if (!(tolerance > 0)) {
            throw new IllegalArgumentException("tolerance must be > 0, got " + tolerance);
        }
        if (maxIterations < 1) {
            throw new IllegalArgumentException("maxIterations must be >= 1, got " + maxIterations);
        }
        if (checkEvery < 1) {
            throw new IllegalArgumentException("checkEvery must be >= 1, got " + checkEvery);
        }
        if (!(omega > 0 && omega <= 1)) {
            throw new IllegalArgumentException("omega must be in (0, 1], got " + omega);
        }
    }

    /** The defaults above with {@code ω = 1}. */
    public static RichardsonSettings defaults() {
        return new RichardsonSettings(DEFAULT_TOLERANCE, DEFAULT_MAX_ITERATIONS, DEFAULT_CHECK_EVERY, 1.0);
    }

    /** A copy with another tolerance. */
    public RichardsonSettings withTolerance(double t) {
        return new RichardsonSettings(t, maxIterations, checkEvery, omega);
    }

    /** A copy with another iteration bound. */
    public RichardsonSettings withMaxIterations(int m) {
        return new RichardsonSettings(tolerance, m, checkEvery, omega);
    }

    /** A copy with another check interval. */
    public RichardsonSettings withCheckEvery(int k) {
        return new RichardsonSettings(tolerance, maxIterations, k, omega);
    }

    /** A copy with another relaxation factor. */
    public RichardsonSettings withOmega(double w) {
        return new RichardsonSettings(tolerance, maxIterations, checkEvery, w);
    }

    /** The step {@code δ = ω h^2 / 6} for grid spacing {@code h}. */
    public double delta(double h) {
        return omega * h * h / 6.0;
    }

    /**
     * The relative successive difference from its two global maxima; 0 when nothing moved (which
     * covers the all-zero solution), infinite when everything moved to 0.
     */
    public static double relativeResidual(double maxDiff, double maxAbs) {
        return maxDiff == 0.0 ? 0.0 : maxDiff / maxAbs;
    }

    /** True if iteration {@code k} (1-based) is one at which the convergence test runs. */
    public boolean checksAt(int k) {
        return k % checkEvery == 0 || k == maxIterations;
    }
}
