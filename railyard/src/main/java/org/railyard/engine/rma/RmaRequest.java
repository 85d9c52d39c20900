package org.railyard.engine.rma;

import org.railyard.engine.request.Transfer;

/**
 * The request of an {@code r*} operation: done when the origin's part is (the origin buffer may be
 * reused, or the result is in). Never queued on a channel; nobody is told when it completes.
 */
final class RmaRequest extends Transfer {
    private static final Transfer.Owner NOBODY = t -> { };

    RmaRequest() {
        super(NOBODY);
    }

    static RmaRequest done() {
        RmaRequest r = new RmaRequest();
        r.state = DONE;
        return r;
    }

    @Override
    public String toString() {
        return "one-sided request";
    }
}
