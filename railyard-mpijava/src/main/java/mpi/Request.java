package mpi;

import java.util.Arrays;
import java.util.concurrent.locks.LockSupport;
import org.railyard.error.RailyardException;

/**
 * A non-blocking operation under way ({@code Isend}, {@code Irecv} and friends).
 *
 * <h2>How it maps to Railyard</h2>
 * It wraps one {@link org.railyard.Request} (or, for a large {@link MPI#OBJECT} message, the two
 * messages it travels as). {@link #Wait()} is Railyard's {@code await}, {@link #Test()} its
 * {@code test} (which drives progress once), and {@link #Waitany} over plain requests sleeps in
 * Railyard's {@code awaitAny}. A completed request becomes the null request
 * ({@link #Is_null()} is then true), as MPI_Wait sets it to MPI_REQUEST_NULL; waiting on a null
 * request returns an empty status at once, and the any/some calls skip null entries (and null
 * array elements).
 *
 * <p>{@link #Cancel()} really cancels a receive that has not matched a message yet (the request
 * then completes, and its status says {@link Status#Test_cancelled()}); a receive that already
 * matched, and any send, complete normally, which MPI allows.
 */
public class Request {
    /** The operation, or null once this request is the null request (or an inactive persistent one). */
    Pending pending;

    Request(Pending pending) {
        this.pending = pending;
    }

    /** Waits for the operation to complete and returns its status. */
    public Status Wait() throws MPIException {
        Pending p = pending;
        if (p == null) {
            return new Status();
        }
        p.await();
        return complete(p);
    }

    /** The status if the operation is complete (this request becomes null), else null. Drives progress once. */
    public Status Test() throws MPIException {
        Pending p = pending;
        if (p == null) {
            return new Status();
        }
        return p.test() ? complete(p) : null;
    }

    /** True for the null request: a completed non-blocking request, or {@link MPI#REQUEST_NULL}. */
    public boolean Is_null() throws MPIException {
        return pending == null;
    }

    /** Cancels a receive that has not matched yet; the request must still be completed by a wait or test. */
    public void Cancel() throws MPIException {
        Pending p = pending;
        if (p != null) {
            try {
                p.cancel();
            } catch (RailyardException e) {
                throw MPIException.of(e);
            }
        }
    }

    /** Takes the status of a completed operation and leaves this request null (persistent ones: inactive). */
    Status complete(Pending p) {
        pending = null;
        return p.status();
    }

    boolean active() {
        return pending != null;
    }

    // ---------------------------------------------------------------- several at once

    /** Waits for all; statuses in order (an empty status for null requests). */
    public static Status[] Waitall(Request[] array_of_requests) throws MPIException {
        Status[] out = new Status[array_of_requests.length];
        for (int i = 0; i < out.length; i++) {
            Request r = array_of_requests[i];
            out[i] = r == null ? new Status() : r.Wait();
        }
        return out;
    }

    /**
     * Waits until one completes and returns its status, with {@link Status#index} set to its
     * position; if no request is active, an empty status whose index is {@link MPI#UNDEFINED}.
     */
    public static Status Waitany(Request[] array_of_requests) throws MPIException {
        int i = awaitAny(array_of_requests);
        if (i < 0) {
            return new Status();
        }
        Status s = array_of_requests[i].complete(array_of_requests[i].pending);
        s.index = i;
        return s;
    }

    /** Like {@link #Waitany} but without waiting: null if none of the active requests is complete. */
    public static Status Testany(Request[] array_of_requests) throws MPIException {
        boolean any = false;
        for (int i = 0; i < array_of_requests.length; i++) {
            Request r = array_of_requests[i];
            if (r != null && r.active()) {
                any = true;
                if (r.pending.test()) {
                    Status s = r.complete(r.pending);
                    s.index = i;
                    return s;
                }
            }
        }
        return any ? null : new Status();
    }

    /**
     * The statuses of all if all are complete (then every request becomes null); null otherwise,
     * leaving every request as it was.
     */
    public static Status[] Testall(Request[] array_of_requests) throws MPIException {
        boolean all = true;
        for (Request r : array_of_requests) {
            if (r != null && r.active() && !r.pending.test()) {
                all = false;
            }
        }
        if (!all) {
            return null;
        }
        Status[] out = new Status[array_of_requests.length];
        for (int i = 0; i < out.length; i++) {
            Request r = array_of_requests[i];
            out[i] = r == null || !r.active() ? new Status() : r.complete(r.pending);
        }
        return out;
    }

    /**
     * Waits until at least one completes; returns the statuses of all that are complete, each with
     * its {@link Status#index}. An empty array if no request is active.
     */
    public static Status[] Waitsome(Request[] array_of_requests) throws MPIException {
        if (awaitAny(array_of_requests) < 0) {
            return new Status[0];
        }
        return collect(array_of_requests);
    }

    /** The statuses (with indices) of the requests complete now; an empty array if none is. */
    public static Status[] Testsome(Request[] array_of_requests) throws MPIException {
        return collect(array_of_requests);
    }

    private static Status[] collect(Request[] reqs) {
        Status[] out = new Status[reqs.length];
        int n = 0;
        for (int i = 0; i < reqs.length; i++) {
            Request r = reqs[i];
            if (r != null && r.active() && r.pending.test()) {
                Status s = r.complete(r.pending);
                s.index = i;
                out[n++] = s;
            }
        }
        return Arrays.copyOf(out, n);
    }

    /** Index of a complete active request, waiting for one; -1 if none is active. Does not complete it. */
    private static int awaitAny(Request[] reqs) {
        org.railyard.Request[] natives = new org.railyard.Request[reqs.length];
        boolean allPlain = true;
        boolean any = false;
        for (int i = 0; i < reqs.length; i++) {
            Request r = reqs[i];
            if (r != null && r.active()) {
                any = true;
                natives[i] = r.pending.plain();
                allPlain &= natives[i] != null;
            }
        }
        if (!any) {
            return -1;
        }
        if (allPlain) {
            // Railyard's own wait drives progress and sleeps well; the winner's local work runs after.
            try {
                int i = org.railyard.Request.awaitAny(natives);
                reqs[i].pending.test();
                return i;
            } catch (RailyardException e) {
                throw MPIException.of(e);
            }
        }
        // Some operation has a second message: poll them all, each test moving its operation on.
        int idle = 0;
        while (true) {
            for (int i = 0; i < reqs.length; i++) {
                Request r = reqs[i];
                if (r != null && r.active() && r.pending.test()) {
                    return i;
                }
            }
            idle = idle(idle);
        }
    }

    /** Spin, then yield, then sleep in growing steps up to a millisecond: a poll loop that does not hog a core. */
    static int idle(int round) {
        if (round < 100) {
            Thread.onSpinWait();
        } else if (round < 200) {
            Thread.yield();
        } else {
            LockSupport.parkNanos(Math.min(1_000_000L, 1_000L << Math.min(10, (round - 200) / 10)));
        }
        return round + 1;
    }

    @Override
    public String toString() {
        return pending == null ? "Request[null]" : "Request[active]";
    }
}
