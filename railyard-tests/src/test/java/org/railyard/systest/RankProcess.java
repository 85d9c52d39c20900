package org.railyard.systest;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * One rank started by a test itself, without the launcher: this JVM's java binary and class path,
 * the given environment on top of this JVM's (less any {@code RAILYARD_*} variable it has), and
 * its stdout and stderr pumped line by line into a {@link Transcript}.
 */
public final class RankProcess implements AutoCloseable {
    private final int rank;
    private final Process process;
    private final List<Thread> pumps = new ArrayList<>();

    private RankProcess(int rank, Process process) {
        this.rank = rank;
        this.process = process;
    }

    public static RankProcess start(int rank, Class<?> main, Map<String, String> env, Transcript into, String... args)
            throws IOException {
        ProcessBuilder pb = new ProcessBuilder(Jobs.rankJava(main, args));
        pb.environment().keySet().removeIf(k -> k.startsWith("RAILYARD_"));
        pb.environment().putAll(env);
        Process p = pb.start();
        p.getOutputStream().close();
        RankProcess rp = new RankProcess(rank, p);
        rp.pumps.add(pump(p.getInputStream(), rank, Transcript.Stream.OUT, into));
        rp.pumps.add(pump(p.getErrorStream(), rank, Transcript.Stream.ERR, into));
        return rp;
    }

    private static Thread pump(InputStream in, int rank, Transcript.Stream stream, Transcript into) {
        return Thread.ofPlatform().daemon().name("systest-pump-" + rank).start(() -> {
            try (BufferedReader r = new BufferedReader(new InputStreamReader(in, StandardCharsets.UTF_8))) {
                String line;
                while ((line = r.readLine()) != null) {
                    into.add(new Transcript.Line(rank, stream, line));
                }
            } catch (IOException closed) {
                // the process is gone
            }
        });
    }

    public int rank() {
        return rank;
    }

    public Process process() {
        return process;
    }

    /** Waits at most {@code bound} for the process to end, then for its output to be read; its exit code, or null if it still runs. */
    public Integer awaitExit(Duration bound) throws InterruptedException {
        long deadline = System.nanoTime() + bound.toNanos();
        if (!process.waitFor(bound.toNanos(), TimeUnit.NANOSECONDS)) {
            return null;
        }
        for (Thread t : pumps) {
            t.join(Duration.ofNanos(Math.max(1_000_000, deadline - System.nanoTime())));
        }
        return process.exitValue();
    }

    /** Kills the process (SIGKILL) if it still runs, and waits a bounded time for it to go. */
    @Override
    public void close() {
        if (process.isAlive()) {
            process.destroyForcibly();
            try {
                process.waitFor(30, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }
}
