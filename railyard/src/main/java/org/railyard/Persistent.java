package org.railyard;

import java.time.Duration;
import java.util.Objects;
import java.util.function.Supplier;
import org.railyard.error.ErrorClass;
import org.railyard.error.RailyardException;

/**
 * A persistent operation (MPI's persistent requests, point-to-point and, as in MPI 4, collective):
 * its arguments are fixed once ({@link Comm#sendInit}, {@link Comm#allreduceInit} and the like,
 * or {@link #of} around any non-blocking call, e.g. {@code Persistent.of("alltoallv", () ->
 * comm.ialltoallv(...))}),
 * then each {@link #start} begins one more instance of it, which {@link #await} or {@link #test}
 * completes. The buffers are read and written by each instance as a non-blocking call would, so a
 * program fills the send buffer, starts, and waits, in every iteration, without building the
 * arguments again.
 *
 * <p>An instance is exactly the request of the corresponding non-blocking call: it completes,
 * fails and is ordered as that call does (a collective's instances must be started in the same
 * order on every process, as any collectives are). Starting while the previous instance is still
 * active is an error. The arguments are checked when an instance starts, by the non-blocking call
 * it makes (an invalid rank, count or buffer is reported by {@link #start}). Not thread-safe: one
 * thread starts and completes a given persistent operation.
 */
public final class Persistent {
    private final String what;
    private final Supplier<Request> starter;
    private Request active;
    private Status last;

    /**
     * A persistent operation that {@code starter} begins each time (a call of a non-blocking
     * method with fixed arguments); {@code what} names it in errors.
     */
    public static Persistent of(String what, Supplier<Request> starter) {
        return new Persistent(Objects.requireNonNull(what, "what"), Objects.requireNonNull(starter, "starter"));
    }

    private Persistent(String what, Supplier<Request> starter) {
        this.what = what;
        this.starter = starter;
    }

    /** Begins the next instance; an ARG error if the previous one has not been completed. */
    public Persistent start() {
        if (active != null) {
            throw new RailyardException(ErrorClass.ARG, what + ": started again while its last instance is active;"
                    + " complete it with await or test first");
        }
        last = null;
        active = starter.get();
        return this;
    }

    /** Starts every one of {@code ops}, in order. */
    public static void startAll(Persistent... ops) {
        for (Persistent p : ops) {
            p.start();
        }
    }

    /** Waits for the active instance and returns its status; the last status if none is active. */
    public Status await() {
        if (active != null) {
            Request r = active;
            active = null;
            last = r.await();
        }
        return last;
    }

    /** Waits at most {@code timeout}; the status, or null if the instance is still active then. */
    public Status await(Duration timeout) {
        if (active == null) {
            return last;
        }
        Status s;
        try {
            s = active.await(timeout);
        } catch (RuntimeException e) {
            active = null; // a failed instance is over: the operation may be started again
            throw e;
        }
        if (s != null) {
            active = null;
            last = s;
        }
        return s;
    }

    /** Drives progress once; true if no instance is active any more (throws if it failed). */
    public boolean test() {
        if (active == null) {
            return true;
        }
        Request r = active;
        boolean done;
        try {
            done = r.test();
        } catch (RuntimeException e) {
            active = null; // a failed instance is over: the operation may be started again
            throw e;
        }
        if (done) {
            last = r.status();
            active = null;
        }
        return done;
    }

    /** True while an instance is started and not yet completed by a wait or test. */
    public boolean isActive() {
        return active != null;
    }

    /** Waits for every active one of {@code ops}. */
    public static void awaitAll(Persistent... ops) {
        for (Persistent p : ops) {
            p.await();
        }
    }

    @Override
    public String toString() {
        return what + (active != null ? " (active)" : "");
    }
}
