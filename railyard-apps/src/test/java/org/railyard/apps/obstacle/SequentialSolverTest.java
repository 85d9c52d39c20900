package org.railyard.apps.obstacle;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import org.junit.jupiter.api.Test;

class SequentialSolverTest {

    /** Largest |value| of a packed solution. */
    private static double maxAbs(double[] u) {
        double m = 0;
        for (double v : u) {
            m = Math.max(m, Math.abs(v));
        }
        return m;
    }

    @Test
    void reproducesAManufacturedSolutionWhenTheObstacleIsInactive() {
        // u = x(1-x) y(1-y) z(1-z) is quadratic along each axis, so the 7-point Laplacian of its
        // grid values is exactly its Laplacian: the discrete solution is u itself, with no
        // discretisation error, and an obstacle far below never touches it.
        int n = 10;
        ObstacleProblem problem = new ObstacleProblem(n,
                (x, y, z) -> 2 * (y * (1 - y) * z * (1 - z) + x * (1 - x) * z * (1 - z) + x * (1 - x) * y * (1 - y)),
                (x, y, z) -> -1.0, "manufactured");
        SequentialSolver solver = new SequentialSolver(problem, RichardsonSettings.defaults().withTolerance(1e-13));
        SolveResult result = solver.solve(ProgressListener.NONE);
        assertThat(result.converged()).isTrue();
        double[] u = solver.solution();
        double[] exact = problem.sample((x, y, z) -> x * (1 - x) * y * (1 - y) * z * (1 - z));
        double worst = 0;
        for (int p = 0; p < u.length; p++) {
            worst = Math.max(worst, Math.abs(u[p] - exact[p]));
        }
        assertThat(worst).isLessThan(1e-10);
        assertThat(Complementarity.of(problem, RichardsonSettings.defaults().delta(problem.h()), u).contactPoints()).isZero();
    }

    @Test
    void convergesOnTheDemoProblemAndSatisfiesTheConstraints() {
        ObstacleProblem problem = ObstacleProblem.membraneOnBump(16);
        RichardsonSettings settings = RichardsonSettings.defaults().withTolerance(1e-9);
        SequentialSolver solver = new SequentialSolver(problem, settings);
        SolveResult result = solver.solve(ProgressListener.NONE);
        assertThat(result.converged()).isTrue();
        assertThat(result.residual()).isLessThanOrEqualTo(1e-9);
        assertThat(result.iterations()).isLessThan(settings.maxIterations());

        double[] u = solver.solution();
        double scale = maxAbs(u);
        Complementarity c = Complementarity.of(problem, settings.delta(problem.h()), u);
        // The projection makes u >= phi hold exactly at every iterate.
        assertThat(c.minGap()).isGreaterThanOrEqualTo(0.0);
        // The natural residual at u is the next step, and a step of this iteration is never larger
        // than the previous one in the max norm (I - delta A is non-negative with row sums <= 1 and
        // the projection is non-expansive), which was at most tol * max|u| at the stop.
        assertThat(c.maxNaturalResidual()).isLessThanOrEqualTo(1e-9 * scale + 1e-15);
        assertThat(c.minExcess()).isGreaterThanOrEqualTo(-(1e-9 * scale + 1e-15));
        // The membrane rests on the bump around the centre and hangs free near the walls.
        assertThat(c.contactPoints()).isPositive().isLessThan(16L * 16 * 16);
        int centre = problem.index(8, 8, 8);
        double mid = problem.coordinate(8);
        assertThat(u[centre]).isEqualTo(problem.obstacle().at(mid, mid, mid));
        assertThat(u[problem.index(0, 0, 0)]).isGreaterThan(problem.obstacle().at(problem.h(), problem.h(), problem.h()));
    }

    @Test
    void residualsAtChecksFallAndTheLastIsReported() {
        ObstacleProblem problem = ObstacleProblem.membraneOnBump(12);
        double[] seen = {Double.NaN, 0};
        SolveResult result = new SequentialSolver(problem, RichardsonSettings.defaults()).solve((k, r) -> {
            seen[0] = r;
            seen[1] = k;
        });
        assertThat(seen[0]).isEqualTo(result.residual());
        assertThat((int) seen[1]).isEqualTo(result.iterations());
    }

    @Test
    void stopsAtTheIterationBoundWithoutConverging() {
        RichardsonSettings settings = RichardsonSettings.defaults().withTolerance(1e-15).withMaxIterations(37);
        SolveResult result = new SequentialSolver(ObstacleProblem.membraneOnBump(12), settings).solve(ProgressListener.NONE);
        assertThat(result.iterations()).isEqualTo(37);
        assertThat(result.converged()).isFalse();
        assertThat(result.residual()).isGreaterThan(1e-15);
    }

    @Test
    void testingLessOftenStopsOnAMultipleOfTheIntervalAndNoEarlier() {
        ObstacleProblem problem = ObstacleProblem.membraneOnBump(12);
        SolveResult every = new SequentialSolver(problem, RichardsonSettings.defaults()).solve(ProgressListener.NONE);
        SolveResult tenth = new SequentialSolver(problem, RichardsonSettings.defaults().withCheckEvery(10))
                .solve(ProgressListener.NONE);
        assertThat(tenth.iterations() % 10).isZero();
        assertThat(tenth.iterations()).isBetween(every.iterations(), every.iterations() + 9);
        assertThat(tenth.converged()).isTrue();
    }

    @Test
    void dampedStepConvergesToTheSameSolution() {
        ObstacleProblem problem = ObstacleProblem.membraneOnBump(10);
        SequentialSolver full = new SequentialSolver(problem, RichardsonSettings.defaults().withTolerance(1e-12));
        SequentialSolver damped = new SequentialSolver(problem, RichardsonSettings.defaults().withTolerance(1e-12).withOmega(0.5));
        SolveResult a = full.solve(ProgressListener.NONE);
        SolveResult b = damped.solve(ProgressListener.NONE);
        assertThat(b.iterations()).isGreaterThan(a.iterations());
        double[] u = full.solution();
        double[] v = damped.solution();
        for (int p = 0; p < u.length; p++) {
            assertThat(v[p]).isCloseTo(u[p], within(1e-8));
        }
    }

    @Test
    void settingsRejectStepsThatWouldNotContract() {
        assertThatThrownBy(() -> RichardsonSettings.defaults().withOmega(1.5)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> RichardsonSettings.defaults().withOmega(0)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> RichardsonSettings.defaults().withTolerance(-1)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> RichardsonSettings.defaults().withCheckEvery(0)).isInstanceOf(IllegalArgumentException.class);
        assertThat(RichardsonSettings.defaults().delta(0.5)).isEqualTo(0.25 / 6);
    }
}
