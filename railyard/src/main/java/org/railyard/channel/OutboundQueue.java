package org.railyard.channel;

/**
 * A FIFO of {@link Outbound}s linked through the objects themselves ({@code Outbound.nextOut}), so
 * queueing allocates nothing. An outbound is in at most one queue at a time.
 */
final class OutboundQueue {
    private Outbound head;
    private Outbound tail;

    void add(Outbound o) {
        o.nextOut = null;
        if (tail == null) {
            head = o;
        } else {
            tail.nextOut = o;
        }
        tail = o;
    }

    /** The oldest, or null. */
    Outbound head() {
        return head;
    }

    boolean isEmpty() {
        return head == null;
    }

    /** Takes the oldest off (the queue must not be empty). */
    Outbound pop() {
        Outbound o = head;
        head = o.nextOut;
        if (head == null) {
            tail = null;
        }
        o.nextOut = null;
        return o;
    }

    void clear() {
        head = tail = null;
    }
}
