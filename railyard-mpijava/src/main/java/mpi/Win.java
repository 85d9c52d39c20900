package mpi;

import static mpi.MPIException.call;
import static mpi.MPIException.run;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.function.Supplier;
import org.railyard.Layout;
import org.railyard.Window;
import org.railyard.error.RailyardException;

/**
 * A window of memory that the other processes of a communicator read and write without this
 * process taking part: MPI-3 one-sided communication, in the style of the rest of the package
 * (methods named as the MPI functions, {@code Object} buffers with an offset and a
 * {@link Datatype}, unchecked {@link MPIException}s).
 *
 * <pre>
 * Win win = Win.Win_create(a, 8, MPI.COMM_WORLD);          // expose double[] a (8-byte units)
 * win.Fence(0);
 * win.Put(halo, 0, n, MPI.DOUBLE, right, 0, n, MPI.DOUBLE); // into a[0..n) of rank right
 * win.Fence(0);
 * win.Free();
 * </pre>
 *
 * <h2>How it maps to Railyard</h2>
 * Each call is the same call of Railyard's {@link Window} ({@code Put} is {@code put},
 * {@code Wait} is {@code waitFor}, ...), with the facade's special ranks translated
 * ({@link MPI#PROC_NULL} as a target makes an operation that does nothing) and errors wrapped in
 * {@link MPIException}. Datatypes: a basic type is Railyard's of the same name; a derived type
 * ({@link Datatype#Vector}, {@code Indexed}, {@code Struct} ...) becomes a
 * {@link Layout} with its runs of consecutive slots and its extent, at either end. As in the rest
 * of the package, sizes, extents and offsets are in slots of the origin array; the target
 * displacement is in the target's displacement units (bytes times its {@code dispUnit}). A derived
 * type must place its values at non-negative slots, and {@link MPI#OBJECT} cannot travel through a
 * window. Accumulates take the predefined operations, {@link MPI#REPLACE} and {@link MPI#NO_OP};
 * a user {@link Op} is refused, as MPI does.
 *
 * <p>Windows: {@link #Win_create} exposes a Java array, a {@link ByteBuffer} or a
 * {@link java.lang.foreign.MemorySegment} of the program; {@link #Win_allocate} lets the library
 * allocate native memory, which {@link #Base()} returns as a direct {@link ByteBuffer} in the
 * platform's byte order (load and store it between synchronisations, as MPI's separate model
 * says); {@link #Win_allocate_shared} maps every member's part into every member (all on one node),
 * and {@link #Shared_query} returns another member's part.
 */
public class Win implements Freeable {
    /** The Railyard window. */
    final Window nat;
    private final Comm comm;

    private Win(Window nat, Comm comm) {
        this.nat = nat;
        this.comm = comm;
    }

    // ---------------------------------------------------------------- creation (collective)

    /**
     * Collective over {@code comm}: exposes {@code base} (a primitive array, a {@link ByteBuffer}
     * or a {@link java.lang.foreign.MemorySegment} of a shared or global arena; null to expose
     * nothing) to its processes. Target displacements here count {@code dispUnit} bytes (the
     * element size of an array window: 8 for a {@code double[]}).
     */
    public static Win Win_create(Object base, int dispUnit, Intracomm comm) throws MPIException {
        checkComm(comm, "Win_create");
        if (base instanceof Object[]) {
            throw MPIException.error("Win_create: an Object[] cannot be a window (MPI.OBJECT does not travel one-sided); "
                    + "expose a primitive array, a ByteBuffer or a MemorySegment");
        }
        return new Win(call(() -> Window.create(comm.nat, base, dispUnit)), comm);
    }

    /** Collective: a window of {@code size} bytes of native memory, zeroed, allocated by the library; {@link #Base()} is it. */
    public static Win Win_allocate(long size, int dispUnit, Intracomm comm) throws MPIException {
        checkComm(comm, "Win_allocate");
        return new Win(call(() -> Window.allocate(comm.nat, size, dispUnit)), comm);
    }

    /**
     * Collective: like {@link #Win_allocate}, every member's part in memory mapped by every member
     * (all members on one node); {@link #Shared_query} returns a member's part.
     */
    public static Win Win_allocate_shared(long size, int dispUnit, Intracomm comm) throws MPIException {
        checkComm(comm, "Win_allocate_shared");
        return new Win(call(() -> Window.allocateShared(comm.nat, size, dispUnit)), comm);
    }

    private static void checkComm(Comm comm, String call) {
        if (comm == null || comm.nat == null) {
            throw MPIException.error(call + ": the communicator is null (MPI.COMM_NULL?)");
        }
    }

    // ---------------------------------------------------------------- what it is

    /** The group of the window: its communicator's. */
    public Group Get_group() throws MPIException {
        return new Group(call(nat::group));
    }

    /** The communicator the window was created over. */
    public Comm Get_comm() {
        return comm;
    }

    /**
     * This process's memory of a window from {@link #Win_allocate} or {@link #Win_allocate_shared}
     * (or of a ByteBuffer or segment given to {@link #Win_create}), as a direct buffer in the
     * platform's byte order; null for an array window.
     */
    public ByteBuffer Base() throws MPIException {
        java.lang.foreign.MemorySegment m = call(nat::memory);
        return m == null ? null : m.asByteBuffer().order(ByteOrder.nativeOrder());
    }

    /** Bytes this process exposes. */
    public long Size() throws MPIException {
        return call(nat::bytes);
    }

    /** This process's displacement unit, in bytes. */
    public int Disp_unit() throws MPIException {
        return call(() -> nat.dispUnit());
    }

    /**
     * The memory of member {@code rank} of a window from {@link #Win_allocate_shared}, mapped into
     * this process, as a direct buffer in the platform's byte order, to load and store directly;
     * {@link MPI#PROC_NULL}: the first member with memory. Another kind of window: an error.
     */
    public ByteBuffer Shared_query(int rank) throws MPIException {
        return call(() -> nat.sharedQuery(Special.rankIn(rank))).asByteBuffer().order(ByteOrder.nativeOrder());
    }

    /** The displacement unit of member {@code rank}. */
    public int Disp_unit(int rank) throws MPIException {
        return call(() -> nat.dispUnit(Special.rankIn(rank)));
    }

    /** The name used in messages. */
    public String Get_name() throws MPIException {
        return call(nat::name);
    }

    /** Sets the name used in messages. */
    public void Set_name(String name) throws MPIException {
        run(() -> nat.setName(name));
    }

    // ---------------------------------------------------------------- put and get

    /**
     * Puts {@code count} elements of {@code datatype} from {@code buf} at {@code offset} into
     * {@code targetCount} elements of {@code targetType} at displacement {@code targetDisp} of
     * rank {@code targetRank}; complete at the end of the epoch (or at a flush).
     */
    public void Put(Object buf, int offset, int count, Datatype datatype, int targetRank, long targetDisp,
                    int targetCount, Datatype targetType) throws MPIException {
        Layout t = layout(targetType, "Put", "target datatype");
        Layout o = origin(buf, offset, count, datatype, "Put");
        run(() -> nat.put(buf, offset, count, o, Special.rankIn(targetRank), targetDisp, targetCount, t));
    }

    /** {@link #Put} returning a request that completes when {@code buf} may be reused. */
    public Request Rput(Object buf, int offset, int count, Datatype datatype, int targetRank, long targetDisp,
                        int targetCount, Datatype targetType) throws MPIException {
        Layout t = layout(targetType, "Rput", "target datatype");
        Layout o = origin(buf, offset, count, datatype, "Rput");
        return request(() -> nat.rput(buf, offset, count, o, Special.rankIn(targetRank), targetDisp, targetCount, t));
    }

    /** Gets {@code targetCount} elements of {@code targetType} at {@code targetDisp} of {@code targetRank} into {@code buf}. */
    public void Get(Object buf, int offset, int count, Datatype datatype, int targetRank, long targetDisp,
                    int targetCount, Datatype targetType) throws MPIException {
        Layout t = layout(targetType, "Get", "target datatype");
        Layout o = origin(buf, offset, count, datatype, "Get");
        run(() -> nat.get(buf, offset, count, o, Special.rankIn(targetRank), targetDisp, targetCount, t));
    }

    /** {@link #Get} returning a request that completes when {@code buf} holds the data. */
    public Request Rget(Object buf, int offset, int count, Datatype datatype, int targetRank, long targetDisp,
                        int targetCount, Datatype targetType) throws MPIException {
        Layout t = layout(targetType, "Rget", "target datatype");
        Layout o = origin(buf, offset, count, datatype, "Rget");
        return request(() -> nat.rget(buf, offset, count, o, Special.rankIn(targetRank), targetDisp, targetCount, t));
    }

    // ---------------------------------------------------------------- accumulates and atomics

    /** Combines {@code buf}'s elements into the target's with {@code op}; atomic per base value. */
    public void Accumulate(Object buf, int offset, int count, Datatype datatype, int targetRank, long targetDisp,
                           int targetCount, Datatype targetType, Op op) throws MPIException {
        Layout t = layout(targetType, "Accumulate", "target datatype");
        Layout o = origin(buf, offset, count, datatype, "Accumulate");
        org.railyard.Op n = nativeOp(op, datatype, "Accumulate");
        run(() -> nat.accumulate(buf, offset, count, o, Special.rankIn(targetRank), targetDisp, targetCount, t, n));
    }

    /** {@link #Accumulate} returning a request that completes when {@code buf} may be reused. */
    public Request Raccumulate(Object buf, int offset, int count, Datatype datatype, int targetRank, long targetDisp,
                               int targetCount, Datatype targetType, Op op) throws MPIException {
        Layout t = layout(targetType, "Raccumulate", "target datatype");
        Layout o = origin(buf, offset, count, datatype, "Raccumulate");
        org.railyard.Op n = nativeOp(op, datatype, "Raccumulate");
        return request(() -> nat.raccumulate(buf, offset, count, o, Special.rankIn(targetRank), targetDisp, targetCount,
                t, n));
    }

    /**
     * Atomically reads the target's elements into {@code result} and combines {@code buf}'s into
     * them with {@code op} ({@link MPI#NO_OP}: an atomic read, {@code buf} may be null).
     */
    public void Get_accumulate(Object buf, int offset, int count, Datatype datatype, Object result, int resultOffset,
                               int resultCount, Datatype resultType, int targetRank, long targetDisp, int targetCount,
                               Datatype targetType, Op op) throws MPIException {
        Layout t = layout(targetType, "Get_accumulate", "target datatype");
        Layout r = origin(result, resultOffset, resultCount, resultType, "Get_accumulate");
        Layout o = buf == null ? r : origin(buf, offset, count, datatype, "Get_accumulate");
        org.railyard.Op n = nativeOp(op, resultType, "Get_accumulate");
        run(() -> nat.getAccumulate(buf, offset, count, o, result, resultOffset, resultCount, r,
                Special.rankIn(targetRank), targetDisp, targetCount, t, n));
    }

    /** {@link #Get_accumulate} returning a request that completes when {@code result} holds the old values. */
    public Request Rget_accumulate(Object buf, int offset, int count, Datatype datatype, Object result,
                                   int resultOffset, int resultCount, Datatype resultType, int targetRank,
                                   long targetDisp, int targetCount, Datatype targetType, Op op) throws MPIException {
        Layout t = layout(targetType, "Rget_accumulate", "target datatype");
        Layout r = origin(result, resultOffset, resultCount, resultType, "Rget_accumulate");
        Layout o = buf == null ? r : origin(buf, offset, count, datatype, "Rget_accumulate");
        org.railyard.Op n = nativeOp(op, resultType, "Rget_accumulate");
        return request(() -> nat.rgetAccumulate(buf, offset, count, o, result, resultOffset, resultCount, r,
                Special.rankIn(targetRank), targetDisp, targetCount, t, n));
    }

    /**
     * Atomically {@code result[resultOffset] = target; target = buf[offset] op target}, one value of
     * the basic type {@code datatype}.
     */
    public void Fetch_and_op(Object buf, int offset, Object result, int resultOffset, Datatype datatype,
                             int targetRank, long targetDisp, Op op) throws MPIException {
        basic(datatype, "Fetch_and_op");
        org.railyard.Op n = nativeOp(op, datatype, "Fetch_and_op");
        run(() -> nat.fetchAndOp(buf, offset, result, resultOffset, datatype.nativeType, Special.rankIn(targetRank),
                targetDisp, n));
    }

    /**
     * Atomically {@code result[resultOffset] = target}, and if it equals
     * {@code compare[compareOffset]}, {@code target = buf[offset]}; one value of the basic type
     * {@code datatype}.
     */
    public void Compare_and_swap(Object buf, int offset, Object compare, int compareOffset, Object result,
                                 int resultOffset, Datatype datatype, int targetRank, long targetDisp)
            throws MPIException {
        basic(datatype, "Compare_and_swap");
        run(() -> nat.compareAndSwap(buf, offset, compare, compareOffset, result, resultOffset, datatype.nativeType,
                Special.rankIn(targetRank), targetDisp));
    }

    // ---------------------------------------------------------------- active target

    /** Collective: ends the epoch (completing its operations everywhere) and opens the next. {@code assertion}: MPI.MODE_* or 0. */
    public void Fence(int assertion) throws MPIException {
        run(() -> nat.fence(assertion));
    }

    /** Origin: opens an access epoch to the processes of {@code group} (a group of this window's processes). */
    public void Start(Group group, int assertion) throws MPIException {
        org.railyard.Group g = group(group, "Start");
        run(() -> nat.start(g, assertion));
    }

    /** Origin: completes the access epoch's operations at their targets and ends it. */
    public void Complete() throws MPIException {
        run(nat::complete);
    }

    /** Target: opens an exposure epoch to the processes of {@code group}. */
    public void Post(Group group, int assertion) throws MPIException {
        org.railyard.Group g = group(group, "Post");
        run(() -> nat.post(g, assertion));
    }

    /** Target: waits until every origin of the exposure epoch has completed, and ends it (MPI_Win_wait). */
    public void Wait() throws MPIException {
        run(nat::waitFor);
    }

    /** Target: {@link #Wait()} without waiting: true (and the epoch ended) if every origin has completed. */
    public boolean Test() throws MPIException {
        return call(nat::test);
    }

    // ---------------------------------------------------------------- passive target

    /** Opens a passive access epoch to {@code rank}: {@link MPI#LOCK_EXCLUSIVE} or {@link MPI#LOCK_SHARED}. */
    public void Lock(int lockType, int rank, int assertion) throws MPIException {
        int type = lockType == MPI.LOCK_EXCLUSIVE ? Window.LOCK_EXCLUSIVE
                : lockType == MPI.LOCK_SHARED ? Window.LOCK_SHARED : -1;
        if (type < 0) {
            throw MPIException.error("Lock: lock type " + lockType + " is neither MPI.LOCK_EXCLUSIVE ("
                    + MPI.LOCK_EXCLUSIVE + ") nor MPI.LOCK_SHARED (" + MPI.LOCK_SHARED + ")");
        }
        run(() -> nat.lock(type, Special.rankIn(rank), assertion));
    }

    /** Completes the operations to {@code rank} there and releases its lock. */
    public void Unlock(int rank) throws MPIException {
        run(() -> nat.unlock(Special.rankIn(rank)));
    }

    /** A shared lock on every process of the window. */
    public void Lock_all(int assertion) throws MPIException {
        run(() -> nat.lockAll(assertion));
    }

    /** Releases {@link #Lock_all}. */
    public void Unlock_all() throws MPIException {
        run(nat::unlockAll);
    }

    /** Completes the operations issued to {@code rank} so far, at the target. */
    public void Flush(int rank) throws MPIException {
        run(() -> nat.flush(Special.rankIn(rank)));
    }

    /** {@link #Flush} of every target. */
    public void Flush_all() throws MPIException {
        run(nat::flushAll);
    }

    /** Completes the operations issued to {@code rank} at this process: their buffers may be reused. */
    public void Flush_local(int rank) throws MPIException {
        run(() -> nat.flushLocal(Special.rankIn(rank)));
    }

    /** {@link #Flush_local} of every target. */
    public void Flush_local_all() throws MPIException {
        run(nat::flushLocalAll);
    }

    /** Synchronises this process's view of its own window memory with the library's. */
    public void Sync() throws MPIException {
        run(nat::sync);
    }

    // ---------------------------------------------------------------- free

    /** Collective: frees the window; an error naming what is pending if an epoch or operation is still open. */
    public void Free() throws MPIException {
        run(nat::free);
    }

    /** {@link #Free()}. */
    @Override
    public void free() throws MPIException {
        Free();
    }

    @Override
    public String toString() {
        return "Win(" + nat + ")";
    }

    // ---------------------------------------------------------------- helpers

    /** The layout of an origin or result buffer, after the facade's buffer check (array type and range). */
    private static Layout origin(Object buf, int offset, int count, Datatype type, String call) {
        Layout l = layout(type, call, "datatype");
        if (buf != null && buf.getClass().isArray()) {
            type.checkBuffer(buf, offset, count, call);
        }
        return l;
    }

    private static Layout layout(Datatype type, String call, String what) {
        if (type == null) {
            throw MPIException.error(call + ": the " + what + " is null");
        }
        if (type.isObject()) {
            throw MPIException.error(call + ": " + what + " " + type + " is of MPI.OBJECT, which cannot travel one-sided");
        }
        try {
            return type.layout();
        } catch (RailyardException e) {
            throw MPIException.of(e);
        }
    }

    private static void basic(Datatype type, String call) {
        if (type == null || type.nativeType == null || type.size() != 1 || !type.contiguous) {
            throw MPIException.error(call + ": datatype " + type + " is not a basic type (one value of BYTE, CHAR, "
                    + "SHORT, BOOLEAN, INT, LONG, FLOAT or DOUBLE)");
        }
    }

    private static org.railyard.Op nativeOp(Op op, Datatype type, String call) {
        if (op == null) {
            throw MPIException.error(call + ": the operation is null");
        }
        if (op.isUser()) {
            throw MPIException.error(call + ": a user-defined operation cannot be used one-sided; use a predefined "
                    + "one, MPI.REPLACE or MPI.NO_OP");
        }
        return op.nativeOp(type);
    }

    private static org.railyard.Group group(Group g, String call) {
        if (g == null || g.nat == null) {
            throw MPIException.error(call + ": the group is null");
        }
        return g.nat;
    }

    private static Request request(Supplier<org.railyard.Request> body) {
        return new Request(new Pending.Native(call(body)));
    }
}
