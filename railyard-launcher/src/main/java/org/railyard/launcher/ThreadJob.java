package org.railyard.launcher;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.IntConsumer;
import org.railyard.launcher.JobResult.Outcome;
import org.railyard.launcher.JobResult.RankStatus;

/**
 * One run of a job whose ranks are threads of this JVM: per rank a {@link RankLoader}, the rank's
 * environment set on its own copy of {@code org.railyard.util.Config} (the overlay), and a platform
 * thread that calls the program's static {@code main(String[])}.
 *
 * <h2>How a rank ends</h2>
 * A rank ends when its main returns (status 0), throws (status 1, the trace on the rank's stderr
 * as the JVM prints it), or calls an exit ({@link RankExit}: the status it gave, from whichever of
 * the rank's threads called it). As with processes, the first rank that ends with a non-zero
 * status fails the job: the launcher says which and stops the others. A thread cannot be killed:
 * stopping a rank interrupts its main thread, and a rank still running {@link #GRACE} later is left
 * to end with this JVM, which the {@code railyard} command ends right after the job (so no rank
 * outlives the job; a caller of {@link ThreadLauncher#run} in a longer-lived JVM must know that
 * such threads may go on). The job's timeout is kept the same way.
 */
final class ThreadJob extends RankWatch<ThreadJob.Rank> {
    /** How long stopped ranks get to end after their interrupt. */
    static final Duration GRACE = Duration.ofSeconds(3);

    private static final int RUNNING = Integer.MIN_VALUE;

    final class Rank extends RankWatch.Member {
        final int rank;
        final RankLoader loader;
        final Map<String, String> env;
        final AtomicInteger status = new AtomicInteger(RUNNING);
        Thread main;

        Rank(int rank, RankLoader loader, Map<String, String> env) {
            this.rank = rank;
            this.loader = loader;
            this.env = env;
        }

        /** Records how the rank ended (the first report wins) and tells the watcher. */
        void end(int code) {
            if (status.compareAndSet(RUNNING, code)) {
                exits.add(this);
            }
        }

        boolean running() {
            return status.get() == RUNNING;
        }
    }

    private final String mainClass;
    private final List<String> args;
    private final RankOutput output;
    private volatile boolean lingering;

    ThreadJob(List<RankLoader> loaders, List<Map<String, String>> envs, String mainClass, List<String> args,
              Duration timeout, LineSink err, RankOutput output) {
        super(timeout, err);
        for (int r = 0; r < loaders.size(); r++) {
            ranks.add(new Rank(r, loaders.get(r), envs.get(r)));
        }
        this.mainClass = mainClass;
        this.args = args;
        this.output = output;
    }

    /**
     * The program's {@code main} as rank {@code r}'s loader sees it, its Config overlay and exit
     * hook set; before any thread starts, so that a wrong class name fails the job at once.
     *
     * @throws IllegalArgumentException naming the class and what is wrong with it
     */
    private Method prepare(Rank r) {
        Class<?> cls;
        try {
            cls = Class.forName(mainClass, false, r.loader);
        } catch (ClassNotFoundException | LinkageError e) {
            throw new IllegalArgumentException("main class '" + mainClass + "' cannot be loaded from the job's class path ("
                    + e + ")");
        }
        Method m;
        try {
            m = cls.getDeclaredMethod("main", String[].class);
        } catch (NoSuchMethodException e) {
            throw new IllegalArgumentException("class '" + mainClass + "' has no main(String[]) method");
        }
        if (!Modifier.isStatic(m.getModifiers())) {
            throw new IllegalArgumentException("--threads needs a static main(String[]) in '" + mainClass
                    + "' (an instance main is not supported)");
        }
        m.setAccessible(true);
        try {
            Class<?> config = Class.forName("org.railyard.util.Config", true, r.loader);
            config.getMethod("setOverlay", Map.class).invoke(null, r.env);
            Class<?> exit = Class.forName(RankExit.class.getName(), true, r.loader);
            IntConsumer hook = r::end;
            exit.getMethod("setHook", IntConsumer.class).invoke(null, hook);
        } catch (ReflectiveOperationException | LinkageError e) {
            throw new IllegalArgumentException("the job's class path lacks Railyard's own classes for rank " + r.rank
                    + " (" + e + ")");
        }
        return m;
    }

    JobResult run() {
        List<Method> mains = new ArrayList<>();
        for (Rank r : ranks) {
            mains.add(prepare(r));
        }
        for (Rank r : ranks) {
            Method m = mains.get(r.rank);
            String[] argv = args.toArray(String[]::new);
            r.main = Thread.ofPlatform().daemon().name("rank-" + r.rank).unstarted(() -> runMain(r, m, argv));
            r.main.setContextClassLoader(r.loader);
            r.main.start();
        }
        boolean interrupted = false;
        try {
            watch();
        } catch (InterruptedException e) {
            interrupted = true;
            stop(Cause.INTERRUPTED, "railyard: launcher interrupted", false);
        }
        awaitStopped();
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
        return result();
    }

    private void runMain(Rank r, Method m, String[] argv) {
        RankOutput.RANK.set(r.rank);
        int code = 0;
        try {
            m.invoke(null, (Object) argv);
        } catch (InvocationTargetException e) {
            Throwable t = e.getCause();
            if (t.getClass().getName().equals(RankExit.class.getName())) {
                code = statusOf(t);
            } else {
                System.err.print("Exception in thread \"main\" ");
                t.printStackTrace();
                code = 1;
            }
        } catch (IllegalAccessException e) {
            System.err.println("railyard: cannot call " + mainClass + ".main: " + e.getMessage());
            code = 1;
        } finally {
            output.flush(r.rank);
            r.end(code);
        }
    }

    private static int statusOf(Throwable exit) {
        try {
            return (Integer) exit.getClass().getMethod("status").invoke(exit);
        } catch (ReflectiveOperationException e) {
            return 1;
        }
    }

    @Override
    boolean alive(Rank r) {
        return r.running();
    }

    /** A thread cannot be killed: its main thread is interrupted. */
    @Override
    void halt(Rank r) {
        r.main.interrupt();
    }

    @Override
    String who(Rank r) {
        return "rank " + r.rank + " (thread)";
    }

    @Override
    int ended(Rank r) {
        return r.status.get();
    }

    /** After a stop: waits up to {@link #GRACE} for the stopped ranks, and names those left running. */
    private void awaitStopped() {
        if (!stopping()) {
            return;
        }
        long deadline = System.nanoTime() + GRACE.toNanos();
        boolean interrupted = false;
        for (Rank r : ranks) {
            long left;
            while (r.main.isAlive() && (left = deadline - System.nanoTime()) > 0) {
                try {
                    r.main.join(Duration.ofNanos(left));
                } catch (InterruptedException e) {
                    interrupted = true;
                }
            }
            if (r.main.isAlive()) {
                lingering = true;
                err.line(LineSink.LAUNCHER, "railyard: rank " + r.rank + " (thread) did not end within " + human(GRACE)
                        + " of its interrupt; it ends with this JVM");
            }
        }
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
    }

    /** True when some rank's thread still ran when {@link #run} returned (it ends with this JVM). */
    boolean lingering() {
        return lingering;
    }

    private JobResult result() {
        long pid = ProcessHandle.current().pid();
        List<RankStatus> statuses = new ArrayList<>();
        List<Integer> stopped = new ArrayList<>();
        for (Rank r : ranks) {
            int code = r.status.get();
            Outcome outcome;
            if (r.stopRequested) {
                outcome = Outcome.STOPPED;
                stopped.add(r.rank);
            } else if (code == 0) {
                outcome = Outcome.SUCCEEDED;
            } else {
                outcome = Outcome.FAILED;
            }
            statuses.add(new RankStatus(r.rank, JobResult.LOCALHOST, pid, code == RUNNING ? -1 : code, outcome));
        }
        synchronized (this) {
            int exitCode = switch (cause()) {
                case NONE -> 0;
                case FAILURE -> firstFailure().status.get();
                case TIMEOUT -> JobResult.TIMEOUT_EXIT;
                case INTERRUPTED -> JobResult.INTERRUPTED_EXIT;
                case START_FAILED -> throw new IllegalStateException("threads have no start to fail");
            };
            return new JobResult(exitCode, statuses, summary(stopped));
        }
    }
}
