package org.railyard.systest;

import java.io.ByteArrayOutputStream;
import java.io.File;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import org.railyard.launcher.JobResult;
import org.railyard.launcher.JobSpec;
import org.railyard.launcher.Launcher;
import org.railyard.launcher.RunCommand;

/**
 * Runs rank programs of this module's test classes as real jobs through
 * {@link Launcher#run(JobSpec, org.railyard.launcher.LineSink, org.railyard.launcher.LineSink)}:
 * the launcher starts one JVM per rank with this test JVM's class path, so the rank programs and
 * Railyard are found.
 */
public final class Jobs {
    private Jobs() {
    }

    /**
     * JVM options of every rank: a small heap (several JVMs share a small machine) and the serial
     * collector (no GC threads competing with the ranks for 2 cores).
     */
    public static final List<String> RANK_JVM = List.of("-Xmx384m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1");

    /** This test's java binary (that of its JDK when the process does not say). */
    public static String java() {
        return ProcessHandle.current().info().command()
                .orElse(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    }

    /**
     * The command line of a rank JVM started without the launcher (by hand, srun or Hydra): this
     * test's java, native access (PMI_FD is reached through java.lang.foreign), {@link #RANK_JVM},
     * this test's class path, then {@code main} and {@code args}.
     */
    public static List<String> rankJava(Class<?> main, String... args) {
        List<String> c = new ArrayList<>();
        c.add(java());
        c.add("--enable-native-access=ALL-UNNAMED");
        c.addAll(RANK_JVM);
        c.add("-cp");
        c.add(System.getProperty("java.class.path"));
        c.add(main.getName());
        c.addAll(List.of(args));
        return c;
    }

    /** A finished job: how it ended, and everything it wrote. */
    public record Finished(JobResult result, Transcript transcript) {
        /**
         * Fails the calling test unless the job ({@code what}, for the message) exited 0 and some
         * line of its transcript contains {@code line} (a choice it must have printed).
         */
        public void requireSuccessSaying(String what, String line) {
            if (result.exitCode() != 0) {
                org.junit.jupiter.api.Assertions.fail("the job (" + what + ") failed\n" + report());
            }
            if (transcript.find(l -> l.text().contains(line)).isEmpty()) {
                org.junit.jupiter.api.Assertions.fail("the job (" + what + ") did not say '" + line + "'\n" + report());
            }
        }

        /** For failure messages: the summary and the end of the transcript. */
        public String report() {
            return "job exit code " + result.exitCode() + ": " + result.summary() + "\n" + transcript.tail(120);
        }
    }

    /** {@code np} local ranks of {@code main} with {@code args}, the extra environment, and a bound. */
    public static JobSpec spec(int np, Class<?> main, Map<String, String> env, Duration timeout, String... args) {
        return new JobSpec(np, List.of(), main.getName(), List.of(args), List.of(), env, RANK_JVM, timeout, null);
    }

    /**
     * Runs the job to its end (bounded by the spec's timeout); its transcript, with the result at
     * the end, is saved as {@code name} (see {@link Transcript#save}).
     */
    public static Finished run(String name, JobSpec spec) {
        if (spec.timeout() == null) {
            throw new IllegalArgumentException("system test jobs must have a timeout");
        }
        Transcript t = new Transcript();
        JobResult r = Launcher.run(spec, t.out(), t.err());
        t.add(new Transcript.Line(org.railyard.launcher.LineSink.LAUNCHER, Transcript.Stream.ERR,
                "(test) job ended with exit code " + r.exitCode() + ": " + r.summary()));
        t.save(name);
        return new Finished(r, t);
    }

    /** Starts the job on a thread of its own; its output goes to {@code t} as it comes. */
    public static CompletableFuture<JobResult> start(JobSpec spec, Transcript t) {
        if (spec.timeout() == null) {
            throw new IllegalArgumentException("system test jobs must have a timeout");
        }
        CompletableFuture<JobResult> f = new CompletableFuture<>();
        Thread.ofPlatform().daemon().name("systest-launcher").start(() -> {
            try {
                f.complete(Launcher.run(spec, t.out(), t.err()));
            } catch (Throwable e) {
                f.completeExceptionally(e);
            }
        });
        return f;
    }

    /** The first executable file named {@code program} in the directories of {@code PATH}. */
    public static Optional<Path> onPath(String program) {
        String path = System.getenv("PATH");
        if (path == null) {
            return Optional.empty();
        }
        return Arrays.stream(path.split(File.pathSeparator))
                .filter(dir -> !dir.isEmpty())
                .map(dir -> Path.of(dir, program))
                .filter(Files::isExecutable)
                .findFirst();
    }

    /** What {@link #command} gives: the exit code, both streams, and a report of them for assertion messages. */
    public record CommandRun(int code, String stdout, String stderr, String report) { }

    /**
     * Runs {@code railyard run ARGV} through the real command line ({@link RunCommand}) in this JVM;
     * the ranks are processes of their own.
     */
    public static CommandRun command(List<String> argv) {
        ByteArrayOutputStream outBytes = new ByteArrayOutputStream();
        ByteArrayOutputStream errBytes = new ByteArrayOutputStream();
        int code;
        try (PrintStream out = new PrintStream(outBytes, true, StandardCharsets.UTF_8);
             PrintStream err = new PrintStream(errBytes, true, StandardCharsets.UTF_8)) {
            code = RunCommand.newCommandLine(out, err).execute(argv.toArray(String[]::new));
        }
        String stdout = outBytes.toString(StandardCharsets.UTF_8);
        String stderr = errBytes.toString(StandardCharsets.UTF_8);
        return new CommandRun(code, stdout, stderr, "railyard run " + String.join(" ", argv) + "\n--- stdout\n" + stdout
                + "--- stderr\n" + stderr);
    }
}
