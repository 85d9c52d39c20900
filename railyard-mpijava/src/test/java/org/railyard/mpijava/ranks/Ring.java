package org.railyard.mpijava.ranks;

import mpi.Intracomm;
import mpi.MPI;

/**
 * What the ring-shaped rank programs share: the world, this rank, the number of ranks, and the
 * neighbours to send to ({@link #right}) and receive from ({@link #left}).
 */
abstract class Ring {
    static Intracomm world;
    static int me;
    static int np;
    static int right;
    static int left;

    /** MPI.Init, then the fields; returns what Init returned. */
    static String[] start(String[] args) {
        String[] rest = MPI.Init(args);
        world = MPI.COMM_WORLD;
        me = world.Rank();
        np = world.Size();
        right = (me + 1) % np;
        left = (me - 1 + np) % np;
        return rest;
    }

    /** A barrier, MPI.Finalize, and the "done" line the tests look for. */
    static void finish() {
        world.Barrier();
        MPI.Finalize();
        System.out.println("done");
    }
}
