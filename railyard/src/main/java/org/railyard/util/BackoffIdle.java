package org.railyard.util;

import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;

/**
 * What a thread does when a duty cycle found nothing to do: spin a while (lowest latency), then
 * yield, then park for doubling intervals up to a bound, so that many idle ranks on few cores
 * leave the processors to those with work. Any work resets it to spinning. One instance per
 * thread; its first park sets that thread's timer slack ({@link TimerSlack}).
 */
public final class BackoffIdle {
    /**
     * Sleeps instead of a timed park, for about the given time or until woken; false if it
     * cannot (the caller then parks). {@code done} is the waiter's condition, or null when it has
     * none to give; a sleeper that is given one may sleep longer, as it looks at it after making
     * itself wakeable.
     */
    @FunctionalInterface
    public interface Sleeper {
        boolean sleep(long nanos, BooleanSupplier done);
    }

    private final long spins;
    private final long yields;
    private final long minParkNanos;
    private final long maxParkNanos;
    private final Sleeper sleeper;
    /** True: the sleeper is used from the first park on, not only once the parks reached their bound. */
    private final boolean sleepFirst;
    private long count;
    private long park;
    /** True once this instance's thread has had its timer slack set ({@link TimerSlack}). */
    private boolean slackSet;

    public BackoffIdle(long spins, long yields, long minParkNanos, long maxParkNanos) {
        this(spins, yields, minParkNanos, maxParkNanos, null);
    }

    /**
     * As the plain constructor; once the parks have grown to {@code maxParkNanos}, waiting goes
     * through {@code sleeper} (a doorbell) when it can.
     */
    public BackoffIdle(long spins, long yields, long minParkNanos, long maxParkNanos, Sleeper sleeper) {
        this(spins, yields, minParkNanos, maxParkNanos, sleeper, false);
    }

    /**
     * As above; with {@code sleepFirst}, every park goes through {@code sleeper} when it can, so a
     * waiter that a peer's frame can wake never sleeps a timed interval that the frame could have
     * ended ({@link Config#IDLE_SLEEP_FIRST_PROP}).
     */
    public BackoffIdle(long spins, long yields, long minParkNanos, long maxParkNanos, Sleeper sleeper,
                       boolean sleepFirst) {
        this.sleeper = sleeper;
        this.sleepFirst = sleepFirst;
        this.spins = spins;
        this.yields = yields;
        this.minParkNanos = minParkNanos;
        this.maxParkNanos = maxParkNanos;
        this.park = minParkNanos;
    }

    /** Call after each duty cycle with the work it did. */
    public void idle(int work) {
        idle(work, null);
    }

    /** As {@link #idle(int)}, for a waiter whose condition is {@code done} (see {@link Sleeper}). */
    public void idle(int work, BooleanSupplier done) {
        if (work > 0) {
            reset();
            return;
        }
        count++;
        if (count <= spins) {
            Thread.onSpinWait();
        } else if (count <= spins + yields) {
            Thread.yield();
        } else {
            if (!slackSet) {
                slackSet = true;
                TimerSlack.apply(); // a park of 1 us should not last the default slack's 50 us and more
            }
            // short waits park: a waiter on the bell would make each writer pay a wake-up call;
            // once the parks have grown to their bound the wait is a long one, and sleeps. With
            // sleepFirst the wake-up call is the cheaper: a timed park would keep the waiter off
            // a processor long after its frame came
            if (sleeper == null || (!sleepFirst && park < maxParkNanos) || !sleeper.sleep(park, done)) {
                LockSupport.parkNanos(park);
            }
            park = Math.min(park * 2, maxParkNanos);
        }
    }

    public void reset() {
        count = 0;
        park = minParkNanos;
    }
}
