package org.railyard.launcher;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.Charset;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.railyard.launcher.JobResult.Outcome;
import org.railyard.launcher.JobResult.RankStatus;
import org.railyard.util.Config;

/** One run of a job: the processes of its ranks, their output pumps, and the decision to stop them. */
final class Job extends RankWatch<Job.Rank> {
    /** Between SIGTERM and SIGKILL: long enough for a JVM to run its shutdown hooks. */
    private static final Duration GRACE = Duration.ofSeconds(3);
    /** How long a SIGKILLed process gets to disappear before the launcher gives up on it. */
    private static final Duration KILL_WAIT = Duration.ofSeconds(5);
    /** How long output still in the pipes may take to arrive after every rank has ended. */
    private static final Duration DRAIN = Duration.ofSeconds(5);
    /** Most ranks started at the same time ({@link #startAll}). */
    private static final int SPAWNERS = 16;
    /** A line longer than this is forwarded in pieces rather than held in memory whole. */
    private static final int MAX_LINE = 1 << 20;

    /** How to start one rank: the command, its environment, and whether it goes through rsh. */
    record Launch(int rank, String host, boolean remote, List<String> command, Map<String, String> env) {
        static Launch local(int rank, List<String> command, Map<String, String> env) {
            return new Launch(rank, JobResult.LOCALHOST, false, command, env);
        }

        static Launch remote(int rank, String host, List<String> rshCommand) {
            // The environment is in the remote command line: ranks must not see the launcher's own.
            return new Launch(rank, host, true, rshCommand, Map.of());
        }
    }

    static final class Rank extends RankWatch.Member {
        final Launch launch;
        /** The rank's process; a restart replaces it. */
        volatile Process process;
        volatile IOException startError;
        final List<Thread> pumps = new ArrayList<>(2);
        /** Times this rank was started again after it died from a signal. */
        int restarts;

        Rank(Launch launch) {
            this.launch = launch;
        }

        boolean alive() {
            return process != null && process.isAlive();
        }

        String who() {
            return new RankStatus(launch.rank(), launch.host(), process == null ? -1 : process.pid(), -1, Outcome.NOT_STARTED).who();
        }

        /** Closing stdin is how a remote rank is asked to stop: see {@link Launcher#rshCommand}. */
        void closeStdin() {
            try {
                process.getOutputStream().close();
            } catch (IOException ignored) {
                // Already closed by the process's end; the rank is stopping either way.
            }
        }
    }

    /** Times each rank may be started again after it dies from a signal ({@code railyard run --restart N}). */
    private final int maxRestarts;
    private final LineSink out;
    private final Charset charset = Charset.forName(System.getProperty("native.encoding", "UTF-8"), StandardCharsets.UTF_8);
    /** Index of the lowest rank whose start failed (ranks above it are not started), else MAX_VALUE. */
    private final java.util.concurrent.atomic.AtomicInteger lowestFailed = new java.util.concurrent.atomic.AtomicInteger(Integer.MAX_VALUE);

    Job(List<Launch> launches, Duration timeout, LineSink out, LineSink err) {
        this(launches, timeout, 0, out, err);
    }

    /**
     * A job whose local ranks are started again, up to {@code maxRestarts} times each, when they die
     * from a signal (a SIGKILL, a crash), instead of the job ending; the process started again has
     * {@code RAILYARD_INCARNATION} set to the number of its restart.
     */
    Job(List<Launch> launches, Duration timeout, int maxRestarts, LineSink out, LineSink err) {
        super(timeout, err);
        for (Launch l : launches) {
            ranks.add(new Rank(l));
        }
        this.maxRestarts = maxRestarts;
        this.out = out;
    }

    JobResult run() {
        Thread hook = Thread.ofPlatform().name("railyard-launcher-shutdown").unstarted(() -> {
            stop(Cause.INTERRUPTED, "railyard: launcher interrupted", false);
            awaitStopped();
        });
        Runtime.getRuntime().addShutdownHook(hook);
        boolean interrupted = false;
        try {
            if (startAll()) {
                watch();
            }
        } catch (InterruptedException e) {
            interrupted = true;
            stop(Cause.INTERRUPTED, "railyard: launcher interrupted", false);
        } finally {
            awaitStopped();
            drainOutput();
            try {
                Runtime.getRuntime().removeShutdownHook(hook);
            } catch (IllegalStateException shuttingDown) {
                // The hook is running or has run; it stops the ranks itself.
            }
        }
        if (interrupted) {
            // Only now: with the flag set, the bounded waits above would have returned at once.
            Thread.currentThread().interrupt();
        }
        return result();
    }

    /**
     * Starts every rank, up to {@value #SPAWNERS} at a time: {@link ProcessBuilder#start} returns
     * only once the child has executed its program, which on a busy machine takes a good part of a
     * second, so ranks started one after the other would begin seconds (at 128 ranks, a minute)
     * after the first. After a failure no rank above the failed one is started; once the starts
     * under way have ended, the lowest rank that could not start is reported (every rank below it
     * was tried), those that started are stopped, and false is returned.
     */
    private boolean startAll() throws InterruptedException {
        ExecutorService pool = Executors.newFixedThreadPool(Math.max(1, Math.min(SPAWNERS, ranks.size())),
                Thread.ofPlatform().name("railyard-spawn-", 0).daemon().factory());
        List<Future<?>> starts = new ArrayList<>(ranks.size());
        try {
            for (Rank r : ranks) {
                starts.add(pool.submit(() -> firstStart(r)));
            }
            for (Future<?> f : starts) {
                f.get();
            }
        } catch (ExecutionException e) {
            throw new IllegalStateException("starting a rank failed unexpectedly", e.getCause());
        } finally {
            pool.shutdownNow();
        }
        for (Rank r : ranks) {
            if (r.startError != null) {
                stop(Cause.START_FAILED, "railyard: could not start rank " + r.launch.rank() + " on " + r.launch.host()
                        + ": " + r.startError.getMessage(), false);
                return false;
            }
        }
        return !stopping();
    }

    /**
     * Starts one rank the first time; skipped after a failed start of a lower rank or a stop, and
     * stopped at once when a stop came while it started.
     */
    private void firstStart(Rank r) {
        if (stopping() || ranks.indexOf(r) > lowestFailed.get()) {
            return; // a lower rank could not start: the job will not run
        }
        Process p;
        try {
            p = spawn(r);
        } catch (IOException e) {
            r.startError = e;
            lowestFailed.accumulateAndGet(ranks.indexOf(r), Math::min);
            return;
        }
        if (stopping()) {
            // a stop came while this rank was starting: it saw no process to stop here
            r.stopRequested = true;
            if (r.launch.remote()) {
                r.closeStdin();
            } else {
                p.destroy();
            }
        }
    }

    /** Starts the rank's process, its output pumps and its exit watch (a restart's with its incarnation in the environment). */
    private Process spawn(Rank r) throws IOException {
        ProcessBuilder pb = new ProcessBuilder(r.launch.command());
        pb.environment().putAll(r.launch.env());
        if (r.restarts > 0) {
            pb.environment().put(Config.envName(Config.INCARNATION_PROP), Integer.toString(r.restarts));
        }
        Process p = pb.start();
        r.process = p;
        if (!r.launch.remote()) {
            // A local rank reads no input; a remote one's stdin is the line that keeps it alive.
            r.closeStdin();
        }
        synchronized (r.pumps) {
            r.pumps.add(pump(p.getInputStream(), r.launch.rank(), out));
            r.pumps.add(pump(p.getErrorStream(), r.launch.rank(), err));
        }
        p.onExit().thenRun(() -> exits.add(r));
        return p;
    }

    /** Starts the rank's process again after a restart; false (and the job stops) if it cannot start. */
    private boolean start(Rank r) {
        try {
            spawn(r);
            return true;
        } catch (IOException e) {
            stop(Cause.START_FAILED, "railyard: could not start rank " + r.launch.rank() + " on " + r.launch.host()
                    + ": " + e.getMessage(), false);
            return false;
        }
    }

    /**
     * A rank that died from a signal is started again if it has restarts left (local ranks only:
     * a remote rank's environment is inside its rsh command line). True if it was.
     */
    @Override
    boolean restarted(Rank r, int code) {
        if (r.restarts >= maxRestarts || r.launch.remote() || !JobResult.Signals.isSignal(code) || stopping()) {
            return false;
        }
        r.restarts++;
        err.line(LineSink.LAUNCHER, "railyard: " + r.who() + " " + JobResult.Signals.describeExit(code)
                + "; starting it again (restart " + r.restarts + " of " + maxRestarts + ")");
        return start(r);
    }

    @Override
    boolean alive(Rank r) {
        return r.alive();
    }

    /** SIGTERM, or end of stdin for a remote rank. */
    @Override
    void halt(Rank r) {
        if (r.launch.remote()) {
            r.closeStdin();
        } else {
            r.process.destroy();
        }
    }

    @Override
    String who(Rank r) {
        return r.who();
    }

    @Override
    int ended(Rank r) {
        if (r.launch.remote()) {
            r.closeStdin();
        }
        return r.process.exitValue();
    }

    /** After a stop: waits a grace period, then SIGKILLs what is left, and reports what still is. */
    private void awaitStopped() {
        if (!stopping()) {
            return;
        }
        if (!awaitAll(GRACE)) {
            for (Rank r : ranks) {
                if (r.alive()) {
                    r.process.destroyForcibly();
                }
            }
            if (!awaitAll(KILL_WAIT)) {
                for (Rank r : ranks) {
                    if (r.alive()) {
                        err.line(LineSink.LAUNCHER, "railyard: " + r.who() + " did not end within " + human(KILL_WAIT)
                                + " of SIGKILL; leaving it behind");
                    }
                }
            }
        }
    }

    private boolean awaitAll(Duration bound) {
        long deadline = System.nanoTime() + bound.toNanos();
        boolean interrupted = false;
        try {
            for (Rank r : ranks) {
                while (r.alive()) {
                    long left = deadline - System.nanoTime();
                    if (left <= 0) {
                        return false;
                    }
                    try {
                        r.process.waitFor(left, TimeUnit.NANOSECONDS);
                    } catch (InterruptedException e) {
                        // Stopping the ranks matters more than answering the interrupt at once.
                        interrupted = true;
                    }
                }
            }
            return true;
        } finally {
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }

    private void drainOutput() {
        long deadline = System.nanoTime() + DRAIN.toNanos();
        for (Rank r : ranks) {
            for (Thread t : r.pumps) {
                long left = deadline - System.nanoTime();
                try {
                    // A grandchild that inherited the pipe may keep it open forever: do not wait on it.
                    if (left <= 0 || !t.join(Duration.ofNanos(left))) {
                        return;
                    }
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    return;
                }
            }
        }
    }

    /** Forwards a stream line by line; the sink sees each line whole. */
    private Thread pump(InputStream in, int rank, LineSink sink) {
        return Thread.ofPlatform().daemon().name("railyard-output-" + rank).start(() -> {
            ByteArrayOutputStream line = new ByteArrayOutputStream(256);
            byte[] buf = new byte[8192];
            try (in) {
                int n;
                while ((n = in.read(buf)) >= 0) {
                    int start = 0;
                    for (int i = 0; i < n; i++) {
                        if (buf[i] == '\n') {
                            line.write(buf, start, i - start);
                            emit(line, rank, sink);
                            start = i + 1;
                        }
                    }
                    line.write(buf, start, n - start);
                    if (line.size() >= MAX_LINE) {
                        emit(line, rank, sink);
                    }
                }
            } catch (IOException e) {
                // The pipe was closed under us: the process is gone, nothing more will come.
            }
            if (line.size() > 0) {
                emit(line, rank, sink);
            }
        });
    }

    private void emit(ByteArrayOutputStream line, int rank, LineSink sink) {
        String s = line.toString(charset);
        line.reset();
        sink.line(rank, s.endsWith("\r") ? s.substring(0, s.length() - 1) : s);
    }

    private JobResult result() {
        List<RankStatus> statuses = new ArrayList<>();
        List<Integer> stopped = new ArrayList<>();
        for (Rank r : ranks) {
            Launch l = r.launch;
            if (r.process == null) {
                statuses.add(new RankStatus(l.rank(), l.host(), -1, -1, Outcome.NOT_STARTED));
                continue;
            }
            int code = r.process.isAlive() ? -1 : r.process.exitValue();
            Outcome outcome;
            if (r.stopRequested) {
                outcome = Outcome.STOPPED;
                stopped.add(l.rank());
            } else if (code == 0) {
                outcome = Outcome.SUCCEEDED;
            } else {
                outcome = JobResult.Signals.isSignal(code) ? Outcome.KILLED : Outcome.FAILED;
            }
            statuses.add(new RankStatus(l.rank(), l.host(), r.process.pid(), code, outcome));
        }
        synchronized (this) {
            int exitCode = switch (cause()) {
                case NONE -> 0;
                case FAILURE -> statuses.get(firstFailure().launch.rank()).exitCode();
                case TIMEOUT -> JobResult.TIMEOUT_EXIT;
                case INTERRUPTED -> JobResult.INTERRUPTED_EXIT;
                case START_FAILED -> JobResult.START_FAILED_EXIT;
            };
            return new JobResult(exitCode, statuses, summary(stopped));
        }
    }
}
