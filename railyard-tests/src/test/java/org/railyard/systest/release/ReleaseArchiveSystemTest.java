package org.railyard.systest.release;

import static org.assertj.core.api.Assertions.assertThat;
import static org.railyard.testkit.Await.awaitUntil;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.railyard.systest.Jobs;
import org.railyard.systest.slurm.SlurmCluster;

/**
 * The release archive as a user gets it: {@code railyard-cli/target/railyard-VERSION.tar.gz}
 * (built by {@code mvn package}) is unpacked; a separate tiny Maven project
 * ({@code resources/release-app}) depending on {@code org.railyard:railyard} and
 * {@code railyard-mpijava} is built against the archive's repository; its jar runs under
 * {@code bin/railyard run}, {@code mpiexec.hydra} and {@code srun --mpi=pmi2}.
 *
 * <p>The tiny build never touches {@code ~/.m2} (other builds share it): its local repository is
 * a temporary directory ({@code -Dmaven.repo.local}), and the Maven plugins it needs are read from
 * {@code ~/.m2/repository} as a file repository standing in for Maven Central, since the tests
 * run offline. Railyard's artifacts come from the archive; the test checks that, byte for byte.
 */
@Timeout(value = 20, unit = TimeUnit.MINUTES)
class ReleaseArchiveSystemTest {
    private static final Duration LIMIT = Duration.ofMinutes(8);

    @TempDir
    static Path work;
    private static Path release;
    private static Path appJar;
    private static List<String> appClasspath;
    private static String version;

    @BeforeAll
    static void unpackAndBuildTheUsersProject() throws Exception {
        Path target = Path.of("../railyard-cli/target").toAbsolutePath().normalize();
        Path archive;
        try (Stream<Path> s = Files.exists(target) ? Files.list(target) : Stream.empty()) {
            archive = s.filter(p -> p.getFileName().toString().matches("railyard-.+\\.tar\\.gz")).findFirst().orElse(null);
        }
        Assumptions.assumeTrue(archive != null, "no release archive in " + target
                + ": build it with 'mvn package' from the root (mvn -pl railyard-tests -am verify does)");
        Assumptions.assumeTrue(Jobs.onPath("mvn").isPresent(), "mvn is not installed: cannot build the user's project");
        String name = archive.getFileName().toString();
        version = name.substring("railyard-".length(), name.length() - ".tar.gz".length());
        run(List.of("tar", "xzf", archive.toString(), "-C", work.toString()), work, Map.of());
        release = work.resolve("railyard-" + version);

        Path app = work.resolve("app");
        Path template = Path.of("src/test/resources/release-app");
        try (Stream<Path> files = Files.walk(template)) {
            for (Path f : files.filter(Files::isRegularFile).toList()) {
                Path to = app.resolve(template.relativize(f).toString());
                Files.createDirectories(to.getParent());
                Files.writeString(to, Files.readString(f)
                        .replace("RELEASE_REPOSITORY", release.resolve("repository").toUri().toString())
                        .replace("RAILYARD_VERSION", version));
            }
        }
        Path settings = work.resolve("settings.xml");
        Files.writeString(settings, "<settings><mirrors><mirror><id>m2-as-central</id><mirrorOf>central</mirrorOf><url>"
                + Path.of(System.getProperty("user.home"), ".m2", "repository").toUri()
                + "</url></mirror></mirrors></settings>\n");
        Path classpathFile = app.resolve("classpath.txt");
        run(List.of("mvn", "-B", "-q", "-s", settings.toString(), "-Dmaven.repo.local=" + work.resolve("m2"),
                "package", "dependency:build-classpath", "-Dmdep.outputFile=" + classpathFile), app,
                Map.of("JAVA_HOME", System.getProperty("java.home")));
        appJar = app.resolve("target/hello-railyard-1.0.jar");
        appClasspath = Arrays.asList(Files.readString(classpathFile).trim().split(java.io.File.pathSeparator));
    }

    @Test
    void theArchiveHoldsTheCommandTheJarsAndARepositoryWhoseCoreNeedsNothingElse() throws IOException {
        assertThat(release.resolve("bin/railyard")).isExecutable();
        assertThat(release.resolve("README.md")).isRegularFile();
        assertThat(release.resolve("docs/slurm.md")).isRegularFile();
        assertThat(release.resolve("lib/railyard-" + version + ".jar")).isRegularFile();
        assertThat(release.resolve("lib/railyard-cli-" + version + ".jar")).isRegularFile();
        // The user's program needs the two artifacts and nothing else: the core has no dependencies.
        assertThat(appClasspath).extracting(p -> Path.of(p).getFileName().toString())
                .containsExactlyInAnyOrder("railyard-" + version + ".jar", "railyard-mpijava-" + version + ".jar");
        for (String artifact : List.of("railyard", "railyard-mpijava")) {
            Path fromArchive = release.resolve("repository/org/railyard/" + artifact + "/" + version + "/" + artifact + "-"
                    + version + ".jar");
            Path used = appClasspath.stream().map(Path::of)
                    .filter(p -> p.getFileName().toString().equals(artifact + "-" + version + ".jar")).findFirst().orElseThrow();
            assertThat(Files.readAllBytes(used)).as("%s resolved from the archive's repository", artifact)
                    .isEqualTo(Files.readAllBytes(fromArchive));
        }
    }

    @Test
    void theUsersProgramRunsUnderRailyardRunFromTheArchive() throws Exception {
        String out = run(List.of(release.resolve("bin/railyard").toString(), "run", "-np", "2", "-cp", appJar.toString(),
                "hello.Hello"), work, Map.of("JAVA_HOME", System.getProperty("java.home")));
        assertThat(out).contains("[0] HELLO OK size=2 sum=3 bootstrap=railyard-kv");
    }

    @Test
    void theCommandLineStartsFromACacheOfItsOwnFromItsThirdCommandOn() throws Exception {
        Path cacheHome = Files.createTempDirectory(work, "xdg");
        Path dir = cacheHome.resolve("railyard/aot");
        Map<String, String> env = Map.of("JAVA_HOME", System.getProperty("java.home"), "XDG_CACHE_HOME", cacheHome.toString());
        List<String> version = List.of(release.resolve("bin/railyard").toString(), "--version");
        String plain = run(version, work, Map.of("JAVA_HOME", System.getProperty("java.home"), "RAILYARD_AOT", "off"));

        assertThat(run(version, work, env)).as("first command: a marker only").isEqualTo(plain);
        assertThat(names(dir)).singleElement().asString().matches("cli-[0-9a-f]{16}\\.seen");
        assertThat(run(version, work, env)).as("second command: records, and says nothing of it").isEqualTo(plain);
        assertThat(names(dir)).anyMatch(n -> n.matches("cli-[0-9a-f]{16}\\.[0-9]+\\.aotconf"));
        assertThat(run(version, work, env)).as("third command: makes the cache in a detached process").isEqualTo(plain);
        awaitUntil(() -> names(dir).stream().anyMatch(n -> n.matches("cli-[0-9a-f]{16}\\.aot")), Duration.ofMinutes(3),
                () -> "the command line's cache made and renamed into place in " + dir);
        assertThat(names(dir)).noneMatch(n -> n.endsWith(".aotconf") || n.endsWith(".part"));
        Path cache = dir.resolve(names(dir).stream().filter(n -> n.endsWith(".aot")).findFirst().orElseThrow());
        Files.setLastModifiedTime(cache, java.nio.file.attribute.FileTime.fromMillis(0));
        assertThat(run(version, work, env)).as("fourth command: starts from the cache").isEqualTo(plain);
        assertThat(Files.getLastModifiedTime(cache).toMillis()).as("the cache used is marked as used").isPositive();
    }

    private static List<String> names(Path dir) throws IOException {
        try (Stream<Path> s = Files.list(dir)) {
            return s.map(p -> p.getFileName().toString()).sorted().toList();
        }
    }

    @Test
    void theUsersProgramRunsUnderHydra() throws Exception {
        Assumptions.assumeTrue(Jobs.onPath("mpiexec.hydra").isPresent(),
                "mpiexec.hydra is not installed (apt-get install mpich): skipping the Hydra run");
        String out = run(rankCommand(List.of("mpiexec.hydra", "-n", "2")), work, Map.of());
        assertThat(out).contains("HELLO OK size=2 sum=3 bootstrap=pmi-1");
    }

    @Test
    void theUsersProgramRunsUnderSrun() throws Exception {
        try (SlurmCluster slurm = SlurmCluster.startOrSkip(work.resolve("slurm"))) {
            SlurmCluster.Result r = slurm.exec(rankCommand(List.of("srun", "--mpi=pmi2", "-n", "2")), LIMIT);
            assertThat(r.exitCode()).as("%s\n%s", r, slurm.logs()).isZero();
            assertThat(r.stdout()).contains("HELLO OK size=2 sum=3 bootstrap=pmi-2");
        }
    }

    /** The launcher's words, then java with the app's jar and the class path Maven resolved. */
    private static List<String> rankCommand(List<String> launcher) {
        List<String> c = new ArrayList<>(launcher);
        c.add(ProcessHandle.current().info().command().orElseThrow());
        c.add("--enable-native-access=ALL-UNNAMED");
        c.addAll(Jobs.RANK_JVM);
        c.add("-cp");
        c.add(appJar + java.io.File.pathSeparator + String.join(java.io.File.pathSeparator, appClasspath));
        c.add("hello.Hello");
        return c;
    }

    /** Runs a command to its end (bounded), failing the test with its output unless it exits 0; its output. */
    private static String run(List<String> command, Path dir, Map<String, String> env) throws Exception {
        ProcessBuilder pb = new ProcessBuilder(command).directory(dir.toFile()).redirectErrorStream(true);
        pb.environment().putAll(env);
        Path log = Files.createTempFile(work, "cmd", ".log");
        pb.redirectOutput(log.toFile());
        Process p = pb.start();
        if (!p.waitFor(LIMIT.toMillis(), TimeUnit.MILLISECONDS)) {
            p.descendants().forEach(ProcessHandle::destroyForcibly);
            p.destroyForcibly();
            throw new AssertionError(command + " did not end within " + LIMIT + "\n" + Files.readString(log));
        }
        String out = Files.readString(log);
        assertThat(p.exitValue()).as("%s\n%s", command, out).isZero();
        return out;
    }
}
