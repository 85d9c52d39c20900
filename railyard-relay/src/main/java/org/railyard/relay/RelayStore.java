package org.railyard.relay;

import java.io.IOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Consumer;
import org.railyard.wire.RelayLogRecord;

/**
 * Everything a relay holds: the jobs it serves (each isolated by its id and verifier), a
 * {@link Mailbox} per destination rank of each job, the bound on stored bytes, and the log that
 * makes it all survive a restart. One lock guards it; connection threads wait on its condition.
 *
 * <p>Rules. A message is filed only after its record is appended to the log (and the sender's
 * STORED waits for the record to be durable under the fsync policy); it is removed only after the
 * destination's acknowledgement is appended. A sender whose message does not fit under
 * {@code maxBytes} waits in {@link #reserve} (its connection is not read meanwhile, so TCP holds
 * the sender back); nothing is ever dropped. A single message larger than the bound is let in when
 * the store is empty, so that it cannot wait forever.
 */
final class RelayStore implements AutoCloseable {
    /** A job: its verifier (proved by each connection), its size, and a mailbox per destination. */
    static final class Job {
        final int number;
        final String id;
        final int size;
        final byte[] verifier;
        private final Mailbox[] boxes;
        /** Per destination: bumped by each new receiver connection, so the previous one stops delivering. */
        private final long[] generation;
        /** Per destination: true while its newest receiver connection is open. */
        private final boolean[] present;
        /** Per destination: when (System.nanoTime) it was last seen receiving, or the job was learnt here. */
        private final long[] goneSince;
        /** Per destination: what its newest receiver connection is (the server's object), null while none. */
        private final Object[] receiver;
        /**
         * Per destination: true while one thread holds the right to write deliveries on the current
         * receiver connection (its deliverer, or a sender's reader forwarding the message it just
         * stored). One writer at a time is what keeps the deliveries in arrival order.
         */
        private final boolean[] writing;
        /** Per destination: signalled when it has something to deliver and nobody writing (its deliverer waits). */
        private final Condition[] ready;
        /**
         * Per destination: true while a message for it passes through ({@link #beginPassage}): it
         * is forwarded before it is filed, so nothing else is filed for that destination until it
         * is, which keeps the arrival order, the log's order and the order of delivery one order.
         */
        private final boolean[] passing;

        Job(int number, String id, int size, byte[] verifier) {
            this.number = number;
            this.id = id;
            this.size = size;
            this.verifier = verifier.clone();
            this.boxes = new Mailbox[size];
            this.generation = new long[size];
            this.present = new boolean[size];
            this.goneSince = new long[size];
            java.util.Arrays.fill(goneSince, System.nanoTime());
            this.receiver = new Object[size];
            this.writing = new boolean[size];
            this.ready = new Condition[size];
            this.passing = new boolean[size];
        }

        Mailbox box(int rank) {
            Mailbox b = boxes[rank];
            if (b == null) {
                b = new Mailbox(rank, size);
                boxes[rank] = b;
            }
            return b;
        }
    }

    /** A sender broke the rule that its sequence numbers follow each other. */
    static final class SequenceGap extends Exception {
        private static final long serialVersionUID = 1L;

        SequenceGap(String message) {
            super(message);
        }
    }

    /**
     * The messages a thread took the right to write to a receiver connection ({@link #forward},
     * {@link #take}); it writes them in order, then gives the right back with {@link #written}.
     */
    record Delivery(Object receiver, long generation, List<Mailbox.Message> messages) { }

    /**
     * The right to forward one message to {@code rank}'s receiver connection while it is still
     * being read ({@link #beginPassage}); ended by {@link #endPassage} or {@link #abortPassage}.
     */
    record Passage(int rank, Object receiver, long generation) { }

    /** {@link #store}: the message was stored before; acknowledge it again, keep nothing. */
    static final long DUPLICATE = -1;

    private final ReentrantLock lock = new ReentrantLock();
    private final Condition changed = lock.newCondition();
    private final Map<String, Job> jobs = new HashMap<>();
    private final List<Job> numbered = new ArrayList<>();
    private final long maxBytes;
    private final RelayLog log;
    private final RelayCounters counters;
    private final Consumer<String> say;
    /** Bytes held plus bytes reserved by senders reading their message. */
    private long bytes;
    private long messages;
    /** Log bytes of the messages held (what a compaction would keep). */
    private long liveLog;
    private boolean holding;
    private boolean closed;

    /**
     * @param log null: memory only
     * @param say where the relay's one-line notices go
     */
    RelayStore(long maxBytes, RelayLog log, RelayCounters counters, Consumer<String> say) {
        this.maxBytes = maxBytes;
        this.log = log;
        this.counters = counters;
        this.say = say;
    }

    /** Rebuilds the store from the log: what receivers had not acknowledged is held again. */
    void recover() throws IOException {
        if (log == null) {
            return;
        }
        lock.lock();
        try {
            int n = log.replay(r -> {
                switch (r) {
                    case RelayLogRecord.Job j -> adopt(new Job(j.number(), j.id(), j.size(), j.verifier()));
                    case RelayLogRecord.Store s -> {
                        Job job = numbered.get(s.job());
                        Mailbox box = job.box(s.destination());
                        if (s.sequence() == box.highest(s.source()) + 1) {
                            file(job, box, new Mailbox.Message(s.source(), s.sequence(), s.control(), s.message()));
                        }
                    }
                    case RelayLogRecord.Ack a -> numbered.get(a.job()).box(a.destination())
                            .acknowledge(a.source(), a.sequence(), false, this::forget);
                    case RelayLogRecord.Mark m -> numbered.get(m.job()).box(m.destination()).mark(m.source(), m.sequence());
                }
            }, say);
            counters.recovered.set(messages);
            say.accept(n == 0 ? "relay log " + log.file() + ": empty, starting afresh"
                    : "relay log " + log.file() + ": " + n + " records, " + jobs.size() + " jobs, " + messages
                    + " messages (" + bytes + " bytes) not yet acknowledged, to be delivered again");
        } finally {
            lock.unlock();
        }
    }

    Job job(String id) {
        lock.lock();
        try {
            return jobs.get(id);
        } finally {
            lock.unlock();
        }
    }

    /** Registers a job, or returns the one already registered under {@code id} (the caller checks its verifier). */
    Job register(String id, int size, byte[] verifier) throws IOException {
        lock.lock();
        try {
            Job j = jobs.get(id);
            if (j != null) {
                return j;
            }
            j = new Job(numbered.size(), id, size, verifier);
            if (log != null) {
                log.awaitDurable(log.append(RelayLogRecord.job(j.number, id, size, verifier)));
            }
            adopt(j);
            say.accept("job " + id + ": " + size + " ranks");
            return j;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted while logging job " + id);
        } finally {
            lock.unlock();
        }
    }

    private void adopt(Job j) {
        for (int r = 0; r < j.size; r++) {
            j.ready[r] = lock.newCondition();
        }
        jobs.put(j.id, j);
        numbered.add(j);
        counters.jobs.incrementAndGet();
    }

    /**
     * Waits until {@code length} more bytes fit under the bound, then counts them as held; the
     * caller then reads the message and {@link #store}s it or {@link #release}s the bytes.
     *
     * @return false if the store closed meanwhile
     */
    boolean reserve(int length) throws InterruptedException {
        lock.lock();
        try {
            while (!closed && bytes > 0 && bytes + length > maxBytes) {
                if (!holding) {
                    holding = true;
                    counters.heldBack.incrementAndGet();
                    say.accept("relay full: " + bytes + " of --max-bytes " + maxBytes
                            + " bytes held; senders are held back (not read, not acknowledged) until receivers consume");
                }
                changed.await(1, TimeUnit.SECONDS);
            }
            if (closed) {
                return false;
            }
            if (holding) {
                holding = false;
                say.accept("relay has room again: " + bytes + " of " + maxBytes + " bytes held; reading senders");
            }
            bytes += length;
            return true;
        } finally {
            lock.unlock();
        }
    }

    /** Counts {@code length} more bytes as held if they fit now; false if {@link #reserve} would wait. */
    boolean tryReserve(int length) {
        lock.lock();
        try {
            if (closed || (bytes > 0 && bytes + length > maxBytes)) {
                return false;
            }
            bytes += length;
            return true;
        } finally {
            lock.unlock();
        }
    }

    void release(int length) {
        lock.lock();
        try {
            bytes -= length;
            changed.signalAll();
        } finally {
            lock.unlock();
        }
    }

    /**
     * Logs and files a message whose bytes were {@link #reserve}d.
     *
     * @return the log position to {@link #awaitDurable} before acknowledging (0 without a log), or
     *         {@link #DUPLICATE} (the reservation is released)
     * @throws SequenceGap  when the sequence skips numbers (the reservation is released)
     * @throws IOException  when the log cannot be written (the reservation stays: retry)
     */
    long store(Job job, int source, int destination, long sequence, boolean control, byte[] body)
            throws IOException, SequenceGap {
        lock.lock();
        try {
            while (job.passing[destination] && !closed) {
                changed.awaitUninterruptibly(); // a passage files its message within the frame bound
            }
            Mailbox box = job.box(destination);
            long high = box.highest(source);
            if (sequence <= high) {
                bytes -= body.length;
                counters.duplicates.incrementAndGet();
                changed.signalAll();
                Mailbox.Message kept = box.held(source, sequence);
                if (kept != null && !Arrays.equals(kept.body, body)) {
                    // a restarted rank that runs again sends what it sent before, byte for byte;
                    // anything else means its run took another course and its peers hold the old one
                    throw new SequenceGap("message " + sequence + " from rank " + source + " to rank " + destination
                            + " of job " + job.id + " differs from the one stored under that number: the rank sent"
                            + " something else after a restart (its run is not repeatable)");
                }
                return DUPLICATE;
            }
            if (sequence != high + 1) {
                bytes -= body.length;
                changed.signalAll();
                throw new SequenceGap("message " + sequence + " from rank " + source + " to rank " + destination
                        + " of job " + job.id + " skips from " + high + " (messages lost on the way)");
            }
            long position = 0;
            if (log != null) {
                position = log.append(RelayLogRecord.storeHead(job.number, source, destination, sequence, control, body, 0,
                        body.length), body, 0, body.length);
            }
            bytes -= body.length; // the reservation becomes the message's own count
            file(job, box, new Mailbox.Message(source, sequence, control, body));
            counters.stored.incrementAndGet();
            counters.storedBytes.addAndGet(body.length);
            return position; // the caller calls forward(), which hands it over or wakes the deliverer
        } finally {
            lock.unlock();
        }
    }

    /**
     * Right after a message for {@code rank} is stored, by the thread that stored it: if the rank's
     * receiver connection is open and nobody is writing to it, takes the right to write and the
     * message(s) due (the one just stored, when nothing waited before it), so the storing thread
     * forwards it without a hand-over; null otherwise (whoever is writing there delivers it next, or
     * the deliverer of the rank's next receiver connection). A message longer than {@code maxBody}
     * goes to the deliverer, so that writing it overlaps with reading the sender's next one.
     */
    Delivery forward(Job job, int rank, int maxBody) {
        lock.lock();
        try {
            Mailbox box = job.box(rank);
            Mailbox.Message next = box.peekUndelivered();
            if (closed || job.writing[rank] || next == null) {
                return null; // whoever writes delivers it next
            }
            if (job.receiver[rank] == null) {
                return null; // delivered when the rank connects
            }
            if (next.body.length > maxBody) {
                job.ready[rank].signal(); // the deliverer writes it while this thread reads on
                return null;
            }
            return claim(job, rank, box, 1, Long.MAX_VALUE);
        } finally {
            lock.unlock();
        }
    }

    /**
     * Before the body of a STORE whose bytes were {@link #reserve}d is read: if the message is the
     * next from its source, nothing waits before it for {@code rank}, and {@code rank}'s receiver
     * connection is open with nobody writing to it, takes the right to write there and holds back
     * every other message for {@code rank} until this one is filed; the caller forwards the body as
     * it reads it (cut-through), then {@link #endPassage} or {@link #abortPassage}. Null otherwise
     * (the caller reads the whole message and {@link #store}s it).
     */
    Passage beginPassage(Job job, int source, int rank, long sequence) {
        lock.lock();
        try {
            Mailbox box = job.box(rank);
            if (closed || job.passing[rank] || job.writing[rank] || job.receiver[rank] == null
                    || sequence != box.highest(source) + 1 || box.hasUndelivered()) {
                return null;
            }
            job.passing[rank] = true;
            job.writing[rank] = true;
            return new Passage(rank, job.receiver[rank], job.generation[rank]);
        } finally {
            lock.unlock();
        }
    }

    /**
     * The whole message of a passage was read (and forwarded, if {@code forwarded}): logs it,
     * files it (as delivered on that receiver connection if it is still the current one and the
     * forwarding completed), gives back the right to write and lets the other messages for the
     * rank in. A DELIVERED that came for it before it was filed is applied now.
     *
     * @return the log position to {@link #awaitDurable} before acknowledging (0 without a log)
     * @throws IOException when the log cannot be written (nothing changed: the caller retries)
     */
    long endPassage(Job job, Passage p, int source, long sequence, boolean control, byte[] body, boolean forwarded)
            throws IOException {
        lock.lock();
        try {
            long position = 0;
            if (log != null) {
                position = log.append(RelayLogRecord.storeHead(job.number, source, p.rank(), sequence, control, body, 0,
                        body.length), body, 0, body.length);
            }
            Mailbox box = job.box(p.rank());
            bytes -= body.length;
            Mailbox.Message m = new Mailbox.Message(source, sequence, control, body);
            file(job, box, m);
            counters.stored.incrementAndGet();
            counters.storedBytes.addAndGet(body.length);
            boolean current = job.generation[p.rank()] == p.generation();
            if (forwarded && current) {
                box.nextUndelivered(); // it is m: nothing was undelivered before it, and nothing was filed since
                counters.delivered.incrementAndGet();
            }
            finishPassage(job, p, current);
            if (box.acknowledged(source) >= sequence) { // its DELIVERED overtook its filing
                try {
                    acknowledgeLocked(job, p.rank(), source, box.acknowledged(source));
                } catch (IOException e) {
                    // the log refused the ACK: the message stays held until the rank's next DELIVERED covers it
                }
            }
            return position;
        } finally {
            lock.unlock();
        }
    }

    /** The sender of a passage failed before its whole message was read: nothing is filed, the reservation is released. */
    void abortPassage(Job job, Passage p, int length) {
        lock.lock();
        try {
            bytes -= length;
            finishPassage(job, p, job.generation[p.rank()] == p.generation());
        } finally {
            lock.unlock();
        }
    }

    private void finishPassage(Job job, Passage p, boolean current) {
        job.passing[p.rank()] = false;
        changed.signalAll();
        if (current) {
            job.writing[p.rank()] = false;
        }
        if (!job.writing[p.rank()] && job.box(p.rank()).hasUndelivered()) {
            job.ready[p.rank()].signal(); // the deliverer of the current connection (a newer one, if it changed)
        }
    }

    private void file(Job job, Mailbox box, Mailbox.Message m) {
        box.add(m);
        bytes += m.body.length;
        messages++;
        liveLog += RelayLogRecord.storeSize(m.body.length);
    }

    private void forget(Mailbox.Message m) {
        bytes -= m.body.length;
        messages--;
        liveLog -= RelayLogRecord.storeSize(m.body.length);
    }

    /** Whether STOREDs held together share one force of the log (see {@link RelayLog#groupCommits}). */
    boolean groupCommits() {
        return log != null && log.groupCommits();
    }

    void awaitDurable(long position) throws InterruptedException, IOException {
        if (log != null && position > 0) {
            log.awaitDurable(position);
        }
    }

    /**
     * A new receiver connection for {@code rank}: everything held for it is delivered again, in
     * arrival order; whoever was writing to the previous one no longer holds the right to write.
     *
     * @param receiver the server's object for the connection, handed back in each {@link Delivery}
     */
    long attach(Job job, int rank, Object receiver) {
        lock.lock();
        try {
            job.box(rank).rewind();
            long g = ++job.generation[rank];
            job.present[rank] = true;
            job.receiver[rank] = receiver;
            job.writing[rank] = false;
            job.ready[rank].signalAll();
            return g;
        } finally {
            lock.unlock();
        }
    }

    /** The receiver connection {@code generation} of {@code rank} ended: the rank is absent from now, unless a newer one is open. */
    void detach(Job job, int rank, long generation) {
        lock.lock();
        try {
            if (job.generation[rank] == generation) {
                job.present[rank] = false;
                job.receiver[rank] = null;
                job.goneSince[rank] = System.nanoTime();
            }
        } finally {
            lock.unlock();
        }
    }

    /**
     * 0 if {@code rank} has a receiver connection open here, else the milliseconds (at least 1)
     * since its last one ended, or since this relay learnt the job if it never had one.
     */
    long absentMillis(Job job, int rank) {
        lock.lock();
        try {
            return job.present[rank] ? 0 : Math.max(1, (System.nanoTime() - job.goneSince[rank]) / 1_000_000L);
        } finally {
            lock.unlock();
        }
    }

    /** True while {@code generation} is the newest receiver connection of {@code rank} and the store is open. */
    boolean current(Job job, int rank, long generation) {
        lock.lock();
        try {
            return !closed && job.generation[rank] == generation;
        } finally {
            lock.unlock();
        }
    }

    /**
     * For the deliverer of the receiver connection {@code generation} of {@code rank}: waits up to
     * {@code timeoutNanos} until there is something to deliver and nobody else writing, then takes
     * the right to write and the messages to deliver next, in arrival order (at most
     * {@code maxMessages}, and past the first at most {@code maxBytes}). Null on timeout, or when
     * that connection is no longer current (see {@link #current}).
     */
    Delivery take(Job job, int rank, long generation, long timeoutNanos, int maxMessages, long maxBytes)
            throws InterruptedException {
        lock.lock();
        try {
            Mailbox box = job.box(rank);
            long left = timeoutNanos;
            while (!closed && job.generation[rank] == generation && (job.writing[rank] || !box.hasUndelivered())) {
                if (left <= 0) {
                    return null;
                }
                left = job.ready[rank].awaitNanos(left);
            }
            if (closed || job.generation[rank] != generation) {
                return null;
            }
            return claim(job, rank, box, maxMessages, maxBytes);
        } finally {
            lock.unlock();
        }
    }

    private Delivery claim(Job job, int rank, Mailbox box, int maxMessages, long maxBytes) {
        List<Mailbox.Message> out = new ArrayList<>();
        long size = 0;
        while (out.size() < maxMessages && box.hasUndelivered()) {
            Mailbox.Message m = box.nextUndelivered();
            out.add(m);
            size += m.body.length;
            if (size >= maxBytes) {
                break;
            }
        }
        job.writing[rank] = true;
        counters.delivered.addAndGet(out.size());
        return new Delivery(job.receiver[rank], job.generation[rank], out);
    }

    /**
     * The holder of the right to write {@code d} is done with it: gives it back (unless a newer
     * receiver connection took over meanwhile) and wakes the deliverer if more is due.
     */
    void written(Job job, int rank, Delivery d) {
        lock.lock();
        try {
            if (job.generation[rank] == d.generation()) {
                job.writing[rank] = false;
                if (job.box(rank).hasUndelivered()) {
                    job.ready[rank].signal();
                }
            }
        } finally {
            lock.unlock();
        }
    }

    /** {@code rank} consumed every message from {@code source} up to {@code sequence}: log it, forget them. */
    void acknowledge(Job job, int rank, int source, long sequence) throws IOException {
        lock.lock();
        try {
            acknowledgeLocked(job, rank, source, sequence);
        } finally {
            lock.unlock();
        }
    }

    private void acknowledgeLocked(Job job, int rank, int source, long sequence) throws IOException {
        Mailbox box = job.box(rank);
        if (log != null) {
            log.append(RelayLogRecord.ack(job.number, rank, source, sequence));
        }
        long before = messages;
        box.acknowledge(source, sequence, true, this::forget);
        counters.acknowledged.addAndGet(before - messages);
        changed.signalAll();
        if (log != null && log.wantsCompaction(liveLog)) {
            log.compact(this::writeLive);
            counters.compactions.incrementAndGet();
        }
    }

    /** What a compacted log holds: the jobs, each pair's highest sequence, the messages held. Under the lock. */
    private void writeLive(RelayLog.Rewriter out) throws IOException {
        for (Job j : numbered) {
            out.write(RelayLogRecord.job(j.number, j.id, j.size, j.verifier));
        }
        for (Job j : numbered) {
            for (Mailbox box : j.boxes) {
                if (box == null) {
                    continue;
                }
                for (int src = 0; src < j.size; src++) {
                    long mark = box.compactedMark(src);
                    if (mark > 0) {
                        out.write(RelayLogRecord.mark(j.number, box.rank, src, mark));
                    }
                }
            }
        }
        for (Job j : numbered) {
            for (Mailbox box : j.boxes) {
                if (box == null) {
                    continue;
                }
                IOException[] failed = {null};
                box.forEach(m -> {
                    if (failed[0] == null) {
                        try {
                            out.write(RelayLogRecord.storeHead(j.number, m.source, box.rank, m.sequence, m.control, m.body,
                                    0, m.body.length), m.body);
                        } catch (IOException e) {
                            failed[0] = e;
                        }
                    }
                });
                if (failed[0] != null) {
                    throw failed[0];
                }
            }
        }
    }

    /** The counters and the present contents, as {@code name value} lines. */
    String stats() {
        lock.lock();
        try {
            return counters.format(messages, bytes, maxBytes, log == null ? 0 : log.size());
        } finally {
            lock.unlock();
        }
    }

    @Override
    public void close() throws IOException {
        lock.lock();
        try {
            closed = true;
            changed.signalAll();
            for (Job j : numbered) {
                for (Condition c : j.ready) {
                    c.signalAll();
                }
            }
        } finally {
            lock.unlock();
        }
        if (log != null) {
            log.close();
        }
    }
}
