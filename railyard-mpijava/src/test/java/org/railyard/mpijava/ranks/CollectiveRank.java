package org.railyard.mpijava.ranks;

import java.util.Arrays;
import mpi.Comm;
import mpi.Datatype;
import mpi.Group;
import mpi.Intracomm;
import mpi.MPI;
import mpi.Op;
import mpi.User_function;
import org.railyard.testkit.Blocks;

/**
 * Every collective of {@code mpi.Intracomm}, the predefined and user-defined operations of
 * {@code mpi.Op}, communicator construction ({@code Split}, {@code Create}, {@code clone}) and
 * {@code mpi.Group}, checked against a sequential computation. Works on any number of ranks
 * (1, powers of two and not); prints "done".
 */
public class CollectiveRank {
    private static int me;
    private static int np;
    private static Intracomm world;

    /** 2x2 integer matrix product, row-major, on items of 4 ints: associative, not commutative. */
    static final class MatMul extends User_function {
        @Override
        public void Call(Object invec, int inoffset, Object inoutvec, int inoutoffset, int count, Datatype datatype) {
            int[] a = (int[]) invec;
            int[] b = (int[]) inoutvec;
            int step = datatype.Extent();
            for (int i = 0; i < count; i++) {
                int x = inoffset + i * step;
                int y = inoutoffset + i * step;
                int p = a[x] * b[y] + a[x + 1] * b[y + 2];
                int q = a[x] * b[y + 1] + a[x + 1] * b[y + 3];
                int r = a[x + 2] * b[y] + a[x + 3] * b[y + 2];
                int s = a[x + 2] * b[y + 1] + a[x + 3] * b[y + 3];
                b[y] = p;
                b[y + 1] = q;
                b[y + 2] = r;
                b[y + 3] = s;
            }
        }
    }

    /** String concatenation over OBJECT: associative, not commutative. */
    static final class Concat extends User_function {
        @Override
        public void Call(Object invec, int inoffset, Object inoutvec, int inoutoffset, int count, Datatype datatype) {
            Object[] a = (Object[]) invec;
            Object[] b = (Object[]) inoutvec;
            for (int i = 0; i < count * datatype.Size(); i++) {
                b[inoutoffset + i] = (String) a[inoffset + i] + b[inoutoffset + i];
            }
        }
    }

    public static void main(String[] args) throws Exception {
        MPI.Init(args);
        world = MPI.COMM_WORLD;
        me = world.Rank();
        np = world.Size();
        world.Barrier();
        broadcasts();
        predefinedReductions();
        userReductions();
        locations();
        gathersAndScatters();
        allToAll();
        typesWithHoles();
        reduceScatterAndScan();
        objectCollectives();
        communicatorsAndGroups();
        world.Barrier();
        MPI.Finalize();
        System.out.println("done");
    }

    private static int tri(int n) {
        return n * (n - 1) / 2;
    }

    private static void broadcasts() {
        for (int root = 0; root < np; root++) {
            long[] b = new long[3];
            if (me == root) {
                b = new long[] {root, -root, 1L << 40};
            }
            world.Bcast(b, 0, 3, MPI.LONG, root);
            Check.equal(b, new long[] {root, -root, 1L << 40}, "Bcast from " + root);
        }
        double[] big = new double[70_000];
        if (me == np - 1) {
            Arrays.fill(big, 2.5);
        }
        world.Bcast(big, 0, big.length, MPI.DOUBLE, np - 1);
        Check.equal(big[69_999], 2.5, "large Bcast");
        world.Bcast(new int[0], 0, 0, MPI.INT, 0);
        boolean[] flags = {me == 0};
        world.Bcast(flags, 0, 1, MPI.BOOLEAN, 0);
        Check.that(flags[0], "Bcast of booleans");
    }

    private static void predefinedReductions() {
        int[] v = {me + 1, -(me + 1), me * me, 1 << me % 20};
        int[] out = new int[4];
        for (int root = 0; root < np; root++) {
            Arrays.fill(out, -1);
            world.Reduce(v, 0, out, 0, 4, MPI.INT, MPI.SUM, root);
            if (me == root) {
                int sq = 0;
                int bits = 0;
                for (int r = 0; r < np; r++) {
                    sq += r * r;
                    bits += 1 << r % 20;
                }
                Check.equal(out, new int[] {tri(np + 1), -tri(np + 1), sq, bits}, "Reduce SUM to " + root);
            } else {
                Check.equal(out, new int[] {-1, -1, -1, -1}, "non-roots' receive buffers are untouched");
            }
        }
        long[] l = new long[2];
        world.Allreduce(new long[] {me + 1, 2}, 0, l, 0, 2, MPI.LONG, MPI.PROD);
        long fact = 1;
        for (int r = 1; r <= np; r++) {
            fact *= r;
        }
        Check.equal(l, new long[] {fact, 1L << np}, "PROD");
        double[] d = new double[2];
        world.Allreduce(new double[] {me, -me}, 0, d, 0, 2, MPI.DOUBLE, MPI.MIN);
        Check.equal(d, new double[] {0, -(np - 1)}, "MIN");
        float[] f = new float[1];
        world.Allreduce(new float[] {me * 0.5f}, 0, f, 0, 1, MPI.FLOAT, MPI.MAX);
        Check.equal(f[0], (np - 1) * 0.5f, "MAX");
        short[] s = new short[1];
        world.Allreduce(new short[] {(short) me}, 0, s, 0, 1, MPI.SHORT, MPI.MAX);
        Check.equal(s[0], (short) (np - 1), "MAX of shorts");
        boolean[] z = new boolean[3];
        world.Allreduce(new boolean[] {true, me == 0, me % 2 == 0}, 0, z, 0, 3, MPI.BOOLEAN, MPI.LAND);
        Check.equal(z, new boolean[] {true, np == 1, np == 1}, "LAND");
        world.Allreduce(new boolean[] {false, me == 0, me == np - 1}, 0, z, 0, 3, MPI.BOOLEAN, MPI.LOR);
        Check.equal(z, new boolean[] {false, true, true}, "LOR");
        world.Allreduce(new boolean[] {true, false, true}, 0, z, 0, 3, MPI.BOOLEAN, MPI.LXOR);
        Check.equal(z, new boolean[] {np % 2 == 1, false, np % 2 == 1}, "LXOR");
        int[] bits = new int[3];
        world.Allreduce(new int[] {~0 ^ (1 << me), 1 << me, 0b1010}, 0, bits, 0, 3, MPI.INT, MPI.BAND);
        Check.equal(bits[0], ~0 ^ ((1 << np) - 1), "BAND");
        world.Allreduce(new int[] {1 << me, 0, 0}, 0, bits, 0, 3, MPI.INT, MPI.BOR);
        Check.equal(bits[0], (1 << np) - 1, "BOR");
        world.Allreduce(new int[] {1, 3, 0}, 0, bits, 0, 3, MPI.INT, MPI.BXOR);
        Check.equal(bits[0] + "," + bits[1], (np % 2) + "," + (np % 2 == 1 ? 3 : 0), "BXOR");
        char[] c = new char[1];
        world.Allreduce(new char[] {(char) ('a' + me)}, 0, c, 0, 1, MPI.CHAR, MPI.MAX);
        Check.equal(c[0], (char) ('a' + np - 1), "MAX of chars");
        byte[] b = new byte[1];
        world.Allreduce(new byte[] {1}, 0, b, 0, 1, MPI.BYTE, MPI.SUM);
        Check.equal((int) b[0], np, "SUM of bytes");
        world.Allreduce(new int[0], 0, new int[0], 0, 0, MPI.INT, MPI.SUM);
        Check.fails(() -> world.Allreduce(new double[1], 0, new double[1], 0, 1, MPI.DOUBLE, MPI.BXOR), "BXOR",
                "BXOR of doubles");
        Check.fails(() -> MPI.SUM.free(), "cannot be freed", "predefined operations stay");
    }

    private static int[] identity() {
        return new int[] {1, 0, 0, 1};
    }

    private static int[] mul(int[] a, int[] b) {
        return new int[] {a[0] * b[0] + a[1] * b[2], a[0] * b[1] + a[1] * b[3], a[2] * b[0] + a[3] * b[2],
            a[2] * b[1] + a[3] * b[3]};
    }

    private static int[] matrixOf(int r) {
        return new int[] {1, r + 1, r % 3, 1};
    }

    private static void userReductions() {
        Op matmul = new Op(new MatMul(), false);
        Datatype mat = Datatype.Contiguous(4, MPI.INT);
        mat.Commit();
        int[] expect = identity();
        for (int r = 0; r < np; r++) {
            expect = mul(expect, matrixOf(r));
        }
        // Two matrices per rank: the second is the transposed product's factor, reduced independently.
        int[] mine = new int[8];
        System.arraycopy(matrixOf(me), 0, mine, 0, 4);
        System.arraycopy(identity(), 0, mine, 4, 4);
        int[] out = new int[8];
        world.Reduce(mine, 0, out, 0, 2, mat, matmul, np - 1);
        if (me == np - 1) {
            Check.equal(Arrays.copyOf(out, 4), expect, "non-commutative Reduce in rank order");
            Check.equal(Arrays.copyOfRange(out, 4, 8), identity(), "second item");
        }
        Arrays.fill(out, 0);
        world.Allreduce(mine, 0, out, 0, 2, mat, matmul);
        Check.equal(Arrays.copyOf(out, 4), expect, "non-commutative Allreduce in rank order");
        // A big non-commutative vector: algorithms must not reorder or split items.
        int items = 20_000;
        int[] many = new int[4 * items];
        for (int i = 0; i < items; i++) {
            System.arraycopy(matrixOf(me), 0, many, 4 * i, 4);
        }
        int[] res = new int[many.length];
        world.Allreduce(many, 0, res, 0, items, mat, matmul);
        Check.equal(Arrays.copyOfRange(res, 4 * (items - 1), 4 * items), expect, "large non-commutative Allreduce");
        // A commutative user op on a type with holes: the function sees the packed image.
        Op sum = new Op(new User_function() {
            @Override
            public void Call(Object in, int io, Object inout, int oo, int count, Datatype t) {
                Check.equal(t.Size(), t.Extent(), "a user function sees a contiguous type");
                for (int i = 0; i < count * t.Size(); i++) {
                    ((double[]) inout)[oo + i] += ((double[]) in)[io + i];
                }
            }
        }, true, 77);
        Datatype holes = Datatype.Vector(2, 1, 3, MPI.DOUBLE); // slots 0, 3
        double[] dv = {me, -1, -1, 2 * me};
        double[] dr = {9, 9, 9, 9};
        world.Allreduce(dv, 0, dr, 0, 1, holes, sum);
        Check.equal(dr, new double[] {tri(np), 9, 9, 2 * tri(np)}, "user op over a type with holes");
        sum.free();
        Check.fails(() -> world.Allreduce(dv, 0, dr, 0, 1, holes, sum), "freed", "a freed operation");
    }

    private static void locations() {
        // Ties: every rank has the same value, so the lowest index wins.
        int[] pair = {42, me};
        int[] out = new int[2];
        world.Allreduce(pair, 0, out, 0, 1, MPI.INT2, MPI.MAXLOC);
        Check.equal(out, new int[] {42, 0}, "MAXLOC tie");
        world.Allreduce(pair, 0, out, 0, 1, MPI.INT2, MPI.MINLOC);
        Check.equal(out, new int[] {42, 0}, "MINLOC tie");
        // Two pairs: a peak at the middle rank, and a valley shared by the last two ranks.
        double[] dp = {-Math.abs(me - np / 2), me, me >= np - 2 ? -5 : me, me};
        double[] dout = new double[4];
        world.Allreduce(dp, 0, dout, 0, 2, MPI.DOUBLE2, MPI.MAXLOC);
        Check.equal(dout[0] + "," + dout[1], "0.0," + (double) (np / 2), "MAXLOC of doubles");
        world.Allreduce(dp, 0, dout, 0, 2, MPI.DOUBLE2, MPI.MINLOC);
        Check.equal(dout[2] + "," + dout[3], np >= 2 ? "-5.0," + (double) (np - 2) : "-5.0,0.0", "MINLOC tie at the end");
        long[] lp = new long[2];
        world.Reduce(new long[] {me % 2, me}, 0, lp, 0, 1, MPI.LONG2, MPI.MAXLOC, 0);
        if (me == 0) {
            Check.equal(lp, new long[] {np > 1 ? 1 : 0, np > 1 ? 1 : 0}, "MAXLOC of longs");
        }
        float[] fp = new float[2];
        world.Allreduce(new float[] {-me, me}, 0, fp, 0, 1, MPI.FLOAT2, MPI.MINLOC);
        Check.equal(fp[1], (float) (np - 1), "MINLOC of floats");
        short[] sp = new short[2];
        world.Allreduce(new short[] {(short) (me * 3 % 4), (short) me}, 0, sp, 0, 1, MPI.SHORT2, MPI.MAXLOC);
        Check.equal(sp[0] + "," + sp[1], np == 1 ? "0,0" : np == 2 ? "3,1" : "3,1", "MAXLOC of shorts");
    }

    private static void gathersAndScatters() {
        for (int root : new int[] {0, np - 1}) {
            int[] out = {me, me * me};
            int[] all = new int[2 * np + 1];
            world.Gather(out, 0, 2, MPI.INT, all, 1, 2, MPI.INT, root);
            if (me == root) {
                for (int r = 0; r < np; r++) {
                    Check.equal(all[1 + 2 * r] + "," + all[2 + 2 * r], r + "," + r * r, "Gather block " + r);
                }
            }
            // Gatherv: rank r sends r elements (rank 0 sends none), placed in reverse rank order.
            int[] mine = new int[me];
            Arrays.fill(mine, me);
            int[][] layout = reversedBlocks(0);
            int[] counts = layout[0];
            int[] displs = layout[1];
            int at = layout[2][0];
            int[] gv = new int[at];
            world.Gatherv(mine, 0, me, MPI.INT, gv, 0, counts, displs, MPI.INT, root);
            if (me == root) {
                int k = 0;
                for (int r = np - 1; r >= 0; r--) {
                    for (int i = 0; i < r; i++) {
                        Check.equal(gv[k++], r, "Gatherv element of rank " + r);
                    }
                }
            }
            // Scatter and Scatterv mirror them.
            int[] src = new int[2 * np];
            if (me == root) {
                for (int i = 0; i < src.length; i++) {
                    src[i] = 100 + i;
                }
            }
            int[] two = new int[2];
            world.Scatter(src, 0, 2, MPI.INT, two, 0, 2, MPI.INT, root);
            Check.equal(two, new int[] {100 + 2 * me, 101 + 2 * me}, "Scatter");
            int[] sv = new int[me];
            world.Scatterv(gv, 0, counts, displs, MPI.INT, sv, 0, me, MPI.INT, root);
            int[] want = new int[me];
            Arrays.fill(want, me);
            Check.equal(sv, want, "Scatterv gives back what Gatherv collected");
        }
        // A receive type with holes: each gathered element lands on every other slot.
        Datatype spaced = Datatype.Struct(new int[] {1, 1}, new int[] {0, 2}, new Datatype[] {MPI.LONG, MPI.UB});
        long[] spacedOut = new long[2 * np];
        Arrays.fill(spacedOut, -1);
        world.Allgather(new long[] {me * 11L}, 0, 1, MPI.LONG, spacedOut, 0, 1, spaced);
        for (int r = 0; r < np; r++) {
            Check.equal(spacedOut[2 * r] + "," + spacedOut[2 * r + 1], r * 11L + ",-1", "Allgather into a type with holes");
        }
        // Allgatherv with a zero count for rank 0 and a send type with holes.
        int[] counts = new int[np];
        int[] displs = new int[np];
        for (int r = 0; r < np; r++) {
            counts[r] = r == 0 ? 0 : 2;
            displs[r] = r == 0 ? 0 : 2 * (r - 1);
        }
        Datatype everyOther = Datatype.Vector(2, 1, 2, MPI.INT);
        int[] from = {me, -1, -me, -1};
        int[] got = new int[Math.max(0, 2 * (np - 1))];
        world.Allgatherv(from, 0, me == 0 ? 0 : 1, everyOther, got, 0, counts, displs, MPI.INT);
        for (int r = 1; r < np; r++) {
            Check.equal(got[2 * (r - 1)] + "," + got[2 * (r - 1) + 1], r + "," + -r, "Allgatherv block of " + r);
        }
        // Gather into a non-root: receive arguments ignored (null is fine).
        world.Gather(new int[] {me}, 0, 1, MPI.INT, me == 0 ? new int[np] : null, 0, 1, MPI.INT, 0);
    }

    private static void allToAll() {
        int[] out = new int[2 * np];
        for (int r = 0; r < np; r++) {
            out[2 * r] = me * 100 + r;
            out[2 * r + 1] = -(me * 100 + r);
        }
        int[] in = new int[2 * np];
        world.Alltoall(out, 0, 2, MPI.INT, in, 0, 2, MPI.INT);
        for (int q = 0; q < np; q++) {
            Check.equal(in[2 * q] + "," + in[2 * q + 1], (q * 100 + me) + "," + -(q * 100 + me), "Alltoall block from " + q);
        }
        // Alltoallv: rank q gets (q + me) % 3 elements from me; displacements with gaps.
        Exchange ex = Exchange.ofThisRank();
        int[] sc = ex.sc();
        int[] sd = ex.sd();
        int[] rc = ex.rc();
        int[] rd = ex.rd();
        double[] sb = new double[ex.sendLength()];
        for (int q = 0; q < np; q++) {
            for (int i = 0; i < sc[q]; i++) {
                sb[sd[q] + i] = me * 1000 + q * 10 + i;
            }
        }
        double[] rb = new double[ex.recvLength()];
        Arrays.fill(rb, -1);
        world.Alltoallv(sb, 0, sc, sd, MPI.DOUBLE, rb, 0, rc, rd, MPI.DOUBLE);
        for (int q = 0; q < np; q++) {
            for (int i = 0; i < rc[q]; i++) {
                Check.equal(rb[rd[q] + i], (double) (q * 1000 + me * 10 + i), "Alltoallv from " + q);
            }
            Check.equal(rb[rd[q] + rc[q]], -1.0, "Alltoallv leaves gaps alone");
        }
        // Types with holes on both sides, large blocks.
        Datatype v = Datatype.Vector(2, 1, 2, MPI.FLOAT); // slots 0, 2; extent 3
        float[] fs = new float[3 * np * 1000];
        for (int i = 0; i < fs.length; i++) {
            fs[i] = me + i * 1e-3f;
        }
        float[] fr = new float[3 * np * 1000];
        world.Alltoall(fs, 0, 1000, v, fr, 0, 1000, v);
        int q = np - 1;
        int e = q * 1000 + 999; // last element of the block from rank q
        Check.equal(fr[3 * e + 2], q + (3 * (me * 1000 + 999) + 2) * 1e-3f, "Alltoall with types with holes");
    }

    /**
     * The blocks of the Gatherv tests: r elements from rank r, in reverse rank order, {@code gap}
     * elements between blocks. Counts, displacements, and the elements in all.
     */
    private static int[][] reversedBlocks(int gap) {
        int[] counts = new int[np];
        int[] displs = new int[np];
        int at = 0;
        for (int r = np - 1; r >= 0; r--) {
            counts[r] = r;
            displs[r] = at;
            at += r + gap;
        }
        return new int[][] {counts, displs, {at}};
    }

    /**
     * The blocks of the Alltoallv tests: rank q gets (q + me) % 3 elements from this rank; one
     * element between send blocks and two between receive blocks are left alone. Counts,
     * displacements and the elements each side's buffer needs.
     */
    private record Exchange(int[] sc, int[] sd, int[] rc, int[] rd, int sendLength, int recvLength) {
        static Exchange ofThisRank() {
            Blocks sent = Blocks.inOrder(Blocks.counts(np, q -> (q + me) % 3), 0, 1);
            Blocks received = Blocks.inOrder(Blocks.counts(np, q -> (me + q) % 3), 0, 2);
            return new Exchange(sent.counts(), sent.displs(), received.counts(), received.displs(), sent.length(),
                    received.length());
        }
    }

    /**
     * Gather, Gatherv, Scatter, Scatterv and Alltoallv with a type with holes (two ints, one slot
     * apart): what is sent skips the holes, what is received leaves them alone.
     */
    private static void typesWithHoles() {
        Datatype v = Datatype.Vector(2, 1, 2, MPI.INT); // slots 0 and 2; extent 3
        for (int root : new int[] {0, np - 1}) {
            int[] out = {me, 555, me + 100};
            int[] all = new int[3 * np];
            Arrays.fill(all, -1);
            world.Gather(out, 0, 1, v, all, 0, 1, v, root);
            if (me == root) {
                for (int r = 0; r < np; r++) {
                    Check.equal(all[3 * r] + "," + all[3 * r + 1] + "," + all[3 * r + 2], r + ",-1," + (r + 100),
                            "Gather with holes, block " + r);
                }
            }
            int[] got = {-1, -1, -1};
            world.Scatter(all, 0, 1, v, got, 0, 1, v, root);
            Check.equal(got, new int[] {me, -1, me + 100}, "Scatter with holes");
            // Gatherv: rank r sends 2r ints, received as r elements of v, blocks in reverse rank order.
            int[][] layout = reversedBlocks(1); // an element of v between blocks
            int[] counts = layout[0];
            int[] displs = layout[1];
            int at = layout[2][0];
            int[] mine = new int[2 * me];
            for (int i = 0; i < mine.length; i++) {
                mine[i] = me * 10 + i;
            }
            int[] gv = new int[3 * at];
            Arrays.fill(gv, -1);
            world.Gatherv(mine, 0, 2 * me, MPI.INT, gv, 0, counts, displs, v, root);
            if (me == root) {
                for (int r = 0; r < np; r++) {
                    for (int j = 0; j < r; j++) {
                        int slot = 3 * (displs[r] + j);
                        Check.equal(gv[slot] + "," + gv[slot + 1] + "," + gv[slot + 2],
                                (r * 10 + 2 * j) + ",-1," + (r * 10 + 2 * j + 1), "Gatherv with holes, rank " + r);
                    }
                    Check.equal(gv[3 * (displs[r] + r)], -1, "Gatherv leaves the element between blocks alone");
                }
            }
            int[] sv = new int[2 * me];
            world.Scatterv(gv, 0, counts, displs, v, sv, 0, 2 * me, MPI.INT, root);
            Check.equal(sv, mine, "Scatterv with holes gives back what Gatherv collected");
        }
        // Alltoallv: rank q gets (q + me) % 3 elements of v from me, gaps between blocks on both sides.
        Exchange ex = Exchange.ofThisRank();
        int[] sc = ex.sc();
        int[] sd = ex.sd();
        int[] rc = ex.rc();
        int[] rd = ex.rd();
        int[] sb = new int[3 * ex.sendLength()];
        Arrays.fill(sb, 555);
        for (int q = 0; q < np; q++) {
            for (int i = 0; i < sc[q]; i++) {
                sb[3 * (sd[q] + i)] = me * 1000 + q * 10 + i;
                sb[3 * (sd[q] + i) + 2] = -(me * 1000 + q * 10 + i);
            }
        }
        int[] rb = new int[3 * ex.recvLength()];
        Arrays.fill(rb, -1);
        world.Alltoallv(sb, 0, sc, sd, v, rb, 0, rc, rd, v);
        for (int q = 0; q < np; q++) {
            for (int i = 0; i < rc[q]; i++) {
                int slot = 3 * (rd[q] + i);
                int x = q * 1000 + me * 10 + i;
                Check.equal(rb[slot] + "," + rb[slot + 1] + "," + rb[slot + 2], x + ",-1," + -x,
                        "Alltoallv with holes, from " + q);
            }
            Check.equal(rb[3 * (rd[q] + rc[q])], -1, "Alltoallv with holes leaves gaps alone");
        }
        // a block outside the receive buffer: every rank refuses the call before it starts, naming the block
        int[] ones = new int[np];
        int[] past = new int[np];
        for (int q = 0; q < np; q++) {
            ones[q] = 1;
            past[q] = q == np - 1 ? np + 5 : q;
        }
        Check.fails(() -> world.Allgatherv(new int[] {me}, 0, 1, MPI.INT, new int[np], 0, ones, past, MPI.INT),
                "Allgatherv block of rank " + (np - 1), "a receive block outside the buffer");
    }

    private static void reduceScatterAndScan() {
        int[] rc = new int[np];
        int total = 0;
        for (int r = 0; r < np; r++) {
            rc[r] = r % 3;
            total += rc[r];
        }
        int[] sb = new int[total];
        for (int i = 0; i < total; i++) {
            sb[i] = i + me;
        }
        int[] rb = new int[rc[me]];
        world.Reduce_scatter(sb, 0, rb, 0, rc, MPI.INT, MPI.SUM);
        int first = 0;
        for (int r = 0; r < me; r++) {
            first += rc[r];
        }
        for (int i = 0; i < rc[me]; i++) {
            Check.equal(rb[i], np * (first + i) + tri(np), "Reduce_scatter element " + i);
        }
        int[] scan = new int[2];
        world.Scan(new int[] {me, 1}, 0, scan, 0, 2, MPI.INT, MPI.SUM);
        Check.equal(scan, new int[] {tri(me + 1), me + 1}, "Scan SUM");
        int[] ms = new int[4];
        world.Scan(matrixOf(me), 0, ms, 0, 1, Datatype.Contiguous(4, MPI.INT), new Op(new MatMul(), false));
        int[] expect = identity();
        for (int r = 0; r <= me; r++) {
            expect = mul(expect, matrixOf(r));
        }
        Check.equal(ms, expect, "non-commutative Scan");
        int[] rsm = new int[4 * rc[me]];
        int[] sm = new int[4 * total];
        for (int i = 0; i < total; i++) {
            System.arraycopy(matrixOf(me), 0, sm, 4 * i, 4);
        }
        int[] prod = identity();
        for (int r = 0; r < np; r++) {
            prod = mul(prod, matrixOf(r));
        }
        world.Reduce_scatter(sm, 0, rsm, 0, rc, Datatype.Contiguous(4, MPI.INT), new Op(new MatMul(), false));
        for (int i = 0; i < rc[me]; i++) {
            Check.equal(Arrays.copyOfRange(rsm, 4 * i, 4 * i + 4), prod, "non-commutative Reduce_scatter");
        }
    }

    private static void objectCollectives() {
        Object[] b = new Object[2];
        if (me == 0) {
            b = new Object[] {"config", Arrays.asList(1.5, 2.5)};
        }
        world.Bcast(b, 0, 2, MPI.OBJECT, 0);
        Check.equal(b[1], Arrays.asList(1.5, 2.5), "Bcast of objects");
        Object[] all = new Object[np];
        world.Gather(new Object[] {"r" + me}, 0, 1, MPI.OBJECT, all, 0, 1, MPI.OBJECT, np - 1);
        if (me == np - 1) {
            for (int r = 0; r < np; r++) {
                Check.equal(all[r], "r" + r, "Gather of objects");
            }
        }
        Object[] every = new Object[2 * np];
        world.Allgather(new Object[] {me, "x" + me}, 0, 2, MPI.OBJECT, every, 0, 2, MPI.OBJECT);
        Check.equal(every[2 * (np - 1) + 1], "x" + (np - 1), "Allgather of objects");
        Object[] gv = new Object[tri(np + 1)];
        int[] counts = new int[np];
        int[] displs = new int[np];
        for (int r = 0, at = 0; r < np; at += r + 1, r++) {
            counts[r] = r + 1;
            displs[r] = at;
        }
        Object[] mine = new Object[me + 1];
        Arrays.fill(mine, me);
        world.Allgatherv(mine, 0, me + 1, MPI.OBJECT, gv, 0, counts, displs, MPI.OBJECT);
        Check.equal(gv[gv.length - 1], np - 1, "Allgatherv of objects");
        Object[] part = new Object[me + 1];
        world.Scatterv(gv, 0, counts, displs, MPI.OBJECT, part, 0, me + 1, MPI.OBJECT, 0);
        Check.equal(part, mine, "Scatterv of objects");
        Object[] one = new Object[1];
        world.Scatter(all, 0, 1, MPI.OBJECT, one, 0, 1, MPI.OBJECT, np - 1);
        Check.equal(one[0], "r" + me, "Scatter of objects");
        Object[] to = new Object[np];
        for (int q = 0; q < np; q++) {
            to[q] = me + "->" + q;
        }
        Object[] from = new Object[np];
        world.Alltoall(to, 0, 1, MPI.OBJECT, from, 0, 1, MPI.OBJECT);
        Check.equal(from[np - 1], (np - 1) + "->" + me, "Alltoall of objects");
        int[] ones = new int[np];
        Arrays.fill(ones, 1);
        int[] seq = new int[np];
        for (int q = 0; q < np; q++) {
            seq[q] = np - 1 - q;
        }
        world.Alltoallv(to, 0, ones, seq, MPI.OBJECT, from, 0, ones, seq, MPI.OBJECT);
        // Rank q sends me its element np-1-me, which lands at my element np-1-q.
        Check.equal(from[np - 1], "0->" + (np - 1 - me), "Alltoallv of objects, reversed");
        Op concat = new Op(new Concat(), false);
        Object[] s = new Object[1];
        world.Reduce(new Object[] {"" + me}, 0, s, 0, 1, MPI.OBJECT, concat, 0);
        StringBuilder all01 = new StringBuilder();
        for (int r = 0; r < np; r++) {
            all01.append(r);
        }
        if (me == 0) {
            Check.equal(s[0], all01.toString(), "non-commutative Reduce of objects");
        }
        world.Allreduce(new Object[] {"" + me}, 0, s, 0, 1, MPI.OBJECT, concat);
        Check.equal(s[0], all01.toString(), "Allreduce of objects");
        world.Scan(new Object[] {"" + me}, 0, s, 0, 1, MPI.OBJECT, concat);
        Check.equal(s[0], all01.substring(0, me + 1), "Scan of objects");
        int[] rc = new int[np];
        Arrays.fill(rc, 1);
        Object[] rs = new Object[np];
        for (int q = 0; q < np; q++) {
            rs[q] = q + ":" + me + ";";
        }
        world.Reduce_scatter(rs, 0, s, 0, rc, MPI.OBJECT, concat);
        StringBuilder want = new StringBuilder();
        for (int r = 0; r < np; r++) {
            want.append(me).append(':').append(r).append(';');
        }
        Check.equal(s[0], want.toString(), "Reduce_scatter of objects");
        Check.fails(() -> world.Allreduce(new Object[1], 0, new Object[1], 0, 1, MPI.OBJECT, MPI.SUM),
                "does not apply to MPI.OBJECT", "predefined op over objects");
    }

    private static void communicatorsAndGroups() {
        // Split by parity, reversed order within.
        Intracomm half = world.Split(me % 2, -me);
        int members = (np - me % 2 + 1) / 2;
        Check.equal(half.Size(), members, "Split size");
        Check.equal(half.Rank(), members - 1 - me / 2, "Split orders by key");
        int[] sum = new int[1];
        half.Allreduce(new int[] {me}, 0, sum, 0, 1, MPI.INT, MPI.SUM);
        int want = 0;
        for (int r = me % 2; r < np; r += 2) {
            want += r;
        }
        Check.equal(sum[0], want, "collective on a split communicator");
        Check.that(world.Split(me == 0 ? 0 : MPI.UNDEFINED, 0) == null || me == 0, "UNDEFINED colour gives null");
        Intracomm reversed = world.Split(0, -me);
        Check.equal(Comm.Compare(world, reversed), np == 1 ? MPI.CONGRUENT : MPI.SIMILAR, "same members, other order");
        Check.equal(Comm.Compare(world, half), np == 1 ? MPI.CONGRUENT : MPI.UNEQUAL, "other members");
        // Groups.
        Group g = world.Group();
        Group evens = g.Range_incl(new int[][] {{0, np - 1, 2}});
        Group odds = g.Range_excl(new int[][] {{0, np - 1, 2}});
        Check.equal(evens.Size() + odds.Size(), np, "Range_incl and Range_excl split the group");
        Check.equal(Group.Union(evens, odds).Size(), np, "Union");
        Check.equal(Group.Compare(Group.Union(evens, odds), g), np <= 2 ? MPI.IDENT : MPI.SIMILAR, "Union order");
        Check.equal(Group.Intersection(evens, odds).Size(), 0, "Intersection of disjoint groups");
        Check.equal(Group.Difference(g, odds).Size(), evens.Size(), "Difference");
        Check.equal(Group.Compare(Group.Difference(g, odds), evens), MPI.IDENT, "Difference keeps order");
        Check.equal(evens.Rank(), me % 2 == 0 ? me / 2 : MPI.UNDEFINED, "rank in a group");
        int[] rev = new int[np];
        for (int r = 0; r < np; r++) {
            rev[r] = np - 1 - r;
        }
        Group backwards = g.Incl(rev);
        Check.equal(Group.Translate_ranks(g, new int[] {0, np - 1, MPI.PROC_NULL}, backwards),
                new int[] {np - 1, 0, MPI.PROC_NULL}, "Translate_ranks");
        Check.equal(Group.Translate_ranks(evens, new int[] {0}, odds)[0], MPI.UNDEFINED, "Translate_ranks to a non-member");
        Check.equal(g.Excl(new int[] {0}).Size(), np - 1, "Excl");
        Check.equal(g.Range_incl(new int[][] {{np - 1, 0, -1}}).Rank(), np - 1 - me, "Range_incl with a negative stride");
        Check.fails(() -> g.Incl(new int[] {0, 0}), "appears twice", "duplicate ranks");
        Check.fails(() -> g.Incl(new int[] {np}), "out of range", "rank out of range");
        Check.equal(MPI.GROUP_EMPTY.Size(), 0, "GROUP_EMPTY");
        // Create: a communicator of the odd ranks, in reverse order.
        Group oddsBackwards = Group.Intersection(backwards, odds);
        Intracomm oc = world.Create(oddsBackwards);
        if (me % 2 == 1) {
            Check.equal(oc.Size(), odds.Size(), "Create size");
            Check.equal(oc.Rank(), oddsBackwards.Rank(), "Create orders as the group");
            int[] x = new int[1];
            oc.Allreduce(new int[] {1}, 0, x, 0, 1, MPI.INT, MPI.SUM);
            Check.equal(x[0], odds.Size(), "collective on a created communicator");
            oc.Free();
        } else {
            Check.that(oc == null, "Create gives null to non-members");
        }
        Intracomm copy = (Intracomm) world.clone();
        copy.Barrier();
        Check.equal(Comm.Compare(copy, world), MPI.CONGRUENT, "clone");
        copy.Free();
        g.free();
        Check.fails(g::Size, "freed", "a freed group");
    }
}
