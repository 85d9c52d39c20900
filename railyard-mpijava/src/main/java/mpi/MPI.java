package mpi;

import java.nio.ByteBuffer;
import org.railyard.Railyard;
import org.railyard.types.Reduction;
import org.railyard.error.RailyardException;

/**
 * The mpiJava 1.2 entry point, with the fields and methods of MPJ Express 0.44's {@code mpi.MPI}:
 * start and end ({@link #Init}, {@link #Finalize}), the world and self communicators, the
 * predefined datatypes and operations, and the constants.
 *
 * <h2>How it maps to Railyard</h2>
 * {@link #Init} is {@link Railyard#init} (a process started by {@code railyard run}, by MPICH
 * Hydra, or alone, joins its job), {@link #COMM_WORLD} and {@link #COMM_SELF} wrap Railyard's
 * world and self communicators, {@link #Finalize} completes buffered sends (Railyard stays open
 * until the process exits, so that a later {@link #Init} can join again; see there). The
 * constants have MPJ Express 0.44's values ({@link #ANY_SOURCE} -2, {@link #PROC_NULL} -3,
 * {@link #UNDEFINED} -1 ...), which programs compare with, and which programs compiled against
 * MPJ Express carry inlined where they are final; the facade translates the special ranks and
 * tags to Railyard's own values and back. If the program already opened Railyard's native API,
 * Init joins that instance.
 *
 * <p>Threads: Railyard lets any thread call at any time, so the level is always
 * {@link #THREAD_MULTIPLE}; several threads may use the same communicator, but one
 * {@link Request} should be waited on by one thread.
 *
 * <p>{@link #OBJECT} carries {@link java.io.Serializable} objects: a send serializes the elements
 * of an {@code Object[]} (and what they reference) with Java serialization, a receive
 * deserializes them into the receiver's {@code Object[]}. A non-serializable object fails the
 * send with an {@link MPIException} naming it, before anything is sent. Objects work with every
 * point-to-point call, with derived datatypes over {@code OBJECT}, and with the collectives.
 */
public class MPI {
    // ------------------------------------------------------------ communicators

    /** All processes of the job; set by {@link #Init}. */
    public static Intracomm COMM_WORLD;
    /** This process alone; set by {@link #Init}. */
    public static Comm COMM_SELF;
    /** The null communicator: what {@code Split} with {@link #UNDEFINED} and friends return. */
    public static Comm COMM_NULL;

    // ------------------------------------------------------------ datatypes

    public static Datatype NULL = Datatype.basic(Datatype.B_NULL);
    public static Datatype BYTE = Datatype.basic(Datatype.B_BYTE);
    public static Datatype CHAR = Datatype.basic(Datatype.B_CHAR);
    public static Datatype SHORT = Datatype.basic(Datatype.B_SHORT);
    public static Datatype BOOLEAN = Datatype.basic(Datatype.B_BOOLEAN);
    public static Datatype INT = Datatype.basic(Datatype.B_INT);
    public static Datatype LONG = Datatype.basic(Datatype.B_LONG);
    public static Datatype FLOAT = Datatype.basic(Datatype.B_FLOAT);
    public static Datatype DOUBLE = Datatype.basic(Datatype.B_DOUBLE);
    /** Packed bytes ({@link Comm#Pack}); the buffer is an {@link mpjbuf.Buffer} or a {@code byte[]}. */
    public static Datatype PACKED = Datatype.basic(Datatype.B_PACKED);
    /** Lower-bound marker for {@link Datatype#Struct}. */
    public static Datatype LB = Datatype.basic(Datatype.B_LB);
    /** Upper-bound marker for {@link Datatype#Struct}. */
    public static Datatype UB = Datatype.basic(Datatype.B_UB);
    /** Serializable Java objects in an {@code Object[]}; see the class comment. */
    public static Datatype OBJECT = Datatype.basic(Datatype.B_OBJECT);
    /** (value, index) pairs for {@link #MAXLOC} and {@link #MINLOC}: two consecutive values of the base type. */
    public static Datatype SHORT2 = pair(SHORT, "SHORT2");
    public static Datatype INT2 = pair(INT, "INT2");
    public static Datatype LONG2 = pair(LONG, "LONG2");
    public static Datatype FLOAT2 = pair(FLOAT, "FLOAT2");
    public static Datatype DOUBLE2 = pair(DOUBLE, "DOUBLE2");

    // ------------------------------------------------------------ operations

    public static Op MAX = new Op(Reduction.MAX);
    public static Op MIN = new Op(Reduction.MIN);
    public static Op SUM = new Op(Reduction.SUM);
    public static Op PROD = new Op(Reduction.PROD);
    public static Op LAND = new Op(Reduction.LAND);
    public static Op BAND = new Op(Reduction.BAND);
    public static Op LOR = new Op(Reduction.LOR);
    public static Op BOR = new Op(Reduction.BOR);
    public static Op LXOR = new Op(Reduction.LXOR);
    public static Op BXOR = new Op(Reduction.BXOR);
    /** Largest value of (value, index) pairs, lowest index on ties; use the pair datatypes. */
    public static Op MAXLOC = new Op(Reduction.MAXLOC);
    /** Smallest value of (value, index) pairs, lowest index on ties; use the pair datatypes. */
    public static Op MINLOC = new Op(Reduction.MINLOC);

    /** One-sided accumulates only ({@link Win}): the target takes the origin's values. */
    public static Op REPLACE = new Op(org.railyard.Op.REPLACE.reduction());
    /** One-sided accumulates only ({@link Win}): the target keeps its values (Get_accumulate is then an atomic read). */
    public static Op NO_OP = new Op(org.railyard.Op.NO_OP.reduction());

    // ------------------------------------------------------------ constants

    /** A receive or probe from any sender: -2, as in MPJ Express (Railyard's own value differs; see {@link Special}). */
    public static int ANY_SOURCE = Special.ANY_SOURCE;
    /** A receive or probe of any tag: -2, as in MPJ Express. */
    public static int ANY_TAG = Special.ANY_TAG;
    /** The null process: a send to it or a receive from it completes at once and moves nothing; -3, as in MPJ Express. */
    public static int PROC_NULL = Special.PROC_NULL;
    /** "No such rank / no such index / not a whole count": -1, as in MPJ Express. */
    public static int UNDEFINED = Special.UNDEFINED;
    /** Largest tag. Also the key of the attribute {@link Comm#Attr_get} reports it under. */
    public static int TAG_UB = org.railyard.Comm.TAG_UB;
    /** Key of the host-process attribute ({@link Comm#Attr_get}). */
    public static int HOST = org.railyard.Comm.TAG_UB - 1;
    /** Key of the I/O-process attribute ({@link Comm#Attr_get}). */
    public static int IO = org.railyard.Comm.TAG_UB - 2;

    public static final int IDENT = 0;
    public static final int CONGRUENT = 3;
    public static final int SIMILAR = 1;
    public static final int UNEQUAL = 2;

    /** Topology kinds, as {@link Comm#Topo_test()} reports them. */
    public static int GRAPH = 1;
    public static int CART = 2;

    public static int THREAD_SINGLE = 1;
    public static int THREAD_FUNNELED = 2;
    public static int THREAD_SERIALIZED = 3;
    public static int THREAD_MULTIPLE = 4;

    /** Bytes of an attached buffer a buffered send uses besides its data. */
    public static int BSEND_OVERHEAD = 0;
    /** Railyard's per-message overheads are not taken from user memory: 0. */
    public static int SEND_OVERHEAD = 0;
    public static int RECV_OVERHEAD = 0;

    /** Lock types of {@link Win#Lock}: no other lock at the same time, or other shared locks allowed. */
    public static final int LOCK_EXCLUSIVE = org.railyard.Window.LOCK_EXCLUSIVE;
    public static final int LOCK_SHARED = org.railyard.Window.LOCK_SHARED;
    /** Assertions of the {@link Win} synchronisations (OR them; 0 for none); see {@link org.railyard.Window}. */
    public static final int MODE_NOCHECK = org.railyard.Window.MODE_NOCHECK;
    public static final int MODE_NOSTORE = org.railyard.Window.MODE_NOSTORE;
    public static final int MODE_NOPUT = org.railyard.Window.MODE_NOPUT;
    public static final int MODE_NOPRECEDE = org.railyard.Window.MODE_NOPRECEDE;
    public static final int MODE_NOSUCCEED = org.railyard.Window.MODE_NOSUCCEED;

    /** Processors available to this process. */
    public static final int NUM_OF_PROCESSORS = Runtime.getRuntime().availableProcessors();

    public static Status EMPTY_STATUS = new Status();
    /** The group with no members; set by {@link #Init}. */
    public static Group GROUP_EMPTY;
    public static Group GROUP_NULL;
    /** The null request: {@link Request#Is_null()} is true, waiting on it returns an empty status. */
    public static Request REQUEST_NULL = new Request(null);

    public static Errhandler ERRORS_ARE_FATAL = new Errhandler(true);
    public static Errhandler ERRORS_RETURN = new Errhandler(false);

    // ------------------------------------------------------------ state

    private static Railyard railyard;
    private static boolean ownsRailyard;
    private static boolean initialized;
    private static boolean finalized;
    private static Thread mainThread;
    private static org.railyard.Comm lane;
    private static org.railyard.Comm finalizedComm;
    private static final BsendBuffer BSENDS = new BsendBuffer();
    private static volatile Errhandler errhandler = ERRORS_RETURN;

    public MPI() {
    }

    private static Datatype pair(Datatype t, String name) {
        return Datatype.Contiguous(2, t).named(name);
    }

    // ------------------------------------------------------------ start and end

    /**
     * Joins the job (collective over the world). Returns the arguments unchanged: {@code railyard
     * run} passes the program exactly its own arguments.
     *
     * <p><b>Init after Finalize.</b> MPI forbids it; MPJ Express allows it, and test drivers that
     * run several programs in one JVM rely on it, so the facade allows it too: a process that
     * called {@link #Finalize} may call Init again and is back in the same job, with the same
     * ranks and the same connections ({@link #Finalize} does not close Railyard; the process does
     * when it exits, see {@link #Finalize}). Every process of the job must do the same number of
     * rounds, as every round's collectives need all of them. Messages a round left unreceived
     * (which MPI forbids) are still there in the next. Calling Init twice without a Finalize in
     * between is an error.
     */
    public static String[] Init(String[] args) throws MPIException {
        synchronized (MPI.class) {
            if (initialized && !finalized) {
                throw MPIException.error("MPI.Init was already called in this process (call MPI.Finalize before "
                        + "calling MPI.Init again)");
            }
            if (railyard == null) {
                try {
                    Railyard ry = Railyard.current();
                    ownsRailyard = ry == null;
                    railyard = ry != null ? ry : Railyard.init(args == null ? new String[0] : args);
                    // The private lane carries the tails of large object messages (ObjectMessages).
                    lane = railyard.world().dup();
                    // What COMM_WORLD and COMM_SELF become at Finalize: a freed communicator, so that calls
                    // after Finalize fail although Railyard stays open (a dup of self is local).
                    finalizedComm = railyard.self().dup();
                    finalizedComm.free();
                } catch (RailyardException e) {
                    throw MPIException.of(e);
                }
                if (ownsRailyard) {
                    Railyard owned = railyard;
                    Runtime.getRuntime().addShutdownHook(Thread.ofPlatform().name("railyard-mpi-close").unstarted(owned::close));
                }
            }
            COMM_WORLD = new Intracomm(railyard.world());
            COMM_SELF = new Intracomm(railyard.self());
            mpjdev.MPJDev.WORLD = COMM_WORLD.mpjdevComm;
            mpjdev.MPJDev.deviceName = "railyard";
            GROUP_EMPTY = new Group(railyard.world().group().empty());
            mainThread = Thread.currentThread();
            errhandler = ERRORS_RETURN;
            finalized = false;
            initialized = true;
        }
        return args;
    }

    /**
     * {@link #Init} for a program that asks for a thread level. The first argument is the level
     * required; Railyard always provides {@link #THREAD_MULTIPLE} (see {@link #queryThread()}),
     * so the second, which MPJ Express's signature carries as an input, has nothing to tell.
     */
    public static String[] initThread(int required, int provided, String[] args) {
        if (required < THREAD_SINGLE || required > THREAD_MULTIPLE) {
            throw MPIException.error("initThread: thread level " + required + " is not one of MPI.THREAD_*");
        }
        return Init(args);
    }

    /** True on the thread that called {@link #Init}. */
    public static boolean isMainThread() {
        return Thread.currentThread() == mainThread;
    }

    /** The thread level: always {@link #THREAD_MULTIPLE}. */
    public static int queryThread() {
        return THREAD_MULTIPLE;
    }

    /**
     * Completes buffered sends and ends this round of MPI: no MPI call may follow but
     * {@link #Init}, which starts another round in the same job (see {@link #Init}). Calls on
     * {@link #COMM_WORLD} and {@link #COMM_SELF} fail from here on (they are replaced by a freed
     * communicator until the next Init); calls on communicators the program kept are erroneous,
     * as MPI says, and not all of them are detected. Railyard's
     * connections stay open until the process exits (a shutdown hook closes them, sending every
     * peer what is still queued), so that such a round can use them; a program that opened
     * Railyard's native API itself keeps it open as before.
     */
    public static void Finalize() throws MPIException {
        synchronized (MPI.class) {
            if (!initialized || finalized) {
                throw MPIException.error(initialized ? "MPI.Finalize was already called" : "MPI.Finalize before MPI.Init");
            }
            finalized = true;
            COMM_WORLD = new Intracomm(finalizedComm);
            COMM_SELF = new Intracomm(finalizedComm);
        }
        try {
            BSENDS.drain();
        } finally {
            BSENDS.forget();
            ObjectMessages.shutdown();
        }
    }

    /**
     * True once {@link #Init} was called, also after {@link #Finalize}, as MPI says (MPJ Express
     * answers false after Finalize; the facade follows MPI here).
     */
    public static boolean Initialized() throws MPIException {
        return initialized;
    }

    /** Name of the node this process runs on. */
    public static String Get_processor_name() throws MPIException {
        return railyard().processorName();
    }

    /** Wall-clock seconds since an arbitrary origin. */
    public static double Wtime() throws MPIException {
        return Railyard.wtime();
    }

    /** Resolution of {@link #Wtime()}, seconds. */
    public static double Wtick() throws MPIException {
        return Railyard.wtick();
    }

    /**
     * Accounts buffered sends against a buffer of {@code buffer.capacity()} bytes; see
     * {@link Comm#Bsend}. The buffer's memory itself is not used.
     */
    public static void Buffer_attach(ByteBuffer buffer) throws MPIException {
        BSENDS.attach(buffer.capacity());
    }

    /** Waits for every buffered send to complete, then forgets the attached buffer. */
    public static void Buffer_detach() throws MPIException {
        BSENDS.detach();
    }

    /** Sets the error handler of every communicator: {@link #ERRORS_RETURN} or {@link #ERRORS_ARE_FATAL}. */
    public static void Errorhandler_set(Errhandler errhandler) throws MPIException {
        if (errhandler == null) {
            throw MPIException.error("Errorhandler_set: the handler is null");
        }
        MPI.errhandler = errhandler;
    }

    public static Errhandler Errorhandler_get() throws MPIException {
        return errhandler;
    }

    // ------------------------------------------------------------ for the package

    static Railyard railyard() {
        Railyard r = railyard;
        if (r == null || finalized) {
            throw MPIException.error(r == null ? "MPI.Init was not called" : "MPI.Finalize was called");
        }
        return r;
    }

    /** True between {@link #Finalize} and the next {@link #Init}. */
    static synchronized boolean isFinalized() {
        return finalized;
    }

    static org.railyard.Comm lane() {
        return lane;
    }

    static BsendBuffer bsends() {
        return BSENDS;
    }

    static boolean errorsAreFatal() {
        return errhandler.fatal();
    }

    static void fatal(MPIException e) {
        System.err.println("railyard: MPI error (MPI.ERRORS_ARE_FATAL): " + e.getMessage());
        e.printStackTrace();
        System.err.flush();
        Railyard r = railyard;
        if (r != null) {
            r.abort(1);
        }
        Runtime.getRuntime().halt(1);
    }

    /** The predefined basic type of a base code. */
    static Datatype basicOf(int base) {
        return switch (base) {
            case Datatype.B_BYTE -> BYTE;
            case Datatype.B_CHAR -> CHAR;
            case Datatype.B_SHORT -> SHORT;
            case Datatype.B_BOOLEAN -> BOOLEAN;
            case Datatype.B_INT -> INT;
            case Datatype.B_LONG -> LONG;
            case Datatype.B_FLOAT -> FLOAT;
            case Datatype.B_DOUBLE -> DOUBLE;
            case Datatype.B_OBJECT -> OBJECT;
            default -> BYTE;
        };
    }
}
