package org.railyard.systest;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.railyard.launcher.JobSpec;
import org.railyard.systest.Transcript.Stream;

/**
 * The asynchronous obstacle solver as users run it ({@code ObstacleDemo --scheme async}) through the
 * launcher, on 2, 4 and 8 ranks over tcp and over udp, without loss (the lab test adds loss): every
 * run must stop by itself, with an answer that passes the sequential solver's stopping test (the demo
 * recomputes the residual from the gathered grid) and lies within the agreement bound of the
 * sequential solution, and every rank must exit 0.
 */
@Timeout(value = 6, unit = TimeUnit.MINUTES)
class AsyncObstacleSystemTest {
    static final String DEMO = "org.railyard.apps.obstacle.ObstacleDemo";

    @ParameterizedTest(name = "{0} ranks over {1}")
    @CsvSource({"2, tcp", "4, tcp", "8, tcp", "2, udp", "4, udp", "8, udp"})
    void theAsynchronousSolverStopsByItselfOnTheSequentialSolution(int np, String transport) {
        if (np == 8 && transport.equals("tcp")) {
            FullMatrix.heavyRow("8 ranks over tcp (8 ranks run over udp, tcp at 2 and 4)");
        }
        JobSpec spec = new JobSpec(np, List.of(), DEMO, List.of("--scheme", "async", "--transport", transport, "--n", "14",
                "--quiet"), List.of(), Map.of(), Jobs.RANK_JVM, Duration.ofSeconds(240), null);
        Jobs.Finished job = Jobs.run("async-obstacle-np" + np + "-" + transport, spec);
        String report = job.report();
        assertThat(job.result().exitCode()).as("exit code\n%s", report).isZero();
        assertThat(job.transcript().texts(0, Stream.OUT)).as("rank 0's stdout\n%s", report)
                .anyMatch(l -> l.equals("scheme:           async, transport " + transport + ", slowdown none"))
                .anyMatch(l -> l.startsWith("iterations:") && l.endsWith("(converged)"))
                .anyMatch(l -> l.startsWith("OK: asynchronous solution meets the stopping test"));
    }
}
