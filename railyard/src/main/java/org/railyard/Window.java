package org.railyard;

import java.lang.foreign.MemorySegment;
import org.railyard.types.Kind;
import org.railyard.engine.rma.RmaWindow;
import org.railyard.engine.rma.Shape;

/**
 * A window of memory that the other members of a communicator read and write without this process
 * taking part: one-sided communication (MPI-3 RMA).
 *
 * <h2>Creation (collective over the communicator)</h2>
 * <ul>
 *   <li>{@link #create(Comm, Object, int)} exposes a buffer of the program: a primitive array, a
 *       {@link java.nio.ByteBuffer} (direct or not) or a {@link MemorySegment} of a shared or
 *       global arena;</li>
 *   <li>{@link #allocate(Comm, long, int)} lets the library allocate the memory (native, zeroed);</li>
 *   <li>{@link #allocateShared(Comm, long, int)} allocates it in one mapped segment every member
 *       sees (all members on one node): {@link #sharedQuery(int)} gives the memory of another
 *       member, to load and store directly;</li>
 *   <li>{@link #createDynamic(Comm)} exposes nothing at first; {@link #attach(MemorySegment)}
 *       adds memory, addressed by its {@linkplain MemorySegment#address() address}.</li>
 * </ul>
 * Each member may expose a different size and displacement unit. Target displacements count
 * {@code dispUnit} bytes from the start of the target's memory (bytes from address 0, for a dynamic
 * window). A window over a Java array is addressed in bytes like any other, but a target datatype
 * must be the array's element type and land on whole elements.
 *
 * <h2>Operations</h2>
 * {@code put}, {@code get}, {@code accumulate}, {@code getAccumulate}, {@code fetchAndOp},
 * {@code compareAndSwap}; the {@code r*} forms return a {@link Request} that completes when the
 * origin buffer may be reused (put, accumulate) or holds the result (get, getAccumulate). Origin
 * offsets and counts are in elements of the origin type, as in {@link Comm}; the short forms infer
 * the type from the buffer and use the same type and count at the target. Derived types at either
 * end are {@link Layout}s. Accumulates take every predefined {@link Op} plus {@link Op#REPLACE} and
 * {@link Op#NO_OP}; accumulates to the same location are atomic per element and applied in the
 * order one origin issued them (MPI-3's default ordering); put and get are not ordered against each
 * other.
 *
 * <h2>Synchronisation</h2>
 * Every operation must lie in an access epoch to its target, opened by one of:
 * <ul>
 *   <li>active target, collective: {@link #fence(int)} (assertions {@link #MODE_NOPRECEDE},
 *       {@link #MODE_NOSUCCEED}, {@link #MODE_NOSTORE}, {@link #MODE_NOPUT}); the operations issued
 *       between two fences are complete at every target when the second returns;</li>
 *   <li>active target, by group: {@link #post}/{@link #waitFor}/{@link #test} at the target
 *       (exposure epoch), {@link #start}/{@link #complete} at the origin (access epoch);</li>
 *   <li>passive target: {@link #lock}/{@link #unlock} (shared or exclusive), {@link #lockAll}/
 *       {@link #unlockAll}; within them {@link #flush} and {@link #flushAll} complete operations at
 *       the target, {@link #flushLocal} and {@link #flushLocalAll} only at the origin. The target
 *       calls nothing: its progress agent serves the lock and applies the operations while it
 *       computes.</li>
 * </ul>
 * An operation outside every epoch fails with {@link org.railyard.error.ErrorClass#RMA_SYNC}; a
 * displacement or count reaching outside the target's memory fails with
 * {@link org.railyard.error.ErrorClass#ARG}, naming the window, the target rank and the byte range;
 * a target type that does not match a Java array window fails with
 * {@link org.railyard.error.ErrorClass#TYPE}. A target whose process dies fails the operations and
 * the waits that need it with {@link org.railyard.error.ErrorClass#PEER_FAILED}; the window stays
 * usable towards the other members.
 *
 * <h2>Paths</h2>
 * A window from {@link #allocateShared} is reached by loads, stores and atomic {@code VarHandle}
 * operations of the origin itself. Every other window is reached through its owner's engine: the
 * operations travel as messages on the existing channels (large ones striped over the peer's rails
 * like any large message) and the target's progress agent applies them; see docs/ARCHITECTURE.md,
 * "The life of a put".
 *
 * <p>Threads: calls may come from several threads; the epochs themselves are per process, as in
 * MPI. {@link #close()} is {@link #free()}.
 */
public final class Window implements AutoCloseable {
    /** Lock type of {@link #lock}: no other lock on the target at the same time. */
    public static final int LOCK_EXCLUSIVE = RmaWindow.LOCK_EXCLUSIVE;
    /** Lock type of {@link #lock}: other shared locks may be held at the same time. */
    public static final int LOCK_SHARED = RmaWindow.LOCK_SHARED;

    /** Assertion: no other process holds or tries a conflicting lock (lock, lockAll, start, post). */
    public static final int MODE_NOCHECK = RmaWindow.MODE_NOCHECK;
    /** Assertion of fence and post: this process's window was not written locally since the last sync. */
    public static final int MODE_NOSTORE = RmaWindow.MODE_NOSTORE;
    /** Assertion of fence and post: nobody will put or accumulate into this window until the next sync. */
    public static final int MODE_NOPUT = RmaWindow.MODE_NOPUT;
    /** Assertion of fence: no operation issued before this fence needs completing (the first fence). */
    public static final int MODE_NOPRECEDE = RmaWindow.MODE_NOPRECEDE;
    /** Assertion of fence: no operation will follow this fence (the last fence). */
    public static final int MODE_NOSUCCEED = RmaWindow.MODE_NOSUCCEED;

    /** How the memory of a window came to be ({@link #flavor()}). */
    public enum Flavor { CREATE, ALLOCATE, SHARED, DYNAMIC }

    private final Comm comm;
    private final RmaWindow win;

    private Window(Comm comm, RmaWindow win) {
        this.comm = comm;
        this.win = win;
    }

    // ================================================================== creation

    /**
     * Collective: exposes {@code buffer} (a primitive array, a {@link java.nio.ByteBuffer} or a
     * {@link MemorySegment}; null for no memory at this process) to the other members of
     * {@code comm}. Displacements at this target count {@code dispUnit} bytes.
     */
    public static Window create(Comm comm, Object buffer, int dispUnit) {
        return new Window(comm, comm.engine.rma().create(comm.state, buffer, dispUnit));
    }

    /** Collective: a window of {@code bytes} bytes of native memory allocated by the library, zeroed; {@link #memory()} is it. */
    public static Window allocate(Comm comm, long bytes, int dispUnit) {
        return new Window(comm, comm.engine.rma().allocate(comm.state, bytes, dispUnit, false));
    }

    /**
     * Collective: like {@link #allocate}, the memory of all members in one segment mapped by every
     * member (all on one node, else an ARG error naming the node of each); {@link #sharedQuery}
     * returns any member's part, which this process may load and store directly.
     */
    public static Window allocateShared(Comm comm, long bytes, int dispUnit) {
        return new Window(comm, comm.engine.rma().allocate(comm.state, bytes, dispUnit, true));
    }

    /** Collective: a window with no memory; {@link #attach} adds some. Displacements are addresses (unit 1). */
    public static Window createDynamic(Comm comm) {
        return new Window(comm, comm.engine.rma().createDynamic(comm.state));
    }

    /**
     * Local: exposes {@code segment} (of a shared or global arena) in a dynamic window; the other
     * members reach it at displacement {@code segment.address()}, which they must learn from this
     * process (send it). Returns that address.
     */
    public long attach(MemorySegment segment) {
        return win.attach(segment);
    }

    /** Local: stops exposing a segment attached before; operations on it fail afterwards. */
    public void detach(MemorySegment segment) {
        win.detach(segment);
    }

    // ================================================================== what it is

    /** The communicator the window was created over. */
    public Comm comm() {
        return comm;
    }

    /** The group of the window: the communicator's. */
    public Group group() {
        return comm.group();
    }

    /** This process's rank in the window's group. */
    public int rank() {
        return comm.rank();
    }

    /** Members of the window. */
    public int size() {
        return comm.size();
    }

    /** How the memory came to be. */
    public Flavor flavor() {
        return Flavor.values()[win.flavor()];
    }

    /** Bytes this process exposes (0 for a dynamic window). */
    public long bytes() {
        return win.bytes();
    }

    /** This process's displacement unit, in bytes. */
    public int dispUnit() {
        return win.dispUnit();
    }

    /** The buffer given to {@link #create}, or null for other flavours. */
    public Object buffer() {
        return win.buffer();
    }

    /**
     * This process's window memory as a segment: the allocated memory ({@link #allocate},
     * {@link #allocateShared}), or the segment / direct buffer given to {@link #create}; null for
     * an array or heap buffer and for a dynamic window. Local loads and stores to it must be
     * separated from remote operations by a synchronisation, as in MPI's separate model.
     */
    public MemorySegment memory() {
        return win.memory();
    }

    /**
     * The window memory of member {@code rank} of a shared window ({@link #allocateShared}),
     * mapped into this process, to load and store directly (atomic accesses through
     * {@link java.lang.invoke.VarHandle}s of {@link java.lang.foreign.ValueLayout}s are atomic
     * against the library's accumulates). {@link Comm#PROC_NULL} gives the first member with a
     * non-empty part. Not a shared window: ARG error.
     */
    public MemorySegment sharedQuery(int rank) {
        return win.sharedQuery(rank);
    }

    /** The displacement unit of member {@code rank} (any flavour). */
    public int dispUnit(int rank) {
        return win.dispUnit(rank);
    }

    /** A name for messages: "win3 on WORLD" unless set. */
    public String name() {
        return win.name();
    }

    /** Sets the name used in messages. */
    public void setName(String name) {
        win.setName(name);
    }

    // ================================================================== put and get

    /** Puts {@code count} elements of {@code buf} from {@code offset} at {@code disp} of {@code target}, same type there. */
    public void put(Object buf, int offset, int count, int target, long disp) {
        Shape s = Shape.of(Kind.ofBuffer(buf));
        win.put(buf, offset, count, s, target, disp, count, s, false);
    }

    /** Puts with explicit basic types at both ends. */
    public void put(Object buf, int offset, int count, Datatype type, int target, long disp, int targetCount,
                    Datatype targetType) {
        win.put(buf, offset, count, shape(type), target, disp, targetCount, shape(targetType), false);
    }

    /** Puts with derived types at both ends. */
    public void put(Object buf, int offset, int count, Layout type, int target, long disp, int targetCount,
                    Layout targetType) {
        win.put(buf, offset, count, shape(type), target, disp, targetCount, shape(targetType), false);
    }

    /** {@link #put(Object, int, int, int, long)} returning a request: done when {@code buf} may be reused. */
    public Request rput(Object buf, int offset, int count, int target, long disp) {
        Shape s = Shape.of(Kind.ofBuffer(buf));
        return request(win.put(buf, offset, count, s, target, disp, count, s, true));
    }

    /** {@link #put(Object, int, int, Layout, int, long, int, Layout)} returning a request. */
    public Request rput(Object buf, int offset, int count, Layout type, int target, long disp, int targetCount,
                        Layout targetType) {
        return request(win.put(buf, offset, count, shape(type), target, disp, targetCount, shape(targetType), true));
    }

    /** Gets {@code count} elements from {@code disp} of {@code target} into {@code buf} from {@code offset}, same type there. */
    public void get(Object buf, int offset, int count, int target, long disp) {
        Shape s = Shape.of(Kind.ofBuffer(buf));
        win.get(buf, offset, count, s, target, disp, count, s, false);
    }

    /** Gets with explicit basic types at both ends. */
    public void get(Object buf, int offset, int count, Datatype type, int target, long disp, int targetCount,
                    Datatype targetType) {
        win.get(buf, offset, count, shape(type), target, disp, targetCount, shape(targetType), false);
    }

    /** Gets with derived types at both ends. */
    public void get(Object buf, int offset, int count, Layout type, int target, long disp, int targetCount,
                    Layout targetType) {
        win.get(buf, offset, count, shape(type), target, disp, targetCount, shape(targetType), false);
    }

    /** {@link #get(Object, int, int, int, long)} returning a request: done when {@code buf} holds the data. */
    public Request rget(Object buf, int offset, int count, int target, long disp) {
        Shape s = Shape.of(Kind.ofBuffer(buf));
        return request(win.get(buf, offset, count, s, target, disp, count, s, true));
    }

    /** {@link #get(Object, int, int, Layout, int, long, int, Layout)} returning a request. */
    public Request rget(Object buf, int offset, int count, Layout type, int target, long disp, int targetCount,
                        Layout targetType) {
        return request(win.get(buf, offset, count, shape(type), target, disp, targetCount, shape(targetType), true));
    }

    // ================================================================== accumulates and atomics

    /** Combines {@code count} elements of {@code buf} into {@code disp} of {@code target} with {@code op}, same type there. */
    public void accumulate(Object buf, int offset, int count, int target, long disp, Op op) {
        Shape s = Shape.of(Kind.ofBuffer(buf));
        win.accumulate(buf, offset, count, s, target, disp, count, s, op.reduction(), false);
    }

    /** Accumulate with derived (or basic, through {@link Layout#of}) types at both ends. */
    public void accumulate(Object buf, int offset, int count, Layout type, int target, long disp, int targetCount,
                           Layout targetType, Op op) {
        win.accumulate(buf, offset, count, shape(type), target, disp, targetCount, shape(targetType), op.reduction(),
                false);
    }

    /** {@link #accumulate(Object, int, int, int, long, Op)} returning a request: done when {@code buf} may be reused. */
    public Request raccumulate(Object buf, int offset, int count, int target, long disp, Op op) {
        Shape s = Shape.of(Kind.ofBuffer(buf));
        return request(win.accumulate(buf, offset, count, s, target, disp, count, s, op.reduction(), true));
    }

    /** {@link #accumulate(Object, int, int, Layout, int, long, int, Layout, Op)} returning a request. */
    public Request raccumulate(Object buf, int offset, int count, Layout type, int target, long disp, int targetCount,
                               Layout targetType, Op op) {
        return request(win.accumulate(buf, offset, count, shape(type), target, disp, targetCount, shape(targetType),
                op.reduction(), true));
    }

    /**
     * Atomically reads {@code count} elements at {@code disp} of {@code target} into
     * {@code result} (from {@code resultOffset}) and combines {@code buf} into them with
     * {@code op}; same type everywhere. With {@link Op#NO_OP} {@code buf} is ignored (may be null).
     */
    public void getAccumulate(Object buf, int offset, int count, Object result, int resultOffset, int target,
                              long disp, Op op) {
        Shape s = Shape.of(Kind.ofBuffer(result));
        win.getAccumulate(buf, offset, count, s, result, resultOffset, count, s, target, disp, count, s,
                op.reduction(), false);
    }

    /** getAccumulate with a type (and count) per buffer: origin, result, target. */
    public void getAccumulate(Object buf, int offset, int count, Layout type, Object result, int resultOffset,
                              int resultCount, Layout resultType, int target, long disp, int targetCount,
                              Layout targetType, Op op) {
        win.getAccumulate(buf, offset, count, shape(type), result, resultOffset, resultCount, shape(resultType),
                target, disp, targetCount, shape(targetType), op.reduction(), false);
    }

    /** {@link #getAccumulate(Object, int, int, Object, int, int, long, Op)} returning a request: done when {@code result} holds the old values. */
    public Request rgetAccumulate(Object buf, int offset, int count, Object result, int resultOffset, int target,
                                  long disp, Op op) {
        Shape s = Shape.of(Kind.ofBuffer(result));
        return request(win.getAccumulate(buf, offset, count, s, result, resultOffset, count, s, target, disp, count,
                s, op.reduction(), true));
    }

    /** {@link #getAccumulate(Object, int, int, Layout, Object, int, int, Layout, int, long, int, Layout, Op)} returning a request. */
    public Request rgetAccumulate(Object buf, int offset, int count, Layout type, Object result, int resultOffset,
                                  int resultCount, Layout resultType, int target, long disp, int targetCount,
                                  Layout targetType, Op op) {
        return request(win.getAccumulate(buf, offset, count, shape(type), result, resultOffset, resultCount,
                shape(resultType), target, disp, targetCount, shape(targetType), op.reduction(), true));
    }

    /**
     * Atomically: {@code result[resultOffset] = target[disp]; target[disp] = buf[offset] op target[disp]},
     * one element of the type of {@code result} ({@code buf} may be null for {@link Op#NO_OP}).
     */
    public void fetchAndOp(Object buf, int offset, Object result, int resultOffset, int target, long disp, Op op) {
        win.fetchAndOp(buf, offset, result, resultOffset, Kind.ofBuffer(result), target, disp, op.reduction());
    }

    /** fetchAndOp with an explicit basic type (for example LONG over a {@link MemorySegment}). */
    public void fetchAndOp(Object buf, int offset, Object result, int resultOffset, Datatype type, int target,
                           long disp, Op op) {
        win.fetchAndOp(buf, offset, result, resultOffset, type.kind(), target, disp, op.reduction());
    }

    /**
     * Atomically: {@code result[resultOffset] = target[disp]}, and if it equals
     * {@code compare[compareOffset]}, {@code target[disp] = buf[offset]}; one element of the type
     * of {@code result} (an integer, boolean, char or, compared bit for bit, a float or double).
     */
    public void compareAndSwap(Object buf, int offset, Object compare, int compareOffset, Object result,
                               int resultOffset, int target, long disp) {
        win.compareAndSwap(buf, offset, compare, compareOffset, result, resultOffset, Kind.ofBuffer(result), target,
                disp);
    }

    /** compareAndSwap with an explicit basic type. */
    public void compareAndSwap(Object buf, int offset, Object compare, int compareOffset, Object result,
                               int resultOffset, Datatype type, int target, long disp) {
        win.compareAndSwap(buf, offset, compare, compareOffset, result, resultOffset, type.kind(), target, disp);
    }

    // ================================================================== active target

    /** Collective fence with no assertion; see {@link #fence(int)}. */
    public void fence() {
        win.fence(0);
    }

    /**
     * Collective: completes every operation this process issued since the previous fence, at
     * origin and target, and waits until every member has done the same; opens the next access
     * and exposure epoch (unless {@link #MODE_NOSUCCEED}). A fence with both
     * {@link #MODE_NOPRECEDE} and {@link #MODE_NOSUCCEED} (which every member must then give)
     * ends no epoch and opens none, and returns without waiting for the others.
     * {@code assertions} is an OR of the MODE_* constants.
     */
    public void fence(int assertions) {
        win.fence(assertions);
    }

    /** Target: opens an exposure epoch to the members of {@code origins} (ranks of the group are world ranks, any subset of the window's group). */
    public void post(Group origins, int assertions) {
        win.post(ranks(origins), assertions);
    }

    /** Origin: opens an access epoch to the members of {@code targets}; waits until each has posted (unless {@link #MODE_NOCHECK}). */
    public void start(Group targets, int assertions) {
        win.start(ranks(targets), assertions);
    }

    /** Origin: completes every operation of the access epoch at its targets and ends it. */
    public void complete() {
        win.complete();
    }

    /** Target: waits until every origin of the exposure epoch has called {@link #complete}, and ends it (MPI_Win_wait). */
    public void waitFor() {
        win.waitFor();
    }

    /** Target: {@link #waitFor} without waiting: true (and the epoch ended) if every origin has completed. */
    public boolean test() {
        return win.test();
    }

    // ================================================================== passive target

    /** Opens a passive access epoch to {@code target}: waits until the lock is granted. */
    public void lock(int lockType, int target, int assertions) {
        win.lock(lockType, target, assertions);
    }

    /** {@link #lock(int, int, int)} with no assertion. */
    public void lock(int lockType, int target) {
        win.lock(lockType, target, 0);
    }

    /** Completes every operation to {@code target} at the target, and releases the lock. */
    public void unlock(int target) {
        win.unlock(target);
    }

    /** A shared lock on every member. */
    public void lockAll(int assertions) {
        win.lockAll(assertions);
    }

    /** {@link #lockAll(int)} with no assertion. */
    public void lockAll() {
        win.lockAll(0);
    }

    /** Unlocks every member locked by {@link #lockAll}. */
    public void unlockAll() {
        win.unlockAll();
    }

    /** Completes every operation issued to {@code target} so far, at the target (passive epoch). */
    public void flush(int target) {
        win.flush(target, false);
    }

    /** {@link #flush} of every target. */
    public void flushAll() {
        win.flushAll(false);
    }

    /** Completes every operation issued to {@code target} at this process: its buffers may be reused. */
    public void flushLocal(int target) {
        win.flush(target, true);
    }

    /** {@link #flushLocal} of every target. */
    public void flushLocalAll() {
        win.flushAll(true);
    }

    /** Synchronises this process's view of its window memory with the library's (a full memory fence). */
    public void sync() {
        win.sync();
    }

    // ================================================================== free

    /**
     * Collective: frees the window. Fails with RMA_SYNC, naming what is pending, if this process
     * still holds an epoch (a lock, a start or post without its complete or wait) or operations
     * not yet completed; waits (bounded) until no other member can still reach this window.
     */
    public void free() {
        win.free();
    }

    /** {@link #free()}. */
    @Override
    public void close() {
        win.free();
    }

    @Override
    public String toString() {
        return win.name();
    }

    // ================================================================== helpers

    private Request request(org.railyard.engine.request.Transfer t) {
        return new Request(comm.engine, t);
    }

    private static Shape shape(Layout t) {
        if (t == null) {
            throw new org.railyard.error.RailyardException(org.railyard.error.ErrorClass.TYPE, "datatype is null");
        }
        return t.shape();
    }

    private static Shape shape(Datatype t) {
        if (t == null) {
            throw new org.railyard.error.RailyardException(org.railyard.error.ErrorClass.TYPE, "datatype is null");
        }
        return Shape.of(t.kind());
    }

    /** The world ranks of {@code g}, not copied: the epochs read them and keep a copy of their own. */
    private static int[] ranks(Group g) {
        if (g == null) {
            throw new org.railyard.error.RailyardException(org.railyard.error.ErrorClass.ARG, "group is null");
        }
        return g.worldRanksUnshared();
    }
}
