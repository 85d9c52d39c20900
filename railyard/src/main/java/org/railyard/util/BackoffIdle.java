package org.railyard.util;

import java.util.concurrent.locks.LockSupport;

/**
 * What a thread does when a duty cycle found nothing to do: spin a while (lowest latency), then
 * yield, then park for doubling intervals up to a bound, so that many idle ranks on few cores
 * leave the processors to those with work. Any work resets it to spinning. One instance per
 * thread.
 */
public final class BackoffIdle {
    private final long spins;
    private final long yields;
    private final long minParkNanos;
    private final long maxParkNanos;
    private long count;
    private long park;

    public BackoffIdle(long spins, long yields, long minParkNanos, long maxParkNanos) {
        this.spins = spins;
        this.yields = yields;
        this.minParkNanos = minParkNanos;
        this.maxParkNanos = maxParkNanos;
        this.park = minParkNanos;
    }

    /** Call after each duty cycle with the work it did. */
    public void idle(int work) {
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
            LockSupport.parkNanos(park);
            park = Math.min(park * 2, maxParkNanos);
        }
    }

    public void reset() {
        count = 0;
        park = minParkNanos;
    }
}
