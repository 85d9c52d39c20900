package org.railyard.engine.rma;

import java.lang.foreign.MemorySegment;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.BooleanSupplier;
import org.railyard.engine.request.Transfer;
import org.railyard.engine.comm.CommState;
import org.railyard.error.ErrorClass;
import org.railyard.error.RailyardException;
import org.railyard.types.Kind;
import org.railyard.wire.RmaHeader;

/**
 * The origin side's ledger of one window ({@link RmaWindow}): the messages it sends to the targets,
 * the operations under way until their transfers are written, the per-target counts that remote
 * completion is judged by (operations since the last FLUSH, FLUSH ids sent and acknowledged), and
 * what went wrong at a target (an error deferred to the next synchronisation, a failed peer).
 *
 * <p>Contract: every field, and every method that says "lock held", is used under the progress lock
 * only ({@link #locked}); {@link #waitUntil} drives progress and is bounded by the RMA timeout. An
 * operation's error is deferred to the target's next flush, unlock or complete ({@link #throwDeferred});
 * a failed peer is reported at every later use of it.
 */
final class Outbound {
    /** Operations of this origin whose transfers are under way. */
    static final class Pending {
        int target;
        Transfer a;
        Transfer b;
        Transfer c;
        Runnable after;
        RmaRequest req;
        /** The batch buffer that transfer {@code a} sends, given back to {@link #spare} once written. */
        long[] batch;
        /** The results that transfer {@code a} (the reply of a batch) brings, delivered once it is in. */
        Replies replies;
    }

    private final RmaWindow w;
    private final RmaServices s;
    private final CommState comm;

    final ArrayList<Pending> pending = new ArrayList<>();
    final int[] pendingTo;
    final int[] opsSince;
    final long[] flushSent;
    final long[] acked;
    final String[] failed;
    /**
     * How many members {@link #failed} names, raised (lock held) after each entry: a reader
     * outside the lock sees at once whether anything changed since it last copied the entries
     * under the lock, and so need not take the lock to find nothing new.
     */
    volatile int failures;
    final RailyardException[] deferred;
    /**
     * Per target: records of small operations not sent yet ({@link #batch}), back to back, and
     * their longs. They leave as one header message before any other header to that target
     * (so the target applies everything in the order it was issued), with the FLUSH, UNLOCK or
     * COMPLETE that ends them, or when the next would not fit the window's batch length ({@link #cap}).
     */
    private final long[][] batch;
    /** Per target: a segment over its batch buffer, made when the buffer is taken, for copying inline data in. */
    private final MemorySegment[] batchBytes;
    final int[] batchLongs;
    /** Batch buffers whose sends are written, for the next batches (a batch buffer is sent as it is, not copied). */
    private final ArrayDeque<long[]> spare = new ArrayDeque<>();
    /** Per target: the results of the operations with a result in its batch, else null. */
    private final Replies[] replies;
    private final ArrayDeque<Replies> spareReplies = new ArrayDeque<>();
    /** Set when a request form joins a batch: the next {@link #progress} sends the batches that hold one. */
    private boolean requestsBatched;
    private int replySeq;
    /**
     * Data (and results) of at most this many bytes travel inline, in batches: {@link Rma#INLINE_PROP},
     * or less where the window's batches are shorter.
     */
    final int inlineBytes;
    /** Longs of one header message to a target at most, the same at every member ({@link RmaHeader#batchLongs}). */
    private final int cap;

    Outbound(RmaWindow w, RmaServices s, CommState comm, int n) {
        this.w = w;
        this.s = s;
        this.comm = comm;
        this.pendingTo = new int[n];
        this.opsSince = new int[n];
        this.flushSent = new long[n];
        this.acked = new long[n];
        this.failed = new String[n];
        this.deferred = new RailyardException[n];
        this.batch = new long[n][];
        this.batchBytes = new MemorySegment[n];
        this.batchLongs = new int[n];
        this.replies = new Replies[n];
        this.cap = RmaHeader.batchLongs(n);
        // a record with the most inline data and the record that ends its batch fit one batch
        this.inlineBytes = Math.min(Rma.inlineBytes(), 8 * (cap - 2 * RmaHeader.LONGS));
    }

    // ================================================================== sending and tracking (lock held)

    interface Locked<T> {
        T run();
    }

    <T> T locked(Locked<T> body) {
        ReentrantLock lock = s.progressLock();
        lock.lock();
        try {
            return body.run();
        } finally {
            lock.unlock();
        }
    }

    int nextReplyTag() {
        int tag = Target.TAG_REPLY + (replySeq & 0x0FFFFFFF);
        replySeq++;
        return tag;
    }

    /** Sends header {@code h} (with its inline data) to {@code target}, after the operations batched for it. Lock held. */
    Transfer header(int target, long[] h) {
        push(target);
        return s.isend(comm, h, Kind.LONG, 0, h.length, target, Target.TAG_HDR);
    }

    /**
     * True if the operation of header {@code h} may wait in a batch: a put or accumulate whose data
     * is inline and whose target type is basic (no shape or data message follows it), which
     * returns nothing (no reply that a wait outside this class could be waiting for).
     */
    static boolean batchable(long[] h) {
        int op = RmaHeader.op(h);
        return (op == RmaHeader.OP_PUT || op == RmaHeader.OP_ACC) && RmaHeader.inline(h)
                && RmaHeader.shapeInts(h) == 0;
    }

    /**
     * Adds a {@link #batchable} operation to {@code target}'s batch; its data is copied, so it is
     * complete locally at once, and remotely at the next flush, unlock or complete, like any. Lock held.
     */
    void batch(int target, long[] h) {
        if (batchLongs[target] + h.length > cap) {
            push(target);
        }
        appendRecord(target, h);
        opsSince[target]++;
    }

    /**
     * The put or accumulate of {@code values} values of {@code k} from {@code buf} at {@code off} (a
     * contiguous origin) to byte {@code first} of {@code target} ({@code tcount} elements of a basic
     * target type), appended to the target's batch as {@link #batch} would append the header of
     * {@link #batchable}, but written straight into the batch: no header array, no copy of it.
     * False, with nothing done, when the operation is not such (data not inline, a derived type
     * at either end): the caller then builds its header. Takes the progress lock.
     */
    boolean batchInline(int target, int op, Kind k, int red, long first, int tcount, int values, Object buf, int off,
                        Shape type, Shape ttype) {
        long bytes = (long) values * k.size;
        if (bytes == 0 || bytes > inlineBytes || !type.contiguous || shapeInts(ttype) != 0) {
            return false;
        }
        ReentrantLock lock = s.progressLock();
        lock.lock();
        try {
            int rec = RmaHeader.inlineRecordLongs(bytes);
            if (batchLongs[target] + rec > cap) {
                push(target);
            }
            int at = batchLongs[target];
            long[] m = batchBuffer(target);
            RmaHeader.writeInline(m, at, op, k.ordinal(), red, first, tcount, values, (int) bytes);
            k.copyOut(buf, off, 0, batchBytes[target], 8L * at + RmaHeader.INLINE_OFFSET, bytes);
            batchLongs[target] = at + rec;
            opsSince[target]++;
        } finally {
            lock.unlock();
        }
        return true;
    }

    /** Appends record {@code h} to {@code target}'s batch, which has room for it. Lock held. */
    private void appendRecord(int target, long[] h) {
        System.arraycopy(h, 0, batchBuffer(target), batchLongs[target], h.length);
        batchLongs[target] += h.length;
    }

    /** {@code target}'s batch buffer, a spare or a new one if it has none. Lock held. */
    private long[] batchBuffer(int target) {
        if (batch[target] == null) {
            long[] b = spare.poll();
            batch[target] = b != null ? b : new long[cap];
            batchBytes[target] = MemorySegment.ofArray(batch[target]);
        }
        return batch[target];
    }

    /**
     * True if an operation of header {@code h} with a result of {@code resultBytes} bytes may wait
     * in a batch and have its result come back in the batch's one reply: a get, getAccumulate or
     * compareAndSwap whose data (if any) is inline, whose target type is basic, and whose result
     * fits inline too. Request forms too: a batch holding one leaves at the next progress pass
     * ({@link #progress}), since a wait on the request outside the window's calls sends nothing.
     */
    boolean batchableWithResult(long[] h, long resultBytes) {
        int op = RmaHeader.op(h);
        return (op == RmaHeader.OP_GET || op == RmaHeader.OP_GET_ACC || op == RmaHeader.OP_CAS)
                && (op == RmaHeader.OP_GET || RmaHeader.inline(h) || RmaHeader.values(h) == 0)
                && RmaHeader.shapeInts(h) == 0 && resultBytes > 0 && resultBytes <= inlineBytes;
    }

    /**
     * Adds a {@link #batchableWithResult} operation to {@code target}'s batch; its result (
     * {@code values} of kind {@code k}) will be copied to {@code dst} from element {@code dstOff}
     * when the batch's reply arrives, which the next flush, unlock, complete or fence waits for,
     * like any operation with a result. With {@code request}, returns the request that completes
     * once the result is in {@code dst} (or fails with the batch), else null. Lock held.
     */
    RmaRequest batchWithResult(int target, long[] h, Object dst, int dstOff, Kind k, int values, boolean request) {
        long bytes = (long) values * k.size;
        Replies r = replies[target];
        if (batchLongs[target] + h.length > cap || (r != null && !r.fits(bytes))) {
            push(target);
            r = null;
        }
        if (r == null) {
            r = spareReplies.poll();
            if (r == null) {
                r = new Replies(cap);
            }
            r.tag = nextReplyTag();
            replies[target] = r;
        }
        RmaHeader.setCollected(h, r.tag);
        r.lastRecord = batchLongs[target];
        RmaRequest req = request ? new RmaRequest() : null;
        r.add(dst, dstOff, k, values, req);
        appendRecord(target, h);
        if (req != null) {
            requestsBatched = true;
        }
        return req;
    }

    /** Sends {@code target}'s batch, if any, tracked until written (dropped if the target failed). Lock held. */
    void push(int target) {
        int longs = batchLongs[target];
        if (longs == 0) {
            return;
        }
        batchLongs[target] = 0;
        Replies r = replies[target];
        replies[target] = null;
        if (failed[target] != null) {
            if (r != null) {
                r.fail(peerFailed(target));
                spareReplies.add(r);
            }
            return;
        }
        long[] m = batch[target];
        batch[target] = null;
        batchBytes[target] = null;
        if (r != null) {
            // the reply's receive is posted before the batch leaves
            RmaHeader.setLast(m, r.lastRecord);
            pend(target, s.irecv(comm, r.reply, Kind.LONG, 0, r.longs, target, r.tag), null, null, null, false, false)
                    .replies = r;
        }
        pend(target, s.isend(comm, m, Kind.LONG, 0, longs, target, Target.TAG_HDR), null, null, null, false, false)
                .batch = m;
    }

    /** The header of an operation carrying data: the data inline when small, else in a message of its own. */
    static int shapeInts(Shape t) {
        return t.disp.length == 1 && t.disp[0] == 0 && t.len[0] == 1 && t.extent == 1 ? 0 : t.encode().length;
    }

    Transfer shape(int target, Shape t) {
        if (shapeInts(t) == 0) {
            return null;
        }
        int[] e = t.encode();
        return s.isend(comm, e, Kind.INT, 0, e.length, target, Target.TAG_SHAPE);
    }

    Transfer data(int target, Object buf, int off, int count, Shape type, int values) {
        if (values == 0) {
            return null;
        }
        if (type.contiguous) {
            return s.isend(comm, buf, type.kind, off, values, target, Target.TAG_DATA);
        }
        Object p = type.kind.newArray(values);
        Packing.gather(buf, off, type, count, p);
        return s.isend(comm, p, type.kind, 0, values, target, Target.TAG_DATA);
    }

    Transfer track(int target, Transfer a, Transfer b, Transfer c, Runnable after, boolean request,
                           boolean remote) {
        return pend(target, a, b, c, after, request, remote).req;
    }

    Pending pend(int target, Transfer a, Transfer b, Transfer c, Runnable after, boolean request,
                         boolean remote) {
        Pending p = new Pending();
        p.target = target;
        p.a = a;
        p.b = b;
        p.c = c;
        p.after = after;
        p.req = request ? new RmaRequest() : null;
        pending.add(p);
        pendingTo[target]++;
        if (remote) {
            opsSince[target]++;
        }
        return p;
    }

    /** Sends a synchronisation header to {@code t}, tracked until written. Lock held. */
    void control(int t, int op, int lockType, long id) {
        long[] h = RmaHeader.make(op, 0, 0, lockType, 0, 0, 0, id, 0);
        boolean ends = op == RmaHeader.OP_FLUSH || op == RmaHeader.OP_UNLOCK || op == RmaHeader.OP_COMPLETE;
        if (ends && batchLongs[t] > 0 && batchLongs[t] + h.length <= cap && failed[t] == null) {
            // the end of the epoch or flush travels with the operations it ends
            System.arraycopy(h, 0, batch[t], batchLongs[t], h.length);
            batchLongs[t] += h.length;
            push(t);
            return;
        }
        pend(t, header(t, h), null, null, null, false, false);
    }

    /** Sends the batches that hold a request, then completes this origin's finished operations; lock held. Returns how many. */
    int progress() {
        int work = 0;
        if (requestsBatched) {
            requestsBatched = false;
            for (int t = 0; t < replies.length; t++) {
                if (replies[t] != null && replies[t].requests > 0) {
                    push(t);
                    work++;
                }
            }
        }
        for (int i = pending.size() - 1; i >= 0; i--) {
            Pending p = pending.get(i);
            if (!isDone(p.a) || !isDone(p.b) || !isDone(p.c)) {
                continue;
            }
            RailyardException err = errorOf(p.a, errorOf(p.b, errorOf(p.c, null)));
            if (p.replies != null) {
                if (err == null) {
                    p.replies.deliver();
                } else {
                    p.replies.fail(err);
                }
                spareReplies.add(p.replies);
            }
            if (err == null && p.after != null) {
                p.after.run();
            }
            if (err != null && deferred[p.target] == null) {
                deferred[p.target] = err;
            }
            if (p.req != null) {
                if (err == null) {
                    p.req.complete();
                } else {
                    p.req.fail(err.errorClass(), err.getMessage());
                }
            }
            recycle(p.a);
            recycle(p.b);
            recycle(p.c);
            if (p.batch != null) {
                spare.add(p.batch);
            }
            pendingTo[p.target]--;
            pending.set(i, pending.get(pending.size() - 1));
            pending.remove(pending.size() - 1);
            work++;
        }
        return work;
    }

    static boolean isDone(Transfer t) {
        return t == null || t.isDone();
    }

    static RailyardException errorOf(Transfer t, RailyardException e) {
        return e != null || t == null || t.succeeded() ? e
                : t.error() != null ? t.error() : new RailyardException(ErrorClass.CANCELLED, "cancelled");
    }

    void recycle(Transfer t) {
        if (t != null) {
            s.recycle(t);
        }
    }

    void onAck(int src, long[] h) {
        acked[src] = Math.max(acked[src], RmaHeader.id(h));
        int err = RmaHeader.error(h);
        if (err != 0 && deferred[src] == null) {
            long first = RmaHeader.errorFirst(h);
            deferred[src] = new RailyardException(err == RmaHeader.ERR_RANGE ? ErrorClass.ARG : ErrorClass.TYPE,
                    "an operation on window " + w.name() + ", target rank " + src + ", bytes [" + first + ", "
                            + (first + RmaHeader.errorBytes(h)) + ") was refused there: "
                            + (err == RmaHeader.ERR_RANGE ? "outside its memory" : "it does not fit its memory's type"));
        }
    }

    void onPeerFailed(int src, String reason) {
        batchLongs[src] = 0;
        if (failed[src] == null) {
            failed[src] = reason;
            failures++;
        }
        if (replies[src] != null) {
            replies[src].fail(peerFailed(src));
            spareReplies.add(replies[src]);
            replies[src] = null;
        }
    }

    // ================================================================== waiting

    void waitUntil(BooleanSupplier done, String what) {
        long first = Math.min(AWAIT_MEMBERS_AFTER_NANOS, Rma.timeoutNanos());
        if (s.driveUntil(done, first)) {
            return;
        }
        awaiting(true);
        try {
            if (!s.driveUntil(done, Rma.timeoutNanos() - first)) {
                throw new RailyardException(ErrorClass.TIMEOUT, "window " + w.name() + ": waited "
                        + Rma.timeoutNanos() / 1_000_000_000L + " s (" + Rma.TIMEOUT_PROP + ") for " + what);
            }
        } finally {
            awaiting(false);
        }
    }

    /**
     * How long a wait of the window runs before it counts the members as awaited
     * ({@link RmaServices#awaitMembers}): a wait that ends sooner (nearly all) costs no look at
     * every member's channel.
     */
    static final long AWAIT_MEMBERS_AFTER_NANOS = 1_000_000_000L;

    /** The members count as awaited from {@code awaiting(true)} to {@code awaiting(false)}; takes the lock. */
    void awaiting(boolean on) {
        ReentrantLock lock = s.progressLock();
        lock.lock();
        try {
            s.awaitMembers(comm, on);
        } finally {
            lock.unlock();
        }
    }

    void throwDeferred(int t) {
        if (failed[t] != null) {
            throw peerFailed(t);
        }
        RailyardException e = deferred[t];
        if (e != null) {
            deferred[t] = null;
            throw new RailyardException(e.errorClass(), e.getMessage(), e);
        }
    }

    /** Asks {@code t} to acknowledge every operation so far, if some were issued since the last time; lock held. */
    void startFlush(int t) {
        if (opsSince[t] > 0 && failed[t] == null) {
            opsSince[t] = 0;
            control(t, RmaHeader.OP_FLUSH, 0, ++flushSent[t]);
        }
        push(t);
    }

    /** Operations with a result batched for {@code t} and not sent yet; lock held. */
    int batchedResults(int t) {
        return replies[t] == null ? 0 : replies[t].count;
    }

    /** True if some target has operations batched and not sent; lock held. */
    boolean anyBatched() {
        for (int b : batchLongs) {
            if (b > 0) {
                return true;
            }
        }
        return false;
    }

    boolean flushed(int t, boolean local) {
        return pendingTo[t] == 0 && batchLongs[t] == 0 && (local || acked[t] >= flushSent[t] || failed[t] != null);
    }

    RailyardException peerFailed(int t) {
        return new RailyardException(ErrorClass.PEER_FAILED, "window " + w.name() + ": rank " + t
                + " failed: " + failed[t]);
    }

}
