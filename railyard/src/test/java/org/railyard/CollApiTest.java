package org.railyard;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Arrays;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.railyard.engine.EngineJob;
import org.railyard.testkit.Blocks;

/**
 * The collective surface of {@link Comm} as a program sees it: typed and inferred forms, the
 * non-blocking forms composed with {@link Request#awaitAll}, user-defined operations (a
 * non-commutative one checked against a sequential fold), MAXLOC ties, communicator comparison,
 * groups, intercommunicators and Cartesian grids.
 */
class CollApiTest {
    /** 2x2 integer matrices stored flat (items of 4 ints): associative, not commutative. */
    static final Op MATMUL = Op.of("matmul", (in, io, inout, oo, n, type) -> {
        int[] a = (int[]) in;
        int[] b = (int[]) inout;
        for (int i = 0; i < n; i += 4) {
            int b0 = b[oo + i], b1 = b[oo + i + 1], b2 = b[oo + i + 2], b3 = b[oo + i + 3];
            b[oo + i] = a[io + i] * b0 + a[io + i + 1] * b2;
            b[oo + i + 1] = a[io + i] * b1 + a[io + i + 1] * b3;
            b[oo + i + 2] = a[io + i + 2] * b0 + a[io + i + 3] * b2;
            b[oo + i + 3] = a[io + i + 2] * b1 + a[io + i + 3] * b3;
        }
    }, false, 4);

    static int[] matrices(int rank, int items) {
        int[] m = new int[4 * items];
        for (int j = 0; j < items; j++) {
            m[4 * j] = 1;
            m[4 * j + 1] = rank + j;
            m[4 * j + 2] = rank % 3 - j;
            m[4 * j + 3] = 1;
        }
        return m;
    }

    /** matrices(lo) x ... x matrices(hi - 1). */
    static int[] product(int lo, int hi, int items) {
        int[] acc = matrices(hi - 1, items);
        for (int r = hi - 2; r >= lo; r--) {
            MATMUL.reduction().apply(org.railyard.types.Kind.INT, matrices(r, items), 0, acc, 0, 4 * items);
        }
        return acc;
    }

    @ParameterizedTest
    @ValueSource(ints = {1, 3, 4, 6})
    void collectivesThroughTheNativeApi(int n) throws Exception {
        WorldJob.run(n, "shm", (w, me) -> {
            // non-commutative user operation, blocking and not
            int[] out = new int[8];
            w.allreduce(matrices(me, 2), 0, out, 0, 8, MATMUL);
            assertThat(out).isEqualTo(product(0, n, 2));
            int[] scan = new int[8];
            int[] ex = new int[8];
            Request[] rs = {
                w.iscan(matrices(me, 2), 0, scan, 0, 8, MATMUL),
                w.iexscan(matrices(me, 2), 0, ex, 0, 8, MATMUL),
            };
            Request.awaitAll(rs);
            assertThat(scan).isEqualTo(product(0, me + 1, 2));
            if (me > 0) {
                assertThat(ex).isEqualTo(product(0, me, 2));
            }
            for (int root = 0; root < n; root++) {
                int[] red = new int[4];
                w.reduce(matrices(me, 1), 0, me == root ? red : null, 0, 4, MATMUL, root);
                if (me == root) {
                    assertThat(red).isEqualTo(product(0, n, 1));
                }
            }
            int[] block = new int[4];
            w.reduceScatterBlock(matrices(me, n), 0, block, 0, 4, MATMUL);
            assertThat(block).isEqualTo(Arrays.copyOfRange(product(0, n, n), 4 * me, 4 * me + 4));
            // element-wise user operation and MAXLOC ties (value, index pairs of ints)
            Op maxAbs = Op.ofDouble((a, b) -> Math.abs(a) >= Math.abs(b) ? a : b, true);
            assertThat(w.allreduce(me % 2 == 0 ? -me : me * 0.5, maxAbs)).isEqualTo(n == 1 ? 0.0 : -(double) ((n - 1) / 2 * 2));
            int[] loc = new int[2];
            w.allreduce(new int[] {me / 2, 100 - me}, 0, loc, 0, 2, Op.MAXLOC);
            // the largest value (n - 1) / 2 is held by ranks 2v and 2v + 1; the higher rank has the lower index
            assertThat(loc).containsExactly((n - 1) / 2, 100 - (n - 1));
            // typed gather with the receive side null where it does not matter
            for (int root = 0; root < n; root++) {
                int[] all = me == root ? new int[n * 2] : null;
                w.gather(new int[] {me, -me}, 0, 2, Datatype.INT, all, 0, 2, Datatype.INT, root);
                if (me == root) {
                    for (int r = 0; r < n; r++) {
                        assertThat(all[2 * r]).isEqualTo(r);
                        assertThat(all[2 * r + 1]).isEqualTo(-r);
                    }
                }
                double[] piece = new double[1];
                w.scatter(me == root ? squares(n) : null, 0, 1, piece, 0, 1, root);
                assertThat(piece[0]).isEqualTo(me * (double) me);
            }
            // non-blocking v-variants together, zero counts included
            Blocks blocks = Blocks.inOrder(Blocks.counts(n, r -> r % 2), 0, 0);
            int[] counts = blocks.counts();
            int[] displs = blocks.displs();
            long[] gathered = new long[n];
            long[] bc = me == 0 ? new long[] {5, 6} : new long[2];
            long[] scattered = new long[counts[me]];
            long[] a2a = new long[n];
            long[] all2 = new long[n];
            Request.awaitAll(
                    w.iallgatherv(new long[] {me}, 0, counts[me], gathered, 0, counts, displs),
                    w.ibcast(bc, 0, 2, 0),
                    w.iscatterv(me == 0 ? new long[] {0, 10, 20, 30, 40, 50, 60, 70} : null, 0, counts, displs, scattered,
                            0, counts[me], 0),
                    w.ialltoall(fill(n, me), 0, 1, a2a, 0, 1),
                    w.iallgather(new long[] {me * 3L}, 0, 1, all2, 0, 1),
                    w.ibarrier());
            for (int r = 0; r < n; r++) {
                if (counts[r] > 0) {
                    assertThat(gathered[displs[r]]).isEqualTo(r);
                }
                assertThat(a2a[r]).isEqualTo(r);
                assertThat(all2[r]).isEqualTo(3L * r);
            }
            assertThat(bc).containsExactly(5, 6);
            if (counts[me] > 0) {
                assertThat(scattered[0]).isEqualTo(10L * displs[me]);
            }
            Status empty = w.ireduce(new int[0], 0, new int[0], 0, 0, Op.SUM, n - 1).await();
            assertThat(empty.bytes()).as("an empty reduce carries nothing").isZero();
            assertThat(empty.cancelled()).isFalse();
        });
    }

    private static double[] squares(int n) {
        double[] s = new double[n];
        for (int i = 0; i < n; i++) {
            s[i] = i * (double) i;
        }
        return s;
    }

    private static long[] fill(int n, long v) {
        long[] a = new long[n];
        Arrays.fill(a, v);
        return a;
    }

    @ParameterizedTest
    @ValueSource(ints = {4, 6})
    void communicatorsGroupsIntercommunicatorsAndGrids(int n) throws Exception {
        EngineJob.run(n, "shm", e -> {
            Comm w = new Comm(e, e.world());
            int me = w.rank();
            Comm dup = w.dup();
            Comm reversed = w.split(0, -me);
            Comm half = w.split(me % 2, me);
            assertThat(Comm.compare(w, w)).isEqualTo(Group.IDENT);
            assertThat(Comm.compare(w, dup)).isEqualTo(Group.CONGRUENT);
            assertThat(Comm.compare(w, reversed)).isEqualTo(Group.SIMILAR);
            assertThat(Comm.compare(w, half)).isEqualTo(Group.UNEQUAL);
            // create from a group: world ranks 1..n-1 in reverse order
            Group g = w.group().rangeIncl(new int[][] {{n - 1, 1, -1}});
            Comm sub = w.create(g);
            assertThat(sub == null).isEqualTo(me == 0);
            if (sub != null) {
                assertThat(sub.rank()).isEqualTo(n - 1 - me);
                assertThat(Group.compare(sub.group(), g)).isEqualTo(Group.IDENT);
                assertThat(sub.allreduce((long) me, Op.SUM)).isEqualTo((long) n * (n - 1) / 2);
            }
            // intercommunicator between the even and the odd world ranks; leaders are world 0 and 1
            Comm inter = half.createIntercomm(0, w, me % 2 == 0 ? 1 : 0, 99);
            assertThat(inter.isInter()).isTrue();
            assertThat(inter.size()).isEqualTo(half.size());
            assertThat(inter.remoteSize()).isEqualTo(n / 2);
            assertThat(inter.remoteGroup().worldRank(0)).isEqualTo(me % 2 == 0 ? 1 : 0);
            long[] v = new long[1];
            if (me % 2 == 0) {
                inter.bcast(v, 0, 1, me == 0 ? Comm.ROOT : Comm.PROC_NULL);
            } else {
                inter.bcast(v, 0, 1, 0);
            }
            inter.barrier();
            // gather and reduce to the even leader, whose own buffers for sending are null
            int odd = n / 2;
            long[] got = new long[odd];
            long[] total = new long[1];
            if (me % 2 == 0) {
                int root = me == 0 ? Comm.ROOT : Comm.PROC_NULL;
                inter.gather(null, 0, 1, me == 0 ? got : null, 0, 1, root);
                inter.reduce(null, 0, me == 0 ? total : null, 0, 1, Op.SUM, root);
                if (me == 0) {
                    for (int r = 0; r < odd; r++) {
                        assertThat(got[r]).isEqualTo(2 * r + 1);
                    }
                    assertThat(total[0]).isEqualTo((long) odd * odd);
                }
            } else {
                inter.gather(new long[] {me}, 0, 1, null, 0, 1, 0);
                inter.reduce(new long[] {me}, 0, null, 0, 1, Op.SUM, 0);
            }
            Comm merged = inter.merge(me % 2 == 0);
            assertThat(merged.size()).isEqualTo(n);
            assertThat(merged.rank()).isEqualTo(me % 2 == 1 ? me / 2 : n / 2 + me / 2);
            Comm interDup = inter.dup();
            assertThat(interDup.isInter()).isTrue();
            // a periodic grid, its rows, and a halo exchange through the neighbourhood collective
            int[] dims = Comm.dimsCreate(n, new int[2]);
            Comm grid = w.createCart(dims, new boolean[] {true, false}, true);
            int[] c = grid.cartCoords(grid.rank());
            assertThat(grid.cartRank(c)).isEqualTo(grid.rank());
            int[] sd = grid.cartShift(0, 1);
            assertThat(sd[1]).isEqualTo(grid.cartRank(new int[] {(c[0] + 1) % dims[0], c[1]}));
            assertThat(grid.dup().cart().dims()).containsExactly(dims);
            Comm row = grid.cartSub(new boolean[] {false, true});
            assertThat(row.size()).isEqualTo(dims[1]);
            int[] nb = grid.neighbours();
            long[] halo = new long[nb.length];
            Arrays.fill(halo, -1);
            grid.neighbourAllgather(new long[] {grid.rank()}, 0, 1, halo, 0, 1);
            for (int j = 0; j < nb.length; j++) {
                assertThat(halo[j]).isEqualTo(nb[j] == Comm.PROC_NULL ? -1 : nb[j]);
            }
            long[] a2a = new long[nb.length];
            grid.ineighbourAlltoall(fill(nb.length, grid.rank()), 0, 1, a2a, 0, 1).await();
            assertThat(e.describeChoices()).contains("neighbour_allgather").contains("allreduce");
        });
    }
}
