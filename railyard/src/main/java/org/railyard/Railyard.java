package org.railyard;

import org.railyard.bootstrap.Bootstrap;
import org.railyard.bootstrap.Bootstraps;
import org.railyard.bootstrap.StartupTiming;
import org.railyard.engine.Engine;
import org.railyard.engine.SettingChecks;
import org.railyard.engine.NativeSetup;
import org.railyard.error.ErrorClass;
import org.railyard.error.RailyardException;
import org.railyard.util.Config;

/**
 * The entry point: one per process. {@link #init} joins the job the process was started in (by
 * {@code railyard run}, by MPICH Hydra's {@code mpiexec}, or alone as a job of one), and
 * {@link #close} leaves it.
 *
 * <pre>{@code
 * try (Railyard ry = Railyard.init(args)) {
 *     Comm world = ry.world();
 *     double[] x = new double[1024];
 *     if (world.rank() == 0) world.send(x, 0, x.length, 1, 7);
 *     else if (world.rank() == 1) world.recv(x, 0, x.length, 0, 7);
 * }
 * }</pre>
 *
 * <h2>Threads (MPI_THREAD_MULTIPLE)</h2>
 * Any number of threads may call Railyard at the same time; what is guaranteed:
 * <ul>
 *   <li>Calls are serialised on the engine's progress lock: each post (send, receive, the start
 *       of a collective) is atomic, and messages between one pair of processes on one
 *       communicator still match in the order their sends were posted, whichever threads posted
 *       them (the order between two threads' sends is the order they took the lock).</li>
 *   <li>Each thread waits on its own request: a thread blocked in a receive or a wait drives
 *       progress for everyone while it holds the lock and returns as soon as its own request is
 *       complete, never because another thread's was; a thread in {@code wait} never holds the
 *       lock while idle, so others can post.</li>
 *   <li>Non-blocking requests may be waited for or tested from any thread, but each request by
 *       one thread at a time.</li>
 *   <li>Collectives on one communicator must not be started by two threads at the same time
 *       (as in MPI, their order must be the same at every process); collectives on different
 *       communicators, and point-to-point traffic on any, may run concurrently. Give each thread
 *       its own communicator ({@link Comm#dup()}) or its own tags.</li>
 *   <li>A wildcard receive ({@code ANY_SOURCE}, {@code ANY_TAG}) posted by one thread may take a
 *       message another thread meant for itself; as in MPI, threads that share a communicator
 *       should not share tags.</li>
 *   <li>User-defined reduction operations run on whichever thread drives progress, under the
 *       lock: they must not call Railyard.</li>
 * </ul>
 */
public final class Railyard implements AutoCloseable {
    private static Railyard current;

    private final Engine engine;
    private final Comm world;
    private final Comm self;

    private Railyard(Engine engine) {
        this.engine = engine;
        this.world = new Comm(engine, engine.world());
        this.self = new Comm(engine, engine.self());
    }

    /** Joins the job; the arguments are accepted for symmetry with MPI_Init and not read. */
    public static synchronized Railyard init(String... args) {
        if (current != null) {
            throw new RailyardException(ErrorClass.NOT_INITIALIZED, "Railyard.init was already called in this process");
        }
        StartupTiming timing = StartupTiming.begin();
        NativeSetup.start(); // native call handles made while the bootstrap joins the job
        Bootstrap b = Bootstraps.detect();
        if (timing != null) {
            timing.bootstrapDone();
        }
        current = new Railyard(Engine.start(b));
        if (timing != null) {
            timing.initDone(b);
        }
        return current;
    }

    /** The instance {@link #init} returned, or null before init and after close. */
    public static synchronized Railyard current() {
        return current;
    }

    /** True between init and close. */
    public static synchronized boolean initialized() {
        return current != null;
    }

    /** All processes of the job. */
    public Comm world() {
        return world;
    }

    /** This process alone. */
    public Comm self() {
        return self;
    }

    /** Rank in the world. */
    public int rank() {
        return world.rank();
    }

    /** Size of the world. */
    public int size() {
        return world.size();
    }

    /**
     * How many times the launcher has started this rank again after it died ({@code railyard run
     * --restart N}): 0 in its first run. A rank started again runs the program from the start (or
     * goes on from its last {@link #checkpoint}, see {@link #restore}); its
     * owner relay gives it the messages of its first run again, in their order, and what it sends
     * again that its peers already have is dropped. So the program must repeat its first run (the
     * same sends for the same receives); it may use this number only for what never reaches a peer,
     * such as not failing again on purpose.
     */
    public int incarnation() {
        long n = Config.number(Config.INCARNATION_PROP, Config.INCARNATION_DEFAULT);
        if (n < 0 || n > Integer.MAX_VALUE) {
            throw new RailyardException(ErrorClass.ARG, "setting " + Config.INCARNATION_PROP + " = " + n
                    + " is not a restart count (0 or more)");
        }
        return (int) n;
    }

    /**
     * Stores this rank's checkpoint: {@code state}, the application's own bytes, and the library
     * state a rank started again needs to go on from here. After a SIGKILL, the rank the launcher
     * starts again ({@code railyard run --relays N --restart M}) gets {@code state} back from
     * {@link #restore()}, and its owner relay gives it the messages that arrived after this point
     * in their first order; the messages before it are freed at the relay once this returns.
     *
     * <p>Taken at a quiescent point of this rank: no send, receive or non-blocking collective in
     * flight, and no rendezvous message held unmatched; otherwise it is refused (ARG) naming what
     * is pending. Eager messages that arrived and no receive took yet are kept in the checkpoint
     * and held again after a restart, in their order. Frames this rank sent are first waited for
     * until the relays store them (bounded by {@code railyard.relay.absence}). The communicators
     * made before it must all be {@link Comm#dup()}s of intracommunicators (a restarted rank makes
     * them again by the same calls, answered from the record without its peers); one made
     * otherwise refuses the checkpoint. Windows (one-sided) and value flows are not recorded.
     * No other thread may call Railyard meanwhile. Each call replaces the previous checkpoint.
     *
     * @throws RailyardException ARG without relays in replay mode and a checkpoint directory, or
     *         naming what is pending; IO if it cannot be written; TIMEOUT if the relays do not store
     *         this rank's frames within the bound
     */
    public void checkpoint(byte[] state) {
        engine.checkpoint(state);
    }

    /**
     * In a rank the launcher started again, the state of its last {@link #checkpoint}; empty in a
     * first run or if it died before its first checkpoint (it then runs again from the start).
     * A rank that resumes must go on from the checkpoint: make the communicators it had made by the
     * same {@code dup} calls, in the same order, and skip every other communication it did before
     * the checkpoint (its peers did their part long ago).
     */
    public java.util.Optional<byte[]> restore() {
        return java.util.Optional.ofNullable(engine.restoredState());
    }

    /** The engine; for the facades and tools built on this API. */
    public Engine engine() {
        return engine;
    }

    /** Wall-clock seconds since an arbitrary origin, for timing. */
    public static double wtime() {
        return System.nanoTime() * 1e-9;
    }

    /** Resolution of {@link #wtime()}, seconds. */
    public static double wtick() {
        return 1e-9;
    }

    /**
     * Checks a multi-rail scheduling policy as {@code railyard.rail.policy} takes it (for tools that
     * pass it on to the ranks, such as the launcher).
     *
     * @throws IllegalArgumentException naming {@code spec} and every accepted form when it is not one
     */
    public static void checkRailPolicy(String spec) {
        SettingChecks.railPolicy(spec);
    }

    /**
     * Checks a list of transports as {@code railyard.transports} takes it (comma separated), against
     * the transport plugins this process finds (for tools that pass it on to the ranks).
     *
     * @throws IllegalArgumentException naming the first unknown transport and the available ones
     */
    public static void checkTransports(String list) {
        SettingChecks.transports(list);
    }

    /** Name of the node this process runs on. */
    public String processorName() {
        return engine.nodeName();
    }

    /** The choices the library made so far (transport per peer, protocol thresholds, algorithms). */
    public String choices() {
        return engine.describeChoices();
    }

    /**
     * Ends the job for every process: under srun or Hydra the process manager is asked to end the
     * job (PMI abort), under the Railyard launcher the launcher stops the rest; this process exits
     * with {@code code}.
     */
    public void abort(int code) {
        engine.abort(code);
    }

    /**
     * Leaves the job: completes what this process has sent, says goodbye to its peers, closes its
     * connections. Collective in spirit (as MPI_Finalize), but never waits on a peer forever.
     */
    @Override
    public void close() {
        synchronized (Railyard.class) {
            if (current != this) {
                return;
            }
            current = null;
        }
        engine.close();
    }
}
