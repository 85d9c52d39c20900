package org.railyard.systest;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code railyard run --aot}: the first job of a program trains the ahead-of-time cache on rank 0
 * and keeps it once the job ends well; the next job starts every rank from it (the JVM says it
 * opened the cache); the demo's answer is the same both times. Run as a user runs it: the launcher
 * in a process of its own, on a class path of jars (the JVM caches classes from jars only).
 */
@Timeout(value = 6, unit = TimeUnit.MINUTES)
class AotCacheSystemTest {

    private record Run(int exit, String output) { }

    private static List<String> jars() {
        List<String> out = new ArrayList<>();
        for (String e : System.getProperty("java.class.path", "").split(File.pathSeparator)) {
            if (e.endsWith(".jar") && Files.isRegularFile(Path.of(e))) {
                out.add(e);
            }
        }
        return out;
    }

    private static Run run(Path log, List<String> jars, String... args) throws IOException, InterruptedException {
        List<String> cmd = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-cp", String.join(File.pathSeparator, jars), "org.railyard.launcher.RunCommand"));
        cmd.addAll(List.of(args));
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(log.toFile()).start();
        if (!p.waitFor(150, TimeUnit.SECONDS)) {
            p.descendants().forEach(ProcessHandle::destroyForcibly);
            p.destroyForcibly();
            throw new AssertionError("railyard run did not end within 150 s:\n" + Files.readString(log));
        }
        return new Run(p.exitValue(), Files.readString(log));
    }

    /** The test's class path of jars; the test is skipped without the packaged demo and launcher. */
    private static List<String> packagedJars() {
        List<String> jars = jars();
        assumeTrue(jars.stream().anyMatch(j -> j.contains("railyard-apps")) && jars.stream().anyMatch(j -> j.contains("picocli")),
                "the test class path has no packaged railyard-apps and picocli jars (run after mvn package)");
        return jars;
    }

    /** The obstacle demo at 2 ranks with its caches in {@code cache}. */
    private static String[] demoJob(Path cache) {
        return new String[] {"--aot", cache.toString(), "-np", "2", "--jvm-arg", "-Xmx256m", "--jvm-arg", "-XX:+UseSerialGC",
                "org.railyard.apps.obstacle.ObstacleDemo", "--quiet", "--n", "24"};
    }

    @Test
    void theFirstJobTrainsTheCacheAndTheNextStartsEveryRankFromIt(@TempDir Path tmp) throws Exception {
        List<String> jars = packagedJars();
        Path cache = tmp.resolve("aot");
        String[] job = demoJob(cache);
        Run first = run(tmp.resolve("first.log"), jars, job);
        assertThat(first.exit()).as(first.output()).isZero();
        assertThat(first.output()).contains("rank 0 trains").contains("ahead-of-time cache kept");
        try (Stream<Path> files = Files.list(cache)) {
            List<Path> kept = files.toList();
            assertThat(kept).as("what the cache directory holds").singleElement().asString().endsWith(".aot");
        }

        List<String> second = new ArrayList<>(List.of(job));
        second.addAll(2, List.of("--jvm-arg", "-Xlog:aot=info"));
        Run again = run(tmp.resolve("second.log"), jars, second.toArray(String[]::new));
        assertThat(again.exit()).as(again.output()).isZero();
        assertThat(again.output()).contains("every rank starts from");
        assertThat(again.output().lines().filter(l -> l.contains("Opened AOT cache")).count())
                .as("ranks whose JVM opened the cache\n" + again.output()).isEqualTo(2);
        assertThat(again.output()).doesNotContain("[error][aot]");
        assertThat(resultLine(again.output())).isEqualTo(resultLine(first.output()));
    }

    /**
     * A cache file the JVM cannot load (here: bytes that are no cache, in the file a job would
     * start from): the job still ends well with the demo's answer, the launcher deletes the file
     * and says so, and the next job trains it anew.
     */
    @Test
    void aCacheTheJvmCannotLoadIsDeletedAndTheJobStillRuns(@TempDir Path tmp) throws Exception {
        List<String> jars = packagedJars();
        String[] job = demoJob(tmp.resolve("aot"));
        Run first = run(tmp.resolve("first.log"), jars, job);
        assertThat(first.exit()).as(first.output()).isZero();
        Path file;
        try (Stream<Path> files = Files.list(tmp.resolve("aot"))) {
            file = files.filter(f -> f.toString().endsWith(".aot")).findFirst().orElseThrow();
        }
        byte[] junk = new byte[100_000];
        new java.util.Random(7).nextBytes(junk);
        Files.write(file, junk);

        Run spoiled = run(tmp.resolve("spoiled.log"), jars, job);
        assertThat(spoiled.exit()).as(spoiled.output()).isZero();
        assertThat(resultLine(spoiled.output())).isEqualTo(resultLine(first.output()));
        assertThat(spoiled.output()).contains("could not be loaded by the ranks' JVM; deleted");
        assertThat(file).doesNotExist();

        Run again = run(tmp.resolve("again.log"), jars, job);
        assertThat(again.exit()).as(again.output()).isZero();
        assertThat(again.output()).contains("rank 0 trains").contains("ahead-of-time cache kept");
    }

    /** The demo's iteration count and final residual, the same for every run of one problem. */
    private static String resultLine(String output) {
        String r = String.join("\n", output.lines().filter(l -> l.contains("iterations:") || l.contains("final residual:"))
                .toList());
        assertThat(r).as("the demo's result lines\n" + output).contains("iterations:").contains("final residual:");
        return r;
    }
}
