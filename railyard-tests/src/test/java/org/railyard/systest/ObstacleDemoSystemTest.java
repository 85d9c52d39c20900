package org.railyard.systest;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.railyard.launcher.JobResult;
import org.railyard.launcher.JobSpec;
import org.railyard.systest.Transcript.Stream;

/**
 * The project's main demo as users run it: {@code ObstacleDemo} with its default options on 4
 * ranks through the launcher. The parallel solve must reproduce the sequential one (the demo
 * checks it bit for bit and says so), and every rank must exit 0.
 */
@Timeout(value = 5, unit = TimeUnit.MINUTES)
class ObstacleDemoSystemTest {
    private static final String DEMO = "org.railyard.apps.obstacle.ObstacleDemo";

    @Test
    void fourRanksAgreeWithTheSequentialSolution() {
        // the solver is numeric work: full JIT, only the heap bounded
        JobSpec spec = new JobSpec(4, List.of(), DEMO, List.of(), List.of(), Map.of(), List.of("-Xmx384m"),
                Duration.ofSeconds(200), null);
        Jobs.Finished job = Jobs.run("obstacle-demo-np4", spec);
        String report = job.report();
        assertThat(job.result().exitCode()).as("exit code\n%s", report).isZero();
        List<String> out0 = job.transcript().texts(0, Stream.OUT);
        assertThat(out0).as("rank 0's stdout\n%s", report)
                .anyMatch(l -> l.startsWith("OK: parallel solution agrees with sequential"))
                .anyMatch(l -> l.matches("ranks:\\s+4 .*"));
    }

    @Test
    void aMalformedCommandLineIsNamedWhicheverRankEndsFirst() {
        JobSpec spec = new JobSpec(3, List.of(), DEMO, List.of("--n", "0"), List.of(), Map.of(), List.of(),
                Duration.ofSeconds(60), null);
        Jobs.Finished job = Jobs.run("obstacle-demo-usage", spec);
        String report = job.report();
        assertThat(job.result().exitCode()).as("exit code\n%s", report).isEqualTo(2);
        // the ranks that ended on their own (the others the launcher stopped) each said why
        List<JobResult.RankStatus> failed = job.result().ranks().stream()
                .filter(r -> r.outcome() == JobResult.Outcome.FAILED).toList();
        assertThat(failed).as(report).isNotEmpty();
        for (JobResult.RankStatus r : failed) {
            assertThat(job.transcript().texts(r.rank(), Stream.ERR)).as("rank %d's stderr\n%s", r.rank(), report)
                    .contains("ObstacleDemo: --n must be >= 1, got 0");
        }
    }
}
