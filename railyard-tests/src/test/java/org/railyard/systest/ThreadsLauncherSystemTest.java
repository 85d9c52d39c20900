package org.railyard.systest;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.railyard.systest.ranks.MpiJavaPingPong;
import org.railyard.systest.ranks.ThreadRanks;

/**
 * {@code railyard run --threads} as a user runs it: the launcher in a process of its own (this test
 * JVM's class path, which carries Railyard, the demo and the rank programs), every rank a thread
 * of it with a class loader of its own. The programs are the ones that run one JVM per rank,
 * unchanged.
 */
@Timeout(value = 10, unit = TimeUnit.MINUTES)
class ThreadsLauncherSystemTest {
    private static final String DEMO = "org.railyard.apps.obstacle.ObstacleDemo";

    private record Run(int exit, String output) {
        List<String> lines() {
            return output.lines().toList();
        }
    }

    private static Run run(Path log, String... args) throws IOException, InterruptedException {
        List<String> cmd = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "--enable-native-access=ALL-UNNAMED", "-Xmx512m", "-cp", System.getProperty("java.class.path"),
                "org.railyard.launcher.RunCommand", "--threads", "--timeout", "200s"));
        cmd.addAll(List.of(args));
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(log.toFile()).start();
        if (!p.waitFor(240, TimeUnit.SECONDS)) {
            p.destroyForcibly();
            throw new AssertionError("railyard run --threads did not end within 240 s:\n" + Files.readString(log));
        }
        return new Run(p.exitValue(), Files.readString(log));
    }

    @ParameterizedTest(name = "np {0}")
    @ValueSource(ints = {1, 2, 4})
    void theDemoAgreesWithTheSequentialSolution(int np, @TempDir Path tmp) throws Exception {
        Run r = run(tmp.resolve("demo.log"), "-np", Integer.toString(np), DEMO, "--n", "24", "--quiet");
        assertThat(r.exit()).as(r.output()).isZero();
        assertThat(r.lines()).as(r.output())
                .anyMatch(l -> l.startsWith("[0] OK: parallel solution agrees with sequential"))
                .anyMatch(l -> l.matches("\\[0] ranks:\\s+" + np + " .*"));
    }

    @Test
    void theMpiJavaPingPongRunsUnchanged(@TempDir Path tmp) throws Exception {
        Run r = run(tmp.resolve("pingpong.log"), "--print-choices", "-np", "3", MpiJavaPingPong.class.getName(), "5");
        assertThat(r.exit()).as(r.output()).isZero();
        // the class loaders of one process reach each other over shm, as processes of one node do
        assertThat(r.lines()).as(r.output()).anyMatch(l -> l.startsWith("[0] railyard: rank 0 -> rank 1: rail 0 up: transport shm"))
                .anyMatch(l -> l.startsWith("[2] railyard: rank 2 -> rank 1: rail 0 up: transport shm"));
        for (int rank = 0; rank < 3; rank++) {
            assertThat(r.lines()).as(r.output()).contains("[" + rank + "] OK pingpong rank " + rank);
        }
        assertThat(r.lines()).as(r.output()).anyMatch(l -> l.startsWith("[2] PINGPONG 1-2 524288 B:"));
    }

    @Test
    void anMpiJavaCollectiveProgramRunsUnchanged(@TempDir Path tmp) throws Exception {
        Run r = run(tmp.resolve("coll.log"), "-np", "4", ThreadRanks.class.getName(), "collectives");
        assertThat(r.exit()).as(r.output()).isZero();
        for (int rank = 0; rank < 4; rank++) {
            assertThat(r.lines()).as(r.output()).contains("[" + rank + "] OK collectives rank " + rank);
        }
    }

    @Test
    void staticFieldsArePerRank(@TempDir Path tmp) throws Exception {
        Run r = run(tmp.resolve("statics.log"), "-np", "3", ThreadRanks.class.getName(), "statics");
        assertThat(r.exit()).as(r.output()).isZero();
        assertThat(r.lines()).as(r.output()).contains("[0] STATICS [1000, 2000, 3000]");
    }

    @Test
    void aRankThatThrowsEndsTheJobNamingIt(@TempDir Path tmp) throws Exception {
        Run r = run(tmp.resolve("throw.log"), "-np", "3", ThreadRanks.class.getName(), "throw", "1");
        assertThat(r.exit()).as(r.output()).isEqualTo(1);
        assertThat(r.output()).contains("[1] Exception in thread \"main\" java.lang.IllegalStateException: rank 1 gives up")
                .contains("railyard: rank 1 (thread) exited with code 1; stopping the other 2 ranks");
        // ranks still waiting when the job ends write as ranks until the JVM ends, never unprefixed
        assertThat(r.lines()).as(r.output()).allMatch(l -> l.startsWith("[") || l.startsWith("railyard"));
    }

    @Test
    void aRankThatCallsExitEndsTheJobWithItsCode(@TempDir Path tmp) throws Exception {
        Run r = run(tmp.resolve("exit.log"), "-np", "2", ThreadRanks.class.getName(), "exit", "1", "3");
        assertThat(r.exit()).as(r.output()).isEqualTo(3);
        assertThat(r.output()).contains("railyard: rank 1 (thread) exited with code 3; stopping the other 1 rank");
    }

    @Test
    void aWrongClassNameIsAClearError(@TempDir Path tmp) throws Exception {
        Run r = run(tmp.resolve("wrong.log"), "-np", "2", "org.example.NoSuchMain");
        assertThat(r.exit()).as(r.output()).isEqualTo(2);
        assertThat(r.output()).contains("main class 'org.example.NoSuchMain' cannot be loaded from the job's class path");
    }
}
