package org.railyard.apps.obstacle;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.railyard.Comm;
import org.railyard.testkit.SingletonJob;

/**
 * The parallel solver on a job of one (this JVM, started without a launcher, joins as a singleton).
 * Jobs of several processes are exercised through the launcher by the system tests.
 */
class ParallelSolverTest {
    @RegisterExtension
    static final SingletonJob job = new SingletonJob();

    @Test
    void aJobOfOneReproducesTheSequentialSolverExactly() {
        Comm world = job.world();
        assertThat(world.size()).isEqualTo(1);
        ObstacleProblem problem = ObstacleProblem.membraneOnBump(14);
        RichardsonSettings settings = RichardsonSettings.defaults().withCheckEvery(2);
        SolveResult parallel;
        double[] got;
        int[] checks = {0};
        try (ParallelSolver solver = new ParallelSolver(world, problem, settings, Decomposition.of(14, 1, "block"))) {
            parallel = solver.solve((k, r) -> checks[0]++);
            got = solver.gather(0);
        }
        SequentialSolver sequential = new SequentialSolver(problem, settings);
        SolveResult expected = sequential.solve(ProgressListener.NONE);
        assertThat(parallel.converged()).isTrue();
        assertThat(parallel.iterations()).isEqualTo(expected.iterations());
        assertThat(parallel.residual()).isEqualTo(expected.residual());
        assertThat(checks[0]).isEqualTo(parallel.iterations() / 2);
        assertThat(got).containsExactly(sequential.solution());
    }

    @Test
    void theHaloOptionSelectsTheExchangeAndRefusesWhatItCannotDo() {
        assertThat(ObstacleDemo.Options.parse(new String[0]).halo()).isEqualTo(ParallelSolver.Halo.TWO_SIDED);
        assertThat(ObstacleDemo.Options.parse(new String[] {"--halo", "rma"}).halo()).isEqualTo(ParallelSolver.Halo.RMA);
        assertThat(ObstacleDemo.Options.parse(new String[] {"--halo=two-sided"}).halo())
                .isEqualTo(ParallelSolver.Halo.TWO_SIDED);
        assertThatThrownBy(() -> ObstacleDemo.Options.parse(new String[] {"--halo", "shmem"}))
                .hasMessageContaining("--halo must be two-sided or rma, got 'shmem'");
        assertThatThrownBy(() -> ObstacleDemo.Options.parse(new String[] {"--halo", "rma", "--scheme", "async"}))
                .hasMessageContaining("--halo rma is for --scheme sync");
    }

    @Test
    void aJobOfOneWithOneSidedHalosReproducesTheSequentialSolverToo() {
        ObstacleProblem problem = ObstacleProblem.membraneOnBump(10);
        RichardsonSettings settings = RichardsonSettings.defaults();
        SolveResult parallel;
        double[] got;
        try (ParallelSolver solver = new ParallelSolver(job.world(), problem, settings,
                Decomposition.of(10, 1, "block"), ParallelSolver.Halo.RMA)) {
            parallel = solver.solve(ProgressListener.NONE);
            got = solver.gather(0);
        }
        SequentialSolver sequential = new SequentialSolver(problem, settings);
        assertThat(parallel.iterations()).isEqualTo(sequential.solve(ProgressListener.NONE).iterations());
        assertThat(got).containsExactly(sequential.solution());
    }

    @Test
    void rejectsADecompositionForAnotherJobSize() {
        Comm world = job.world();
        ObstacleProblem problem = ObstacleProblem.membraneOnBump(8);
        assertThatThrownBy(() -> new ParallelSolver(world, problem, RichardsonSettings.defaults(), Decomposition.of(8, 2, "slab")))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("communicator has 1");
    }

    @Test
    void theDemoReportsAgreement() {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int status = ObstacleDemo.run(job.world(), new String[] {"--n", "10", "--quiet", "--decomp=slab"},
                new PrintStream(out, true, StandardCharsets.UTF_8), new PrintStream(err, true, StandardCharsets.UTF_8));
        String report = out.toString(StandardCharsets.UTF_8);
        assertThat(status).as(report).isZero();
        assertThat(report).contains("ranks:            1", "grid:             10^3", "(converged)",
                "OK: parallel solution agrees with sequential within 0.0", "time/rank:        compute ",
                ", halo wait ", ", send wait ", ", test ");
        assertThat(report).doesNotContain("slowdown 0");
        // the line for programs, the same keys as the C twin's (bench/peers/c/obstacle.c)
        assertThat(report).containsPattern("(?m)^RESULT obstacle impl=railyard scheme=sync np=1 n=10 grid=1x1x1"
                + " iterations=[1-9][0-9]* converged=true residual=[0-9.]+(E-[0-9]+)? solve_s=[0-9.]+ compute_s=[0-9.]+"
                + " halo_wait_s=[0-9.]+ send_wait_s=[0-9.]+ test_s=[0-9.]+ slowdown_s=0\\.000000$");
        assertThat(err.toString(StandardCharsets.UTF_8)).isEmpty();
    }

    @Test
    void aSlowedRankSpendsAtLeastItsComputingTimeAgainInTheBreakdown() {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        int status = ObstacleDemo.run(job.world(), new String[] {"--n", "10", "--quiet", "--no-check", "--slow", "0:2:spin"},
                new PrintStream(out, true, StandardCharsets.UTF_8), new PrintStream(new ByteArrayOutputStream()));
        String report = out.toString(StandardCharsets.UTF_8);
        assertThat(status).as(report).isZero();
        java.util.regex.Matcher m = java.util.regex.Pattern
                .compile("time/rank: +compute ([0-9.]+)-[0-9.]+ s.*, slowdown ([0-9.]+)-[0-9.]+ s").matcher(report);
        assertThat(m.find()).as(report).isTrue();
        // factor 2: the busy loop lasts at least as long as the computation it follows
        assertThat(Double.parseDouble(m.group(2))).as(report).isGreaterThanOrEqualTo(Double.parseDouble(m.group(1)));
    }

    @Test
    void theDemoRejectsBadOptionsWithStatusTwo() {
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        PrintStream errStream = new PrintStream(err, true, StandardCharsets.UTF_8);
        PrintStream out = new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8);
        assertThat(ObstacleDemo.run(job.world(), new String[] {"--n", "many"}, out, errStream)).isEqualTo(2);
        assertThat(ObstacleDemo.run(job.world(), new String[] {"--bogus"}, out, errStream)).isEqualTo(2);
        assertThat(ObstacleDemo.run(job.world(), new String[] {"--decomp", "2x1x1"}, out, errStream)).isEqualTo(2);
        assertThat(err.toString(StandardCharsets.UTF_8)).contains("not a number", "unknown option '--bogus'", "usage:");
    }

    @Test
    void optionsParseBothSpellings() {
        ObstacleDemo.Options o = ObstacleDemo.Options.parse(new String[] {
            "--n=20", "--tol", "1e-5", "--max-iter=50", "--check-every", "4", "--omega", "0.5", "--no-check",
            "--agree-tol", "1e-12", "--decomp", "slab", "-q"});
        assertThat(o.n()).isEqualTo(20);
        assertThat(o.settings()).isEqualTo(new RichardsonSettings(1e-5, 50, 4, 0.5));
        assertThat(o.check()).isFalse();
        assertThat(o.agreeTolerance()).isEqualTo(1e-12);
        assertThat(o.decomp()).isEqualTo("slab");
        assertThat(o.quiet()).isTrue();
    }

    @Test
    void repeatedSolvesPrintOneLinePerSolveWithTheSameIterations() {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        int[] its = RepeatedSolves.run(job.world(), 8, 2, new PrintStream(bytes, true, StandardCharsets.UTF_8));
        assertThat(its).hasSize(2);
        assertThat(its[1]).isEqualTo(its[0]).isPositive();
        assertThat(bytes.toString(StandardCharsets.UTF_8).lines())
                .hasSize(2)
                .allMatch(l -> l.matches("solve [01] rank 0 wall [0-9.]+ s iterations " + its[0]
                        + " per-iteration us: compute [0-9.]+ halo [0-9.]+ send [0-9.]+ test [0-9.]+"));
        assertThatThrownBy(() -> RepeatedSolves.run(job.world(), 8, 0, System.out))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("SOLVES");
    }
}
