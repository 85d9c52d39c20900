package org.railyard.mpijava;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The example programs of {@code src/examples/java}, written as MPJ Express programs (default
 * package, {@code import mpi.*}), compiled by javac into a jar and run on 4 ranks exactly as
 * {@code railyard run -np 4 -cp examples.jar Main} runs them.
 */
@Timeout(300)
class ExamplesTest {
    @TempDir
    static Path work;
    private static Path jar;

    @BeforeAll
    static void buildTheJar() throws IOException {
        Path dir = Path.of("src/examples/java");
        jar = JavaSources.compileToJar(List.of(dir.resolve("PiMonteCarlo.java"), dir.resolve("Jacobi2D.java"),
                dir.resolve("MasterWorker.java")), JavaSources.facadeClasspath(), work, "examples");
    }

    /** Runs {@code main} of the jar on 4 ranks, which must exit 0 with {@code lines} lines from rank 0; returns them. */
    private static List<String> rankZeroLines(int lines, String main, String... args) {
        MpiJob.Output o = MpiJob.run(4, List.of(jar.toString()), main, args);
        assertThat(o.result().exitCode()).as(o.report()).isZero();
        assertThat(o.of(0)).as("rank 0 output\n%s", o.report()).hasSize(lines);
        return o.of(0);
    }

    @Test
    void piMonteCarloReducesTheHits() {
        List<String> out = rankZeroLines(2, "PiMonteCarlo", "400000");
        assertThat(out.get(0)).isEqualTo("processes 4, darts 1600000, hits " + out.get(0).replaceAll(".* hits ", ""));
        double pi = Double.parseDouble(out.get(1).replaceAll("pi ~ ([0-9.]+) .*", "$1"));
        assertThat(pi).isBetween(3.13, 3.15);
    }

    @Test
    void jacobiOnACartesianGridMatchesTheSequentialSolve() {
        List<String> out = rankZeroLines(3, "Jacobi2D", "60", "200");
        assertThat(out.get(0)).startsWith("grid 60x60 on 2x2 processes, 200 iterations");
        assertThat(out.get(2)).isEqualTo("max |parallel - sequential| = 0.0");
    }

    /** The same sources compiled against MPJ Express's own jar run on Railyard: only the jar on the class path changes. */
    @Test
    void compiledAgainstMpjExpressTheyRunUnchanged() throws IOException {
        Path mpj = Path.of("/usr/share/mpj/lib/mpj.jar");
        assumeTrue(Files.isRegularFile(mpj), "MPJ Express (Debian's libmpj-java) is not installed");
        Path dir = Path.of("src/examples/java");
        Path theirs = JavaSources.compileToJar(List.of(dir.resolve("Jacobi2D.java"), dir.resolve("MasterWorker.java")),
                mpj.toString(), work, "examples-mpj");
        MpiJob.Output jacobi = MpiJob.run(4, List.of(theirs.toString()), "Jacobi2D", "40", "50");
        assertThat(jacobi.result().exitCode()).as(jacobi.report()).isZero();
        assertThat(jacobi.of(0)).contains("max |parallel - sequential| = 0.0");
        MpiJob.Output farm = MpiJob.run(4, List.of(theirs.toString()), "MasterWorker", "20000", "8");
        assertThat(farm.result().exitCode()).as(farm.report()).isZero();
        assertThat(farm.of(0)).contains("primes below 20000: 2262, largest 19997 (checked)");
    }

    @Test
    void masterWorkerFarmsObjectsToAnySource() {
        List<String> out = rankZeroLines(2, "MasterWorker", "300000", "24");
        assertThat(out.get(0)).startsWith("24 tasks on 3 workers");
        // 25997 primes below 300000, the largest 299993
        assertThat(out.get(1)).isEqualTo("primes below 300000: 25997, largest 299993 (checked)");
    }
}
