package org.railyard.apps.obstacle;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.railyard.testkit.SingletonJob;

/**
 * The asynchronous solver on a job of one (this JVM as a singleton), its options and the slowdown;
 * jobs of several processes, over tcp and udp, with and without loss, are system tests.
 */
class AsyncSolverTest {
    @RegisterExtension
    static final SingletonJob job = new SingletonJob();

    @Test
    void theCertifiedResidualIsExactlyTheSequentialStoppingQuantityOfTheAnswer() {
        ObstacleProblem problem = ObstacleProblem.membraneOnBump(10);
        RichardsonSettings settings = RichardsonSettings.defaults();
        SolveResult r;
        double[] answer;
        try (AsyncSolver solver = new AsyncSolver(job.world(), problem, settings, Decomposition.of(10, 1, "block"),
                Slowdown.NONE, 0)) {
            r = solver.solve(ProgressListener.NONE);
            answer = solver.gather(0);
            assertThat(solver.rounds()).isPositive();
        }
        assertThat(r.converged()).isTrue();
        assertThat(r.residual()).isLessThanOrEqualTo(settings.tolerance());
        // the same operations on the same operands: equal to the last bit
        assertThat(AsyncSolver.residual(problem, settings, answer)).isEqualTo(r.residual());
        SequentialSolver seq = new SequentialSolver(problem, settings);
        seq.solve(ProgressListener.NONE);
        double[] expected = seq.solution();
        double bound = AsyncSolver.agreementBound(problem, settings, expected);
        for (int i = 0; i < expected.length; i++) {
            assertThat(Math.abs(answer[i] - expected[i])).isLessThanOrEqualTo(bound);
        }
    }

    @Test
    void theDemoRunsTheAsynchronousSchemeAndChecksItsAnswer() {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        int status = ObstacleDemo.run(job.world(), new String[] {"--n", "9", "--quiet", "--scheme", "async"},
                new PrintStream(out, true, StandardCharsets.UTF_8), new PrintStream(new ByteArrayOutputStream()));
        String report = out.toString(StandardCharsets.UTF_8);
        assertThat(status).as(report).isZero();
        assertThat(report).contains("scheme:           async", "iterations/rank:", "recomputed:",
                "OK: asynchronous solution meets the stopping test", "time/rank:        compute ");
    }

    @Test
    void schemeTransportSlowdownAndChunkParse() {
        ObstacleDemo.Options o = ObstacleDemo.Options.parse(new String[] {"--scheme", "async", "--transport=udp",
            "--slow", "1:2:spin"});
        assertThat(o.async()).isTrue();
        assertThat(o.transport()).isEqualTo("udp");
        assertThat(o.slow()).isEqualTo(new Slowdown(1, 2, true));
        assertThat(o.chunk()).as("udp: a few datagrams per value").isEqualTo(AsyncSolver.UDP_CHUNK);
        assertThat(ObstacleDemo.Options.parse(new String[] {"--transport", "tcp"}).chunk()).as("whole planes").isZero();
        assertThat(ObstacleDemo.Options.parse(new String[] {"--chunk", "100"}).chunk()).isEqualTo(100);
        assertThat(ObstacleDemo.Options.parse(new String[0]).async()).isFalse();
        assertThatThrownBy(() -> ObstacleDemo.Options.parse(new String[] {"--scheme", "maybe"}))
                .hasMessageContaining("sync or async");
        assertThatThrownBy(() -> ObstacleDemo.Options.parse(new String[] {"--transport", "ib"}))
                .hasMessageContaining("tcp, udp or shm");
        assertThatThrownBy(() -> ObstacleDemo.Options.parse(new String[] {"--slow", "1:0.5"})).hasMessageContaining(">= 1");
        assertThatThrownBy(() -> ObstacleDemo.Options.parse(new String[] {"--slow", "1:2:nap"}))
                .hasMessageContaining("spin or sleep");
    }

    @Test
    void aSlowedRankTakesFactorTimesItsComputingTime() {
        Slowdown s = Slowdown.parse("0:3");
        assertThat(s.slows(0)).isTrue();
        assertThat(s.slows(1)).isFalse();
        long t0 = System.nanoTime();
        s.after(20_000_000);
        long extra = System.nanoTime() - t0;
        assertThat(extra).isGreaterThanOrEqualTo(40_000_000);
        assertThat(Slowdown.NONE.slows(0)).isFalse();
    }
}
