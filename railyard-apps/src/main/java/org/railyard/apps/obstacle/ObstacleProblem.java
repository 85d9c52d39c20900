package org.railyard.apps.obstacle;

import java.util.Objects;

/**
 * A discretised 3D obstacle problem on the unit cube, the test problem of seed 000, section IV.
 *
 * <p>Continuous problem: find {@code u} on {@code Ω = (0,1)^3} with {@code u = 0} on the boundary such
 * that, everywhere in {@code Ω},
 * <pre>
 *   A u - f ≥ 0,    u - φ ≥ 0,    (A u - f)(u - φ) = 0,        A = -Δ
 * </pre>
 * that is, {@code u} stays above the obstacle {@code φ}, satisfies {@code -Δu = f} where it does not
 * touch the obstacle, and is pushed up ({@code -Δu > f}) only where it touches. Physically: an
 * elastic membrane clamped on the boundary, loaded by {@code f}, that cannot pass below {@code φ}.
 *
 * <p>Discretisation: {@code n} interior points per axis, spacing {@code h = 1/(n+1)}, point
 * {@code (i,j,k)} (0-based) at {@code ((i+1)h, (j+1)h, (k+1)h)}. {@code A} becomes the 7-point
 * finite-difference Laplacian {@code (A u)_p = (6 u_p - Σ_{q ~ p} u_q) / h^2}, with the boundary
 * values (zero) standing in for missing neighbours. The discrete problem is a linear
 * complementarity problem with an M-matrix; the projected Richardson method ({@link
 * RichardsonSettings}) solves it.
 *
 * <p>The seed does not fix {@code f} or {@code φ}; {@link #membraneOnBump(int)} is the variant this
 * project uses. {@code φ} must be non-positive on the boundary, or no admissible {@code u} exists.
 *
 * @param n interior points per axis (the grid has {@code n^3} unknowns)
 * @param source the load {@code f(x, y, z)}
 * @param obstacle the obstacle {@code φ(x, y, z)}
 * @param description one line for reports
 */
public record ObstacleProblem(int n, ScalarField source, ScalarField obstacle, String description) {

    /** Uniform load of {@link #membraneOnBump}: the membrane's own weight, pulling it down. */
    public static final double BUMP_LOAD = -8.0;
    /** Height of the top of the bump of {@link #membraneOnBump}, at the centre of the cube. */
    public static final double BUMP_HEIGHT = 0.2;
    /** Curvature of the bump of {@link #membraneOnBump}: {@code φ = HEIGHT - CURVATURE |x - c|^2}. */
    public static final double BUMP_CURVATURE = 2.0;

    /** A function of the three coordinates. */
    @FunctionalInterface
    public interface ScalarField {
        double at(double x, double y, double z);
    }

    public ObstacleProblem {
        if (n < 1) {
            throw new IllegalArgumentException("grid must have at least one interior point per axis, got n=" + n);
        }
        Objects.requireNonNull(source, "source");
        Objects.requireNonNull(obstacle, "obstacle");
        Objects.requireNonNull(description, "description");
    }

    /**
     * The demo's problem: a membrane under its own weight ({@code f = -8}) lying over a paraboloid
     * bump {@code φ = 0.2 - 2 |x - c|^2} centred at {@code c = (1/2, 1/2, 1/2)}. Without the bump the
     * membrane would sag to about {@code -0.45} at the centre, so it rests on the top of the bump: the
     * contact set is a ball around the centre, and away from it {@code -Δu = f}. The bump is
     * {@code -0.3} or lower on the boundary, compatible with {@code u = 0} there.
     */
    public static ObstacleProblem membraneOnBump(int n) {
        return new ObstacleProblem(n,
                (x, y, z) -> BUMP_LOAD,
                (x, y, z) -> {
                    double dx = x - 0.5;
                    double dy = y - 0.5;
                    double dz = z - 0.5;
                    return BUMP_HEIGHT - BUMP_CURVATURE * (dx * dx + dy * dy + dz * dz);
                },
                "membrane under load " + BUMP_LOAD + " over the bump " + BUMP_HEIGHT + " - "
                        + BUMP_CURVATURE + "|x-c|^2");
    }

    /** Grid spacing {@code h = 1/(n+1)}. */
    public double h() {
        return 1.0 / (n + 1);
    }

    /** Coordinate of the interior point of 0-based global index {@code index} along any axis. */
    public double coordinate(int index) {
        return (index + 1) * h();
    }

    /** The values of {@code field} at the interior grid points, packed as {@link #index} says. */
    public double[] sample(ScalarField field) {
        double[] values = new double[n * n * n];
        for (int i = 0; i < n; i++) {
            double x = coordinate(i);
            for (int j = 0; j < n; j++) {
                double y = coordinate(j);
                for (int k = 0; k < n; k++) {
                    values[index(i, j, k)] = field.at(x, y, coordinate(k));
                }
            }
        }
        return values;
    }

    /** Index of point {@code (i, j, k)} in the packed {@code n^3} arrays solvers return ({@code k} fastest). */
    public int index(int i, int j, int k) {
        return (i * n + j) * n + k;
    }
}
