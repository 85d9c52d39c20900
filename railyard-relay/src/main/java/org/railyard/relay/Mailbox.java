package org.railyard.relay;

import java.util.ArrayDeque;
import java.util.function.Consumer;

/**
 * The Channel Memory of one destination rank (seed 001, section 4.1): a control queue, one data
 * queue per source rank (an array indexed by the source: constant-time retrieval by source), and
 * the arrival order across all of them, which is the order of delivery and of replay. Not
 * thread-safe: {@link RelayStore} guards it.
 *
 * <p>Life of a message: {@link #add} files it (FIFO per source, since a sender's sequence numbers
 * must follow each other); {@link #nextUndelivered} hands it out once per receiver connection, in
 * arrival order; {@link #acknowledge} removes it when the destination has consumed it (a
 * cumulative acknowledgement per source). {@link #rewind} is what a new receiver connection does:
 * every message still held is delivered again, in the original arrival order.
 */
final class Mailbox {
    /** One stored message: linked into the arrival list and into its queue (intrusive, O(1) removal). */
    static final class Message {
        final int source;
        final long sequence;
        final boolean control;
        final byte[] body;
        boolean delivered;
        private Message prevArrival;
        private Message nextArrival;
        private Message prevInQueue;
        private Message nextInQueue;

        Message(int source, long sequence, boolean control, byte[] body) {
            this.source = source;
            this.sequence = sequence;
            this.control = control;
            this.body = body;
        }
    }

    /** A FIFO of messages, doubly linked through the messages themselves. */
    private static final class Queue {
        Message head;
        Message tail;

        void add(Message m) {
            m.prevInQueue = tail;
            if (tail == null) {
                head = m;
            } else {
                tail.nextInQueue = m;
            }
            tail = m;
        }

        void remove(Message m) {
            if (m.prevInQueue == null) {
                head = m.nextInQueue;
            } else {
                m.prevInQueue.nextInQueue = m.nextInQueue;
            }
            if (m.nextInQueue == null) {
                tail = m.prevInQueue;
            } else {
                m.nextInQueue.prevInQueue = m.prevInQueue;
            }
            m.prevInQueue = null;
            m.nextInQueue = null;
        }
    }

    final int rank;
    private final Queue control = new Queue();
    private final Queue[] data;
    /** Per source: its messages held here, in sequence order (what a cumulative acknowledgement walks). */
    private final ArrayDeque<Message>[] held;
    /** Per source: the highest sequence number ever stored here (duplicates are at or below it). */
    private final long[] highest;
    /** Per source: the highest sequence number the receiver acknowledged (it may precede the filing of a passage). */
    private final long[] acknowledged;
    private Message first;
    private Message last;
    /** The last message handed out in arrival order; null before the first. */
    private Message cursor;
    private int count;
    private long bytes;

    @SuppressWarnings("unchecked")
    Mailbox(int rank, int jobSize) {
        this.rank = rank;
        this.data = new Queue[jobSize];
        this.held = new ArrayDeque[jobSize];
        this.highest = new long[jobSize];
        this.acknowledged = new long[jobSize];
    }

    /** The highest sequence number from {@code source} the receiver acknowledged (0: none). */
    long acknowledged(int source) {
        return acknowledged[source];
    }

    /** The highest sequence number stored from {@code source} (0: none yet). */
    long highest(int source) {
        return highest[source];
    }

    /** The message {@code sequence} from {@code source} if it is still held here, else null. */
    Message held(int source, long sequence) {
        ArrayDeque<Message> q = held[source];
        if (q == null || q.isEmpty() || sequence < q.peekFirst().sequence || sequence > q.peekLast().sequence) {
            return null;
        }
        long skip = sequence - q.peekFirst().sequence; // held messages of a source are consecutive
        for (Message m : q) {
            if (skip-- == 0) {
                return m;
            }
        }
        return null;
    }

    /**
     * What a compacted log marks for {@code source}: the sequence number just below the first
     * message still held from it (the held ones follow in the log and bring the count back up), or
     * the highest stored when none is held.
     */
    long compactedMark(int source) {
        ArrayDeque<Message> q = held[source];
        return q == null || q.isEmpty() ? highest[source] : q.peekFirst().sequence - 1;
    }

    /** Raises the highest sequence known from {@code source} (a MARK of a compacted log). */
    void mark(int source, long sequence) {
        highest[source] = Math.max(highest[source], sequence);
    }

    /** Files a message whose sequence is {@code highest(source) + 1}. */
    void add(Message m) {
        if (m.sequence != highest[m.source] + 1) {
            throw new IllegalStateException("message " + m.sequence + " from rank " + m.source + " after "
                    + highest[m.source]);
        }
        highest[m.source] = m.sequence;
        m.prevArrival = last;
        if (last == null) {
            first = m;
        } else {
            last.nextArrival = m;
        }
        last = m;
        queueOf(m).add(m);
        heldFrom(m.source).addLast(m);
        count++;
        bytes += m.body.length;
    }

    /** The next message in arrival order not yet handed out on this receiver connection, or null. */
    Message nextUndelivered() {
        Message n = cursor == null ? first : cursor.nextArrival;
        if (n != null) {
            cursor = n;
            n.delivered = true;
        }
        return n;
    }

    boolean hasUndelivered() {
        return peekUndelivered() != null;
    }

    /** What {@link #nextUndelivered} would hand out next, without handing it out; null if nothing. */
    Message peekUndelivered() {
        return cursor == null ? first : cursor.nextArrival;
    }

    /** A new receiver connection: hand everything held out again, in arrival order. */
    void rewind() {
        cursor = null;
        for (Message m = first; m != null; m = m.nextArrival) {
            m.delivered = false;
        }
    }

    /**
     * Removes every message from {@code source} up to {@code sequence}; with {@code deliveredOnly},
     * stops at the first one not handed out yet (a receiver cannot have consumed it).
     *
     * @param removed told of each message removed
     */
    void acknowledge(int source, long sequence, boolean deliveredOnly, Consumer<Message> removed) {
        acknowledged[source] = Math.max(acknowledged[source], sequence);
        ArrayDeque<Message> q = held[source];
        while (q != null && !q.isEmpty() && q.peekFirst().sequence <= sequence
                && (q.peekFirst().delivered || !deliveredOnly)) {
            Message m = q.pollFirst();
            unlink(m);
            removed.accept(m);
        }
    }

    private void unlink(Message m) {
        if (cursor == m) {
            cursor = m.prevArrival;
        }
        if (m.prevArrival == null) {
            first = m.nextArrival;
        } else {
            m.prevArrival.nextArrival = m.nextArrival;
        }
        if (m.nextArrival == null) {
            last = m.prevArrival;
        } else {
            m.nextArrival.prevArrival = m.prevArrival;
        }
        m.prevArrival = null;
        m.nextArrival = null;
        queueOf(m).remove(m);
        count--;
        bytes -= m.body.length;
    }

    /** The oldest data message from {@code source}, or null: constant time, whatever else is held. */
    Message firstDataFrom(int source) {
        Queue q = data[source];
        return q == null ? null : q.head;
    }

    /** The oldest control message, or null. */
    Message firstControl() {
        return control.head;
    }

    /** Every message held, in arrival order. */
    void forEach(Consumer<Message> action) {
        for (Message m = first; m != null; m = m.nextArrival) {
            action.accept(m);
        }
    }

    int count() {
        return count;
    }

    long bytes() {
        return bytes;
    }

    int jobSize() {
        return highest.length;
    }

    private Queue queueOf(Message m) {
        if (m.control) {
            return control;
        }
        Queue q = data[m.source];
        if (q == null) {
            q = new Queue();
            data[m.source] = q;
        }
        return q;
    }

    private ArrayDeque<Message> heldFrom(int source) {
        ArrayDeque<Message> q = held[source];
        if (q == null) {
            q = new ArrayDeque<>();
            held[source] = q;
        }
        return q;
    }
}
