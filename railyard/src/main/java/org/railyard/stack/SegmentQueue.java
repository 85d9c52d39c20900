package org.railyard.stack;

/**
 * A first-in first-out queue of segments, linked through the segments themselves (nothing is
 * allocated to queue one). A segment is in at most one such queue at a time; the queue holds the
 * reference of each segment in it.
 */
final class SegmentQueue {
    private Segment head;
    private Segment tail;
    private int size;

    /** Appends {@code s} (and its reference). */
    void add(Segment s) {
        s.next = null;
        if (tail == null) {
            head = s;
        } else {
            tail.next = s;
        }
        tail = s;
        size++;
    }

    /** Puts {@code s} in front of every other segment. */
    void addFirst(Segment s) {
        s.next = head;
        head = s;
        if (tail == null) {
            tail = s;
        }
        size++;
    }

    /** The oldest segment, still queued, or null. */
    Segment peek() {
        return head;
    }

    /** Takes the oldest segment out (its reference goes to the caller), or null. */
    Segment poll() {
        Segment s = head;
        if (s != null) {
            head = s.next;
            if (head == null) {
                tail = null;
            }
            s.next = null;
            size--;
        }
        return s;
    }

    int size() {
        return size;
    }

    boolean isEmpty() {
        return head == null;
    }

    /** Releases every segment queued. */
    void clear() {
        for (Segment s = poll(); s != null; s = poll()) {
            s.release();
        }
    }
}
