package org.railyard.mpijava.ranks;

import mpi.Datatype;
import mpi.MPI;
import mpi.Request;
import mpi.Status;

/**
 * Issue 26, item 3: a derived type that moves no data ({@code Datatype.Struct} of zero blocks)
 * used with an {@code int[]} buffer in Send and Recv, and with other buffers in the non-blocking
 * and combined calls; {@code Get_count} of such a receive is 0 (MPI 3.1, 3.2.5). Any even number
 * of ranks; prints "done".
 */
public class EmptyTypeRank {
    public static void main(String[] args) throws Exception {
        MPI.Init(args);
        int me = MPI.COMM_WORLD.Rank();
        int np = MPI.COMM_WORLD.Size();
        Datatype empty = Datatype.Struct(new int[0], new int[0], new Datatype[0]);
        empty.Commit();
        Check.equal(empty.Size(), 0, "size of the empty type");
        int[] buf = {10 + me, 20 + me, 30 + me, 40 + me};
        int peer = me ^ 1;
        if (peer < np) {
            if (me % 2 == 0) {
                MPI.COMM_WORLD.Send(buf, 0, 1, empty, peer, 7);
            } else {
                Status s = MPI.COMM_WORLD.Recv(buf, 0, 1, empty, peer, 7);
                Check.equal(s.source, peer, "source of the empty message");
                Check.equal(s.Get_count(empty), 0, "Get_count of an empty type");
                Check.equal(buf, new int[] {10 + me, 20 + me, 30 + me, 40 + me}, "the buffer is untouched");
            }
            double[] d = {1.5};
            Request r = me % 2 == 0 ? MPI.COMM_WORLD.Isend(d, 0, 3, empty, peer, 8) : MPI.COMM_WORLD.Irecv(d, 0, 3, empty, peer, 8);
            Status s = r.Wait();
            Check.equal(d[0], 1.5, "a double[] with the empty type is untouched");
            if (me % 2 == 1) {
                Check.equal(s.Get_count(empty), 0, "Get_count after Irecv");
            }
        }
        int right = (me + 1) % np;
        int left = (me - 1 + np) % np;
        Status s = MPI.COMM_WORLD.Sendrecv(new boolean[1], 0, 1, empty, right, 9, new char[2], 0, 2, empty, left, 9);
        Check.equal(s.source, left, "Sendrecv of the empty type");
        Datatype none = Datatype.Contiguous(0, MPI.INT);
        MPI.COMM_WORLD.Sendrecv_replace(new long[1], 0, 5, none, right, 10, left, 10);
        MPI.Finalize();
        System.out.println("done");
    }
}
