package org.railyard.mpijava.ranks;

import mpi.Group;
import mpi.Intracomm;
import mpi.MPI;

/**
 * Issue 26, item 2: {@code Range_incl} and {@code Range_excl} with ranges whose last element is
 * not a rank of the group but is never produced, such as (5, 8, 2) in a group of 8 (ranks 5 and
 * 7); MPI requires only the produced ranks to be valid. Any even number of ranks >= 2; prints "done".
 */
public class RangeRank {
    public static void main(String[] args) throws Exception {
        MPI.Init(args);
        int me = MPI.COMM_WORLD.Rank();
        int np = MPI.COMM_WORLD.Size();
        Group world = MPI.COMM_WORLD.Group();
        int first = np == 8 ? 5 : 1;
        int[][] ranges = {{first, np, 2}};
        int n = (np - 1 - first) / 2 + 1;
        int[] expected = new int[n];
        for (int i = 0; i < n; i++) {
            expected[i] = first + 2 * i;
        }
        Group in = world.Range_incl(ranges);
        Check.equal(in.Size(), n, "Range_incl size");
        int[] all = new int[n];
        for (int i = 0; i < n; i++) {
            all[i] = i;
        }
        Check.equal(Group.Translate_ranks(in, all, world), expected, "Range_incl members");
        Group out = world.Range_excl(ranges);
        Check.equal(out.Size(), np - n, "Range_excl size");
        for (int r : Group.Translate_ranks(out, range(np - n), world)) {
            Check.that(r < first || (r - first) % 2 != 0, "rank " + r + " excluded by Range_excl");
        }
        // A descending range whose last (-1) is not produced either.
        Group down = world.Range_incl(new int[][] {{np - 2, -1, -2}});
        Check.equal(down.Size(), np / 2, "descending Range_incl size");
        Check.equal(Group.Translate_ranks(down, new int[] {0}, world)[0], np - 2, "descending Range_incl order");
        // A range that produces a rank outside the group is still an error naming it.
        Check.fails(() -> world.Range_incl(new int[][] {{0, np, 1}}), "produces rank " + np, "a produced rank out of range");
        Check.fails(() -> world.Range_excl(new int[][] {{0, 2, 0}}), "stride 0", "a zero stride");
        // The group makes a working communicator.
        Intracomm c = MPI.COMM_WORLD.Create(in);
        boolean member = me >= first && (me - first) % 2 == 0;
        Check.that((c != null) == member, "Create from the range group");
        if (c != null) {
            int[] sum = new int[1];
            c.Allreduce(new int[] {me}, 0, sum, 0, 1, MPI.INT, MPI.SUM);
            int want = 0;
            for (int r : expected) {
                want += r;
            }
            Check.equal(sum[0], want, "Allreduce over the range communicator");
        }
        MPI.Finalize();
        System.out.println("done");
    }

    private static int[] range(int n) {
        int[] a = new int[n];
        for (int i = 0; i < n; i++) {
            a[i] = i;
        }
        return a;
    }
}
