package org.railyard.mpijava.ranks;

import java.nio.ByteBuffer;
import mpi.Datatype;
import mpi.Group;
import mpi.Intracomm;
import mpi.MPI;
import mpi.Op;
import mpi.Request;
import mpi.User_function;
import mpi.Win;

/**
 * {@code mpi.Win}: one-sided communication through the facade, every call checked against what a
 * sequential computation gives. Works on 2 or more ranks; prints "done".
 */
public class WinRank {
    private static int me;
    private static int np;
    private static Intracomm world;

    public static void main(String[] args) throws Exception {
        MPI.Init(args);
        world = MPI.COMM_WORLD;
        me = world.Rank();
        np = world.Size();
        putRingWithFences();
        derivedTypesAtBothEnds();
        accumulateEveryWay();
        counterByFetchAndOp();
        spinLockByCompareAndSwap();
        postStartCompleteWait();
        allocatedWindowWithLockAllAndFlush();
        sharedWindowLoadedDirectly();
        requestForms();
        badInput();
        world.Barrier();
        System.out.println("done");
        MPI.Finalize();
    }

    private static int right() {
        return (me + 1) % np;
    }

    private static int left() {
        return (me + np - 1) % np;
    }

    /** Each rank puts its rank and a pattern into its right neighbour's int[] between two fences. */
    static void putRingWithFences() {
        int[] a = new int[8];
        Win win = Win.Win_create(a, 4, world);
        win.Fence(MPI.MODE_NOPRECEDE);
        int[] mine = {me, 100 + me, 200 + me};
        win.Put(mine, 0, 3, MPI.INT, right(), 2, 3, MPI.INT);
        win.Put(mine, 0, 1, MPI.INT, MPI.PROC_NULL, 0, 1, MPI.INT); // to nobody: nothing happens
        win.Fence(MPI.MODE_NOSUCCEED);
        Check.equal(a, new int[] {0, 0, left(), 100 + left(), 200 + left(), 0, 0, 0}, "window after a ring of puts");
        Check.equal(win.Get_group().Size(), np, "window group size");
        win.Free();
    }

    /** A vector at the origin, an indexed type at the target, a struct back with a get. */
    static void derivedTypesAtBothEnds() {
        double[] w = new double[16];
        Win win = Win.Win_create(w, 8, world);
        double[] src = new double[12];
        for (int i = 0; i < src.length; i++) {
            src[i] = me * 1000 + i;
        }
        // origin: 3 blocks of 2 every 4 slots: 0,1,4,5,8,9; target: blocks of 1,2,3 at 0, 3, 7 (6 values)
        Datatype vec = Datatype.Vector(3, 2, 4, MPI.DOUBLE);
        vec.Commit();
        Datatype idx = Datatype.Indexed(new int[] {1, 2, 3}, new int[] {0, 3, 7}, MPI.DOUBLE);
        idx.Commit();
        win.Fence(0);
        win.Put(src, 0, 1, vec, right(), 1, 1, idx);
        win.Fence(0);
        double l = left() * 1000;
        double[] expect = new double[16];
        int[] at = {1, 4, 5, 8, 9, 10};
        double[] vals = {l, l + 1, l + 4, l + 5, l + 8, l + 9};
        for (int i = 0; i < at.length; i++) {
            expect[at[i]] = vals[i];
        }
        Check.equal(w, expect, "window after a put of a vector into an indexed type");
        // get them back with a struct of two blocks (3 values at 0, 3 at 5) from the same target slots
        Datatype st = Datatype.Struct(new int[] {3, 3}, new int[] {0, 5}, new Datatype[] {MPI.DOUBLE, MPI.DOUBLE});
        double[] back = new double[9];
        win.Get(back, 1, 1, st, right(), 1, 1, idx);
        win.Fence(0);
        double r = me * 1000;
        Check.equal(back, new double[] {0, r, r + 1, r + 4, 0, 0, r + 5, r + 8, r + 9},
                "a get of an indexed type into a struct");
        win.Free();
    }

    /** Every rank accumulates into rank 0 with SUM, MAX, REPLACE; Get_accumulate with NO_OP reads. */
    static void accumulateEveryWay() {
        long[] t = new long[4];
        Win win = Win.Win_create(t, 8, world);
        win.Fence(0);
        win.Accumulate(new long[] {me + 1, me}, 0, 2, MPI.LONG, 0, 0, 2, MPI.LONG, MPI.SUM);
        win.Accumulate(new long[] {me * 7}, 0, 1, MPI.LONG, 0, 2, 1, MPI.LONG, MPI.MAX);
        win.Fence(0);
        if (me == 0) {
            long n = np;
            Check.equal(t, new long[] {n * (n + 1) / 2, n * (n - 1) / 2, 7 * (n - 1), 0}, "SUM and MAX accumulates");
        }
        win.Fence(0);
        if (me == np - 1) {
            win.Accumulate(new long[] {42}, 0, 1, MPI.LONG, 0, 3, 1, MPI.LONG, MPI.REPLACE);
        }
        win.Fence(0);
        long[] seen = new long[4];
        win.Get_accumulate(null, 0, 0, MPI.LONG, seen, 0, 4, MPI.LONG, 0, 0, 4, MPI.LONG, MPI.NO_OP);
        win.Fence(0);
        long n = np;
        Check.equal(seen, new long[] {n * (n + 1) / 2, n * (n - 1) / 2, 7 * (n - 1), 42},
                "Get_accumulate with NO_OP after a REPLACE");
        win.Free();
    }

    /** A counter on rank 0 incremented by every rank 1000 times with Fetch_and_op under shared locks. */
    static void counterByFetchAndOp() {
        long[] counter = new long[1];
        Win win = Win.Win_create(counter, 8, world);
        long[] one = {1};
        long[] before = new long[1];
        long last = -1;
        for (int i = 0; i < 1000; i++) {
            win.Lock(MPI.LOCK_SHARED, 0, 0);
            win.Fetch_and_op(one, 0, before, 0, MPI.LONG, 0, 0, MPI.SUM);
            win.Unlock(0);
            Check.that(before[0] > last, "Fetch_and_op results grow: " + before[0] + " after " + last);
            last = before[0];
        }
        world.Barrier();
        if (me == 0) {
            win.Lock(MPI.LOCK_EXCLUSIVE, 0, 0);
            Check.equal(counter[0], 1000L * np, "counter after 1000 Fetch_and_op by each rank");
            win.Unlock(0);
        }
        world.Barrier();
        win.Free();
    }

    /** A spin lock on rank 0 taken with Compare_and_swap guards a non-atomic read-modify-write of a shared total. */
    static void spinLockByCompareAndSwap() {
        int[] cell = new int[2]; // [0] the lock (0 free, rank+1 held), [1] the total
        Win win = Win.Win_create(cell, 4, world);
        int[] free = {0};
        int[] held = {me + 1};
        int[] got = new int[1];
        int[] total = new int[1];
        win.Lock_all(0);
        for (int i = 0; i < 50; i++) {
            do {
                win.Compare_and_swap(held, 0, free, 0, got, 0, MPI.INT, 0, 0);
                win.Flush(0);
            } while (got[0] != 0);
            win.Get(total, 0, 1, MPI.INT, 0, 1, 1, MPI.INT);
            win.Flush(0);
            total[0]++;
            win.Put(total, 0, 1, MPI.INT, 0, 1, 1, MPI.INT);
            win.Flush(0);
            win.Compare_and_swap(free, 0, held, 0, got, 0, MPI.INT, 0, 0);
            win.Flush(0);
            Check.equal(got[0], me + 1, "the lock was still mine when I released it");
        }
        win.Unlock_all();
        world.Barrier();
        if (me == 0) {
            win.Lock(MPI.LOCK_EXCLUSIVE, 0, 0);
            Check.equal(cell[1], 50 * np, "total kept by the compare-and-swap lock");
            win.Unlock(0);
        }
        world.Barrier();
        win.Free();
    }

    /** Post/Start/Complete/Wait along the ring, Test at the end of the second round. */
    static void postStartCompleteWait() {
        char[] c = new char[4];
        Win win = Win.Win_create(c, 2, world);
        Group all = world.Group();
        Group toRight = all.Incl(new int[] {right()});
        Group fromLeft = all.Incl(new int[] {left()});
        for (int round = 0; round < 2; round++) {
            win.Post(fromLeft, 0);
            win.Start(toRight, 0);
            win.Put(new char[] {(char) ('a' + me), (char) ('0' + round)}, 0, 2, MPI.CHAR, right(), round * 2, 2, MPI.CHAR);
            win.Complete();
            if (round == 0) {
                win.Wait();
            } else {
                while (!win.Test()) {
                    Thread.onSpinWait();
                }
            }
        }
        char l = (char) ('a' + left());
        Check.equal(new String(c), "" + l + '0' + l + '1', "window after two PSCW rounds");
        win.Free();
    }

    /** Win_allocate: rank 0 fills its Base(); the others Get it under Lock_all and Flush_local. */
    static void allocatedWindowWithLockAllAndFlush() {
        Win win = Win.Win_allocate(64, 1, world);
        Check.equal(win.Size(), 64L, "allocated size");
        Check.equal(win.Disp_unit(), 1, "displacement unit");
        if (me == 0) {
            win.Lock(MPI.LOCK_EXCLUSIVE, 0, 0);
            ByteBuffer b = win.Base();
            for (int i = 0; i < 64; i++) {
                b.put(i, (byte) (i * 3));
            }
            win.Unlock(0);
        }
        world.Barrier();
        byte[] got = new byte[64];
        win.Lock_all(0);
        win.Get(got, 0, 64, MPI.BYTE, 0, 0, 64, MPI.BYTE);
        win.Flush_local(0);
        win.Flush_all();
        win.Flush_local_all();
        win.Unlock_all();
        for (int i = 0; i < 64; i++) {
            Check.equal(got[i], (byte) (i * 3), "byte " + i + " of rank 0's allocated window");
        }
        world.Barrier();
        win.Free();
    }

    /** Win_allocate_shared: each rank stores into its part, every rank loads every part directly. */
    static void sharedWindowLoadedDirectly() {
        Win win = Win.Win_allocate_shared(8L * (me + 1), 8, world);
        win.Lock_all(0);
        win.Base().putLong(0, 1000 + me);
        win.Sync();
        world.Barrier();
        win.Sync();
        for (int r = 0; r < np; r++) {
            ByteBuffer part = win.Shared_query(r);
            Check.equal(part.capacity(), 8 * (r + 1), "capacity of rank " + r + "'s part");
            Check.equal(part.getLong(0), 1000L + r, "rank " + r + "'s value loaded directly");
            Check.equal(win.Disp_unit(r), 8, "displacement unit of rank " + r);
        }
        win.Unlock_all();
        world.Barrier();
        win.Free();
    }

    /** Rput, Rget, Raccumulate and Rget_accumulate complete through mpi.Request. */
    static void requestForms() {
        int[] w = new int[4];
        Win win = Win.Win_create(w, 4, world);
        win.Lock_all(0);
        if (me == 0) {
            Request put = win.Rput(new int[] {5, 6}, 0, 2, MPI.INT, right(), 0, 2, MPI.INT);
            put.Wait();
            win.Flush(right());
        }
        world.Barrier();
        Request acc = win.Raccumulate(new int[] {1}, 0, 1, MPI.INT, 0, 3, 1, MPI.INT, MPI.SUM);
        acc.Wait();
        win.Flush_all();
        world.Barrier();
        if (me == 1 % np) {
            int[] got = new int[2];
            win.Rget(got, 0, 2, MPI.INT, me, 0, 2, MPI.INT).Wait();
            Check.equal(got, new int[] {5, 6}, "Rget of what rank 0 Rput");
        }
        int[] old = new int[1];
        win.Rget_accumulate(new int[] {0}, 0, 1, MPI.INT, old, 0, 1, MPI.INT, 0, 3, 1, MPI.INT, MPI.SUM).Wait();
        Check.equal(old[0], np, "Rget_accumulate read the sum of the Raccumulates");
        win.Unlock_all();
        world.Barrier();
        win.Free();
    }

    /** Bad input: each fails with an MPIException naming what was wrong, and the window goes on working. */
    static void badInput() {
        int[] w = new int[4];
        Win win = Win.Win_create(w, 4, world);
        win.Lock_all(0);
        Check.fails(() -> win.Put(new Object[] {"x"}, 0, 1, MPI.OBJECT, right(), 0, 1, MPI.OBJECT), "MPI.OBJECT",
                "a put of objects");
        Op user = new Op(new User_function() {
            @Override
            public void Call(Object in, int io, Object inout, int oo, int count, Datatype t) {
            }
        }, true);
        Check.fails(() -> win.Accumulate(new int[] {1}, 0, 1, MPI.INT, right(), 0, 1, MPI.INT, user), "user-defined",
                "an accumulate with a user operation");
        Check.fails(() -> win.Put(new int[] {1}, 0, 2, MPI.INT, right(), 0, 2, MPI.INT), "outside the buffer",
                "a put of more than the origin array holds");
        Check.fails(() -> win.Put(new int[] {1, 2}, 0, 2, MPI.INT, right(), 3, 2, MPI.INT), "ARG",
                "a put reaching past the end of the target's window");
        Check.fails(() -> win.Fetch_and_op(new int[] {1}, 0, new int[1], 0, Datatype.Contiguous(2, MPI.INT), right(), 0,
                MPI.SUM), "not a basic type", "a fetch-and-op of a derived type");
        Check.fails(() -> win.Lock(99, right(), 0), "lock type 99", "a lock of an unknown type");
        win.Put(new int[] {me}, 0, 1, MPI.INT, right(), 0, 1, MPI.INT); // still usable
        win.Unlock_all();
        world.Barrier();
        Check.fails(() -> win.Put(new int[] {1}, 0, 1, MPI.INT, right(), 0, 1, MPI.INT), "RMA_SYNC",
                "a put outside every epoch");
        Check.fails(() -> Win.Win_create(new Object[1], 1, world), "Object[]", "a window over objects");
        win.Lock(MPI.LOCK_EXCLUSIVE, me, 0);
        Check.equal(w[0], left(), "the put after the refused ones arrived");
        win.Unlock(me);
        world.Barrier();
        win.Free();
    }
}
