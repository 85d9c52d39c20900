package org.railyard.engine.rma;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.VarHandle;
import java.util.ArrayList;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.BooleanSupplier;
import org.railyard.types.Kind;
import org.railyard.engine.Transfer;
import org.railyard.types.Reduction;
import org.railyard.engine.comm.CommState;
import org.railyard.error.ErrorClass;
import org.railyard.error.RailyardException;
import org.railyard.wire.RmaHeader;

/**
 * The engine's side of one window (the api's {@code Window}): the origin side of its operations,
 * the epochs, and, through {@link Target}, what the other members do to this process's memory.
 *
 * <p>Paths: when every member's memory is mapped in this process ({@link #parts} not null: a
 * shared window, or an allocated one whose members share a node) the origin copies and applies
 * accumulates itself ({@link SharedAccess}); otherwise each operation is a header message, an
 * optional shape message and a data message on the window's private communicator, applied by the
 * target's {@link Target}, and results come back on a tag of their own. Remote completion is a
 * FLUSH (or UNLOCK, or COMPLETE) that the target answers once every earlier operation of this
 * origin is applied. All bookkeeping happens under the progress lock; waits drive progress.
 */
public final class RmaWindow {
    public static final int LOCK_EXCLUSIVE = 1;
    public static final int LOCK_SHARED = 2;
    public static final int MODE_NOCHECK = 1;
    public static final int MODE_NOSTORE = 2;
    public static final int MODE_NOPUT = 4;
    public static final int MODE_NOPRECEDE = 8;
    public static final int MODE_NOSUCCEED = 16;

    static final int FLAVOR_CREATE = 0;
    static final int FLAVOR_ALLOCATE = 1;
    static final int FLAVOR_SHARED = 2;
    static final int FLAVOR_DYNAMIC = 3;

    /** The operations an accumulate may use, by their index on the wire. */
    static final Reduction[] REDUCTIONS = {Reduction.SUM, Reduction.PROD, Reduction.MIN, Reduction.MAX,
        Reduction.LAND, Reduction.LOR, Reduction.LXOR, Reduction.BAND, Reduction.BOR, Reduction.BXOR,
        Reduction.MAXLOC, Reduction.MINLOC, RmaOps.REPLACE, RmaOps.NO_OP};

    /** Operations of this origin whose transfers are under way. */
    private static final class Pending {
        int target;
        Transfer a;
        Transfer b;
        Transfer c;
        Runnable after;
        RmaRequest req;
    }

    private final Rma rma;
    private final RmaServices s;
    private final CommState comm;
    private final int flavor;
    private final WindowMemory mem;
    private final Object buffer;
    private final int n;
    private final int me;
    private final long[] bytesOf;
    private final int[] unitOf;
    private final int[] arrayKindOf;
    /** Every member's memory mapped here (shared, or allocated on one node), else null. */
    private final MemorySegment[] parts;
    private final SharedAccess atomics;
    private final Arena arena;
    private final Target target;
    private String name;
    private boolean freed;

    private boolean fenceOpen;
    private int[] startGroup;
    private int[] postGroup;
    private final int[] lockType;
    private final boolean[] lockNoCheck;
    private boolean lockAllOn;
    private boolean lockAllNoCheck;

    private final ArrayList<Pending> pending = new ArrayList<>();
    private final int[] pendingTo;
    private final int[] opsSince;
    private final long[] flushSent;
    private final long[] acked;
    private final long[] grantsWanted;
    private final long[] grants;
    private final long[] postsWanted;
    private final long[] posts;
    private final long[] completesWanted;
    private final long[] completes;
    private final String[] failed;
    private final RailyardException[] deferred;
    private int replySeq;

    RmaWindow(Rma rma, RmaServices s, CommState comm, String name, int flavor, WindowMemory mem, Object buffer,
              long[] info, MemorySegment[] parts, MemorySegment lockWord, Arena arena) {
        this.rma = rma;
        this.s = s;
        this.comm = comm;
        this.name = name;
        this.flavor = flavor;
        this.mem = mem;
        this.buffer = buffer;
        this.n = comm.size();
        this.me = comm.rank();
        this.bytesOf = new long[n];
        this.unitOf = new int[n];
        this.arrayKindOf = new int[n];
        for (int r = 0; r < n; r++) {
            bytesOf[r] = info[Rma.INFO * r];
            unitOf[r] = (int) info[Rma.INFO * r + 1];
            arrayKindOf[r] = (int) info[Rma.INFO * r + 2];
        }
        this.parts = parts;
        this.atomics = lockWord == null ? null : new SharedAccess(lockWord);
        this.arena = arena;
        this.target = new Target(this, s, comm, mem);
        this.lockType = new int[n];
        this.lockNoCheck = new boolean[n];
        this.pendingTo = new int[n];
        this.opsSince = new int[n];
        this.flushSent = new long[n];
        this.acked = new long[n];
        this.grantsWanted = new long[n];
        this.grants = new long[n];
        this.postsWanted = new long[n];
        this.posts = new long[n];
        this.completesWanted = new long[n];
        this.completes = new long[n];
        this.failed = new String[n];
        this.deferred = new RailyardException[n];
    }

    /** Starts serving the other members; lock held. */
    void start() {
        target.start();
    }

    // ================================================================== what it is

    public int flavor() {
        return flavor;
    }

    public long bytes() {
        return bytesOf[me];
    }

    public int dispUnit() {
        return unitOf[me];
    }

    public int dispUnit(int rank) {
        checkRank(rank, "rank");
        return unitOf[rank];
    }

    public Object buffer() {
        return buffer;
    }

    public MemorySegment memory() {
        if (parts != null) {
            return parts[me];
        }
        return mem.seg != null && mem.seg.isNative() ? mem.seg : null;
    }

    public MemorySegment sharedQuery(int rank) {
        if (flavor != FLAVOR_SHARED) {
            throw new RailyardException(ErrorClass.ARG, "window " + name + " is not a shared window (allocateShared): "
                    + "its members' memory cannot be loaded and stored directly");
        }
        if (rank == CommState.PROC_NULL) {
            for (int r = 0; r < n; r++) {
                if (bytesOf[r] > 0) {
                    return parts[r];
                }
            }
            return parts[0];
        }
        checkRank(rank, "rank");
        return parts[rank];
    }

    public String name() {
        return name;
    }

    public void setName(String name) {
        this.name = name == null ? "" : name;
    }

    public long attach(MemorySegment seg) {
        if (flavor != FLAVOR_DYNAMIC) {
            throw new RailyardException(ErrorClass.ARG, "attach on window " + name + ", which is not dynamic (createDynamic)");
        }
        if (seg == null || !seg.isNative()) {
            throw new RailyardException(ErrorClass.ARG, "attach on window " + name + " needs a native segment (got "
                    + (seg == null ? "null" : "a heap segment") + ")");
        }
        Kind.BYTE.checkRange(seg, 0, 0);
        mem.attach(seg);
        return seg.address();
    }

    public void detach(MemorySegment seg) {
        if (flavor != FLAVOR_DYNAMIC || seg == null || !mem.detach(seg)) {
            throw new RailyardException(ErrorClass.ARG, "detach on window " + name + ": " + seg
                    + " is not attached to it");
        }
    }

    // ================================================================== operations

    /** Where an operation lands: the target's byte range, its values, and the mapped slice if any. */
    private record Access(long first, long bytes, int values, MemorySegment slice) {
    }

    public Transfer put(Object buf, int off, int count, Shape type, int target, long disp, int tcount, Shape ttype,
                        boolean request) {
        Access a = access("put", buf, off, count, type, target, disp, tcount, ttype);
        if (a == null) {
            return done(request);
        }
        Kind k = ttype.kind;
        if (a.slice != null) {
            if (type.contiguous && ttype.contiguous) {
                k.copyOut(buf, off, 0, a.slice, 0, (long) a.values * k.size);
            } else {
                Object p = k.newArray(a.values);
                Packing.gather(buf, off, type, count, p);
                Packing.scatter(p, a.slice, 0, ttype, tcount);
            }
            return done(request);
        }
        return locked(() -> {
            long[] h = withData(RmaHeader.OP_PUT, k, 0, a, tcount, ttype, 0, buf, off, count, type);
            return track(target, header(target, h), shape(target, ttype), RmaHeader.inline(h) ? null
                    : data(target, buf, off, count, type, a.values), null, request, true);
        });
    }

    public Transfer get(Object buf, int off, int count, Shape type, int target, long disp, int tcount, Shape ttype,
                        boolean request) {
        Access a = access("get", buf, off, count, type, target, disp, tcount, ttype);
        if (a == null) {
            return done(request);
        }
        Kind k = ttype.kind;
        if (a.slice != null) {
            if (type.contiguous && ttype.contiguous) {
                k.copyIn(a.slice, 0, buf, off, 0, (long) a.values * k.size);
            } else {
                Object p = k.newArray(a.values);
                Packing.gather(a.slice, 0, ttype, tcount, p);
                Packing.scatter(p, buf, off, type, count);
            }
            return done(request);
        }
        return locked(() -> {
            int tag = nextReplyTag();
            Transfer reply;
            Runnable after = null;
            if (type.contiguous) {
                reply = s.irecv(comm, buf, k, off, a.values, target, tag);
            } else {
                Object p = k.newArray(a.values);
                reply = s.irecv(comm, p, k, 0, a.values, target, tag);
                after = () -> Packing.scatter(p, buf, off, type, count);
            }
            long[] h = RmaHeader.make(RmaHeader.OP_GET, k.ordinal(), 0, 0, a.first, tcount, shapeInts(ttype), tag, a.values);
            return track(target, reply, header(target, h), shape(target, ttype), after, request, false);
        });
    }

    public Transfer accumulate(Object buf, int off, int count, Shape type, int target, long disp, int tcount,
                               Shape ttype, Reduction op, boolean request) {
        int red = reduction(op);
        Access a = access("accumulate", buf, off, count, type, target, disp, tcount, ttype);
        if (a == null) {
            return done(request);
        }
        Kind k = ttype.kind;
        if (a.slice != null) {
            Object in = k.newArray(a.values);
            Packing.gather(buf, off, type, count, in);
            atomics.accumulate(a.slice, 0, ttype, tcount, op, in, null);
            return done(request);
        }
        return locked(() -> {
            long[] h = withData(RmaHeader.OP_ACC, k, red, a, tcount, ttype, 0, buf, off, count, type);
            return track(target, header(target, h), shape(target, ttype), RmaHeader.inline(h) ? null
                    : data(target, buf, off, count, type, a.values), null, request, true);
        });
    }

    public Transfer getAccumulate(Object buf, int off, int count, Shape type, Object result, int roff, int rcount,
                                  Shape rtype, int target, long disp, int tcount, Shape ttype, Reduction op,
                                  boolean request) {
        int red = reduction(op);
        boolean noOp = op == RmaOps.NO_OP;
        Access a = access("getAccumulate", result, roff, rcount, rtype, target, disp, tcount, ttype);
        if (a == null) {
            return done(request);
        }
        Kind k = ttype.kind;
        if (!noOp) {
            checkOrigin("getAccumulate", buf, off, count, type);
            if (type.kind != k || type.values(count) != a.values) {
                throw mismatch("getAccumulate", type, count, ttype, tcount);
            }
        }
        if (a.slice != null) {
            Object in = null;
            if (!noOp) {
                in = k.newArray(a.values);
                Packing.gather(buf, off, type, count, in);
            }
            Object old = k.newArray(a.values);
            atomics.accumulate(a.slice, 0, ttype, tcount, op, in, old);
            Packing.scatter(old, result, roff, rtype, rcount);
            return done(request);
        }
        return locked(() -> {
            int tag = nextReplyTag();
            Transfer reply;
            Runnable after = null;
            if (rtype.contiguous) {
                reply = s.irecv(comm, result, k, roff, a.values, target, tag);
            } else {
                Object p = k.newArray(a.values);
                reply = s.irecv(comm, p, k, 0, a.values, target, tag);
                after = () -> Packing.scatter(p, result, roff, rtype, rcount);
            }
            long[] h = noOp ? RmaHeader.make(RmaHeader.OP_GET_ACC, k.ordinal(), red, 0, a.first, tcount,
                    shapeInts(ttype), tag, 0) : withData(RmaHeader.OP_GET_ACC, k, red, a, tcount, ttype, tag, buf, off, count, type);
            Transfer hs = header(target, h);
            Transfer sh = shape(target, ttype);
            Transfer d = noOp || RmaHeader.inline(h) ? null : data(target, buf, off, count, type, a.values);
            // its reply comes once the target applied it: local completion is remote completion
            Pending p = pend(target, reply, hs, sh, after, request, false);
            if (d != null) {
                track(target, d, null, null, null, false, false);
            }
            return p.req;
        });
    }

    public void fetchAndOp(Object buf, int off, Object result, int roff, Kind k, int target, long disp, Reduction op) {
        Shape one = Shape.of(k);
        getAccumulate(buf, off, 1, one, result, roff, 1, one, target, disp, 1, one, op, false);
    }

    public void compareAndSwap(Object buf, int off, Object compare, int coff, Object result, int roff, Kind k,
                               int target, long disp) {
        Shape one = Shape.of(k);
        Access a = access("compareAndSwap", result, roff, 1, one, target, disp, 1, one);
        if (a == null) {
            return;
        }
        checkOrigin("compareAndSwap", buf, off, 1, one);
        checkOrigin("compareAndSwap", compare, coff, 1, one);
        Object in = k.newArray(2);
        Object single = k.newArray(1);
        Packing.gather(buf, off, one, 1, single);
        System.arraycopy(single, 0, in, 0, 1);
        Packing.gather(compare, coff, one, 1, single);
        System.arraycopy(single, 0, in, 1, 1);
        if (a.slice != null) {
            Object origin = k.newArray(1);
            System.arraycopy(in, 0, origin, 0, 1);
            Object old = k.newArray(1);
            atomics.compareAndSwap(a.slice, 0, k, origin, single, old);
            Packing.scatter(old, result, roff, one, 1);
            return;
        }
        locked(() -> {
            int tag = nextReplyTag();
            Transfer reply = s.irecv(comm, result, k, roff, 1, target, tag);
            long[] h = RmaHeader.makeInline(RmaHeader.OP_CAS, k.ordinal(), 0, a.first, 1, 0, tag, 2, 2 * k.size);
            k.copyOut(in, 0, 0, MemorySegment.ofArray(h), RmaHeader.INLINE_OFFSET, 2L * k.size);
            return track(target, reply, header(target, h), null, null, false, false);
        });
    }

    // ================================================================== checks

    /** Checks an operation; null for a target of PROC_NULL (nothing to do). */
    private Access access(String what, Object buf, int off, int count, Shape type, int target, long disp, int tcount,
                          Shape ttype) {
        checkUsable();
        if (target == CommState.PROC_NULL) {
            return null;
        }
        checkRank(target, "target rank");
        if (!inEpoch(target)) {
            throw new RailyardException(ErrorClass.RMA_SYNC, what + " to rank " + target + " of window " + name
                    + " outside an access epoch: call fence, start, lock or lockAll first");
        }
        if (failed[target] != null) {
            throw peerFailed(target);
        }
        checkOrigin(what, buf, off, count, type);
        if (tcount < 0) {
            throw new RailyardException(ErrorClass.COUNT, what + ": target count " + tcount + " is negative");
        }
        if (type.kind != ttype.kind || type.values(count) != ttype.values(tcount)) {
            throw mismatch(what, type, count, ttype, tcount);
        }
        Kind k = ttype.kind;
        long first = flavor == FLAVOR_DYNAMIC ? disp : disp * unitOf[target];
        long bytes = ttype.span(tcount) * k.size;
        if (flavor != FLAVOR_DYNAMIC && (disp < 0 || first < 0 || first + bytes > bytesOf[target])) {
            throw new RailyardException(ErrorClass.ARG, what + " to window " + name + ", target rank " + target
                    + ": bytes [" + first + ", " + (first + bytes) + ") (displacement " + disp + " x unit "
                    + unitOf[target] + ") lie outside its " + bytesOf[target] + " bytes");
        }
        if (arrayKindOf[target] >= 0 && (k.ordinal() != arrayKindOf[target] || first % k.size != 0)) {
            throw new RailyardException(ErrorClass.TYPE, what + " to window " + name + ", target rank " + target
                    + ": its memory is a " + Kind.values()[arrayKindOf[target]] + " array, which a target type of " + ttype
                    + " at byte " + first + " does not fit");
        }
        if (ttype.values(tcount) > Integer.MAX_VALUE) {
            throw new RailyardException(ErrorClass.COUNT, what + ": " + ttype.values(tcount) + " values is too many");
        }
        MemorySegment slice = parts == null ? null : parts[target].asSlice(first, bytes);
        return new Access(first, bytes, (int) ttype.values(tcount), slice);
    }

    private static void checkOrigin(String what, Object buf, int off, int count, Shape type) {
        if (count < 0) {
            throw new RailyardException(ErrorClass.COUNT, what + ": origin count " + count + " is negative");
        }
        long span = type.span(count);
        if (span > Integer.MAX_VALUE) {
            throw new RailyardException(ErrorClass.COUNT, what + ": the origin type spans " + span + " values");
        }
        type.kind.checkRange(buf, off, (int) span);
    }

    private RailyardException mismatch(String what, Shape type, int count, Shape ttype, int tcount) {
        return new RailyardException(ErrorClass.TYPE, what + " on window " + name + ": mismatched types, origin "
                + count + " x " + type + " (" + type.values(count) + " values), target " + tcount + " x " + ttype + " ("
                + ttype.values(tcount) + " values)");
    }

    private int reduction(Reduction op) {
        for (int i = 0; i < REDUCTIONS.length; i++) {
            if (REDUCTIONS[i] == op) {
                return i;
            }
        }
        throw new RailyardException(ErrorClass.OP, "window " + name + ": accumulates take the predefined operations, "
                + "REPLACE and NO_OP only, not " + op);
    }

    private void checkRank(int rank, String what) {
        if (rank < 0 || rank >= n) {
            throw new RailyardException(ErrorClass.RANK, what + " " + rank + " is out of range [0, " + n + ") for window "
                    + name);
        }
    }

    private void checkUsable() {
        if (freed) {
            throw new RailyardException(ErrorClass.ARG, "window " + name + " was freed");
        }
        s.checkComm(comm);
    }

    private boolean inEpoch(int t) {
        return fenceOpen || lockAllOn || lockType[t] != 0 || (startGroup != null && contains(startGroup, t));
    }

    private static boolean contains(int[] a, int v) {
        for (int x : a) {
            if (x == v) {
                return true;
            }
        }
        return false;
    }

    private RailyardException peerFailed(int t) {
        return new RailyardException(ErrorClass.PEER_FAILED, "window " + name + ": rank " + t + " failed: " + failed[t]);
    }

    // ================================================================== sending and tracking (lock held)

    private interface Locked<T> {
        T run();
    }

    private <T> T locked(Locked<T> body) {
        ReentrantLock lock = s.progressLock();
        lock.lock();
        try {
            return body.run();
        } finally {
            lock.unlock();
        }
    }

    private int nextReplyTag() {
        int tag = Target.TAG_REPLY + (replySeq & 0x0FFFFFFF);
        replySeq++;
        return tag;
    }

    private Transfer header(int target, long[] h) {
        return s.isend(comm, h, Kind.LONG, 0, h.length, target, Target.TAG_HDR);
    }

    /** The header of an operation carrying data: the data inline when small, else in a message of its own. */
    private static long[] withData(int op, Kind k, int red, Access a, int tcount, Shape ttype, int tag, Object buf,
                                   int off, int count, Shape type) {
        long bytes = (long) a.values * k.size;
        if (bytes == 0 || bytes > RmaHeader.INLINE_BYTES) {
            return RmaHeader.make(op, k.ordinal(), red, 0, a.first, tcount, shapeInts(ttype), tag, a.values);
        }
        long[] h = RmaHeader.makeInline(op, k.ordinal(), red, a.first, tcount, shapeInts(ttype), tag, a.values, (int) bytes);
        MemorySegment into = MemorySegment.ofArray(h);
        if (type.contiguous) {
            k.copyOut(buf, off, 0, into, RmaHeader.INLINE_OFFSET, bytes);
        } else {
            Object p = k.newArray(a.values);
            Packing.gather(buf, off, type, count, p);
            k.copyOut(p, 0, 0, into, RmaHeader.INLINE_OFFSET, bytes);
        }
        return h;
    }

    private static int shapeInts(Shape t) {
        return t.disp.length == 1 && t.disp[0] == 0 && t.len[0] == 1 && t.extent == 1 ? 0 : t.encode().length;
    }

    private Transfer shape(int target, Shape t) {
        if (shapeInts(t) == 0) {
            return null;
        }
        int[] e = t.encode();
        return s.isend(comm, e, Kind.INT, 0, e.length, target, Target.TAG_SHAPE);
    }

    private Transfer data(int target, Object buf, int off, int count, Shape type, int values) {
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

    private Transfer track(int target, Transfer a, Transfer b, Transfer c, Runnable after, boolean request,
                           boolean remote) {
        return pend(target, a, b, c, after, request, remote).req;
    }

    private Pending pend(int target, Transfer a, Transfer b, Transfer c, Runnable after, boolean request,
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

    private Transfer done(boolean request) {
        return request ? RmaRequest.done() : null;
    }

    /** Sends a synchronisation header to {@code t}, tracked until written. Lock held. */
    private void control(int t, int op, int lockType, long id) {
        pend(t, header(t, RmaHeader.make(op, 0, 0, lockType, 0, 0, 0, id, 0)), null, null, null, false, false);
    }

    /** Serves the other members and completes this origin's finished operations; lock held. */
    int progress() {
        int work = target.progress();
        for (int i = pending.size() - 1; i >= 0; i--) {
            Pending p = pending.get(i);
            if (!isDone(p.a) || !isDone(p.b) || !isDone(p.c)) {
                continue;
            }
            RailyardException err = errorOf(p.a, errorOf(p.b, errorOf(p.c, null)));
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
            pendingTo[p.target]--;
            pending.set(i, pending.get(pending.size() - 1));
            pending.remove(pending.size() - 1);
            work++;
        }
        return work;
    }

    private static boolean isDone(Transfer t) {
        return t == null || t.isDone();
    }

    private static RailyardException errorOf(Transfer t, RailyardException e) {
        return e != null || t == null || t.succeeded() ? e
                : t.error() != null ? t.error() : new RailyardException(ErrorClass.CANCELLED, "cancelled");
    }

    private void recycle(Transfer t) {
        if (t != null) {
            s.recycle(t);
        }
    }

    // ================================================================== from the target side (lock held)

    void onAck(int src, long[] h) {
        acked[src] = Math.max(acked[src], RmaHeader.id(h));
        int err = RmaHeader.error(h);
        if (err != 0 && deferred[src] == null) {
            long first = RmaHeader.errorFirst(h);
            deferred[src] = new RailyardException(err == RmaHeader.ERR_RANGE ? ErrorClass.ARG : ErrorClass.TYPE,
                    "an operation on window " + name + ", target rank " + src + ", bytes [" + first + ", "
                            + (first + RmaHeader.errorBytes(h)) + ") was refused there: "
                            + (err == RmaHeader.ERR_RANGE ? "outside its memory" : "it does not fit its memory's type"));
        }
    }

    void onGrant(int src) {
        grants[src]++;
    }

    void onPost(int src) {
        posts[src]++;
    }

    void onComplete(int src) {
        completes[src]++;
    }

    void onPeerFailed(int src, String reason) {
        if (failed[src] == null) {
            failed[src] = reason;
        }
    }

    // ================================================================== waiting

    private void waitUntil(BooleanSupplier done, String what) {
        if (!s.driveUntil(done, Rma.timeoutNanos())) {
            throw new RailyardException(ErrorClass.TIMEOUT, "window " + name + ": waited "
                    + Rma.timeoutNanos() / 1_000_000_000L + " s (" + Rma.TIMEOUT_PROP + ") for " + what);
        }
    }

    private void throwDeferred(int t) {
        if (failed[t] != null) {
            throw peerFailed(t);
        }
        RailyardException e = deferred[t];
        if (e != null) {
            deferred[t] = null;
            throw new RailyardException(e.errorClass(), e.getMessage(), e);
        }
    }

    // ================================================================== passive target

    public void flush(int t, boolean local) {
        checkUsable();
        if (t == CommState.PROC_NULL) {
            return;
        }
        checkRank(t, "target rank");
        // nothing issued by this thread is under way (the counts it wrote itself, under the lock, are 0)
        if (pendingTo[t] == 0 && (local || opsSince[t] == 0) && failed[t] == null && deferred[t] == null) {
            VarHandle.fullFence();
            return;
        }
        if (!local) {
            locked(() -> {
                startFlush(t);
                return null;
            });
        }
        waitUntil(() -> flushed(t, local), (local ? "local" : "remote") + " completion of the operations to rank " + t);
        VarHandle.fullFence();
        throwDeferred(t);
    }

    public void flushAll(boolean local) {
        checkUsable();
        if (!local) {
            locked(() -> {
                for (int t = 0; t < n; t++) {
                    startFlush(t);
                }
                return null;
            });
        }
        waitUntil(() -> {
            for (int t = 0; t < n; t++) {
                if (!flushed(t, local)) {
                    return false;
                }
            }
            return true;
        }, (local ? "local" : "remote") + " completion of the operations to every rank");
        VarHandle.fullFence();
        for (int t = 0; t < n; t++) {
            throwDeferred(t);
        }
    }

    /** Asks {@code t} to acknowledge every operation so far, if some were issued since the last time; lock held. */
    private void startFlush(int t) {
        if (opsSince[t] > 0 && failed[t] == null) {
            opsSince[t] = 0;
            control(t, RmaHeader.OP_FLUSH, 0, ++flushSent[t]);
        }
    }

    private boolean flushed(int t, boolean local) {
        return pendingTo[t] == 0 && (local || acked[t] >= flushSent[t] || failed[t] != null);
    }

    public void lock(int type, int t, int assertions) {
        checkUsable();
        if (type != LOCK_EXCLUSIVE && type != LOCK_SHARED) {
            throw new RailyardException(ErrorClass.ARG, "lock type " + type + " on window " + name
                    + " is neither LOCK_EXCLUSIVE nor LOCK_SHARED");
        }
        if (t == CommState.PROC_NULL) {
            return;
        }
        checkRank(t, "target rank");
        if (lockType[t] != 0 || lockAllOn) {
            throw new RailyardException(ErrorClass.RMA_SYNC, "lock of rank " + t + " on window " + name
                    + ": this process already holds a lock on it (unlock first)");
        }
        if (failed[t] != null) {
            throw peerFailed(t);
        }
        if ((assertions & MODE_NOCHECK) != 0) {
            lockType[t] = type;
            lockNoCheck[t] = true;
            return;
        }
        long wanted = locked(() -> {
            control(t, RmaHeader.OP_LOCK, type, 0);
            return ++grantsWanted[t];
        });
        waitUntil(() -> grants[t] >= wanted || failed[t] != null, "the lock of rank " + t);
        if (failed[t] != null) {
            throw peerFailed(t);
        }
        lockType[t] = type;
        lockNoCheck[t] = false;
    }

    public void unlock(int t) {
        checkUsable();
        if (t == CommState.PROC_NULL) {
            return;
        }
        checkRank(t, "target rank");
        if (lockType[t] == 0) {
            throw new RailyardException(ErrorClass.RMA_SYNC, "unlock of rank " + t + " on window " + name
                    + ": this process holds no lock on it");
        }
        boolean noCheck = lockNoCheck[t];
        lockType[t] = 0;
        release(new int[] {t}, noCheck);
    }

    public void lockAll(int assertions) {
        checkUsable();
        for (int t = 0; t < n; t++) {
            if (lockType[t] != 0 || lockAllOn) {
                throw new RailyardException(ErrorClass.RMA_SYNC, "lockAll on window " + name
                        + ": this process already holds a lock on rank " + t + " (unlock first)");
            }
        }
        if ((assertions & MODE_NOCHECK) != 0) {
            lockAllOn = true;
            lockAllNoCheck = true;
            return;
        }
        long[] wanted = new long[n];
        locked(() -> {
            for (int t = 0; t < n; t++) {
                if (failed[t] == null) {
                    control(t, RmaHeader.OP_LOCK, LOCK_SHARED, 0);
                    wanted[t] = ++grantsWanted[t];
                }
            }
            return null;
        });
        waitUntil(() -> {
            for (int t = 0; t < n; t++) {
                if (failed[t] == null && grants[t] < wanted[t]) {
                    return false;
                }
            }
            return true;
        }, "the shared lock of every rank");
        lockAllOn = true;
        lockAllNoCheck = false;
        for (int t = 0; t < n; t++) {
            if (failed[t] != null) {
                throw peerFailed(t);
            }
        }
    }

    public void unlockAll() {
        checkUsable();
        if (!lockAllOn) {
            throw new RailyardException(ErrorClass.RMA_SYNC, "unlockAll on window " + name + " without lockAll");
        }
        lockAllOn = false;
        int[] all = new int[n];
        for (int t = 0; t < n; t++) {
            all[t] = t;
        }
        release(all, lockAllNoCheck);
    }

    /** Completes every operation to {@code targets} remotely and releases their locks (unless taken with NOCHECK). */
    private void release(int[] targets, boolean noCheck) {
        locked(() -> {
            for (int t : targets) {
                if (failed[t] != null) {
                    continue;
                }
                if (noCheck) {
                    startFlush(t);
                } else {
                    opsSince[t] = 0;
                    control(t, RmaHeader.OP_UNLOCK, 0, ++flushSent[t]);
                }
            }
            return null;
        });
        waitUntil(() -> {
            for (int t : targets) {
                if (!flushed(t, false)) {
                    return false;
                }
            }
            return true;
        }, "the unlock of " + (targets.length == 1 ? "rank " + targets[0] : "every rank"));
        VarHandle.fullFence();
        for (int t : targets) {
            throwDeferred(t);
        }
    }

    public void sync() {
        checkUsable();
        VarHandle.fullFence();
    }

    // ================================================================== active target

    public void fence(int assertions) {
        checkUsable();
        if (lockAllOn || startGroup != null || anyLock()) {
            throw new RailyardException(ErrorClass.RMA_SYNC, "fence on window " + name
                    + " inside a lock or start epoch (unlock or complete first)");
        }
        if ((assertions & MODE_NOPRECEDE) == 0 || !pending.isEmpty()) {
            flushAll(false);
        }
        s.barrier(comm);
        VarHandle.fullFence();
        fenceOpen = (assertions & MODE_NOSUCCEED) == 0;
    }

    private boolean anyLock() {
        for (int t = 0; t < n; t++) {
            if (lockType[t] != 0) {
                return true;
            }
        }
        return false;
    }

    public void post(int[] worldRanks, int assertions) {
        checkUsable();
        if (postGroup != null) {
            throw new RailyardException(ErrorClass.RMA_SYNC, "post on window " + name
                    + " while an exposure epoch is open (waitFor or test first)");
        }
        int[] g = members(worldRanks, "post");
        VarHandle.fullFence();
        locked(() -> {
            for (int r : g) {
                completesWanted[r]++;
                if (failed[r] == null) {
                    target.send(r, RmaHeader.make(RmaHeader.OP_POST, 0, 0, 0, 0, 0, 0, 0, 0));
                }
            }
            return null;
        });
        postGroup = g;
    }

    public void start(int[] worldRanks, int assertions) {
        checkUsable();
        if (startGroup != null) {
            throw new RailyardException(ErrorClass.RMA_SYNC, "start on window " + name
                    + " while an access epoch is open (complete first)");
        }
        int[] g = members(worldRanks, "start");
        locked(() -> {
            for (int r : g) {
                postsWanted[r]++;
            }
            return null;
        });
        if ((assertions & MODE_NOCHECK) == 0) {
            waitUntil(() -> {
                for (int r : g) {
                    if (posts[r] < postsWanted[r] && failed[r] == null) {
                        return false;
                    }
                }
                return true;
            }, "the post of every target of start");
            for (int r : g) {
                if (failed[r] != null) {
                    throw peerFailed(r);
                }
            }
        }
        startGroup = g;
    }

    public void complete() {
        checkUsable();
        int[] g = startGroup;
        if (g == null) {
            throw new RailyardException(ErrorClass.RMA_SYNC, "complete on window " + name + " without start");
        }
        startGroup = null;
        VarHandle.fullFence();
        locked(() -> {
            for (int r : g) {
                if (failed[r] == null) {
                    opsSince[r] = 0;
                    control(r, RmaHeader.OP_COMPLETE, 0, 0);
                }
            }
            return null;
        });
        waitUntil(() -> {
            for (int r : g) {
                if (pendingTo[r] != 0) {
                    return false;
                }
            }
            return true;
        }, "local completion of the access epoch");
        for (int r : g) {
            throwDeferred(r);
        }
    }

    public void waitFor() {
        checkUsable();
        int[] g = exposure("waitFor");
        waitUntil(() -> exposureDone(g), "the complete of every origin of post");
        endExposure(g);
    }

    public boolean test() {
        checkUsable();
        int[] g = exposure("test");
        if (!s.driveUntil(() -> exposureDone(g), 0)) {
            return false;
        }
        endExposure(g);
        return true;
    }

    private int[] exposure(String what) {
        if (postGroup == null) {
            throw new RailyardException(ErrorClass.RMA_SYNC, what + " on window " + name + " without post");
        }
        return postGroup;
    }

    private boolean exposureDone(int[] g) {
        for (int r : g) {
            if (completes[r] < completesWanted[r] && failed[r] == null) {
                return false;
            }
        }
        return true;
    }

    private void endExposure(int[] g) {
        postGroup = null;
        VarHandle.fullFence();
        for (int r : g) {
            if (failed[r] != null) {
                throw peerFailed(r);
            }
        }
    }

    /** The window ranks of {@code worldRanks}; an ARG error names one that is no member. */
    private int[] members(int[] worldRanks, String what) {
        int[] g = new int[worldRanks.length];
        for (int i = 0; i < g.length; i++) {
            g[i] = comm.localRank(worldRanks[i]);
            if (g[i] < 0 || g[i] >= n) {
                throw new RailyardException(ErrorClass.ARG, what + " on window " + name + ": world rank " + worldRanks[i]
                        + " of the group is no member of the window");
            }
        }
        return g;
    }

    // ================================================================== free

    public void free() {
        if (freed) {
            throw new RailyardException(ErrorClass.ARG, "window " + name + " was already freed");
        }
        s.checkComm(comm);
        String epoch = lockAllOn ? "a lockAll" : anyLock() ? "a lock" : startGroup != null ? "a start"
                : postGroup != null ? "a post" : null;
        if (epoch != null) {
            throw new RailyardException(ErrorClass.RMA_SYNC, "free of window " + name + " inside " + epoch
                    + " epoch: end it first (unlock, unlockAll, complete, waitFor)");
        }
        int unfinished = locked(() -> {
            int u = pending.size();
            for (int t = 0; t < n; t++) {
                u += opsSince[t];
            }
            return u;
        });
        if (unfinished > 0) {
            throw new RailyardException(ErrorClass.RMA_SYNC, "free of window " + name + " with " + unfinished
                    + " operations pending: complete them first (fence, flush, unlock)");
        }
        s.barrier(comm);
        waitUntil(() -> !target.sending(), "the last replies of the window");
        freed = true;
        locked(() -> {
            target.stop();
            rma.unregister(this);
            return null;
        });
        s.free(comm);
        if (arena != null) {
            arena.close();
        }
    }

    @Override
    public String toString() {
        return name;
    }
}
