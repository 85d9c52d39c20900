package org.railyard.mpijava;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import org.railyard.launcher.JobResult;
import org.railyard.launcher.JobSpec;
import org.railyard.launcher.Launcher;

/**
 * Runs a program of package {@code mpi} as a real job, as {@code railyard run -np N -cp ... Main}
 * does: through {@link Launcher#run}, one JVM per rank.
 */
final class MpiJob {
    private MpiJob() {
    }

    /** Ranks are short programs: skip the optimizing compiler, small heaps, no GC threads (2 cores for 8 JVMs). */
    static final List<String> RANK_JVM = List.of("-Xmx256m", "-Xss1m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1",
            "-Xshare:auto");

    /**
     * How long a job may run before the launcher stops it: a bound for a job that hangs, not a speed
     * target, so generous for 8 rank JVMs on 2 cores loaded by other builds. The tests' own
     * {@code @Timeout}s stay above it, so a stopped job reports what its ranks printed.
     */
    static final Duration JOB_BOUND = Duration.ofMinutes(4);

    /** What a job printed: lines as "rank:line", and how it ended. */
    record Output(JobResult result, List<String> out, List<String> err) {
        String report() {
            return "exit " + result.exitCode() + ": " + result.summary() + "\n--- stdout\n" + String.join("\n", out)
                    + "\n--- stderr\n" + String.join("\n", err);
        }

        /** Lines a rank printed on stdout. */
        List<String> of(int rank) {
            String p = rank + ":";
            return out.stream().filter(l -> l.startsWith(p)).map(l -> l.substring(p.length())).toList();
        }

        /** Asserts every rank succeeded and printed {@code "done"} last. */
        Output succeeded(int np) {
            assertThat(result.exitCode()).as(report()).isZero();
            for (int r = 0; r < np; r++) {
                List<String> lines = of(r);
                assertThat(lines).as("rank %d output in%n%s", r, report()).isNotEmpty();
                assertThat(lines.get(lines.size() - 1)).as(report()).isEqualTo("done");
            }
            return this;
        }
    }

    static Output run(int np, List<String> classpath, String main, String... args) {
        List<String> out = Collections.synchronizedList(new ArrayList<>());
        List<String> err = Collections.synchronizedList(new ArrayList<>());
        JobSpec spec = new JobSpec(np, List.of(), main, List.of(args), classpath, null, RANK_JVM, JOB_BOUND, null);
        JobResult r = Launcher.run(spec, (rank, line) -> out.add(rank + ":" + line), (rank, line) -> err.add(rank + ":" + line));
        return new Output(r, List.copyOf(out), List.copyOf(err));
    }

    static Output run(int np, Class<?> main, String... args) {
        return run(np, List.of(), main.getName(), args);
    }
}
