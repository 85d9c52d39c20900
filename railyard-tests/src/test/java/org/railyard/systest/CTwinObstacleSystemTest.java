package org.railyard.systest;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.fail;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.railyard.launcher.JobSpec;
import org.railyard.systest.Transcript.Stream;

/**
 * The C twin of the main demo ({@code bench/peers/c/obstacle.c}, the synchronous projected Richardson
 * solver on MPI, which {@code bench/compare-app.sh} times against Railyard) must be the same
 * computation as {@code ObstacleDemo}: at 1, 2 and 4 ranks, built with {@code mpicc.openmpi -O3
 * -march=native -ffp-contract=off} and started by {@code mpirun.openmpi}, it must stop at the same
 * iteration with the same residual, to the bit, as the Java solver run through the launcher, both
 * having checked their answer against their own sequential solve. The grid, 25^3, splits unevenly at 2
 * and 4 ranks (13 and 12 points), so the ranges, the neighbours and the halo planes of the two
 * programs are compared too. Where MPICH's {@code mpicc.mpich} is installed as well, the twin built
 * with it must agree likewise.
 *
 * <p>Skips, saying why, when {@code mpicc.openmpi} or {@code mpirun.openmpi} is missing ({@code
 * apt-get install openmpi-bin libopenmpi-dev}; {@code bin/test} installs them). Every process is
 * bounded; one that overstays is killed with its children.
 */
@Timeout(value = 10, unit = TimeUnit.MINUTES)
class CTwinObstacleSystemTest {
    private static final String DEMO = "org.railyard.apps.obstacle.ObstacleDemo";
    private static final String N = "25";
    private static final long RUN_LIMIT_SECONDS = 180;
    /** The keys both programs print (ObstacleDemo.resultLine and obstacle.c's last line). */
    private static final Pattern RESULT = Pattern.compile("RESULT obstacle impl=(\\S+) scheme=sync np=(\\d+) n=(\\d+)"
            + " grid=(\\S+) iterations=(\\d+) converged=(true|false) residual=(\\S+) solve_s=.*");

    @TempDir
    static Path work;

    private static Path twinOpenMpi;
    private static Path twinMpich;
    private static String skipReason;

    @BeforeAll
    static void buildTheTwins() throws IOException, InterruptedException {
        Optional<Path> mpicc = Jobs.onPath("mpicc.openmpi");
        Optional<Path> mpirun = Jobs.onPath("mpirun.openmpi");
        if (mpicc.isEmpty() || mpirun.isEmpty()) {
            skipReason = "Open MPI is not installed (no " + (mpicc.isEmpty() ? "mpicc.openmpi" : "mpirun.openmpi")
                    + " on PATH): apt-get install openmpi-bin libopenmpi-dev";
            return;
        }
        Path source = twinSource();
        twinOpenMpi = compile(mpicc.get(), source, "obstacle-openmpi");
        Optional<Path> mpichCc = Jobs.onPath("mpicc.mpich");
        if (mpichCc.isPresent() && Jobs.onPath("mpirun.mpich").isPresent()) {
            twinMpich = compile(mpichCc.get(), source, "obstacle-mpich");
        }
    }

    @ParameterizedTest(name = "{0} rank(s)")
    @ValueSource(ints = {1, 2, 4})
    void theCTwinStopsAtTheSameIterationWithTheSameResidual(int np) throws IOException, InterruptedException {
        Assumptions.assumeTrue(skipReason == null, () -> skipReason);
        JobSpec spec = new JobSpec(np, List.of(), DEMO, List.of("--n", N, "--quiet"), List.of(), Map.of(),
                Jobs.RANK_JVM, Duration.ofSeconds(RUN_LIMIT_SECONDS), null);
        Jobs.Finished job = Jobs.run("ctwin-obstacle-java-np" + np, spec);
        String report = job.report();
        assertThat(job.result().exitCode()).as("the Java demo's exit code\n%s", report).isZero();
        List<String> javaOut = job.transcript().texts(0, Stream.OUT);
        assertThat(javaOut).as("the Java demo checked itself against its sequential solve\n%s", report)
                .anyMatch(l -> l.startsWith("OK: parallel solution agrees with sequential"));
        Matcher java = result(javaOut, "the Java demo", report);
        assertThat(java.group(1)).isEqualTo("railyard");

        List<String> mpirunOpenMpi = List.of(Jobs.onPath("mpirun.openmpi").orElseThrow().toString(), "--allow-run-as-root",
                "--oversubscribe", "-np", Integer.toString(np), twinOpenMpi.toString(), "--n", N, "--quiet");
        agree(java, run(mpirunOpenMpi, "openmpi-np" + np), "c-openmpi", np);
        if (twinMpich != null) {
            List<String> mpirunMpich = List.of(Jobs.onPath("mpirun.mpich").orElseThrow().toString(), "-np",
                    Integer.toString(np), twinMpich.toString(), "--n", N, "--quiet");
            agree(java, run(mpirunMpich, "mpich-np" + np), "c-mpich", np);
        }
    }

    /** The twin's output must say it checked itself, and its RESULT line must match the Java one's. */
    private static void agree(Matcher java, List<String> twinOut, String impl, int np) {
        String all = String.join("\n", twinOut);
        assertThat(twinOut).as("the %s twin checked itself against its sequential solve\n%s", impl, all)
                .anyMatch(l -> l.startsWith("OK: parallel solution agrees with sequential"));
        Matcher twin = result(twinOut, "the " + impl + " twin", all);
        assertThat(twin.group(1)).as(all).isEqualTo(impl);
        assertThat(twin.group(2)).as("np").isEqualTo(Integer.toString(np));
        assertThat(twin.group(3)).as("n").isEqualTo(N);
        assertThat(twin.group(4)).as("process grid of %s against Java's", impl).isEqualTo(java.group(4));
        assertThat(java.group(6)).as("the Java solver converged").isEqualTo("true");
        assertThat(twin.group(6)).as("%s converged", impl).isEqualTo("true");
        assertThat(Integer.parseInt(twin.group(5))).as("iterations of %s against Java's", impl)
                .isEqualTo(Integer.parseInt(java.group(5)));
        // the same double, not a nearby one: the two programs perform the same operations
        double javaResidual = Double.parseDouble(java.group(7));
        double twinResidual = Double.parseDouble(twin.group(7));
        assertThat(Double.doubleToLongBits(twinResidual))
                .as("residual of %s (%s) against Java's (%s)", impl, twin.group(7), java.group(7))
                .isEqualTo(Double.doubleToLongBits(javaResidual));
    }

    private static Matcher result(List<String> lines, String who, String context) {
        for (String l : lines) {
            Matcher m = RESULT.matcher(l);
            if (m.matches()) {
                return m;
            }
        }
        return fail(who + " printed no RESULT line\n" + context);
    }

    /** The twin's source: bench/peers/c/obstacle.c of the checkout this test runs in. */
    private static Path twinSource() {
        for (Path dir = Path.of(System.getProperty("user.dir")).toAbsolutePath(); dir != null; dir = dir.getParent()) {
            Path source = dir.resolve("bench/peers/c/obstacle.c");
            if (Files.isRegularFile(source)) {
                return source;
            }
        }
        return fail("bench/peers/c/obstacle.c not found above " + System.getProperty("user.dir"));
    }

    private static Path compile(Path mpicc, Path source, String name) throws IOException, InterruptedException {
        Path binary = work.resolve(name);
        List<String> out = run(List.of(mpicc.toString(), "-O3", "-march=native", "-ffp-contract=off", "-o",
                binary.toString(), source.toString(), "-lm"), "build-" + name);
        if (!Files.isExecutable(binary)) {
            fail(mpicc + " built no " + name + "\n" + String.join("\n", out));
        }
        return binary;
    }

    /** Runs a command to its end, bounded; fails unless it exits 0. Returns its output lines. */
    private static List<String> run(List<String> command, String name) throws IOException, InterruptedException {
        Path out = work.resolve(name + ".out");
        ProcessBuilder pb = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(out.toFile());
        // the MPI library must not take over a resource manager's variables from whatever started the test
        pb.environment().keySet().removeIf(k -> k.startsWith("PMI_") || k.startsWith("PMIX_") || k.startsWith("OMPI_"));
        Process p = pb.start();
        if (!p.waitFor(RUN_LIMIT_SECONDS, TimeUnit.SECONDS)) {
            p.descendants().forEach(ProcessHandle::destroyForcibly);
            p.destroyForcibly();
            p.waitFor(10, TimeUnit.SECONDS);
            fail(String.join(" ", command) + " did not end within " + RUN_LIMIT_SECONDS + " s and was killed\n"
                    + Files.readString(out, StandardCharsets.UTF_8));
        }
        List<String> lines = new ArrayList<>(Files.readAllLines(out, StandardCharsets.UTF_8));
        if (p.exitValue() != 0) {
            fail(String.join(" ", command) + " exited " + p.exitValue() + "\n" + String.join("\n", lines));
        }
        return lines;
    }
}
