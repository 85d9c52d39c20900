package org.railyard.systest;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.railyard.launcher.JobSpec;
import org.railyard.systest.Transcript.Stream;

/**
 * {@code ObstacleDemo --halo rma}: the synchronous solver with its halos put into the neighbours'
 * windows between fences must give the two-sided version's answer: each run checks its solution
 * bit for bit against the sequential solver (the demo's default), and the runs must stop at the
 * same iteration with the same residual, over shared memory and over tcp, on a grid cut in all three
 * directions (4 ranks, 2x2x1) and in slabs (3 ranks).
 */
@Timeout(value = 8, unit = TimeUnit.MINUTES)
class ObstacleRmaHaloSystemTest {
    private static final String DEMO = "org.railyard.apps.obstacle.ObstacleDemo";
    private static final Pattern RESULT = Pattern.compile(
            "RESULT obstacle impl=railyard scheme=sync np=(\\d+) n=(\\d+) grid=(\\S+) iterations=(\\d+) converged=true "
                    + "residual=(\\S+) .*");

    /** Runs the demo; returns "grid iterations residual" of its RESULT line after checking it agreed. */
    private static String run(String name, int np, String... args) {
        List<String> a = new ArrayList<>(List.of("--n", "20", "--quiet"));
        a.addAll(List.of(args));
        JobSpec spec = new JobSpec(np, List.of(), DEMO, a, List.of(), Map.of(), Jobs.RANK_JVM,
                Duration.ofSeconds(240), null);
        Jobs.Finished job = Jobs.run(name, spec);
        String report = job.report();
        assertThat(job.result().exitCode()).as("exit code\n%s", report).isZero();
        List<String> out0 = job.transcript().texts(0, Stream.OUT);
        assertThat(out0).as("rank 0's stdout\n%s", report)
                .anyMatch(l -> l.startsWith("OK: parallel solution agrees with sequential"));
        boolean rma = a.contains("rma");
        assertThat(out0.stream().anyMatch(l -> l.startsWith("halo exchange:    one-sided"))).as(report).isEqualTo(rma);
        for (String l : out0) {
            Matcher m = RESULT.matcher(l);
            if (m.matches()) {
                return m.group(3) + " " + m.group(4) + " " + m.group(5);
            }
        }
        return fail("no RESULT line\n" + report);
    }

    @Test
    void putsBetweenFencesGiveTheTwoSidedAnswerOverShmAndTcp() {
        String twoSided = run("obstacle-halo-2sided-np4", 4, "--decomp", "2x2x1", "--transport", "shm");
        assertThat(run("obstacle-halo-rma-shm-np4", 4, "--decomp", "2x2x1", "--transport", "shm", "--halo", "rma"))
                .isEqualTo(twoSided);
        assertThat(run("obstacle-halo-rma-tcp-np4", 4, "--decomp", "2x2x1", "--transport", "tcp", "--halo", "rma"))
                .isEqualTo(twoSided);
    }

    @Test
    void slabsOfThreeRanksToo() {
        String twoSided = run("obstacle-halo-2sided-np3", 3, "--decomp", "slab");
        assertThat(run("obstacle-halo-rma-np3", 3, "--decomp", "slab", "--halo", "rma")).isEqualTo(twoSided);
    }
}
