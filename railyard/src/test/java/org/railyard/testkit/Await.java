package org.railyard.testkit;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Supplier;

/**
 * The one way a test waits for something another thread or process brings about: poll the
 * condition it means until it holds, bounded, and fail naming what did not happen. Tests of every
 * module use it (this package is shipped in the {@code railyard} test-jar).
 *
 * <p>Rules: the condition must be cheap. It may poll where polling is how the test sees the state
 * (reading a link the test owns, {@code test()} on a request), but where a test checks that
 * another party does the work alone (the progress agent advancing a request), it reads state only
 * ({@code isDone}), never a call that drives progress. Between polls the waiting thread backs off from spinning to parking for
 * at most {@link #MAX_PAUSE_NANOS}, so on a small loaded machine it leaves the cores to the parties
 * it waits for; the pause is a polling interval, never a stand-in for the condition.
 */
public final class Await {
    /** Longest pause between two polls. */
    public static final long MAX_PAUSE_NANOS = 2_000_000L;

    private Await() {
    }

    /** A condition to poll; it may throw (a failed check inside it ends the wait with that failure). */
    @FunctionalInterface
    public interface Condition {
        boolean holds() throws Exception;
    }

    /** A poll that gives null until there is something (an event, a finished request's status). */
    @FunctionalInterface
    public interface Poll<T> {
        T next() throws Exception;
    }

    /**
     * Polls until {@code poll} gives something other than null, at most {@code bound}, and returns it.
     *
     * @throws AssertionError naming {@code what} when the bound passes first (or the wait is interrupted)
     */
    public static <T> T awaitValue(Poll<T> poll, Duration bound, String what) {
        return valueWithin(bound, poll).orElseThrow(() -> new AssertionError("not within " + describe(bound) + ": " + what));
    }

    /** Polls until {@code poll} gives something other than null (that), or {@code bound} passes (empty). */
    public static <T> Optional<T> valueWithin(Duration bound, Poll<T> poll) {
        List<T> got = new ArrayList<>(1);
        within(bound, () -> {
            T t = poll.next();
            return t != null && got.add(t);
        });
        return got.isEmpty() ? Optional.empty() : Optional.of(got.getFirst());
    }

    /**
     * Waits until {@code condition} holds, at most {@code bound}.
     *
     * @throws AssertionError naming {@code what} when the bound passes first (or the wait is interrupted)
     */
    public static void awaitUntil(Condition condition, Duration bound, String what) {
        awaitUntil(condition, bound, () -> what);
    }

    /**
     * Waits until {@code condition} holds, at most {@code bound}; on failure the message is
     * {@code what} evaluated then, so it can describe the state the wait ended in.
     *
     * @throws AssertionError when the bound passes first (or the wait is interrupted)
     */
    public static void awaitUntil(Condition condition, Duration bound, Supplier<String> what) {
        if (!within(bound, condition)) {
            throw new AssertionError("not within " + describe(bound) + ": " + what.get());
        }
    }

    /**
     * Polls {@code condition} until it holds (true) or {@code bound} passes (false). The condition
     * is polled once more after the bound, so a condition that came true during the last pause
     * still counts.
     *
     * @throws AssertionError if the waiting thread is interrupted (its interrupt status is kept)
     */
    public static boolean within(Duration bound, Condition condition) {
        long deadline = System.nanoTime() + bound.toNanos();
        long pause = 1_000L;
        int spins = 0;
        while (true) {
            if (check(condition)) {
                return true;
            }
            if (System.nanoTime() - deadline > 0) {
                return check(condition);
            }
            if (spins < 100) {
                spins++;
                Thread.onSpinWait();
            } else {
                LockSupport.parkNanos(pause);
                pause = Math.min(MAX_PAUSE_NANOS, pause * 2);
                if (Thread.currentThread().isInterrupted()) {
                    throw new AssertionError("interrupted while waiting");
                }
            }
        }
    }

    private static boolean check(Condition condition) {
        try {
            return condition.holds();
        } catch (RuntimeException | Error e) {
            throw e;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError("interrupted while waiting", e);
        } catch (Exception e) {
            throw new AssertionError("the awaited condition failed: " + e, e);
        }
    }

    private static String describe(Duration d) {
        return d.toMillis() % 1000 == 0 ? d.toSeconds() + " s" : d.toMillis() + " ms";
    }
}
