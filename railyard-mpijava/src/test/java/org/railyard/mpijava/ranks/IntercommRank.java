package org.railyard.mpijava.ranks;

import mpi.Comm;
import mpi.Group;
import mpi.Intercomm;
import mpi.Intracomm;
import mpi.MPI;
import mpi.Request;
import mpi.Status;

/**
 * {@code mpi.Intercomm}: two groups of unequal size (the first {@code 2} ranks, and the rest)
 * joined with {@code Create_intercomm}, point-to-point across (objects included), the remote
 * group, {@code Merge} both ways, and clones. Any number of ranks >= 3; prints "done".
 */
public class IntercommRank {
    public static void main(String[] args) throws Exception {
        MPI.Init(args);
        Intracomm world = MPI.COMM_WORLD;
        int me = world.Rank();
        int np = world.Size();
        int colour = me < 2 ? 0 : 1;
        Intracomm local = world.Split(colour, me);
        int lsize = colour == 0 ? 2 : np - 2;
        int rsize = np - lsize;
        // Leaders: local rank 0 of each side; in the world (the peer communicator), ranks 0 and 2.
        Intercomm inter = world.Create_intercomm(local, 0, colour == 0 ? 2 : 0, 99);
        Check.that(inter.Test_inter(), "Test_inter");
        Check.that(!local.Test_inter(), "the local communicator is an intracommunicator");
        Check.equal(inter.Size(), lsize, "Size is the local group's");
        Check.equal(inter.Rank(), local.Rank(), "Rank in the local group");
        Check.equal(inter.Remote_size(), rsize, "Remote_size");
        Group remote = inter.Remote_group();
        Check.equal(remote.Size(), rsize, "Remote_group size");
        Check.equal(remote.Rank(), MPI.UNDEFINED, "this process is not in the remote group");
        int[] firstRemote = Group.Translate_ranks(remote, new int[] {0}, world.Group());
        Check.equal(firstRemote[0], colour == 0 ? 2 : 0, "the remote group's first member");
        Check.equal(Group.Compare(inter.Group(), local.Group()), MPI.IDENT, "Group is the local group");

        // Point to point across: every process of the small side sends to every process of the other.
        if (colour == 0) {
            for (int r = 0; r < rsize; r++) {
                inter.Send(new int[] {me, r}, 0, 2, MPI.INT, r, 1);
            }
            Object[] big = {new double[30_000], "from " + me};
            ((double[]) big[0])[29_999] = me;
            Request[] rs = new Request[rsize];
            for (int r = 0; r < rsize; r++) {
                rs[r] = inter.Isend(big, 0, 2, MPI.OBJECT, r, 2);
            }
            Request.Waitall(rs);
        } else {
            boolean[] seen = new boolean[rsize];
            for (int k = 0; k < rsize; k++) {
                int[] v = new int[2];
                Status s = inter.Recv(v, 0, 2, MPI.INT, MPI.ANY_SOURCE, 1);
                Check.that(!seen[s.source], "one message per remote process");
                seen[s.source] = true;
                Check.equal(v[0], s.source, "remote ranks of the small side equal their world ranks");
                Check.equal(v[1], inter.Rank(), "addressed by local rank");
            }
            for (int r = 0; r < rsize; r++) {
                Object[] o = new Object[2];
                Status s = inter.Recv(o, 0, 2, MPI.OBJECT, r, 2);
                Check.equal(o[1], "from " + r, "object across the intercommunicator");
                Check.equal(((double[]) o[0])[29_999], (double) r, "large object across");
                Check.equal(s.Get_count(MPI.OBJECT), 2, "object count across");
            }
        }
        Status probe = inter.Iprobe(MPI.ANY_SOURCE, MPI.ANY_TAG);
        Check.that(probe == null, "nothing left over");

        // Merge: the side passing false first.
        Intracomm lowFirst = inter.Merge(colour == 1);
        Check.equal(lowFirst.Size(), np, "Merge size");
        Check.equal(lowFirst.Rank(), me, "the first two ranks first");
        Intracomm highFirst = inter.Merge(colour == 0);
        Check.equal(highFirst.Rank(), colour == 1 ? me - 2 : me + np - 2, "the other side first");
        Intracomm same = inter.Merge(true);
        Check.equal(same.Rank(), me, "equal flags: the group with the lower world rank first");
        int[] sum = new int[1];
        highFirst.Allreduce(new int[] {me}, 0, sum, 0, 1, MPI.INT, MPI.SUM);
        Check.equal(sum[0], np * (np - 1) / 2, "collective on a merged communicator");

        Intercomm copy = (Intercomm) inter.clone();
        Check.that(copy.Test_inter(), "a clone is an intercommunicator");
        Check.equal(Comm.Compare(copy, inter), MPI.CONGRUENT, "a clone is congruent");
        Check.equal(Comm.Compare(inter, world), MPI.UNEQUAL, "an intercommunicator and the world");
        if (colour == 0) {
            copy.Send(new int[] {7}, 0, 1, MPI.INT, 0, 3);
        } else if (inter.Rank() == 0) {
            for (int r = 0; r < rsize; r++) {
                int[] x = new int[1];
                copy.Recv(x, 0, 1, MPI.INT, r, 3);
                Check.equal(x[0], 7, "message on the clone");
            }
        }
        copy.Free();
        world.Barrier();
        MPI.Finalize();
        System.out.println("done");
    }
}
