package org.railyard.engine.rma;

import java.lang.foreign.MemorySegment;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import org.railyard.types.Kind;
import org.railyard.engine.request.Transfer;
import org.railyard.types.Reduction;
import org.railyard.engine.comm.CommState;
import org.railyard.wire.RmaHeader;

/**
 * The target side of one window: what the progress agent (or any thread driving progress) does
 * for the other members, without this process's program calling anything. It keeps one posted
 * header receive per member on the window's private communicator; each header that arrives is
 * either a reply for this process's own origin side (ACK, GRANT, POST, handed to
 * {@link RmaWindow}) or an operation of that member, which joins the member's queue with the
 * receives of its shape and data already posted. The head of each queue is applied once its
 * receives are in, so one origin's operations are applied in the order it issued them (MPI's
 * default ordering of accumulates, and more); all of it runs under the progress lock, so every
 * accumulate is atomic against every other. A put or accumulate whose data came inline is applied
 * straight from the header receive's buffer when nothing of its origin waits before it. A put
 * whose target type is contiguous is received straight into the window's memory (a large one as a
 * rendezvous message, striped over the rails) when only such puts of its origin wait before it,
 * since its data lands whenever it arrives ({@link #landsInTurn}).
 * The lock of passive-target epochs is a {@link LockTable}; a request that cannot be granted stays
 * at the head of its origin's queue until it can.
 */
final class Target {
    static final int TAG_HDR = 0;
    static final int TAG_SHAPE = 1;
    static final int TAG_DATA = 2;
    /** Replies of operations with a result use tags from here, one per operation outstanding. */
    static final int TAG_REPLY = 16;

    private static final Kind[] KINDS = Kind.values();

    /** One operation of an origin, waiting for its receives or its turn. */
    private static final class Op {
        long[] h;
        Transfer shapeRecv;
        int[] shape;
        Transfer dataRecv;
        Object data;
        boolean direct;
    }

    private final RmaWindow w;
    private final RmaServices s;
    private final CommState comm;
    private final WindowMemory mem;
    private final int n;
    private final Transfer[] hdr;
    private final long[][] hdrBuf;
    /** Per member: a segment over {@link #hdrBuf}, through which inline data is read where it arrived. */
    private final MemorySegment[] hdrBytes;
    /** Per member: true once it failed ({@link #failed}); its header receive is not posted again. */
    private final boolean[] gone;
    /** The header of the record being taken, copied out of its batch. */
    private final long[] head = new long[RmaHeader.LONGS];
    /** Per element kind: two arrays an accumulate applied from its batch combines in, grown as needed. */
    private final Object[] accIn = new Object[KINDS.length];
    private final Object[] accCur = new Object[KINDS.length];
    private final ArrayDeque<Op>[] queue;
    private final LockTable locks;
    private final ArrayList<Transfer> sends = new ArrayList<>();
    /** For each of {@link #sends}, at the same index, the batch reply it carries, or null. */
    private final ArrayList<Reply> sendReplies = new ArrayList<>();
    /** Batch replies whose send finished, for the next batches: a warm target makes none per batch. */
    private final ArrayDeque<Reply> spareReplies = new ArrayDeque<>();
    /** Per origin: the first error since its last ACK (a {@link RmaHeader} code), and its range. */
    private final int[] errCode;
    private final long[] errFirst;
    private final long[] errBytes;
    /**
     * Per origin: the reply of its batch under way (null between batches), which collects the
     * results of the batch's collected records ({@link RmaHeader#collected}) until the last of
     * them, and its longs.
     */
    private final Reply[] collect;
    private final int[] collectLongs;

    /** A batch reply's buffer, with the segment the results are copied in through. */
    private record Reply(long[] longs, MemorySegment segment) {
        static Reply make(int cap) {
            long[] a = new long[cap];
            return new Reply(a, MemorySegment.ofArray(a));
        }
    }

    /** Longs of a header message, and of a reply, at most: the window's batch length ({@link RmaHeader#batchLongs}). */
    private final int cap;

    @SuppressWarnings("unchecked")
    Target(RmaWindow w, RmaServices s, CommState comm, WindowMemory mem) {
        this.w = w;
        this.s = s;
        this.comm = comm;
        this.mem = mem;
        this.n = comm.size();
        this.hdr = new Transfer[n];
        this.cap = RmaHeader.batchLongs(n);
        this.hdrBuf = new long[n][cap];
        this.hdrBytes = new MemorySegment[n];
        for (int i = 0; i < n; i++) {
            hdrBytes[i] = MemorySegment.ofArray(hdrBuf[i]);
        }
        this.gone = new boolean[n];
        this.queue = new ArrayDeque[n];
        for (int i = 0; i < n; i++) {
            queue[i] = new ArrayDeque<>();
        }
        this.locks = new LockTable(n);
        this.errCode = new int[n];
        this.errFirst = new long[n];
        this.errBytes = new long[n];
        this.collect = new Reply[n];
        this.collectLongs = new int[n];
    }

    /** Posts the header receives; lock held. */
    void start() {
        for (int src = 0; src < n; src++) {
            hdr[src] = s.irecvStanding(comm, hdrBuf[src], Kind.LONG, 0, cap, src, TAG_HDR);
        }
    }

    /** Cancels the header receives (the window is freed); lock held. */
    void stop() {
        for (int src = 0; src < n; src++) {
            if (hdr[src] != null && !hdr[src].isDone()) {
                s.cancel(hdr[src]);
            }
            hdr[src] = null;
        }
    }

    /** One pass over the members: headers in, queue heads applied, finished sends given back. Lock held. */
    int progress() {
        int work = 0;
        for (int src = 0; src < n; src++) {
            Transfer t;
            while ((t = hdr[src]) != null && t.isDone()) {
                if (!t.succeeded()) {
                    hdr[src] = null;
                    if (t.state == Transfer.FAILED) {
                        failed(src, t.error().getMessage());
                    }
                    break;
                }
                long bytes = t.statusBytes;
                s.recycle(t);
                // the records are taken from the receive's buffer itself, which is posted again after them
                hdr[src] = null;
                records(src, bytes);
                if (!gone[src]) {
                    hdr[src] = s.irecvStanding(comm, hdrBuf[src], Kind.LONG, 0, cap, src, TAG_HDR);
                }
                work++;
            }
            if (!queue[src].isEmpty()) {
                work += drain(src);
            }
        }
        for (int i = sends.size() - 1; i >= 0; i--) {
            Transfer t = sends.get(i);
            if (t.isDone()) {
                s.recycle(t);
                Reply r = sendReplies.get(i);
                if (r != null) {
                    spareReplies.push(r);
                }
                int last = sends.size() - 1;
                sends.set(i, sends.get(last));
                sends.remove(last);
                sendReplies.set(i, sendReplies.get(last));
                sendReplies.remove(last);
            }
        }
        return work;
    }

    /** True while replies of this side are still being sent (free waits for them). */
    boolean sending() {
        return !sends.isEmpty();
    }

    /**
     * The header message of {@code src} in its receive buffer: one record, or several (its small
     * operations, and maybe the flush, unlock or complete that ended them), each taken in turn as if
     * it had come alone. A put or accumulate with inline data and a basic target type is applied
     * straight from the buffer when nothing of its origin waits before it (the queue's earlier
     * operations are applied first where their receives are in); any other record, or one behind a
     * waiting operation, is copied out and joins the queue. Either way one origin's records take
     * effect in the order it issued them.
     */
    private void records(int src, long messageBytes) {
        if (messageBytes % 8 != 0 || messageBytes < 8L * RmaHeader.LONGS) {
            failed(src, "rank " + src + " of " + w.name() + " sent a malformed header: a message of " + messageBytes
                    + " bytes, not whole records");
            return;
        }
        long[] m = hdrBuf[src];
        int longs = (int) Math.min(messageBytes / 8, cap);
        int at = 0;
        while (at < longs && !gone[src]) {
            long left = 8L * (longs - at);
            if (left < 8L * RmaHeader.LONGS) {
                failed(src, "rank " + src + " of " + w.name() + " sent a malformed header: " + left
                        + " bytes left over after the records of a header message");
                return;
            }
            System.arraycopy(m, at, head, 0, RmaHeader.LONGS);
            int kind = RmaHeader.kind(head);
            int kindBytes = kind < KINDS.length ? KINDS[kind].size : 1;
            String bad = RmaHeader.check(head, KINDS.length, RmaWindow.REDUCTIONS.length, left, kindBytes);
            if (bad != null) {
                failed(src, "rank " + src + " of " + w.name() + " sent a malformed header: " + bad);
                return;
            }
            int rec = RmaHeader.recordLongs(head, kindBytes);
            int op = RmaHeader.op(head);
            if (!queue[src].isEmpty()) {
                drain(src);
            }
            if (gone[src]) {
                return;
            }
            if (op >= RmaHeader.OP_ACK) {
                dispatch(src, head, 8L * rec); // a reply to this side: kept by nobody
            } else if (queue[src].isEmpty() && appliesInPlace(head)) {
                applyInline(src, head, 8L * at + RmaHeader.INLINE_OFFSET);
            } else {
                dispatch(src, Arrays.copyOfRange(m, at, at + rec), 8L * rec);
            }
            at += rec;
        }
    }

    /** True for a put or accumulate whose data is inline, whose target type is basic, with no result. */
    private static boolean appliesInPlace(long[] h) {
        int op = RmaHeader.op(h);
        return (op == RmaHeader.OP_PUT || op == RmaHeader.OP_ACC) && RmaHeader.inline(h) && RmaHeader.shapeInts(h) == 0
                && !RmaHeader.collected(h);
    }

    /**
     * Applies the {@link #appliesInPlace} operation of header {@code h} (checked), whose data lies
     * at byte {@code dataAt} of {@code src}'s receive buffer, as {@link #operation} would apply it
     * from a queue: the same checks and error, the same result, without copying the record.
     */
    private void applyInline(int src, long[] h, long dataAt) {
        Kind k = KINDS[RmaHeader.kind(h)];
        long count = RmaHeader.count(h);
        int values = (int) RmaHeader.values(h);
        long first = RmaHeader.disp(h);
        long bytes = count * k.size;
        int err = mem.check(first, bytes, k);
        if (err == 0 && count != values) {
            err = RmaHeader.ERR_TYPE;
        }
        if (err != 0) {
            error(src, err, first, bytes);
            return;
        }
        if (RmaHeader.op(h) == RmaHeader.OP_PUT && mem.seg != null) {
            // a segment window is reached by offset: no slice of it per record
            MemorySegment.copy(hdrBytes[src], dataAt, mem.seg, first, bytes);
            return;
        }
        Object buf = mem.buf(first, bytes);
        int off = mem.off(first, k);
        if (RmaHeader.op(h) == RmaHeader.OP_PUT) {
            k.copyIn(hdrBytes[src], dataAt, buf, off, 0, bytes);
            return;
        }
        Object in = scratch(accIn, k, values);
        Object cur = scratch(accCur, k, values);
        k.copyIn(hdrBytes[src], dataAt, in, 0, 0, bytes);
        Shape t = Shape.of(k);
        Packing.gather(buf, off, t, values, cur);
        RmaWindow.REDUCTIONS[RmaHeader.reduction(h)].apply(k, in, 0, cur, 0, values);
        Packing.scatter(cur, buf, off, t, values);
    }

    /** {@code arrays}' array of kind {@code k}, holding at least {@code values} values (a larger one made if not). */
    private static Object scratch(Object[] arrays, Kind k, int values) {
        Object a = arrays[k.ordinal()];
        if (a == null || java.lang.reflect.Array.getLength(a) < values) {
            a = k.newArray(Math.max(values, RmaHeader.MAX_INLINE_BYTES / k.size));
            arrays[k.ordinal()] = a;
        }
        return a;
    }

    private void dispatch(int src, long[] h, long messageBytes) {
        int kind = RmaHeader.kind(h);
        String bad = RmaHeader.check(h, KINDS.length, RmaWindow.REDUCTIONS.length, messageBytes,
                kind < KINDS.length ? KINDS[kind].size : 1);
        if (bad != null) {
            failed(src, "rank " + src + " of " + w.name() + " sent a malformed header: " + bad);
            return;
        }
        switch (RmaHeader.op(h)) {
            case RmaHeader.OP_ACK -> w.onAck(src, h);
            case RmaHeader.OP_GRANT -> w.onGrant(src);
            case RmaHeader.OP_POST -> w.onPost(src);
            case RmaHeader.OP_WITHDRAW -> withdraw(src);
            default -> queue[src].add(receivesOf(src, h));
        }
    }

    /**
     * {@code src} gave up its lock request: a LOCK of it still queued leaves the queue (and its
     * place among the waiting writers) and is answered with GRANT, which the origin counts but
     * does not take; if none is queued the lock was granted already, and is released.
     */
    private void withdraw(int src) {
        for (java.util.Iterator<Op> it = queue[src].iterator(); it.hasNext(); ) {
            Op o = it.next();
            if (RmaHeader.op(o.h) == RmaHeader.OP_LOCK) {
                it.remove();
                locks.release(src);
                send(src, RmaHeader.make(RmaHeader.OP_GRANT, 0, 0, 0, 0, 0, 0, 0, 0));
                return;
            }
        }
        locks.release(src);
    }

    /** The operation of header {@code h}, with the receives of its shape and data posted. */
    private Op receivesOf(int src, long[] h) {
        Op o = new Op();
        o.h = h;
        int op = RmaHeader.op(h);
        Kind k = KINDS[RmaHeader.kind(h)];
        int shapeInts = RmaHeader.shapeInts(h);
        if (shapeInts > 0) {
            o.shape = new int[shapeInts];
            o.shapeRecv = s.irecv(comm, o.shape, Kind.INT, 0, shapeInts, src, TAG_SHAPE);
        }
        int values = (int) RmaHeader.values(h);
        boolean hasData = values > 0 && (op == RmaHeader.OP_PUT || op == RmaHeader.OP_ACC
                || op == RmaHeader.OP_GET_ACC || op == RmaHeader.OP_CAS);
        if (!hasData) {
            return o;
        }
        if (RmaHeader.inline(h)) {
            o.data = k.newArray(values);
            k.copyIn(MemorySegment.ofArray(h), RmaHeader.INLINE_OFFSET, o.data, 0, 0, (long) values * k.size);
            return o;
        }
        long first = RmaHeader.disp(h);
        long bytes = (long) values * k.size;
        if (op == RmaHeader.OP_PUT && shapeInts == 0 && RmaHeader.count(h) == values && mem.check(first, bytes, k) == 0
                && landsInTurn(src)) {
            o.direct = true;
            o.dataRecv = s.irecv(comm, mem.buf(first, bytes), k, mem.off(first, k), values, src, TAG_DATA);
        } else {
            o.data = k.newArray(values);
            o.dataRecv = s.irecv(comm, o.data, k, 0, values, src, TAG_DATA);
        }
        return o;
    }

    /**
     * True if data received straight into the window now, whenever it arrives, still takes effect
     * in {@code src}'s issue order: nothing of {@code src} waits before it but puts received the
     * same way (whose data messages arrive in the order they were sent) and flushes. Else the data
     * is received apart and copied in at its turn.
     */
    private boolean landsInTurn(int src) {
        for (Op o : queue[src]) {
            if (!o.direct && RmaHeader.op(o.h) != RmaHeader.OP_FLUSH) {
                return false;
            }
        }
        return true;
    }

    private int drain(int src) {
        int work = 0;
        ArrayDeque<Op> q = queue[src];
        while (!q.isEmpty()) {
            Op o = q.peek();
            if (!ready(o.shapeRecv) || !ready(o.dataRecv)) {
                return work;
            }
            if (failedPart(src, o.shapeRecv) || failedPart(src, o.dataRecv)) {
                return work;
            }
            if (!apply(src, o)) {
                return work;
            }
            q.poll();
            if (o.shapeRecv != null) {
                s.recycle(o.shapeRecv);
            }
            if (o.dataRecv != null) {
                s.recycle(o.dataRecv);
            }
            work++;
        }
        return work;
    }

    private static boolean ready(Transfer t) {
        return t == null || t.isDone();
    }

    private boolean failedPart(int src, Transfer t) {
        if (t != null && !t.succeeded()) {
            failed(src, t.error() != null ? t.error().getMessage() : "a receive was cancelled");
            return true;
        }
        return false;
    }

    /** Applies the head operation of {@code src}; false if it must wait (a lock not available). */
    private boolean apply(int src, Op o) {
        long[] h = o.h;
        int op = RmaHeader.op(h);
        switch (op) {
            case RmaHeader.OP_FLUSH -> {
                ack(src, RmaHeader.id(h));
                return true;
            }
            case RmaHeader.OP_LOCK -> {
                if (!locks.tryAcquire(src, RmaHeader.lockType(h))) {
                    return false;
                }
                send(src, RmaHeader.make(RmaHeader.OP_GRANT, 0, 0, 0, 0, 0, 0, 0, 0));
                return true;
            }
            case RmaHeader.OP_UNLOCK -> {
                locks.release(src);
                ack(src, RmaHeader.id(h));
                return true;
            }
            case RmaHeader.OP_COMPLETE -> {
                w.onComplete(src);
                return true;
            }
            default -> {
                operation(src, o, op);
                return true;
            }
        }
    }

    private void operation(int src, Op o, int op) {
        long[] h = o.h;
        Kind k = KINDS[RmaHeader.kind(h)];
        int count = (int) Math.min(RmaHeader.count(h), Integer.MAX_VALUE);
        Shape t = o.shape == null ? Shape.of(k) : decode(o.shape, k);
        long first = RmaHeader.disp(h);
        int values = t == null ? 0 : (int) Math.min(t.values(count), Integer.MAX_VALUE);
        long bytes = t == null ? 0 : t.span(count) * k.size;
        int err = t == null ? RmaHeader.ERR_TYPE : mem.check(first, bytes, k);
        if (o.direct) {
            return;
        }
        boolean replies = op == RmaHeader.OP_GET || op == RmaHeader.OP_GET_ACC || op == RmaHeader.OP_CAS;
        int replyValues = op == RmaHeader.OP_CAS ? 1 : values;
        if (err != 0 || (o.data != null && op != RmaHeader.OP_CAS && java.lang.reflect.Array.getLength(o.data) != values)) {
            error(src, err != 0 ? err : RmaHeader.ERR_TYPE, first, bytes);
            if (replies) {
                result(src, h, k.newArray(replyValues), 0, k, replyValues);
            }
            return;
        }
        Object buf = mem.buf(first, bytes);
        int off = mem.off(first, k);
        switch (op) {
            case RmaHeader.OP_PUT -> Packing.scatter(o.data, buf, off, t, count);
            case RmaHeader.OP_GET -> {
                if (t.contiguous) {
                    result(src, h, buf, off, k, values);
                } else {
                    Object packed = k.newArray(values);
                    Packing.gather(buf, off, t, count, packed);
                    result(src, h, packed, 0, k, values);
                }
            }
            case RmaHeader.OP_ACC -> {
                Object cur = k.newArray(values);
                Packing.gather(buf, off, t, count, cur);
                RmaWindow.REDUCTIONS[RmaHeader.reduction(h)].apply(k, o.data, 0, cur, 0, values);
                Packing.scatter(cur, buf, off, t, count);
            }
            case RmaHeader.OP_GET_ACC -> {
                Object cur = k.newArray(values);
                Packing.gather(buf, off, t, count, cur);
                Object old = k.newArray(values);
                System.arraycopy(cur, 0, old, 0, values);
                Reduction r = RmaWindow.REDUCTIONS[RmaHeader.reduction(h)];
                if (o.data != null) {
                    r.apply(k, o.data, 0, cur, 0, values);
                    Packing.scatter(cur, buf, off, t, count);
                }
                result(src, h, old, 0, k, values);
            }
            case RmaHeader.OP_CAS -> {
                Object cur = k.newArray(1);
                Packing.gather(buf, off, t, 1, cur);
                Object old = k.newArray(1);
                System.arraycopy(cur, 0, old, 0, 1);
                if (SharedAccess.sameBits(k, cur, 0, o.data, 1)) {
                    System.arraycopy(o.data, 0, cur, 0, 1);
                    Packing.scatter(cur, buf, off, t, 1);
                }
                result(src, h, old, 0, k, 1);
            }
            default -> error(src, RmaHeader.ERR_TYPE, first, bytes);
        }
    }

    /**
     * The result of operation {@code h} of {@code src} ({@code values} of kind {@code k} in
     * {@code buf} from element {@code off}): a reply of its own, or, for a collected record, a part of
     * its batch's one reply, sent after the batch's last collected record.
     */
    private void result(int src, long[] h, Object buf, int off, Kind k, int values) {
        if (!RmaHeader.collected(h)) {
            send(src, buf, off, k, values, RmaHeader.id(h));
            return;
        }
        long bytes = (long) values * k.size;
        int at = collectLongs[src];
        if (at + RmaHeader.resultLongs(bytes) > cap) {
            failed(src, "rank " + src + " of " + w.name() + " sent a batch whose results exceed "
                    + cap + " longs");
            return;
        }
        Reply r = collect[src];
        if (r == null) {
            r = spareReplies.isEmpty() ? Reply.make(cap) : spareReplies.pop();
            collect[src] = r;
        }
        k.copyOut(buf, off, 0, r.segment(), 8L * at, bytes);
        collectLongs[src] = at + RmaHeader.resultLongs(bytes);
        if (RmaHeader.last(h)) {
            int longs = collectLongs[src];
            collectLongs[src] = 0;
            collect[src] = null; // the send owns the buffer until it is done; then it is spare
            track(s.isend(comm, r.longs(), Kind.LONG, 0, longs, src, (int) RmaHeader.id(h)), r);
        }
    }

    /** A target shape from the wire, or null if it is not one a sender of this library would write. */
    private static Shape decode(int[] a, Kind k) {
        if (a.length < 2 || a[1] < 0 || a.length != 2 + 2 * a[1] || a[0] < 0) {
            return null;
        }
        int runs = a[1];
        int[] d = new int[runs];
        int[] l = new int[runs];
        long total = 0;
        for (int r = 0; r < runs; r++) {
            d[r] = a[2 + 2 * r];
            l[r] = a[3 + 2 * r];
            if (d[r] < 0 || l[r] < 0 || (long) d[r] + l[r] > Integer.MAX_VALUE) {
                return null;
            }
            total += l[r];
        }
        return total > Integer.MAX_VALUE ? null : new Shape(k, d, l, a[0]);
    }

    private void error(int src, int code, long first, long bytes) {
        if (errCode[src] == 0) {
            errCode[src] = code;
            errFirst[src] = first;
            errBytes[src] = bytes;
        }
    }

    private void ack(int src, long id) {
        long[] a = RmaHeader.make(RmaHeader.OP_ACK, 0, 0, 0, 0, 0, 0, id, 0);
        if (errCode[src] != 0) {
            RmaHeader.setError(a, errCode[src], errFirst[src], errBytes[src]);
            errCode[src] = 0;
        }
        send(src, a);
    }

    /** Sends a header to member {@code dst} (a reply of this side, or a POST of {@link RmaWindow}). */
    void send(int dst, long[] header) {
        track(s.isend(comm, header, Kind.LONG, 0, RmaHeader.LONGS, dst, TAG_HDR), null);
    }

    private void send(int dst, Object buf, int off, Kind k, int values, long tag) {
        track(s.isend(comm, buf, k, off, values, dst, (int) tag), null);
    }

    /** Keeps a send of this side until it is done, with the batch reply it carries (or null). */
    private void track(Transfer t, Reply r) {
        sends.add(t);
        sendReplies.add(r);
    }

    /** Member {@code src} failed (its header receive or an operation's receive did): drop its queue and locks. */
    private void failed(int src, String reason) {
        for (Op o : queue[src]) {
            for (Transfer t : new Transfer[] {o.shapeRecv, o.dataRecv}) {
                if (t != null && !t.isDone()) {
                    s.cancel(t);
                }
            }
        }
        queue[src].clear();
        gone[src] = true;
        collectLongs[src] = 0;
        locks.release(src);
        if (hdr[src] != null && !hdr[src].isDone()) {
            s.cancel(hdr[src]);
        }
        hdr[src] = null;
        w.onPeerFailed(src, reason);
    }
}
