package org.railyard.systest.pmi;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.fail;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.railyard.systest.Jobs;

/**
 * Real processes under MPICH's Hydra: {@code mpiexec.hydra -n 4} starts four JVMs (the JDK running
 * this test, with this test's class path), which bootstrap through
 * {@link org.railyard.bootstrap.Pmi1Bootstrap} on the PMI_FD Hydra hands them, and, when this
 * Hydra has {@code -pmi-port}, once more over TCP. Then a whole Railyard program (init, a ring of
 * send/recv on the world, a barrier) runs the same way.
 *
 * <p>Skips, saying why, when {@code mpiexec.hydra} is not installed ({@code apt-get install mpich}).
 * Every run is bounded; a job that overstays is killed with all its processes.
 */
@Timeout(value = 10, unit = TimeUnit.MINUTES)
class PmiHydraSystemTest {
    private static final int RANKS = 4;
    private static final long JOB_LIMIT_SECONDS = 120;
    private static final Pattern KV_LINE = Pattern.compile(
            "PMIKV rank=(\\d+) size=(\\d+) name=(\\S+) job=(\\S+) secret=([0-9a-f]+) seen=(\\S+)");
    private static final Pattern RING_LINE = Pattern.compile(
            "RING rank=(\\d+) size=(\\d+) token=(-?\\d+) left=(-?\\d+) bootstrap=(\\S+)");

    private static Path hydra;

    @TempDir
    Path work;

    @BeforeAll
    static void findHydra() {
        hydra = Jobs.onPath("mpiexec.hydra").orElse(null);
    }

    /** Per test rather than per class, so that each test is reported as skipped, with the reason. */
    @BeforeEach
    void requireHydra() {
        Assumptions.assumeTrue(hydra != null,
                "mpiexec.hydra is not installed (Debian/Ubuntu: apt-get install mpich): skipping the PMI-1 system tests");
    }

    @Test
    void keyValueExchangeOverInheritedFd() throws Exception {
        assertKeyValueJob(run(List.of(), PmiKvRank.class));
    }

    @Test
    void keyValueExchangeOverPmiPort() throws Exception {
        Assumptions.assumeTrue(hydraHelp().contains("-pmi-port"),
                "this mpiexec.hydra has no -pmi-port option: skipping the PMI_PORT variant");
        assertKeyValueJob(run(List.of("-pmi-port"), PmiKvRank.class));
    }

    @Test
    void railyardRingAndBarrierUnderHydra() throws Exception {
        JobResult job = run(List.of(), PmiRingRank.class);
        Map<Integer, Matcher> lines = parse(job, RING_LINE);
        for (int r = 0; r < RANKS; r++) {
            Matcher m = lines.get(r);
            assertThat(m.group(2)).as("size seen by rank %d", r).isEqualTo(Integer.toString(RANKS));
            assertThat(m.group(5)).as("bootstrap of rank %d", r).isEqualTo("pmi-1");
            assertThat(Integer.parseInt(m.group(4))).as("value rank %d got from its left neighbour", r)
                    .isEqualTo((r + RANKS - 1) % RANKS);
        }
        assertThat(Integer.parseInt(lines.get(0).group(3))).as("token back at rank 0").isEqualTo(RANKS * (RANKS - 1) / 2);
    }

    private static void assertKeyValueJob(JobResult job) {
        Map<Integer, Matcher> lines = parse(job, KV_LINE);
        String expectedSeen = String.join(",", IntStream.range(0, RANKS).mapToObj(Integer::toString).toList());
        Matcher first = lines.get(0);
        for (int r = 0; r < RANKS; r++) {
            Matcher m = lines.get(r);
            assertThat(m.group(2)).as("size seen by rank %d", r).isEqualTo(Integer.toString(RANKS));
            assertThat(m.group(3)).as("bootstrap of rank %d", r).isEqualTo("pmi-1");
            assertThat(m.group(6)).as("keys rank %d read", r).isEqualTo(expectedSeen);
            assertThat(m.group(4)).as("job id of rank %d", r).isEqualTo(first.group(4));
            assertThat(m.group(5)).as("secret fingerprint of rank %d", r).isEqualTo(first.group(5));
        }
    }

    /** One line per rank 0..RANKS-1 matching {@code pattern}, keyed by rank; fails with the output otherwise. */
    private static Map<Integer, Matcher> parse(JobResult job, Pattern pattern) {
        Map<Integer, Matcher> byRank = new HashMap<>();
        for (String line : job.stdout().split("\n")) {
            Matcher m = pattern.matcher(line.trim());
            if (m.matches() && byRank.put(Integer.parseInt(m.group(1)), m) != null) {
                fail("rank " + m.group(1) + " reported twice\n" + job);
            }
        }
        if (job.exitCode() != 0 || byRank.size() != RANKS) {
            fail("expected exit code 0 and one line from each of " + RANKS + " ranks, got exit code " + job.exitCode()
                    + " and ranks " + byRank.keySet() + "\n" + job);
        }
        return byRank;
    }

    record JobResult(List<String> command, int exitCode, String stdout, String stderr) {
        @Override
        public String toString() {
            return "command: " + String.join(" ", command) + "\n--- stdout ---\n" + stdout + "--- stderr ---\n" + stderr;
        }
    }

    /** Runs {@code main} in RANKS processes under mpiexec.hydra, bounded by JOB_LIMIT_SECONDS. */
    private JobResult run(List<String> hydraOptions, Class<?> main) throws IOException, InterruptedException {
        List<String> command = new ArrayList<>();
        command.add(hydra.toString());
        command.addAll(List.of("-n", Integer.toString(RANKS)));
        command.addAll(hydraOptions);
        command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        // The ranks reach PMI_FD through java.lang.foreign; allow it without a warning.
        command.addAll(List.of("--enable-native-access=ALL-UNNAMED", "-Xmx256m", "-cp",
                System.getProperty("java.class.path"), main.getName()));

        Path out = work.resolve(main.getSimpleName() + ".out");
        Path err = work.resolve(main.getSimpleName() + ".err");
        ProcessBuilder pb = new ProcessBuilder(command).redirectOutput(out.toFile()).redirectError(err.toFile());
        // The ranks must find Hydra's PMI variables, not those of whatever started this test.
        pb.environment().keySet().removeIf(k -> k.startsWith("PMI_") || k.equals("RAILYARD_KV"));
        // Hydra gives every rank this environment: keep their own waits well inside the job's limit.
        pb.environment().put("RAILYARD_BOOTSTRAP_TIMEOUT", "60s");
        Process p = pb.start();
        int exit;
        if (p.waitFor(JOB_LIMIT_SECONDS, TimeUnit.SECONDS)) {
            exit = p.exitValue();
        } else {
            // SIGKILL gives Hydra no chance to stop its ranks, so kill them first, then Hydra.
            p.descendants().forEach(ProcessHandle::destroyForcibly);
            p.destroyForcibly();
            p.waitFor(10, TimeUnit.SECONDS);
            exit = -1;
        }
        JobResult result = new JobResult(command, exit, Files.readString(out, StandardCharsets.UTF_8),
                Files.readString(err, StandardCharsets.UTF_8));
        if (exit == -1) {
            fail("the job did not end within " + JOB_LIMIT_SECONDS + "s and was killed\n" + result);
        }
        return result;
    }

    private String hydraHelp() throws IOException, InterruptedException {
        Path help = work.resolve("hydra-help.txt");
        Process p = new ProcessBuilder(hydra.toString(), "-h").redirectErrorStream(true).redirectOutput(help.toFile()).start();
        if (!p.waitFor(30, TimeUnit.SECONDS)) {
            p.destroyForcibly();
        }
        return Files.readString(help, StandardCharsets.UTF_8);
    }
}
