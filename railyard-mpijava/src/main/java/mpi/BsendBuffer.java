package mpi;

import java.util.ArrayList;
import java.util.List;
import java.util.function.Supplier;

/**
 * The bookkeeping of buffered sends. Railyard sends a private copy of the data with an ordinary
 * non-blocking send, so no user memory is needed; the buffer given to {@link MPI#Buffer_attach}
 * only bounds the bytes in flight, so that a program that overflows its buffer gets MPI's error
 * instead of unbounded memory use. Sends that completed are reaped on every new buffered send.
 */
final class BsendBuffer {
    /** Capacity of the attached buffer, or -1 when none is attached (then nothing is bounded). */
    private long capacity = -1;
    private long used;
    private final List<Pending> inFlight = new ArrayList<>();
    private final List<Long> sizes = new ArrayList<>();
    /** The failure of a send already reaped, reported by the next buffered call. */
    private MPIException failure;

    synchronized void attach(int bytes) {
        if (capacity >= 0) {
            throw MPIException.error("Buffer_attach: a buffer of " + capacity + " bytes is already attached; detach it first");
        }
        capacity = bytes;
    }

    /** Waits for every buffered send, then forgets the buffer. */
    void detach() {
        drain();
        synchronized (this) {
            capacity = -1;
        }
    }

    /** Forgets the attached buffer and any failure (at finalize: a new round starts with none). */
    synchronized void forget() {
        capacity = -1;
        failure = null;
    }

    /** Waits for every buffered send (at detach and at finalize). */
    void drain() {
        while (true) {
            Pending p;
            synchronized (this) {
                reap();
                if (inFlight.isEmpty()) {
                    break;
                }
                p = inFlight.get(0);
            }
            try {
                p.await();
            } catch (MPIException e) {
                synchronized (this) {
                    failure = failure == null ? e : failure;
                }
            }
        }
        rethrow();
    }

    /** Starts a buffered send of {@code bytes} bytes, if the attached buffer has room for them. */
    Pending start(long bytes, Supplier<Pending> send) {
        long need;
        synchronized (this) {
            reap();
            rethrow();
            // Sends made while no buffer is attached count against none, not even one attached later.
            need = capacity < 0 ? 0 : bytes + MPI.BSEND_OVERHEAD;
            if (capacity >= 0 && used + need > capacity) {
                throw MPIException.error("Bsend: " + bytes + " bytes do not fit the attached buffer (" + capacity
                        + " bytes, " + used + " in use by sends in flight, " + MPI.BSEND_OVERHEAD + " overhead per send)");
            }
            used += need;
        }
        Pending p;
        try {
            p = send.get();
        } catch (RuntimeException e) {
            synchronized (this) {
                used -= need;
            }
            throw e;
        }
        synchronized (this) {
            inFlight.add(p);
            sizes.add(need);
        }
        return p;
    }

    private void reap() {
        for (int i = inFlight.size() - 1; i >= 0; i--) {
            boolean done;
            try {
                done = inFlight.get(i).test();
            } catch (MPIException e) {
                failure = failure == null ? e : failure;
                done = true;
            }
            if (done) {
                inFlight.remove(i);
                used -= sizes.remove(i);
            }
        }
    }

    private void rethrow() {
        MPIException f;
        synchronized (this) {
            f = failure;
            failure = null;
        }
        if (f != null) {
            throw MPIException.error("an earlier buffered send failed: " + f.getMessage(), f);
        }
    }
}
