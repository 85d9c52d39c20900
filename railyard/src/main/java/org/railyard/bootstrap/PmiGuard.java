package org.railyard.bootstrap;

import org.railyard.error.ErrorClass;
import org.railyard.error.RailyardException;

/**
 * Whether a PMI connection may still be used, for both clients: in step with the server, broken
 * by a failed exchange (a late answer would be taken for the next one, so every later exchange
 * fails at once with the first failure's message), or closed. Used under the client's lock.
 */
final class PmiGuard {
    /** One step of an exchange with the server. */
    @FunctionalInterface
    interface Step<T> {
        T run();
    }

    private final String protocol;
    /** Why the connection can no longer be used, or null while it is in step with the server. */
    private String broken;
    private boolean closed;

    /** @param protocol "PMI-1", "PMI-2", for messages */
    PmiGuard(String protocol) {
        this.protocol = protocol;
    }

    /** Runs a step of an exchange if the connection is usable, and marks it broken if the step fails. */
    <T> T exchange(Step<T> step) {
        if (closed) {
            throw new RailyardException(ErrorClass.BOOTSTRAP, "this " + protocol + " bootstrap is closed");
        }
        if (broken != null) {
            throw new RailyardException(ErrorClass.BOOTSTRAP,
                    "the " + protocol + " connection is unusable since an earlier failure: " + broken);
        }
        try {
            return step.run();
        } catch (RailyardException e) {
            throw fail(e);
        }
    }

    /** Marks the connection broken by {@code e} (unless it already was) and returns {@code e}. */
    RailyardException fail(RailyardException e) {
        if (broken == null) {
            broken = e.getMessage();
        }
        return e;
    }

    boolean inStep() {
        return broken == null && !closed;
    }

    boolean closed() {
        return closed;
    }

    void markClosed() {
        closed = true;
    }
}
