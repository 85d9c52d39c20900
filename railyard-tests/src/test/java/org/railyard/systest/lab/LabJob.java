package org.railyard.systest.lab;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Predicate;
import org.railyard.launcher.Host;
import org.railyard.launcher.JobResult;
import org.railyard.launcher.JobSpec;
import org.railyard.launcher.Launcher;
import org.railyard.launcher.LineSink;
import org.railyard.testkit.Await;

/**
 * A job running in a {@link NetLab}: one rank per host, started by the launcher in the root
 * namespace through the lab's rsh script, with the lab's rail networks as
 * {@code railyard.rail.nets}. Every line the ranks write is kept, and a test waits for the line it
 * needs ({@link #await}) with a bound, so faults are tied to what the ranks report, not to sleeps.
 */
public final class LabJob implements AutoCloseable {
    /** A line of output: which rank, which stream, what. */
    public record Line(int rank, boolean err, String text) { }

    private final List<Line> lines = new ArrayList<>();
    private final CompletableFuture<JobResult> result = new CompletableFuture<>();
    private Thread launcher;

    /**
     * Starts {@code main} with {@code args} on the lab's hosts ({@code np} ranks, filling hosts in
     * order), with the given settings (environment names) on top of the lab's.
     */
    public static LabJob start(NetLab lab, int np, Class<?> main, Map<String, String> settings, Duration timeout,
                               String... args) {
        return start(lab, Host.readFile(lab.hostsFile(1)), r -> Map.of(), np, main, settings, timeout, args);
    }

    /**
     * Starts {@code main} on the given lab hosts, each rank with {@code rankEnv}'s settings on top
     * (a multi-site job: {@code SiteJob.rankEnv()}).
     */
    public static LabJob start(NetLab lab, List<Host> hosts, java.util.function.IntFunction<Map<String, String>> rankEnv,
                               int np, Class<?> main, Map<String, String> settings, Duration timeout, String... args) {
        Map<String, String> env = new LinkedHashMap<>();
        env.put("RAILYARD_TRANSPORTS", "tcp");
        env.put("RAILYARD_RAIL_NETS", lab.railNets());
        env.putAll(settings);
        JobSpec spec = new JobSpec(np, hosts, main.getName(), List.of(args), List.of(), env,
                List.of("-Xmx512m", "-XX:+UseSerialGC"), timeout, lab.rsh().toString());
        LabJob job = new LabJob();
        LineSink out = (rank, text) -> job.add(new Line(rank, false, text));
        LineSink err = (rank, text) -> job.add(new Line(rank, true, text));
        job.launcher = Thread.ofPlatform().daemon().name("lab-launcher").start(() -> {
            String old = System.getProperty(Launcher.LAUNCHER_HOST_PROP);
            try {
                // the ranks reach the key-value server over their management link
                System.setProperty(Launcher.LAUNCHER_HOST_PROP, lab.launcherHost());
                job.result.complete(Launcher.run(spec, rankEnv, out, err));
            } catch (Throwable e) {
                job.result.completeExceptionally(e);
            } finally {
                if (old == null) {
                    System.clearProperty(Launcher.LAUNCHER_HOST_PROP);
                } else {
                    System.setProperty(Launcher.LAUNCHER_HOST_PROP, old);
                }
            }
        });
        return job;
    }

    private static final java.util.regex.Pattern RAIL_UP =
            java.util.regex.Pattern.compile("rank (\\d+) -> rank (\\d+): rail 0 up: transport (\\w+)");

    /**
     * The transports each pair's rail 0 came up on, as "a-b" (a &lt; b) to the transports printed
     * by either side (the job runs with {@code RAILYARD_PRINT_CHOICES}).
     */
    public Map<String, java.util.Set<String>> transportsByPair() {
        Map<String, java.util.Set<String>> out = new java.util.HashMap<>();
        for (Line l : lines()) {
            java.util.regex.Matcher m = RAIL_UP.matcher(l.text());
            if (m.find() && !m.group(1).equals(m.group(2))) {
                int a = Integer.parseInt(m.group(1));
                int b = Integer.parseInt(m.group(2));
                out.computeIfAbsent(Math.min(a, b) + "-" + Math.max(a, b), k -> new java.util.TreeSet<>()).add(m.group(3));
            }
        }
        return out;
    }

    private synchronized void add(Line l) {
        lines.add(l);
    }

    /**
     * The first line (from the start) that matches, waiting at most {@code bound}, or less if the
     * job ends first; empty if none came.
     */
    public Optional<Line> await(Predicate<Line> match, Duration bound) {
        int[] seen = {0};
        Line[] hit = new Line[1];
        Await.within(bound, () -> (hit[0] = next(match, seen)) != null || result.isDone());
        return Optional.ofNullable(hit[0] != null ? hit[0] : next(match, seen));
    }

    /** The first line from {@code seen[0]} on that matches, or null; {@code seen[0]} moves past the lines looked at. */
    private synchronized Line next(Predicate<Line> match, int[] seen) {
        for (; seen[0] < lines.size(); seen[0]++) {
            if (match.test(lines.get(seen[0]))) {
                return lines.get(seen[0]);
            }
        }
        return null;
    }

    /** The first line after the {@code after}-th that matches (see {@link #await}). */
    public Optional<Line> awaitAfter(int after, Predicate<Line> match, Duration bound) {
        int[] index = {0};
        return await(l -> index[0]++ >= after && match.test(l), bound);
    }

    /** How many lines so far. */
    public synchronized int size() {
        return lines.size();
    }

    /** The job's end, waiting at most {@code bound}. */
    public JobResult end(Duration bound) throws InterruptedException, ExecutionException, TimeoutException {
        return result.get(bound.toMillis(), TimeUnit.MILLISECONDS);
    }

    /** Every line so far. */
    public synchronized List<Line> lines() {
        return List.copyOf(lines);
    }

    /** Lines of {@code rank}'s standard output starting with {@code prefix}. */
    public synchronized List<String> out(int rank, String prefix) {
        return lines.stream().filter(l -> l.rank() == rank && !l.err() && l.text().startsWith(prefix)).map(Line::text).toList();
    }

    /** The last {@code n} lines, for failure messages. */
    public synchronized String tail(int n) {
        StringBuilder sb = new StringBuilder();
        for (Line l : lines.subList(Math.max(0, lines.size() - Math.min(n, lines.size())), lines.size())) {
            sb.append(l.rank() < 0 ? "" : "[" + l.rank() + (l.err() ? "!" : "") + "] ").append(l.text()).append('\n');
        }
        return sb.toString();
    }

    /** The received bytes per rail of a PROGRESS line ({@code r0=<bytes>:<state>}); rail -> bytes. */
    public static Map<Integer, Long> railBytes(String progress) {
        Map<Integer, Long> out = new LinkedHashMap<>();
        for (String f : progress.split(" ")) {
            if (f.startsWith("r") && f.contains("=")) {
                out.put(Integer.parseInt(f.substring(1, f.indexOf('='))), Long.parseLong(f.substring(f.indexOf('=') + 1, f.indexOf(':'))));
            }
        }
        return out;
    }

    /** The state per rail of a PROGRESS line; rail -> state (UP, DOWN, ...). */
    public static Map<Integer, String> railStates(String progress) {
        Map<Integer, String> out = new LinkedHashMap<>();
        for (String f : progress.split(" ")) {
            if (f.startsWith("r") && f.contains("=")) {
                out.put(Integer.parseInt(f.substring(1, f.indexOf('='))), f.substring(f.indexOf(':') + 1));
            }
        }
        return out;
    }

    /**
     * Lets the scenario run for {@code span} (a partition that lasts that long, say); returns early,
     * false, if the job ends meanwhile.
     */
    public boolean hold(Duration span) throws InterruptedException {
        try {
            result.get(span.toMillis(), TimeUnit.MILLISECONDS);
            return false;
        } catch (TimeoutException e) {
            return true;
        } catch (ExecutionException e) {
            return false;
        }
    }

    /** The received bytes of a PROGRESS line. */
    public static long bytes(String progress) {
        return Long.parseLong(progress.split(" ")[1]);
    }

    /**
     * Stops the ranks if they still run (an interrupted launcher stops its job), waits for the
     * launcher, and keeps every line of the job in {@code target/lab-jobs/} for a failure's reader.
     */
    @Override
    public void close() {
        if (!result.isDone()) {
            launcher.interrupt();
        }
        try {
            result.get(30, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (ExecutionException | TimeoutException e) {
            // reported by the test that ran it
        }
        try {
            Path dir = Path.of("target", "lab-jobs");
            Files.createDirectories(dir);
            Files.writeString(dir.resolve("job-" + ProcessHandle.current().pid() + "-" + System.currentTimeMillis() + ".log"),
                    tail(Integer.MAX_VALUE));
        } catch (IOException e) {
            System.err.println("LabJob: could not keep the job's output: " + e);
        }
    }
}
