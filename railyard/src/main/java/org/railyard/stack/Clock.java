package org.railyard.stack;

/**
 * Where the stack floor reads the time: {@link #SYSTEM} in a running process, a clock the test moves
 * by hand in unit tests, so timers (retransmission, delayed acknowledgement, congestion timeouts)
 * fire exactly when a test says and never because a machine was slow.
 */
@FunctionalInterface
public interface Clock {
    /** Monotonic time in nanoseconds (any origin). */
    long nanos();

    /** {@link System#nanoTime()}. */
    Clock SYSTEM = System::nanoTime;
}
