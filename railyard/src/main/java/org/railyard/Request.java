package org.railyard;

import java.time.Duration;
import org.railyard.engine.Engine;
import org.railyard.engine.request.Transfer;

/**
 * A non-blocking operation under way. Wait for it with {@link #await()}, or poll it with
 * {@link #test()}; the static helpers wait for several at once. A failed operation throws its
 * {@link org.railyard.error.RailyardException} from the wait or test that observes it.
 *
 * <p>The request of a non-blocking collective ({@link Comm#ibcast} and the like) completes when
 * this process's part is done: its buffers may then be used, though other processes may still be
 * busy. Its status carries no source, tag or count, and it cannot be cancelled. It moves forward
 * whenever the engine makes progress (any thread's wait or test, or the background agent while
 * every thread computes), so a program may start one, compute, and wait later.
 */
public final class Request {
    private final Engine engine;
    private final Transfer transfer;
    private Status status;

    /** A request handed to the application, which leaves the library with it under way. */
    Request(Engine engine, Transfer transfer) {
        this.engine = engine;
        this.transfer = transfer;
        engine.leftWork();
    }

    /** The engine's operation behind this request; for the facades built on this API. */
    public Transfer transfer() {
        return transfer;
    }

    /** Waits for completion (driving progress meanwhile) and returns the status. */
    public Status await() {
        engine.await(transfer);
        return status();
    }

    /** Waits at most {@code timeout}; returns the status, or null if the request is still pending. */
    public Status await(Duration timeout) {
        return engine.await(transfer, timeout.toNanos()) ? status() : null;
    }

    /** Drives progress once; true if the request is complete (and throws if it failed). */
    public boolean test() {
        return engine.test(transfer);
    }

    /** True once complete, without driving progress or throwing. */
    public boolean isDone() {
        return transfer.isDone();
    }

    /** Cancels a receive that has not matched yet; a no-op otherwise. True if it was cancelled. */
    public boolean cancel() {
        return engine.cancel(transfer);
    }

    /** The status once complete, else null. */
    public Status status() {
        if (!transfer.isDone()) {
            return null;
        }
        if (status == null) {
            Status s = new Status();
            transfer.fillStatus(s);
            s.cancelled = transfer.isCancelled();
            status = s;
        }
        return status;
    }

    /** Waits for all; returns their statuses in order. */
    public static Status[] awaitAll(Request... requests) {
        Status[] out = new Status[requests.length];
        for (int i = 0; i < requests.length; i++) {
            out[i] = requests[i] == null ? null : requests[i].await();
        }
        return out;
    }

    /** Waits for one to complete and returns its index (in {@link Status#index()} too); -1 if all are null. */
    public static int awaitAny(Request... requests) {
        Transfer[] ts = transfers(requests);
        if (ts == null) {
            return -1;
        }
        int i = requests[firstNonNull(requests)].engine.awaitAny(ts);
        requests[i].status();
        if (requests[i].status != null) {
            requests[i].status.index = i;
        }
        return i;
    }

    /** Waits until at least one completes; returns the indices of all that are complete. */
    public static int[] awaitSome(Request... requests) {
        if (awaitAny(requests) < 0) {
            return new int[0];
        }
        return completed(requests);
    }

    /** True if all are complete (drives progress once). */
    public static boolean testAll(Request... requests) {
        boolean all = true;
        for (Request r : requests) {
            if (r != null && !r.test()) {
                all = false;
            }
        }
        return all;
    }

    /** Index of a complete request, or -1 (drives progress once). */
    public static int testAny(Request... requests) {
        for (int i = 0; i < requests.length; i++) {
            if (requests[i] != null && requests[i].test()) {
                return i;
            }
        }
        return -1;
    }

    /** Indices of all complete requests (drives progress once). */
    public static int[] testSome(Request... requests) {
        testAll(requests);
        return completed(requests);
    }

    private static int[] completed(Request... requests) {
        int n = 0;
        for (Request r : requests) {
            if (r != null && r.isDone()) {
                n++;
            }
        }
        int[] idx = new int[n];
        n = 0;
        for (int i = 0; i < requests.length; i++) {
            if (requests[i] != null && requests[i].isDone()) {
                requests[i].test();
                idx[n++] = i;
            }
        }
        return idx;
    }

    private static int firstNonNull(Request[] requests) {
        for (int i = 0; i < requests.length; i++) {
            if (requests[i] != null) {
                return i;
            }
        }
        return -1;
    }

    private static Transfer[] transfers(Request[] requests) {
        if (firstNonNull(requests) < 0) {
            return null;
        }
        Transfer[] ts = new Transfer[requests.length];
        for (int i = 0; i < requests.length; i++) {
            ts[i] = requests[i] == null ? null : requests[i].transfer;
        }
        return ts;
    }

    @Override
    public String toString() {
        return "Request[" + transfer + "]";
    }
}
