package org.railyard.engine.comm;

import org.railyard.testkit.Blocks;
import org.railyard.types.CartTopology;
import org.railyard.types.GraphTopology;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.railyard.engine.Engine;
import org.railyard.engine.EngineJob;
import org.railyard.types.Kind;
import org.railyard.engine.request.Transfer;
import org.railyard.engine.coll.Collectives;
import org.railyard.types.Reduction;
import org.railyard.error.ErrorClass;
import org.railyard.error.RailyardException;

/** Communicators from groups, Cartesian and graph topologies with their neighbourhood collectives, intercommunicators. */
class CollCommunicatorsTest {
    private static final int STD = Engine.MODE_STANDARD;

    @Test
    void dimsCreateBalances() {
        assertThat(CartTopology.dimsCreate(12, new int[2])).containsExactly(4, 3);
        assertThat(CartTopology.dimsCreate(72, new int[3])).containsExactly(6, 4, 3);
        assertThat(CartTopology.dimsCreate(16, new int[3])).containsExactly(4, 2, 2);
        assertThat(CartTopology.dimsCreate(7, new int[2])).containsExactly(7, 1);
        assertThat(CartTopology.dimsCreate(1, new int[3])).containsExactly(1, 1, 1);
        assertThat(CartTopology.dimsCreate(24, new int[] {0, 2, 0})).containsExactly(4, 2, 3);
        assertThat(CartTopology.dimsCreate(64, new int[4])).containsExactly(4, 4, 2, 2);
        assertThat(CartTopology.dimsCreate(32, new int[4])).containsExactly(4, 2, 2, 2);
        assertThat(CartTopology.dimsCreate(36, new int[2])).containsExactly(6, 6);
        assertThatThrownBy(() -> CartTopology.dimsCreate(10, new int[] {3, 0}))
                .isInstanceOf(RailyardException.class).hasMessageContaining("do not divide");
    }

    @Test
    void cartesianCoordinatesShiftsAndNeighbours() {
        CartTopology t = new CartTopology(new int[] {2, 3}, new boolean[] {false, true});
        assertThat(t.coords(5)).containsExactly(1, 2);
        assertThat(t.rank(new int[] {1, 2})).isEqualTo(5);
        assertThat(t.rank(new int[] {1, -1})).isEqualTo(5);
        assertThat(t.shift(5, 0, 1)).containsExactly(2, Engine.PROC_NULL);
        assertThat(t.shift(5, 1, 1)).containsExactly(4, 3);
        assertThat(t.neighbours(0)).containsExactly(Engine.PROC_NULL, 3, 2, 1);
        assertThatThrownBy(() -> t.rank(new int[] {2, 0})).isInstanceOf(RailyardException.class);
        GraphTopology g = new GraphTopology(new int[] {2, 3, 4}, new int[] {1, 2, 0, 0});
        assertThat(g.neighbours(0)).containsExactly(1, 2);
        assertThat(g.neighbours(2)).containsExactly(0);
        assertThat(g.neighbourCount(1)).isEqualTo(1);
    }

    @ParameterizedTest
    @ValueSource(ints = {1, 2, 4, 6})
    void cartesianNeighbourhoodCollectivesIncludingDoubleLinks(int n) throws Exception {
        EngineJob.run(n, "shm", e -> {
            CommState w = e.world();
            Collectives c = e.collectives();
            // a periodic ring of n and a periodic dimension of 1 or 2 (both neighbours the same process)
            int[] dims = CartTopology.dimsCreate(n, new int[2]);
            CommState cart = e.communicators().cart(w, dims, new boolean[] {true, true}, true);
            CartTopology t = (CartTopology) cart.topology();
            int me = cart.rank();
            int[] nb = t.neighbours(me);
            long[] send = new long[nb.length];
            for (int j = 0; j < nb.length; j++) {
                send[j] = me * 100L + j;
            }
            long[] recv = new long[nb.length];
            c.neighbourAlltoall(cart, send, 0, 1, Kind.LONG, recv, 0, 1, Kind.LONG);
            for (int j = 0; j < nb.length; j++) {
                // what my neighbour j sent towards me: its block j ^ 1
                assertThat(recv[j]).as("from neighbour %d", j).isEqualTo(nb[j] * 100L + (j ^ 1));
            }
            long[] all = new long[nb.length];
            c.neighbourAllgather(cart, new long[] {me}, 0, 1, Kind.LONG, all, 0, 1, Kind.LONG);
            for (int j = 0; j < nb.length; j++) {
                assertThat(all[j]).isEqualTo(nb[j]);
            }
            // a non-periodic line: the ends have PROC_NULL neighbours, whose blocks stay untouched
            CommState line = e.communicators().cart(w, new int[] {n}, new boolean[] {false}, false);
            long[] got = {-7, -7};
            c.neighbourAllgather(line, new long[] {me}, 0, 1, Kind.LONG, got, 0, 1, Kind.LONG);
            assertThat(got[0]).isEqualTo(me == 0 ? -7 : me - 1);
            assertThat(got[1]).isEqualTo(me == n - 1 ? -7 : me + 1);
            // sub-grids: keep dimension 1, so each row is a communicator ranked along the row
            CommState row = e.communicators().cartSub(cart, new boolean[] {false, true});
            int[] coords = t.coords(me);
            assertThat(row.size()).isEqualTo(dims[1]);
            assertThat(row.rank()).isEqualTo(coords[1]);
            assertThat(((CartTopology) row.topology()).dims()).containsExactly(dims[1]);
            long[] sum = new long[1];
            c.allreduce(row, new long[] {me}, 0, sum, 0, 1, Kind.LONG, Reduction.SUM);
            long expect = 0;
            for (int k = 0; k < dims[1]; k++) {
                expect += t.rank(new int[] {coords[0], k});
            }
            assertThat(sum[0]).isEqualTo(expect);
        });
    }

    @Test
    void graphTopologyNeighbourAlltoallAndProcessesLeftOut() throws Exception {
        EngineJob.run(5, "shm", e -> {
            CommState w = e.world();
            // a star over 4 of the 5 processes: 0 is linked to 1 (twice: a double edge), 2 and 3
            int[] index = {4, 6, 7, 8};
            int[] edges = {1, 1, 2, 3, 0, 0, 0, 0};
            CommState g = e.communicators().graph(w, index, edges, false);
            if (e.rank() == 4) {
                assertThat(g).isNull();
                return;
            }
            int me = g.rank();
            int[] nb = g.topology().neighbours(me);
            long[] send = new long[nb.length];
            for (int j = 0; j < nb.length; j++) {
                send[j] = me * 10L + j;
            }
            long[] recv = new long[nb.length];
            e.collectives().neighbourAlltoall(g, send, 0, 1, Kind.LONG, recv, 0, 1, Kind.LONG);
            if (me == 0) {
                // two links to 1: the k-th message from 1 fills the k-th block naming 1
                assertThat(recv).containsExactly(10, 11, 20, 30);
            } else if (me == 1) {
                assertThat(recv).containsExactly(0, 1);
            } else {
                assertThat(recv).containsExactly(me == 2 ? 2 : 3);
            }
        });
    }

    /** Keeps its left operand: associative, not commutative; a reduction in rank order yields the lowest rank's vector. */
    static final Reduction LEFT = Reduction.of("LEFT", false, 1, (k, in, inOff, inout, ioOff, count) ->
            System.arraycopy(in, inOff, inout, ioOff, count));

    /**
     * The collectives MPI defines on an intercommunicator besides mpiJava's: allgatherv (blocks
     * of 0 to 2 elements with a gap before each), reduce_scatter with a commutative and a
     * non-commutative operation (the other group's reduction in its rank order, spread over this
     * group by this group's counts), reduce_scatter_block when the groups are of one size, and
     * alltoallw (ints to even remote ranks, doubles to odd ones), at 3, 5 and 8 processes split
     * into a low and a high group.
     */
    @ParameterizedTest
    @ValueSource(ints = {3, 5, 8})
    void moreCollectivesAcrossIntercommunicators(int n) throws Exception {
        EngineJob.run(n, "shm", (e, c, w, me) -> {
            int h = n / 2;
            CommState half = e.communicators().split(w, me < h ? 0 : 1, me);
            CommState inter = e.communicators().intercommCreate(half, 0, w, me < h ? h : 0, 78);
            int remote = inter.size();
            int local = inter.localSize();
            int lr = half.rank();
            int remoteBase = me < h ? h : 0;
            // allgatherv: world rank q gives q % 3 elements 10q, 10q + 1, ...
            long[] mine = new long[me % 3];
            for (int x = 0; x < mine.length; x++) {
                mine[x] = 10L * me + x;
            }
            Blocks blocks = Blocks.inOrder(Blocks.counts(remote, r -> (remoteBase + r) % 3), 1, 1);
            int[] counts = blocks.counts();
            int[] displs = blocks.displs();
            long[] all = new long[blocks.length()];
            c.allgatherv(inter, mine, 0, mine.length, Kind.LONG, all, 0, counts, displs, Kind.LONG);
            for (int r = 0; r < remote; r++) {
                for (int x = 0; x < counts[r]; x++) {
                    assertThat(all[displs[r] + x]).as("allgatherv block %d", r).isEqualTo(10L * (remoteBase + r) + x);
                }
                assertThat(all[displs[r] - 1]).as("gap before block %d", r).isZero();
            }
            // reduce_scatter: vectors of 7 over either group, local process i gets 7 / local (+1)
            int total = 7;
            int[] rc = new int[local];
            for (int i = 0; i < local; i++) {
                rc[i] = total / local + (i < total % local ? 1 : 0);
            }
            int first = 0;
            for (int i = 0; i < lr; i++) {
                first += rc[i];
            }
            long[] v = new long[total];
            for (int x = 0; x < total; x++) {
                v[x] = 100L * me + x;
            }
            long remoteSum = 0;
            for (int r = 0; r < remote; r++) {
                remoteSum += remoteBase + r;
            }
            long[] got = new long[rc[lr]];
            c.reduceScatter(inter, v, 0, got, 0, rc, Kind.LONG, Reduction.SUM);
            for (int x = 0; x < got.length; x++) {
                assertThat(got[x]).as("reduce_scatter SUM element %d", first + x).isEqualTo(100 * remoteSum + remote * (long) (first + x));
            }
            c.reduceScatter(inter, v, 0, got, 0, rc, Kind.LONG, LEFT);
            for (int x = 0; x < got.length; x++) {
                assertThat(got[x]).as("reduce_scatter in rank order, element %d", first + x).isEqualTo(100L * remoteBase + first + x);
            }
            if (local == remote) {
                long[] vb = new long[3 * local];
                for (int x = 0; x < vb.length; x++) {
                    vb[x] = 100L * me + x;
                }
                long[] block = new long[3];
                c.reduceScatterBlock(inter, vb, 0, block, 0, 3, Kind.LONG, Reduction.SUM);
                for (int x = 0; x < 3; x++) {
                    assertThat(block[x]).as("reduce_scatter_block element %d", x).isEqualTo(100 * remoteSum + remote * (long) (3 * lr + x));
                }
            }
            // alltoallw: two ints to even remote ranks, two doubles to odd ones, a byte buffer each way
            Kind[] stypes = new Kind[remote];
            Kind[] rtypes = new Kind[remote];
            int[] cnt = new int[remote];
            int[] sdsp = new int[remote];
            int[] rdsp = new int[remote];
            java.nio.ByteBuffer sb = java.nio.ByteBuffer.allocate(16 * remote).order(java.nio.ByteOrder.LITTLE_ENDIAN);
            for (int r = 0; r < remote; r++) {
                stypes[r] = r % 2 == 0 ? Kind.INT : Kind.DOUBLE;
                rtypes[r] = lr % 2 == 0 ? Kind.INT : Kind.DOUBLE;
                cnt[r] = 2;
                sdsp[r] = r * 16 / stypes[r].size;
                rdsp[r] = r * 16 / rtypes[r].size;
                if (stypes[r] == Kind.INT) {
                    sb.putInt(16 * r, me).putInt(16 * r + 4, r);
                } else {
                    sb.putDouble(16 * r, me + 0.5).putDouble(16 * r + 8, r + 0.25);
                }
            }
            java.nio.ByteBuffer rb = java.nio.ByteBuffer.allocate(16 * remote).order(java.nio.ByteOrder.LITTLE_ENDIAN);
            c.alltoallw(inter, sb, cnt, sdsp, stypes, rb, cnt, rdsp, rtypes);
            for (int r = 0; r < remote; r++) {
                if (lr % 2 == 0) {
                    assertThat(rb.getInt(16 * r)).as("alltoallw from %d", r).isEqualTo(remoteBase + r);
                    assertThat(rb.getInt(16 * r + 4)).isEqualTo(lr);
                } else {
                    assertThat(rb.getDouble(16 * r)).as("alltoallw from %d", r).isEqualTo(remoteBase + r + 0.5);
                    assertThat(rb.getDouble(16 * r + 8)).isEqualTo(lr + 0.25);
                }
            }
        });
    }

    @ParameterizedTest
    @ValueSource(ints = {3, 5, 8})
    void createFromGroupAndIntercommunicators(int n) throws Exception {
        EngineJob.run(n, "shm", (e, c, w, me) -> {
            // the even world ranks, highest first
            int evens = (n + 1) / 2;
            int[] group = new int[evens];
            for (int i = 0; i < evens; i++) {
                group[i] = 2 * (evens - 1 - i);
            }
            CommState even = e.communicators().create(w, group);
            assertThat(even == null).isEqualTo(me % 2 == 1);
            if (even != null) {
                assertThat(even.rank()).isEqualTo(evens - 1 - me / 2);
            }
            // two halves: low [0, h) and high [h, n); leaders are world ranks 0 and h
            int h = n / 2;
            CommState half = e.communicators().split(w, me < h ? 0 : 1, me);
            CommState inter = e.communicators().intercommCreate(half, 0, w, me < h ? h : 0, 77);
            assertThat(inter.isInter()).isTrue();
            assertThat(inter.localSize()).isEqualTo(me < h ? h : n - h);
            assertThat(inter.size()).isEqualTo(me < h ? n - h : h);
            // point-to-point names the remote group: low rank i talks to high rank i
            int partner = half.rank();
            if (partner < inter.size()) {
                long[] got = new long[1];
                Transfer r = e.irecv(inter, got, Kind.LONG, 0, 1, partner, 5);
                e.send(inter, new long[] {me}, Kind.LONG, 0, 1, partner, 5, STD);
                e.await(r);
                assertThat(got[0]).isEqualTo(me < h ? h + partner : partner);
            }
            c.barrier(inter);
            // broadcast from high rank 1 (or 0) to the low group, then allreduce across
            int root = Math.min(1, n - h - 1);
            long[] b = new long[3];
            if (me >= h) {
                if (half.rank() == root) {
                    b = new long[] {7, 8, 9};
                }
                c.bcast(inter, b, Kind.LONG, 0, 3, half.rank() == root ? Collectives.ROOT : Engine.PROC_NULL);
            } else {
                c.bcast(inter, b, Kind.LONG, 0, 3, root);
                assertThat(b).containsExactly(7, 8, 9);
            }
            long[] sum = new long[1];
            c.allreduce(inter, new long[] {me}, 0, sum, 0, 1, Kind.LONG, Reduction.SUM);
            long low = (long) h * (h - 1) / 2;
            long high = (long) n * (n - 1) / 2 - low;
            assertThat(sum[0]).isEqualTo(me < h ? high : low);
            // allgather across: the other group's blocks (2 longs each, a gap before) in its rank order
            int remote = inter.size();
            int[] worldOfRemote = new int[remote];
            for (int r = 0; r < remote; r++) {
                worldOfRemote[r] = me < h ? h + r : r;
            }
            long[] gathered = new long[1 + 2 * remote + 1];
            c.allgather(inter, new long[] {-5, me, 10L * me}, 1, 2, Kind.LONG, gathered, 1, 2, Kind.LONG);
            for (int r = 0; r < remote; r++) {
                assertThat(gathered[1 + 2 * r]).as("allgather block %d", r).isEqualTo(worldOfRemote[r]);
                assertThat(gathered[2 + 2 * r]).isEqualTo(10L * worldOfRemote[r]);
            }
            assertThat(gathered[0]).isZero();
            assertThat(gathered[2 * remote + 1]).isZero();
            // alltoall across, non-blocking: block r to remote process r, from it into block r
            long[] out = new long[remote];
            for (int r = 0; r < remote; r++) {
                out[r] = 1000L * me + r;
            }
            long[] in = new long[remote];
            e.await(c.ialltoall(inter, out, 0, 1, Kind.LONG, in, 0, 1, Kind.LONG));
            for (int r = 0; r < remote; r++) {
                assertThat(in[r]).as("alltoall block %d", r).isEqualTo(1000L * worldOfRemote[r] + half.rank());
            }
            // rooted, from the low group to high process `root`, and back from low process 0
            int lowRoot = half.rank() == root ? Collectives.ROOT : Engine.PROC_NULL;
            long[] atRoot = new long[remote];
            c.gather(inter, new long[] {me}, 0, 1, Kind.LONG, atRoot, 0, 1, Kind.LONG, me < h ? root : lowRoot);
            long[] reduced = new long[2];
            c.reduce(inter, new long[] {me, 1}, 0, reduced, 0, 2, Kind.LONG, Reduction.SUM, me < h ? root : lowRoot);
            if (me >= h && half.rank() == root) {
                for (int r = 0; r < remote; r++) {
                    assertThat(atRoot[r]).as("gather block %d", r).isEqualTo(r);
                }
                assertThat(reduced).containsExactly(low, h);
            } else {
                assertThat(atRoot).containsOnly(0L);
                assertThat(reduced).containsOnly(0L);
            }
            long[] piece = new long[1];
            long[] pieces = new long[remote];
            for (int r = 0; r < remote; r++) {
                pieces[r] = 500 + r;
            }
            c.scatter(inter, pieces, 0, 1, Kind.LONG, piece, 0, 1, Kind.LONG,
                    me >= h ? 0 : half.rank() == 0 ? Collectives.ROOT : Engine.PROC_NULL);
            assertThat(piece[0]).isEqualTo(me >= h ? 500 + half.rank() : 0);
            // alltoallv across: (my rank + r) mod 3 elements to remote process r
            int lr = half.rank();
            int[] sc = new int[remote];
            int[] sd = new int[remote];
            int[] rc = new int[remote];
            int[] rd = new int[remote];
            for (int r = 0, st = 0, rt = 1; r < remote; r++) {
                sc[r] = (lr + r) % 3;
                sd[r] = st;
                st += sc[r];
                rc[r] = (r + lr) % 3;
                rd[r] = rt;
                rt += rc[r] + 1;
            }
            long[] vsend = new long[sd[remote - 1] + sc[remote - 1]];
            for (int r = 0; r < remote; r++) {
                java.util.Arrays.fill(vsend, sd[r], sd[r] + sc[r], 100L * me + r);
            }
            long[] vrecv = new long[rd[remote - 1] + rc[remote - 1] + 1];
            c.alltoallv(inter, vsend, 0, sc, sd, Kind.LONG, vrecv, 0, rc, rd, Kind.LONG);
            for (int r = 0; r < remote; r++) {
                for (int x = 0; x < rc[r]; x++) {
                    assertThat(vrecv[rd[r] + x]).as("alltoallv from %d", r).isEqualTo(100L * worldOfRemote[r] + lr);
                }
                assertThat(vrecv[rd[r] - 1]).as("gap before block %d", r).isZero();
            }
            // gatherv to high process `root`: low process r gives r + 1 elements, a gap before each block
            Blocks gatherBlocks = Blocks.inOrder(Blocks.counts(remote, r -> r + 1), 1, 1);
            int[] gc = gatherBlocks.counts();
            int[] gd = gatherBlocks.displs();
            long[] gv = new long[gd[remote - 1] + gc[remote - 1]];
            long[] mineV = new long[lr + 1];
            java.util.Arrays.fill(mineV, 7L * me);
            c.gatherv(inter, mineV, 0, mineV.length, Kind.LONG, gv, 0, gc, gd, Kind.LONG, me < h ? root : lowRoot);
            if (me >= h && lr == root) {
                for (int r = 0; r < remote; r++) {
                    for (int x = 0; x < gc[r]; x++) {
                        assertThat(gv[gd[r] + x]).as("gatherv block %d", r).isEqualTo(7L * r);
                    }
                    assertThat(gv[gd[r] - 1]).isZero();
                }
            }
            // scatterv from low process 0: high process r gets r mod 3 elements
            Blocks scatterBlocks = Blocks.inOrder(Blocks.counts(remote, r -> r % 3), 0, 0);
            int[] vc = scatterBlocks.counts();
            int[] vd = scatterBlocks.displs();
            long[] vs = new long[scatterBlocks.length()];
            for (int r = 0; r < remote; r++) {
                java.util.Arrays.fill(vs, vd[r], vd[r] + vc[r], 900L + r);
            }
            long[] vpiece = new long[3];
            c.scatterv(inter, vs, 0, vc, vd, Kind.LONG, vpiece, 0, me >= h ? lr % 3 : 0, Kind.LONG,
                    me >= h ? 0 : lr == 0 ? Collectives.ROOT : Engine.PROC_NULL);
            for (int x = 0; x < 3; x++) {
                assertThat(vpiece[x]).isEqualTo(me >= h && x < lr % 3 ? 900L + lr : 0);
            }
            assertThatThrownBy(() -> c.gather(inter, new long[1], 0, 1, Kind.LONG, new long[8], 0, 1, Kind.LONG, remote))
                    .isInstanceOf(RailyardException.class)
                    .satisfies(x -> assertThat(((RailyardException) x).errorClass()).isEqualTo(ErrorClass.RANK));
            assertThatThrownBy(() -> c.scan(inter, new long[1], 0, new long[1], 0, 1, Kind.LONG, Reduction.SUM))
                    .isInstanceOf(RailyardException.class)
                    .satisfies(x -> assertThat(((RailyardException) x).errorClass()).isEqualTo(ErrorClass.COMM));
            // merge: the low group asks to go high, so the high group comes first
            CommState merged = e.communicators().merge(inter, me < h);
            assertThat(merged.isInter()).isFalse();
            assertThat(merged.size()).isEqualTo(n);
            assertThat(merged.rank()).isEqualTo(me < h ? me + (n - h) : me - h);
            long[] all = new long[n];
            c.allgather(merged, new long[] {me}, 0, 1, Kind.LONG, all, 0, 1, Kind.LONG);
            for (int r = 0; r < n; r++) {
                assertThat(all[r]).isEqualTo(r < n - h ? h + r : r - (n - h));
            }
            // both pass the same flag: the group of world rank 0 comes first
            CommState same = e.communicators().merge(inter, true);
            assertThat(same.rank()).isEqualTo(me);
            CommState dup = e.communicators().interDup(inter);
            assertThat(dup.isInter()).isTrue();
            assertThat(dup.context()).isNotEqualTo(inter.context());
            c.allreduce(dup, new long[] {1}, 0, sum, 0, 1, Kind.LONG, Reduction.SUM);
            assertThat(sum[0]).isEqualTo(me < h ? n - h : h);
        });
    }
}
