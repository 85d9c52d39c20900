package org.railyard.mpijava.ranks;

import mpi.Cartcomm;
import mpi.Group;
import mpi.Intracomm;
import mpi.MPI;
import mpi.MPIException;
import mpi.ShiftParms;
import mpi.Status;

/**
 * Issue 26, item 4: the special values as MPJ Express 0.44 has them, compared by programs as
 * literals: {@code UNDEFINED} -1 (a rank outside a group, a process left out of a split), and
 * {@code ANY_SOURCE} -2, {@code ANY_TAG} -2, {@code PROC_NULL} -3 in what receives, probes and
 * shifts return. Any number of ranks >= 2; prints "done".
 */
public class ConstantsRank {
    public static void main(String[] args) throws Exception {
        MPI.Init(args);
        int me = MPI.COMM_WORLD.Rank();
        int np = MPI.COMM_WORLD.Size();
        Check.equal(MPI.UNDEFINED, -1, "MPI.UNDEFINED");
        Check.equal(MPI.ANY_SOURCE, -2, "MPI.ANY_SOURCE");
        Check.equal(MPI.ANY_TAG, -2, "MPI.ANY_TAG");
        Check.equal(MPI.PROC_NULL, -3, "MPI.PROC_NULL");
        Group world = MPI.COMM_WORLD.Group();
        Group self = MPI.COMM_SELF.Group();
        int[] t = Group.Translate_ranks(world, new int[] {(me + 1) % np, me, MPI.PROC_NULL}, self);
        Check.that(t[0] == -1, "Translate_ranks of a rank outside the group is -1, got " + t[0]);
        Check.equal(t[1], 0, "Translate_ranks of this process");
        Check.equal(t[2], -3, "Translate_ranks of PROC_NULL");
        Check.that(world.Excl(new int[] {me}).Rank() == -1, "Rank in a group without this process is -1");
        Check.equal(MPI.COMM_WORLD.Topo_test(), -1, "Topo_test without a topology");

        Status s = MPI.COMM_WORLD.Recv(new int[1], 0, 1, MPI.INT, MPI.PROC_NULL, 5);
        Check.equal(s.source, -3, "source of a receive from PROC_NULL");
        Check.equal(s.tag, -2, "tag of a receive from PROC_NULL");
        Check.equal(s.Get_count(MPI.INT), 0, "count of a receive from PROC_NULL");
        Check.equal(s.index, -1, "index of a plain receive");
        MPI.COMM_WORLD.Send(new int[1], 0, 1, MPI.INT, -3, 5);

        int right = (me + 1) % np;
        int left = (me - 1 + np) % np;
        MPI.COMM_WORLD.Send(new int[] {me}, 0, 1, MPI.INT, right, 6);
        Status p = MPI.COMM_WORLD.Probe(-2, -2);
        Check.equal(p.source, left, "Probe(ANY_SOURCE, ANY_TAG) source");
        Check.equal(p.tag, 6, "Probe tag");
        int[] got = new int[1];
        Status r = MPI.COMM_WORLD.Recv(got, 0, 1, MPI.INT, MPI.ANY_SOURCE, MPI.ANY_TAG);
        Check.equal(r.source, left, "Recv(ANY_SOURCE) source");
        Check.equal(got[0], left, "Recv(ANY_SOURCE) data");
        Check.that(MPI.COMM_WORLD.Iprobe(MPI.ANY_SOURCE, MPI.ANY_TAG) == null, "nothing left to probe");
        Check.fails(() -> MPI.COMM_WORLD.Send(new int[1], 0, 1, MPI.INT, right, -1), "tag -1", "a negative tag");
        Check.fails(() -> MPI.COMM_WORLD.Send(new int[1], 0, 1, MPI.INT, -1, 0), "MPI.UNDEFINED", "rank -1");

        Intracomm split = MPI.COMM_WORLD.Split(me == 0 ? -1 : 1, me);
        Check.that((split == null) == (me == 0), "Split with colour -1 (MPI.UNDEFINED) leaves the process out");
        Cartcomm line = MPI.COMM_WORLD.Create_cart(new int[] {np}, new boolean[] {false}, false);
        ShiftParms sh = line.Shift(0, 1);
        Check.equal(sh.rank_source, me == 0 ? -3 : me - 1, "Shift source at the edge of a line");
        Check.equal(sh.rank_dest, me == np - 1 ? -3 : me + 1, "Shift destination at the edge of a line");
        try {
            MPI.COMM_WORLD.Send(new int[1], 0, 1, MPI.INT, np, 0);
            throw new AssertionError("a send to rank " + np + " was accepted");
        } catch (MPIException e) {
            Check.that(e.getMessage().contains(String.valueOf(np)), "the error names the rank: " + e.getMessage());
        }
        MPI.COMM_WORLD.Barrier();
        MPI.Finalize();
        System.out.println("done");
    }
}
