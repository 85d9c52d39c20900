package org.railyard.mpijava.ranks;

import java.util.concurrent.atomic.AtomicReference;
import mpi.MPI;
import mpi.MPIException;
import mpi.Status;

/**
 * The calls of {@code mpi.MPI} about the process as a whole, one mode per job (2 ranks):
 * <ul>
 *   <li>{@code threads}: initThread and queryThread, then two threads of each rank exchanging
 *       messages (objects included) on the same communicator at the same time; prints "done";</li>
 *   <li>{@code abort}: rank 1 calls Abort(3) while rank 0 waits for a message that never comes;</li>
 *   <li>{@code fatal}: under ERRORS_ARE_FATAL, rank 1 sends to a rank that does not exist.</li>
 * </ul>
 */
public class EnvironmentRank {
    public static void main(String[] args) throws Exception {
        switch (args[0]) {
            case "threads" -> threads();
            case "abort" -> abort();
            case "fatal" -> fatal();
            default -> throw new IllegalArgumentException(args[0]);
        }
    }

    private static void threads() throws Exception {
        Check.fails(() -> MPI.initThread(7, 0, new String[0]), "not one of MPI.THREAD_", "an unknown level");
        MPI.initThread(MPI.THREAD_MULTIPLE, MPI.THREAD_MULTIPLE, new String[0]);
        Check.equal(MPI.queryThread(), MPI.THREAD_MULTIPLE, "the level provided");
        Check.that(MPI.isMainThread(), "the thread that called initThread is the main thread");
        int me = MPI.COMM_WORLD.Rank();
        int peer = 1 - me;
        AtomicReference<Throwable> failed = new AtomicReference<>();
        Thread[] ts = new Thread[2];
        for (int t = 0; t < ts.length; t++) {
            int id = t;
            ts[t] = new Thread(() -> {
                try {
                    Check.that(!MPI.isMainThread(), "another thread is not the main thread");
                    for (int i = 0; i < 200; i++) {
                        int[] got = new int[1];
                        Status s = MPI.COMM_WORLD.Sendrecv(new int[] {me * 1000 + i}, 0, 1, MPI.INT, peer, id, got, 0, 1,
                                MPI.INT, peer, id);
                        Check.equal(got[0], peer * 1000 + i, "thread " + id + " round " + i);
                        Check.equal(s.tag, id, "each thread gets its own tag");
                        if (i % 50 == 0) {
                            Object[] o = new Object[1];
                            MPI.COMM_WORLD.Sendrecv(new Object[] {new double[20_000]}, 0, 1, MPI.OBJECT, peer, 10 + id,
                                    o, 0, 1, MPI.OBJECT, peer, 10 + id);
                            Check.equal(((double[]) o[0]).length, 20_000, "objects from thread " + id);
                        }
                    }
                } catch (Throwable e) {
                    failed.compareAndSet(null, e);
                }
            });
            ts[t].start();
        }
        for (Thread t : ts) {
            t.join();
        }
        if (failed.get() != null) {
            throw new AssertionError("a thread failed", failed.get());
        }
        MPI.COMM_WORLD.Barrier();
        MPI.Finalize();
        Check.that(MPI.Initialized(), "Initialized stays true after Finalize");
        Check.fails(() -> MPI.COMM_WORLD.Barrier(), "", "no call after Finalize");
        Check.fails(MPI::Finalize, "already called", "Finalize twice");
        System.out.println("done");
    }

    private static void abort() {
        MPI.Init(new String[0]);
        if (MPI.COMM_WORLD.Rank() == 1) {
            System.out.println("aborting");
            MPI.COMM_WORLD.Abort(3);
        } else {
            MPI.COMM_WORLD.Recv(new int[1], 0, 1, MPI.INT, 1, 0);
        }
        System.out.println("not reached");
    }

    private static void fatal() {
        MPI.Init(new String[0]);
        Check.equal(MPI.Errorhandler_get(), MPI.ERRORS_RETURN, "the default handler");
        try {
            MPI.COMM_WORLD.Send(new int[1], 0, 1, MPI.INT, 5, 0);
        } catch (MPIException e) {
            System.out.println("returned: " + e.getMessage().substring(0, 4));
        }
        MPI.COMM_WORLD.Barrier();
        MPI.Errorhandler_set(MPI.ERRORS_ARE_FATAL);
        if (MPI.COMM_WORLD.Rank() == 1) {
            MPI.COMM_WORLD.Send(new int[1], 0, 1, MPI.INT, 5, 0);
            System.out.println("not reached");
        } else {
            MPI.COMM_WORLD.Recv(new int[1], 0, 1, MPI.INT, 1, 0);
        }
    }
}
