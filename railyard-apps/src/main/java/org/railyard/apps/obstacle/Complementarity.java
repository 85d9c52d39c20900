package org.railyard.apps.obstacle;

/**
 * How well a grid function satisfies the discrete obstacle problem of {@link ObstacleProblem}:
 * {@code u ≥ φ}, {@code Au - f ≥ 0}, {@code (Au - f)(u - φ) = 0}. All three hold exactly iff the
 * natural residual {@code min(u - φ, δ(Au - f))} is zero at every point; for an iterate of the
 * projected Richardson method it equals minus the next step, so its size is bounded by the
 * successive difference of that step.
 *
 * @param minGap {@code min (u - φ)}: negative if the obstacle is violated
 * @param minExcess {@code min δ(Au - f)}: negative where the membrane is pulled below equilibrium
 * @param maxNaturalResidual {@code max |min(u - φ, δ(Au - f))|}
 * @param contactPoints points where {@code u = φ} exactly (the discrete contact set)
 */
public record Complementarity(double minGap, double minExcess, double maxNaturalResidual, long contactPoints) {

    /** Evaluates {@code u} (packed as {@link ObstacleProblem#index}) with step {@code delta}. */
    public static Complementarity of(ObstacleProblem problem, double delta, double[] u) {
        int n = problem.n();
        double h = problem.h();
        double invH2 = 1.0 / (h * h);
        double[] phi = problem.sample(problem.obstacle());
        double[] f = problem.sample(problem.source());
        double minGap = Double.POSITIVE_INFINITY;
        double minExcess = Double.POSITIVE_INFINITY;
        double maxNatural = 0.0;
        long contact = 0;
        for (int i = 0; i < n; i++) {
            for (int j = 0; j < n; j++) {
                for (int k = 0; k < n; k++) {
                    int p = problem.index(i, j, k);
                    double neighbours = at(u, n, i - 1, j, k) + at(u, n, i + 1, j, k)
                            + at(u, n, i, j - 1, k) + at(u, n, i, j + 1, k)
                            + at(u, n, i, j, k - 1) + at(u, n, i, j, k + 1);
                    double excess = delta * ((6.0 * u[p] - neighbours) * invH2 - f[p]);
                    double gap = u[p] - phi[p];
                    minGap = Math.min(minGap, gap);
                    minExcess = Math.min(minExcess, excess);
                    maxNatural = Math.max(maxNatural, Math.abs(Math.min(gap, excess)));
                    if (gap == 0.0) {
                        contact++;
                    }
                }
            }
        }
        return new Complementarity(minGap, minExcess, maxNatural, contact);
    }

    /** {@code u} at a point, or the boundary value 0 outside the interior. */
    private static double at(double[] u, int n, int i, int j, int k) {
        if (i < 0 || j < 0 || k < 0 || i >= n || j >= n || k >= n) {
            return 0.0;
        }
        return u[(i * n + j) * n + k];
    }
}
