package org.railyard.engine.rma;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import org.railyard.types.Kind;
import org.railyard.engine.request.Transfer;
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
 *
 * <p>This class checks and issues the operations and frees the window; the epochs and their
 * synchronisation calls are {@link Epochs}, and the sends, the operations under way, their
 * completion counts and the errors deferred to the next synchronisation are {@link Outbound}.
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
    /** The fence's barrier and the accumulate locks of a mapped window, else null. */
    private final SharedHeader shared;
    private final SharedAccess atomics;
    private final Arena arena;
    private final Target target;
    private final Outbound out;
    private final Epochs epochs;
    private String name;
    private boolean freed;

    RmaWindow(Rma rma, RmaServices s, CommState comm, String name, int flavor, WindowMemory mem, Object buffer,
              long[] info, MemorySegment[] parts, MemorySegment header, Arena arena) {
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
        this.shared = header == null ? null : new SharedHeader(header, n, this, rma.waitPlan());
        this.atomics = header == null ? null : new SharedAccess(shared, n);
        this.arena = arena;
        this.target = new Target(this, s, comm, mem);
        this.out = new Outbound(this, s, comm, n);
        this.epochs = new Epochs(this, s, comm, out, target, shared, n);
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

    /** Bytes of data up to which this window's operations over messages travel inline ({@link Rma#INLINE_PROP}). */
    int inlineBytes() {
        return out.inlineBytes;
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

    /** What {@link #access} returns for an operation to PROC_NULL (a dynamic window's addresses may be any long). */
    private static final long NOTHING = Long.MIN_VALUE;

    /** Where a remote operation lands: the target's first byte, and its values. */
    private record Access(long first, int values) {
    }

    /** The target's mapped memory from byte {@code first} for {@code tcount} elements of {@code ttype} (a slice: not for the hot path). */
    private MemorySegment slice(int target, long first, Shape ttype, int tcount) {
        return parts[target].asSlice(first, ttype.span(tcount) * ttype.kind.size);
    }

    public Transfer put(Object buf, int off, int count, Shape type, int target, long disp, int tcount, Shape ttype,
                        boolean request) {
        long first = access("put", buf, off, count, type, target, disp, tcount, ttype);
        if (first == NOTHING) {
            return done(request);
        }
        int values = (int) ttype.values(tcount);
        Kind k = ttype.kind;
        if (parts != null) {
            if (type.contiguous && ttype.contiguous) {
                k.copyOut(buf, off, 0, parts[target], first, (long) values * k.size);
            } else {
                Object p = k.newArray(values);
                Packing.gather(buf, off, type, count, p);
                Packing.scatter(p, slice(target, first, ttype, tcount), 0, ttype, tcount);
            }
            return done(request);
        }
        if (out.batchInline(target, RmaHeader.OP_PUT, k, 0, first, tcount, values, buf, off, type, ttype)) {
            return done(request);
        }
        Access a = new Access(first, values);
        return out.locked(() -> {
            long[] h = withData(out.inlineBytes, RmaHeader.OP_PUT, k, 0, a, tcount, ttype, 0, buf, off, count, type);
            if (Outbound.batchable(h)) {
                out.batch(target, h);
                return done(request);
            }
            return out.track(target, out.header(target, h), out.shape(target, ttype), RmaHeader.inline(h) ? null
                    : out.data(target, buf, off, count, type, a.values), null, request, true);
        });
    }

    public Transfer get(Object buf, int off, int count, Shape type, int target, long disp, int tcount, Shape ttype,
                        boolean request) {
        long first = access("get", buf, off, count, type, target, disp, tcount, ttype);
        if (first == NOTHING) {
            return done(request);
        }
        int values = (int) ttype.values(tcount);
        Kind k = ttype.kind;
        if (parts != null) {
            if (type.contiguous && ttype.contiguous) {
                k.copyIn(parts[target], first, buf, off, 0, (long) values * k.size);
            } else {
                Object p = k.newArray(values);
                Packing.gather(slice(target, first, ttype, tcount), 0, ttype, tcount, p);
                Packing.scatter(p, buf, off, type, count);
            }
            return done(request);
        }
        Access a = new Access(first, values);
        return out.locked(() -> {
            if (type.contiguous) {
                long[] hb = RmaHeader.make(RmaHeader.OP_GET, k.ordinal(), 0, 0, a.first, tcount,
                        Outbound.shapeInts(ttype), 0, a.values);
                if (out.batchableWithResult(hb, (long) a.values * k.size)) {
                    return out.batchWithResult(target, hb, buf, off, k, a.values, request);
                }
            }
            int tag = out.nextReplyTag();
            Transfer reply;
            Runnable after = null;
            if (type.contiguous) {
                reply = s.irecv(comm, buf, k, off, a.values, target, tag);
            } else {
                Object p = k.newArray(a.values);
                reply = s.irecv(comm, p, k, 0, a.values, target, tag);
                after = () -> Packing.scatter(p, buf, off, type, count);
            }
            long[] h = RmaHeader.make(RmaHeader.OP_GET, k.ordinal(), 0, 0, a.first, tcount, Outbound.shapeInts(ttype), tag,
                    a.values);
            return out.track(target, reply, out.header(target, h), out.shape(target, ttype), after, request, false);
        });
    }

    public Transfer accumulate(Object buf, int off, int count, Shape type, int target, long disp, int tcount,
                               Shape ttype, Reduction op, boolean request) {
        int red = reduction(op);
        long first = access("accumulate", buf, off, count, type, target, disp, tcount, ttype);
        if (first == NOTHING) {
            return done(request);
        }
        int values = (int) ttype.values(tcount);
        Kind k = ttype.kind;
        if (parts != null) {
            boolean direct = direct(buf, type);
            Object in = direct ? buf : k.newArray(values);
            if (!direct) {
                Packing.gather(buf, off, type, count, in);
            }
            atomics.accumulate(target, parts[target], first, ttype, tcount, op, in, direct ? off : 0, null, 0);
            return done(request);
        }
        if (out.batchInline(target, RmaHeader.OP_ACC, k, red, first, tcount, values, buf, off, type, ttype)) {
            return done(request);
        }
        Access a = new Access(first, values);
        return out.locked(() -> {
            long[] h = withData(out.inlineBytes, RmaHeader.OP_ACC, k, red, a, tcount, ttype, 0, buf, off, count, type);
            if (Outbound.batchable(h)) {
                out.batch(target, h);
                return done(request);
            }
            return out.track(target, out.header(target, h), out.shape(target, ttype), RmaHeader.inline(h) ? null
                    : out.data(target, buf, off, count, type, a.values), null, request, true);
        });
    }

    public Transfer getAccumulate(Object buf, int off, int count, Shape type, Object result, int roff, int rcount,
                                  Shape rtype, int target, long disp, int tcount, Shape ttype, Reduction op,
                                  boolean request) {
        int red = reduction(op);
        boolean noOp = op == RmaOps.NO_OP;
        long first = access("getAccumulate", result, roff, rcount, rtype, target, disp, tcount, ttype);
        if (first == NOTHING) {
            return done(request);
        }
        int values = (int) ttype.values(tcount);
        Kind k = ttype.kind;
        if (!noOp) {
            checkOrigin("getAccumulate", buf, off, count, type);
            if (type.kind != k || type.values(count) != values) {
                throw mismatch("getAccumulate", type, count, ttype, tcount);
            }
        }
        if (parts != null) {
            boolean inDirect = !noOp && direct(buf, type);
            Object in = noOp ? null : inDirect ? buf : k.newArray(values);
            if (!noOp && !inDirect) {
                Packing.gather(buf, off, type, count, in);
            }
            boolean oldDirect = direct(result, rtype);
            Object old = oldDirect ? result : k.newArray(values);
            atomics.accumulate(target, parts[target], first, ttype, tcount, op, in, inDirect ? off : 0, old,
                    oldDirect ? roff : 0);
            if (!oldDirect) {
                Packing.scatter(old, result, roff, rtype, rcount);
            }
            return done(request);
        }
        Access a = new Access(first, values);
        return out.locked(() -> {
            if (rtype.contiguous) {
                long[] hb = noOp ? RmaHeader.make(RmaHeader.OP_GET_ACC, k.ordinal(), red, 0, a.first, tcount,
                        Outbound.shapeInts(ttype), 0, 0)
                        : withData(out.inlineBytes, RmaHeader.OP_GET_ACC, k, red, a, tcount, ttype, 0, buf, off, count,
                                type);
                if (out.batchableWithResult(hb, (long) a.values * k.size)) {
                    return out.batchWithResult(target, hb, result, roff, k, a.values, request);
                }
            }
            int tag = out.nextReplyTag();
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
                    Outbound.shapeInts(ttype), tag, 0)
                    : withData(out.inlineBytes, RmaHeader.OP_GET_ACC, k, red, a, tcount, ttype, tag, buf, off, count,
                            type);
            Transfer hs = out.header(target, h);
            Transfer sh = out.shape(target, ttype);
            Transfer d = noOp || RmaHeader.inline(h) ? null : out.data(target, buf, off, count, type, a.values);
            // its reply comes once the target applied it: local completion is remote completion
            Outbound.Pending p = out.pend(target, reply, hs, sh, after, request, false);
            if (d != null) {
                out.track(target, d, null, null, null, false, false);
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
        long first = access("compareAndSwap", result, roff, 1, one, target, disp, 1, one);
        if (first == NOTHING) {
            return;
        }
        Access a = new Access(first, 1);
        checkOrigin("compareAndSwap", buf, off, 1, one);
        checkOrigin("compareAndSwap", compare, coff, 1, one);
        if (parts != null) {
            boolean direct = direct(buf, one) && direct(compare, one) && direct(result, one);
            if (direct) {
                atomics.compareAndSwap(target, parts[target], first, k, buf, off, compare, coff, result, roff);
                return;
            }
            Object origin = k.newArray(1);
            Object expected = k.newArray(1);
            Object old = k.newArray(1);
            Packing.gather(buf, off, one, 1, origin);
            Packing.gather(compare, coff, one, 1, expected);
            atomics.compareAndSwap(target, parts[target], first, k, origin, 0, expected, 0, old, 0);
            Packing.scatter(old, result, roff, one, 1);
            return;
        }
        Object in = k.newArray(2);
        Object single = k.newArray(1);
        Packing.gather(buf, off, one, 1, single);
        System.arraycopy(single, 0, in, 0, 1);
        Packing.gather(compare, coff, one, 1, single);
        System.arraycopy(single, 0, in, 1, 1);
        out.locked(() -> {
            long[] h = RmaHeader.makeInline(RmaHeader.OP_CAS, k.ordinal(), 0, a.first, 1, 0, 0, 2, 2 * k.size);
            k.copyOut(in, 0, 0, MemorySegment.ofArray(h), RmaHeader.INLINE_OFFSET, 2L * k.size);
            if (out.batchableWithResult(h, k.size)) {
                return out.batchWithResult(target, h, result, roff, k, 1, false);
            }
            int tag = out.nextReplyTag();
            RmaHeader.setId(h, tag);
            Transfer reply = s.irecv(comm, result, k, roff, 1, target, tag);
            return out.track(target, reply, out.header(target, h), null, null, false, false);
        });
    }

    // ================================================================== checks

    /** Checks an operation; returns its first byte at the target, or {@link #NOTHING} for a target of PROC_NULL. */
    private long access(String what, Object buf, int off, int count, Shape type, int target, long disp, int tcount,
                          Shape ttype) {
        checkUsable();
        if (target == CommState.PROC_NULL) {
            return NOTHING;
        }
        checkRank(target, "target rank");
        if (!epochs.inEpoch(target)) {
            throw new RailyardException(ErrorClass.RMA_SYNC, what + " to rank " + target + " of window " + name
                    + " outside an access epoch: call fence, start, lock or lockAll first");
        }
        if (out.failed[target] != null) {
            throw out.peerFailed(target);
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
        return first;
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

    void checkRank(int rank, String what) {
        if (rank < 0 || rank >= n) {
            throw new RailyardException(ErrorClass.RANK, what + " " + rank + " is out of range [0, " + n + ") for window "
                    + name);
        }
    }

    void checkUsable() {
        if (freed) {
            throw new RailyardException(ErrorClass.ARG, "window " + name + " was freed");
        }
        s.checkComm(comm);
    }


    // ================================================================== building messages

    private static long[] withData(int inlineBytes, int op, Kind k, int red, Access a, int tcount, Shape ttype, int tag,
                                   Object buf, int off, int count, Shape type) {
        long bytes = (long) a.values * k.size;
        if (bytes == 0 || bytes > inlineBytes) {
            return RmaHeader.make(op, k.ordinal(), red, 0, a.first, tcount, Outbound.shapeInts(ttype), tag, a.values);
        }
        long[] h = RmaHeader.makeInline(op, k.ordinal(), red, a.first, tcount, Outbound.shapeInts(ttype), tag, a.values,
                (int) bytes);
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


    /** True if {@code buf} holds the values of {@code type} consecutively in a Java array of its kind. */
    private static boolean direct(Object buf, Shape type) {
        return type.contiguous && Packing.segment(buf) == null;
    }

    private Transfer done(boolean request) {
        return request ? RmaRequest.done() : null;
    }


    // ================================================================== synchronisation (Epochs)

    public void flush(int t, boolean local) {
        epochs.flush(t, local);
    }

    public void flushAll(boolean local) {
        epochs.flushAll(local);
    }

    public void lock(int type, int t, int assertions) {
        epochs.lock(type, t, assertions);
    }

    public void unlock(int t) {
        epochs.unlock(t);
    }

    public void lockAll(int assertions) {
        epochs.lockAll(assertions);
    }

    public void unlockAll() {
        epochs.unlockAll();
    }

    public void sync() {
        epochs.sync();
    }

    public void fence(int assertions) {
        epochs.fence(assertions);
    }

    public void post(int[] worldRanks, int assertions) {
        epochs.pscw.post(worldRanks, assertions);
    }

    public void start(int[] worldRanks, int assertions) {
        epochs.pscw.start(worldRanks, assertions);
    }

    public void complete() {
        epochs.pscw.complete();
    }

    public void waitFor() {
        epochs.pscw.waitFor();
    }

    public boolean test() {
        return epochs.pscw.test();
    }

    // ================================================================== from the target side (lock held)

    /** Serves the other members and completes this origin's finished operations; lock held. */
    int progress() {
        int work = target.progress();
        return work + out.progress();
    }

    void onAck(int src, long[] h) {
        out.onAck(src, h);
    }

    void onGrant(int src) {
        epochs.onGrant(src);
    }

    void onPost(int src) {
        epochs.pscw.onPost(src);
    }

    void onComplete(int src) {
        epochs.pscw.onComplete(src);
    }

    void onPeerFailed(int src, String reason) {
        out.onPeerFailed(src, reason);
    }

    // ================================================================== free

    public void free() {
        if (freed) {
            throw new RailyardException(ErrorClass.ARG, "window " + name + " was already freed");
        }
        s.checkComm(comm);
        String epoch = epochs.lockAllOn ? "a lockAll" : epochs.anyLock() ? "a lock"
                : epochs.pscw.startGroup != null ? "a start"
                : epochs.pscw.postGroup != null ? "a post" : null;
        if (epoch != null) {
            throw new RailyardException(ErrorClass.RMA_SYNC, "free of window " + name + " inside " + epoch
                    + " epoch: end it first (unlock, unlockAll, complete, waitFor)");
        }
        int unfinished = out.locked(() -> {
            int u = out.pending.size();
            for (int t = 0; t < n; t++) {
                u += out.opsSince[t] + out.batchedResults(t);
            }
            return u;
        });
        if (unfinished > 0) {
            throw new RailyardException(ErrorClass.RMA_SYNC, "free of window " + name + " with " + unfinished
                    + " operations pending: complete them first (fence, flush, unlock)");
        }
        s.barrier(comm);
        out.waitUntil(() -> !target.sending(), "the last replies of the window");
        freed = true;
        out.locked(() -> {
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
