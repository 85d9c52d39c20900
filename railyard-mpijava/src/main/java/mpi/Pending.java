package mpi;

import java.util.function.Consumer;
import org.railyard.error.RailyardException;

/**
 * One non-blocking operation of the facade behind a {@link Request}: usually a single Railyard
 * request, sometimes followed by local work (scattering a packed receive into the user's slots)
 * or by a second message (the tail of a large {@link MPI#OBJECT} message).
 */
abstract class Pending {
    /** Drives progress once and moves the operation on; true once complete. */
    abstract boolean test();

    /** Blocks until complete. */
    abstract void await();

    /** The status of the completed operation. */
    abstract Status status();

    /** Cancels the operation if it has not matched yet; true if it was cancelled. */
    boolean cancel() {
        return false;
    }

    /**
     * The Railyard request whose completion leaves nothing but local work to do, so that an
     * any/some wait over plain operations can sleep in Railyard's own wait; null if more messages follow.
     */
    org.railyard.Request plain() {
        return null;
    }

    /** A single Railyard request, with optional local work when it completes (scatter a packed receive, size a buffer). */
    static final class Native extends Pending {
        private final org.railyard.Request request;
        private final Consumer<org.railyard.Status> after;
        private Status status;

        Native(org.railyard.Request request) {
            this(request, null);
        }

        Native(org.railyard.Request request, Consumer<org.railyard.Status> after) {
            this.request = request;
            this.after = after;
        }

        @Override
        boolean test() {
            if (status != null) {
                return true;
            }
            try {
                if (!request.test()) {
                    return false;
                }
            } catch (RailyardException e) {
                throw MPIException.of(e);
            }
            finish();
            return true;
        }

        @Override
        void await() {
            if (status == null) {
                try {
                    request.await();
                } catch (RailyardException e) {
                    throw MPIException.of(e);
                }
                finish();
            }
        }

        private void finish() {
            org.railyard.Status s = request.status();
            if (after != null && !s.cancelled()) {
                after.accept(s);
            }
            status = Status.of(s);
        }

        @Override
        Status status() {
            return status;
        }

        @Override
        boolean cancel() {
            return request.cancel();
        }

        @Override
        org.railyard.Request plain() {
            return request;
        }
    }

    /** An operation complete when started: a buffered send, or a receive from {@code PROC_NULL}. */
    static final class Done extends Pending {
        private final Status status;

        Done(Status status) {
            this.status = status;
        }

        @Override
        boolean test() {
            return true;
        }

        @Override
        void await() {
        }

        @Override
        Status status() {
            return status;
        }
    }
}
