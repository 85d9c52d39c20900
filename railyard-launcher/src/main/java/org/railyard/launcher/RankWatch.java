package org.railyard.launcher;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * What a job does alike whether its ranks are processes ({@link Job}) or threads of this JVM
 * ({@link ThreadJob}): it watches the ranks end, and the first that ends with a non-zero status
 * (unless it is started again) fails the job, or the job's timeout expires; either way the others
 * are asked to stop, once, with one line on stderr naming the cause. How a rank is asked to stop
 * and how its end is read is the subclass's.
 *
 * @param <R> the subclass's record of a rank
 */
abstract class RankWatch<R extends RankWatch.Member> {
    /** Why the job ended early, if it did. */
    enum Cause { NONE, FAILURE, TIMEOUT, INTERRUPTED, START_FAILED }

    /** A rank as the watch sees it. */
    abstract static class Member {
        /** Set when the launcher asked the rank to stop: its end is then not a failure of its own. */
        volatile boolean stopRequested;
    }

    /** The ranks, in rank order. */
    final List<R> ranks = new ArrayList<>();
    /** Each rank, as it ends (a restart's end too). */
    final LinkedBlockingQueue<R> exits = new LinkedBlockingQueue<>();
    final Duration timeout;
    final LineSink err;
    private Cause cause = Cause.NONE;
    private String causeText;
    private R firstFailure;

    RankWatch(Duration timeout, LineSink err) {
        this.timeout = timeout;
        this.err = err;
    }

    /** True while rank {@code r} runs. */
    abstract boolean alive(R r);

    /** Asks rank {@code r} to stop (it was running when the stop began). */
    abstract void halt(R r);

    /** How the stop line names rank {@code r} ("rank 3 (pid 1234)"). */
    abstract String who(R r);

    /** Called as rank {@code r} ended; returns its status. */
    abstract int ended(R r);

    /** Whether rank {@code r}, ended with {@code code} on its own, was started again (then it is still running). */
    boolean restarted(R r, int code) {
        return false;
    }

    /** Waits for every rank to end, or for a failure or the timeout to stop the job. */
    final void watch() throws InterruptedException {
        long deadline = timeout == null ? Long.MAX_VALUE : System.nanoTime() + timeout.toNanos();
        int running = ranks.size();
        while (running > 0 && !stopping()) {
            R r = timeout == null ? exits.take() : exits.poll(deadline - System.nanoTime(), TimeUnit.NANOSECONDS);
            if (r == null) {
                stop(Cause.TIMEOUT, "railyard: job timeout of " + human(timeout) + " expired", false);
                return;
            }
            int code = ended(r);
            if (code != 0 && !r.stopRequested && restarted(r, code)) {
                continue;
            }
            running--;
            if (code != 0 && !r.stopRequested) {
                synchronized (this) {
                    if (firstFailure == null && cause == Cause.NONE) {
                        firstFailure = r;
                    }
                }
                stop(Cause.FAILURE, "railyard: " + who(r) + " " + JobResult.Signals.describeExit(code), true);
            }
        }
    }

    final synchronized boolean stopping() {
        return cause != Cause.NONE;
    }

    final synchronized Cause cause() {
        return cause;
    }

    /** The first rank whose own failure stopped the job, or null. */
    final synchronized R firstFailure() {
        return firstFailure;
    }

    /**
     * Asks every running rank to stop ({@link #halt}) and says so on stderr, naming the cause.
     * Only the first call acts: later failures are consequences of the first.
     *
     * @param others true if the cause is a rank's failure (the line then says "the other N ranks")
     */
    final void stop(Cause why, String message, boolean others) {
        List<R> running = new ArrayList<>();
        synchronized (this) {
            if (cause != Cause.NONE) {
                return;
            }
            cause = why;
            for (R r : ranks) {
                if (alive(r)) {
                    r.stopRequested = true;
                    running.add(r);
                }
            }
            causeText = message.substring("railyard: ".length());
        }
        String suffix = running.isEmpty() ? ""
                : "; stopping " + (others ? "the other " : "") + running.size() + (running.size() == 1 ? " rank" : " ranks");
        err.line(LineSink.LAUNCHER, message + suffix);
        for (R r : running) {
            halt(r);
        }
    }

    /** The job's summary line: all exited 0, or the cause and the ranks the launcher stopped. */
    final synchronized String summary(List<Integer> stopped) {
        return cause == Cause.NONE
                ? "all " + ranks.size() + (ranks.size() == 1 ? " rank" : " ranks") + " exited with code 0"
                : causeText + (stopped.isEmpty() ? "" : "; the launcher stopped " + rankList(stopped));
    }

    /** "rank 2", "ranks 0, 1 and 3", or "14 ranks" past a dozen. */
    static String rankList(List<Integer> list) {
        if (list.size() == 1) {
            return "rank " + list.getFirst();
        }
        if (list.size() > 12) {
            return list.size() + " ranks";
        }
        StringBuilder sb = new StringBuilder("ranks ");
        for (int i = 0; i < list.size(); i++) {
            sb.append(i == 0 ? "" : i == list.size() - 1 ? " and " : ", ").append(list.get(i));
        }
        return sb.toString();
    }

    /** Whole seconds where possible ("90s"), else milliseconds ("1500ms"). */
    static String human(Duration d) {
        return d.toMillis() % 1000 == 0 ? d.toSeconds() + "s" : d.toMillis() + "ms";
    }
}
