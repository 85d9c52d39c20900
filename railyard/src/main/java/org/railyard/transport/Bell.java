package org.railyard.transport;

import java.util.List;
import java.util.function.Function;
import java.util.function.IntSupplier;

/**
 * What a thread of this process that waits for frames may sleep on until a link has work, instead
 * of parking for a guessed interval: the part of a transport the layers above see when they wait.
 * A transport whose links can wake a sleeper (shared-memory rings) returns its bell from
 * {@link Transport#bell()}; the transports of one process that have a bell share one instance (see
 * {@link TransportEnv#shared}), so one sleep covers all their links. Frames of a transport without
 * a bell do not wake a sleeper: the caller bounds its sleep by its park interval then.
 *
 * <p>Contract of {@link #sleep}: the caller's {@code lastLook} runs after the bell is armed and
 * before the thread sleeps, so a frame published before the sleep is found by that look or ends
 * the sleep; a wake-up is never lost.
 */
public interface Bell {

    /** A bell that never sleeps: for a process whose transports have none. */
    Bell NONE = new Bell() {
        @Override public boolean usable() { return false; }
        @Override public boolean enabled() { return false; }
        @Override public boolean sleep(long nanos, IntSupplier lastLook) { return false; }
        @Override public void wakeSleepers() { }
        @Override public long wakes() { return 0; }
    };

    /** True if a waiter can sleep on it now (switched on, supported here, at least one link rings it). */
    boolean usable();

    /** True if the bell is switched on and supported on this machine (it may have no link yet). */
    boolean enabled();

    /**
     * Sleeps at most {@code nanos} or until a link rings, after one more {@code lastLook} (a duty
     * cycle returning the work it did) that finds nothing.
     *
     * @return true if it slept or the last look found work; false if it cannot sleep (the caller
     *         parks instead)
     */
    boolean sleep(long nanos, IntSupplier lastLook);

    /** Wakes the threads of this process sleeping on the bell, if any; cheap when none sleeps. */
    void wakeSleepers();

    /** Sleeps a ring ended before their time, so far. */
    long wakes();

    /** The input bell ({@link Transport#inputBell}) of the first of {@code transports} that has one, or {@link #NONE}. */
    static Bell inputOf(List<Transport> transports) {
        return first(transports, Transport::inputBell);
    }

    /** The bell of the first of {@code transports} that has one, or {@link #NONE}. */
    static Bell of(List<Transport> transports) {
        return first(transports, Transport::bell);
    }

    private static Bell first(List<Transport> transports, Function<Transport, Bell> which) {
        for (Transport t : transports) {
            Bell b = which.apply(t);
            if (b != NONE) {
                return b;
            }
        }
        return NONE;
    }
}
