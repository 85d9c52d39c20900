package org.railyard.launcher;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The launcher's rules for the ahead-of-time cache, on files (the JVM's side, a rank starting from
 * the cache, is AotCacheSystemTest's): when {@code auto} trains, keys, a cache the JVM could not
 * load, eviction.
 */
class AotCacheTest {
    private static final String JAVA = "/usr/bin/java";
    private static final String MAIN = "org.example.Solver";

    private static AotCache plan(String setting, Path dir, Path jar, String job) {
        return AotCache.plan(setting, dir, JAVA, List.of(jar.toString()), MAIN, List.of("-Xmx64m"), job);
    }

    private static Path jar(Path tmp, String content) throws Exception {
        Path jar = tmp.resolve("app.jar");
        Files.writeString(jar, content);
        return jar;
    }

    /** What rank 0's JVM does at exit with -XX:AOTCacheOutput: writes the file it was given. */
    private static void trainAsTheJvmWould(AotCache c) throws Exception {
        String out = c.optionsFor(0).getFirst();
        assertThat(out).startsWith("-XX:AOTCacheOutput=");
        Files.writeString(Path.of(out.substring(out.indexOf('=') + 1)), "cache bytes");
    }

    private static List<String> names(Path dir) throws Exception {
        try (Stream<Path> s = Files.list(dir)) {
            return s.map(p -> p.getFileName().toString()).sorted().toList();
        }
    }

    @Test
    void autoTrainsAtTheSecondJobOfAProgramAndEveryRankOfTheThirdStartsFromTheCache(@TempDir Path tmp) throws Exception {
        Path dir = tmp.resolve("cache");
        Path jar = jar(tmp, "v1");

        assertThat(plan("auto", dir, jar, "job1")).as("the first job of a program: no cache, no training").isNull();
        assertThat(names(dir)).singleElement().asString().endsWith(".seen");

        AotCache second = plan("auto", dir, jar, "job2");
        assertThat(second.optionsFor(1)).as("ranks other than 0 of a training job").isEmpty();
        assertThat(second.describe()).contains("rank 0 trains").contains("RAILYARD_AOT=off");
        trainAsTheJvmWould(second);
        assertThat(second.finish(true)).startsWith("ahead-of-time cache kept: ");
        assertThat(names(dir)).as("the marker goes once the cache is kept").singleElement().asString().endsWith(".aot");

        AotCache third = plan("auto", dir, jar, "job3");
        for (int rank = 0; rank < 3; rank++) {
            assertThat(third.optionsFor(rank)).first().asString().isEqualTo("-XX:AOTCache=" + third.file());
        }
        assertThat(third.describe()).as("auto says nothing when a cache serves").isNull();
        assertThat(third.finish(true)).isNull();
    }

    @Test
    void aRebuiltJarIsAnotherProgram(@TempDir Path tmp) throws Exception {
        Path dir = tmp.resolve("cache");
        Path jar = jar(tmp, "v1");
        plan("auto", dir, jar, "a");
        AotCache training = plan("auto", dir, jar, "b");
        trainAsTheJvmWould(training);
        training.finish(true);

        Files.writeString(jar, "version two, longer");
        assertThat(plan("auto", dir, jar, "c")).as("first job of the rebuilt program").isNull();
        AotCache again = plan("auto", dir, jar, "d");
        assertThat(again.file()).isNotEqualTo(training.file());
        assertThat(again.optionsFor(0)).first().asString().startsWith("-XX:AOTCacheOutput=");
    }

    @Test
    void aFailedTrainingJobKeepsNothing(@TempDir Path tmp) throws Exception {
        Path jar = jar(tmp, "v1");
        AotCache c = plan(tmp.resolve("cache").toString(), tmp, jar, "job");
        trainAsTheJvmWould(c);
        assertThat(c.finish(false)).isEqualTo("ahead-of-time cache not kept: the job failed");
        assertThat(names(tmp.resolve("cache"))).isEmpty();
    }

    @Test
    void aCacheARankCouldNotLoadIsDeletedAfterTheJob(@TempDir Path tmp) throws Exception {
        Path dir = tmp.resolve("cache");
        Path jar = jar(tmp, "v1");
        AotCache training = plan(dir.toString(), tmp, jar, "a");
        trainAsTheJvmWould(training);
        training.finish(true);

        AotCache used = plan(dir.toString(), tmp, jar, "b");
        assertThat(used.optionsFor(0)).contains("-Xlog:aot*=error:stderr");
        List<String> seen = new ArrayList<>();
        LineSink err = used.watch((rank, line) -> seen.add(rank + " " + line));
        err.line(LineSink.LAUNCHER, "railyard: a launcher line about [aot] errors is not the JVM's");
        err.line(1, "a line of the program");
        assertThat(used.finish(true)).as("nothing went wrong yet").isNull();
        assertThat(Files.exists(used.file())).isTrue();

        AotCache bad = plan(dir.toString(), tmp, jar, "c");
        LineSink watched = bad.watch((rank, line) -> seen.add(rank + " " + line));
        watched.line(0, "[0.050s][error][aot] Loading static archive failed.");
        assertThat(seen).as("the JVM's lines still reach the user").contains("0 [0.050s][error][aot] Loading static archive failed.");
        assertThat(bad.finish(true)).contains("could not be loaded").contains("deleted");
        assertThat(Files.exists(bad.file())).isFalse();
    }

    @Test
    void aDirectoryOnTheClassPathMeansNoCacheSaidOnlyWhenAskedFor(@TempDir Path tmp) throws Exception {
        Path classes = Files.createDirectories(tmp.resolve("classes"));
        List<String> cp = List.of(classes.toString());
        assertThat(AotCache.plan("auto", tmp.resolve("c"), JAVA, cp, MAIN, List.of(), "j")).isNull();
        AotCache asked = AotCache.plan("on", tmp.resolve("c"), JAVA, cp, MAIN, List.of(), "j");
        assertThat(asked.optionsFor(0)).isEmpty();
        assertThat(asked.describe()).contains("is a directory");
    }

    @Test
    void offMeansNoneAndAnUnmakeableDirectoryIsAnErrorOnlyWhenNamed(@TempDir Path tmp) throws Exception {
        Path jar = jar(tmp, "v1");
        assertThat(plan("off", tmp, jar, "j")).isNull();
        Path file = Files.writeString(tmp.resolve("a-file"), "x");
        assertThat(plan("auto", file.resolve("aot"), jar, "j")).as("auto under a plain file").isNull();
        assertThatThrownBy(() -> plan(file.resolve("aot").toString(), tmp, jar, "j"))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("railyard.aot").hasMessageContaining("a-file");
    }

    @Test
    void evictionKeepsTheCachesUsedLast(@TempDir Path tmp) throws Exception {
        Path dir = Files.createDirectories(tmp.resolve("cache"));
        long now = System.currentTimeMillis();
        for (int i = 0; i < AotCache.KEPT + 3; i++) {
            Path f = Files.writeString(dir.resolve("p" + i + "-0123456789abcdef.aot"), "x");
            Files.setLastModifiedTime(f, FileTime.fromMillis(now - 60_000L * i));
        }
        Files.writeString(dir.resolve("notes.txt"), "not ours");
        AotCache.evict(dir, AotCache.KEPT, AotCache.MARKERS_KEPT);
        List<String> left = names(dir);
        assertThat(left).hasSize(AotCache.KEPT + 1).contains("notes.txt", "p0-0123456789abcdef.aot")
                .doesNotContain("p" + (AotCache.KEPT + 2) + "-0123456789abcdef.aot");
    }
}
