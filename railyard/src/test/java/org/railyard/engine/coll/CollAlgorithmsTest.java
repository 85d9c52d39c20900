package org.railyard.engine.coll;

import static org.assertj.core.api.Assertions.assertThat;
import static org.railyard.engine.coll.CollExpect.MATMUL;
import static org.railyard.engine.coll.CollExpect.allgatherChecked;
import static org.railyard.engine.coll.CollExpect.alltoallChecked;
import static org.railyard.engine.coll.CollExpect.bcastFromRoot;
import static org.railyard.engine.coll.CollExpect.contribution;
import static org.railyard.engine.coll.CollExpect.fold;
import static org.railyard.engine.coll.CollExpect.roots;
import static org.railyard.engine.coll.CollExpect.force;

import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.Arrays;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.railyard.engine.EngineJob;
import org.railyard.engine.comm.CommState;
import org.railyard.engine.request.Transfer;
import org.railyard.testkit.Await;
import org.railyard.testkit.Blocks;
import org.railyard.types.Kind;
import org.railyard.types.Reduction;

/**
 * Every point-to-point collective algorithm, forced one by one, on 1 to 8 engines (powers of two
 * and not), with zero counts, every root (one for the largest counts, {@link CollExpect#roots}),
 * vectors that do not divide evenly, rendezvous-sized messages, a non-commutative user operation
 * checked against a sequential fold, and MAXLOC ties; node-aware algorithms on simulated nodes,
 * and non-blocking collectives. Each job runs the whole matrix so the engines start once per size.
 * The shared segment and the reads of other members' memory have tests of their own
 * ({@link CollSharedSegmentTest}, {@link CollNativeReadsTest}).
 */
class CollAlgorithmsTest {
    /**
     * The pipelined broadcast with segments of 56 bytes (7 longs: many segments, a short last
     * one), of 8 KiB, and of the default: every root, around the buffer untouched.
     */
    @ParameterizedTest
    @ValueSource(ints = {1, 2, 3, 4, 5, 7, 8})
    void pipelinedBroadcastDeliversEverySegment(int n) throws Exception {
        EngineJob.run(n, "shm", (e, c, w, me) -> {
            force(e, "bcast", "pipeline");
            for (long segment : new long[] {56, 8192, CollTuning.BCAST_SEGMENT_DEFAULT}) {
                c.tuning().bcastSegment(segment);
                for (int count : new int[] {0, 1, 7, 8, 1000, 40_003}) {
                    if (segment == 56 && count > 1000) {
                        continue;
                    }
                    for (int root : roots(n, count)) {
                        bcastFromRoot(c, w, me, count, root, "pipeline, segment " + segment);
                    }
                }
            }
        });
    }

    @ParameterizedTest
    @ValueSource(ints = {1, 2, 3, 4, 5, 6, 8})
    void rootedCollectivesAgreeWithSequentialResults(int n) throws Exception {
        EngineJob.run(n, "shm", (e, c, w, me) -> {
            for (String algo : new String[] {"binomial", "scatter-ring", "node-aware", "linear", "pipeline"}) {
                force(e, "bcast", algo);
                for (int count : new int[] {0, 1, 7, 1000, 40_000}) {
                    for (int root : roots(n, count)) {
                        bcastFromRoot(c, w, me, count, root, algo);
                    }
                }
            }
            for (String algo : new String[] {"binomial", "rabenseifner"}) {
                force(e, "reduce", algo);
                for (Reduction op : new Reduction[] {Reduction.SUM, MATMUL}) {
                    for (int count : new int[] {0, 4, 20, 12_000}) {
                        for (int root : roots(n, count)) {
                            long[] out = new long[count];
                            c.reduce(w, contribution(me, count, op), 0, out, 0, count, Kind.LONG, op, root);
                            if (me == root) {
                                assertThat(out).as("reduce %s %s count %d root %d", algo, op, count, root)
                                        .isEqualTo(fold(op, 0, n, count));
                            }
                        }
                    }
                }
            }
            for (String algo : new String[] {"binomial", "linear"}) {
                force(e, "gather", algo);
                force(e, "scatter", algo);
                for (int count : new int[] {0, 1, 3, 5000}) {
                    for (int root : roots(n, count)) {
                        long[] mine = contribution(me, count, Reduction.SUM);
                        long[] all = new long[n * count + 1];
                        c.gather(w, mine, 0, count, Kind.LONG, all, 1, count, Kind.LONG, root);
                        if (me == root) {
                            for (int r = 0; r < n; r++) {
                                assertThat(Arrays.copyOfRange(all, 1 + r * count, 1 + (r + 1) * count))
                                        .as("gather %s count %d root %d block %d", algo, count, root, r)
                                        .isEqualTo(contribution(r, count, Reduction.SUM));
                            }
                        }
                        long[] back = new long[count];
                        long[] src = new long[n * count + 1];
                        if (me == root) {
                            for (int r = 0; r < n; r++) {
                                System.arraycopy(contribution(r, count, Reduction.SUM), 0, src, 1 + r * count, count);
                            }
                        }
                        c.scatter(w, src, 1, count, Kind.LONG, back, 0, count, Kind.LONG, root);
                        assertThat(back).as("scatter %s count %d root %d", algo, count, root).isEqualTo(mine);
                    }
                }
                // send type and receive type differ (ints sent, bytes received at the root)
                int root = n - 1;
                byte[] bytes = new byte[n * 8];
                c.gather(w, new int[] {me, -me}, 0, 2, Kind.INT, bytes, 0, 8, Kind.BYTE, root);
                if (me == root) {
                    ByteBuffer bb = ByteBuffer.wrap(bytes).order(java.nio.ByteOrder.LITTLE_ENDIAN);
                    for (int r = 0; r < n; r++) {
                        assertThat(bb.getInt(8 * r)).isEqualTo(r);
                        assertThat(bb.getInt(8 * r + 4)).isEqualTo(-r);
                    }
                }
            }
            // gatherv and scatterv with zero counts and displacements in reverse rank order
            Blocks blocks = Blocks.backwards(Blocks.counts(n, r -> r % 3 == 1 ? 0 : r + 2), 0, 1);
            int[] counts = blocks.counts();
            int[] displs = blocks.displs();
            for (int root = 0; root < n; root++) {
                long[] all = new long[blocks.length()];
                c.gatherv(w, contribution(me, counts[me], Reduction.SUM), 0, counts[me], Kind.LONG, all, 0, counts, displs,
                        Kind.LONG, root);
                long[] back = new long[counts[me]];
                c.scatterv(w, all, 0, counts, displs, Kind.LONG, back, 0, counts[me], Kind.LONG, root);
                if (me == root) {
                    for (int r = 0; r < n; r++) {
                        assertThat(Arrays.copyOfRange(all, displs[r], displs[r] + counts[r]))
                                .isEqualTo(contribution(r, counts[r], Reduction.SUM));
                    }
                }
                assertThat(back).isEqualTo(contribution(me, counts[me], Reduction.SUM));
            }
        });
    }

    @ParameterizedTest
    @ValueSource(ints = {1, 2, 3, 4, 5, 6, 7, 8})
    void allToAllCollectivesAgreeWithSequentialResults(int n) throws Exception {
        EngineJob.run(n, "shm", (e, c, w, me) -> {
            for (String algo : new String[] {"recursive-doubling", "rabenseifner", "ring", "node-aware"}) {
                force(e, "allreduce", algo);
                for (Reduction op : new Reduction[] {Reduction.SUM, MATMUL}) {
                    for (int count : new int[] {0, 4, 36, 20_000}) {
                        long[] out = new long[count];
                        c.allreduce(w, contribution(me, count, op), 0, out, 0, count, Kind.LONG, op);
                        assertThat(out).as("allreduce %s %s count %d", algo, op, count).isEqualTo(fold(op, 0, n, count));
                    }
                }
                // MAXLOC with ties everywhere: the lowest index wins
                double[] pairs = {me % 2, me, 5.0, 10 - me, -me, me};
                double[] res = new double[6];
                c.allreduce(w, pairs, 0, res, 0, 6, Kind.DOUBLE, Reduction.MAXLOC);
                assertThat(res).containsExactly(n > 1 ? 1 : 0, n > 1 ? 1 : 0, 5.0, 10 - (n - 1), 0, 0);
                c.allreduce(w, pairs, 0, res, 0, 6, Kind.DOUBLE, Reduction.MINLOC);
                assertThat(res).containsExactly(0, 0, 5.0, 10 - (n - 1), -(n - 1), n - 1);
                // a ByteBuffer result (not a Java array) goes through the copy path
                ByteBuffer bb = ByteBuffer.allocate(8 * 100);
                c.allreduce(w, contribution(me, 100, Reduction.SUM), 0, bb, 0, 100, Kind.LONG, Reduction.SUM);
                long[] expect = fold(Reduction.SUM, 0, n, 100);
                for (int i = 0; i < 100; i++) {
                    assertThat(bb.order(java.nio.ByteOrder.LITTLE_ENDIAN).getLong(8 * i)).isEqualTo(expect[i]);
                }
            }
            for (String algo : new String[] {"allreduce", "ring", "reduce-scatterv"}) {
                force(e, "reduce_scatter", algo);
                force(e, "reduce_scatter_block", algo);
                for (Reduction op : new Reduction[] {Reduction.SUM, MATMUL}) {
                    for (int scale : new int[] {0, 1, 700}) {
                        int[] counts = new int[n];
                        int total = 0;
                        for (int r = 0; r < n; r++) {
                            counts[r] = 4 * scale * ((r * 7) % 3);
                            total += counts[r];
                        }
                        long[] out = new long[counts[me]];
                        c.reduceScatter(w, contribution(me, total, op), 0, out, 0, counts, Kind.LONG, op);
                        int start = 0;
                        for (int r = 0; r < me; r++) {
                            start += counts[r];
                        }
                        assertThat(out).as("reduce_scatter %s %s scale %d", algo, op, scale)
                                .isEqualTo(Arrays.copyOfRange(fold(op, 0, n, total), start, start + counts[me]));
                        long[] blk = new long[4 * scale];
                        c.reduceScatterBlock(w, contribution(me, n * 4 * scale, op), 0, blk, 0, 4 * scale, Kind.LONG, op);
                        assertThat(blk).isEqualTo(Arrays.copyOfRange(fold(op, 0, n, n * 4 * scale), me * 4 * scale,
                                (me + 1) * 4 * scale));
                    }
                }
            }
            for (Reduction op : new Reduction[] {Reduction.SUM, MATMUL}) {
                for (int count : new int[] {0, 8, 4000}) {
                    long[] out = new long[count];
                    c.scan(w, contribution(me, count, op), 0, out, 0, count, Kind.LONG, op);
                    assertThat(out).as("scan %s %d", op, count).isEqualTo(fold(op, 0, me + 1, count));
                    long[] ex = new long[count];
                    Arrays.fill(ex, 42);
                    c.exscan(w, contribution(me, count, op), 0, ex, 0, count, Kind.LONG, op);
                    if (me == 0) {
                        assertThat(Arrays.stream(ex).allMatch(x -> x == 42)).isTrue();
                    } else {
                        assertThat(ex).as("exscan %s %d", op, count).isEqualTo(fold(op, 0, me, count));
                    }
                }
            }
            for (String algo : new String[] {"recursive-doubling", "bruck", "ring"}) {
                force(e, "allgather", algo);
                force(e, "allgatherv", algo);
                for (int count : new int[] {0, 1, 3, 9000}) {
                    allgatherChecked(c, w, me, n, count, algo);
                }
                for (boolean packed : new boolean[] {true, false}) {
                    // longer than the group, as MPI allows: the entries past n must be ignored
                    int[] counts = new int[n + 3];
                    int[] displs = new int[n + 3];
                    Arrays.fill(counts, n, n + 3, 1 << 20);
                    Arrays.fill(displs, n, n + 3, -5);
                    int at = 0;
                    for (int r = packed ? 0 : n - 1; packed ? r < n : r >= 0; r += packed ? 1 : -1) {
                        counts[r] = r % 2 == 0 ? 3 * r + 1 : (r == 1 ? 0 : 5000);
                        displs[r] = at;
                        at += counts[r] + (packed ? 0 : 2);
                    }
                    long[] all = new long[at];
                    c.allgatherv(w, contribution(me, counts[me], Reduction.SUM), 0, counts[me], Kind.LONG, all, 0, counts,
                            displs, Kind.LONG);
                    for (int r = 0; r < n; r++) {
                        assertThat(Arrays.copyOfRange(all, displs[r], displs[r] + counts[r]))
                                .as("allgatherv %s packed %s block %d", algo, packed, r)
                                .isEqualTo(contribution(r, counts[r], Reduction.SUM));
                    }
                }
            }
            for (String algo : new String[] {"bruck", "linear", "pairwise"}) {
                force(e, "alltoall", algo);
                force(e, "alltoallv", algo);
                for (int count : new int[] {0, 1, 5, 9000}) {
                    alltoallChecked(c, w, me, n, count, algo);
                }
                // alltoallv: rank s sends (s + r) % 3 * 2 elements to rank r, blocks laid out backwards
                Blocks sent = Blocks.backwards(Blocks.counts(n, r -> (me + r) % 3 * 2), 0, 1);
                Blocks received = Blocks.backwards(Blocks.counts(n, r -> (r + me) % 3 * 2), 0, 1);
                int[] sc = sent.counts();
                int[] sd = sent.displs();
                int[] rc = received.counts();
                int[] rd = received.displs();
                long[] send = new long[sent.length()];
                for (int r = 0; r < n; r++) {
                    for (int i = 0; i < sc[r]; i++) {
                        send[sd[r] + i] = me * 100L + r * 10L + i;
                    }
                }
                long[] recv = new long[received.length()];
                c.alltoallv(w, send, 0, sc, sd, Kind.LONG, recv, 0, rc, rd, Kind.LONG);
                for (int r = 0; r < n; r++) {
                    for (int i = 0; i < rc[r]; i++) {
                        assertThat(recv[rd[r] + i]).as("alltoallv %s", algo).isEqualTo(r * 100L + me * 10L + i);
                    }
                }
            }
            // alltoallw: ints to even ranks, doubles to odd ones, one byte buffer each way
            Kind[] types = new Kind[n];
            int[] cnt = new int[n];
            int[] dsp = new int[n];
            for (int r = 0; r < n; r++) {
                types[r] = r % 2 == 0 ? Kind.INT : Kind.DOUBLE;
                cnt[r] = 2;
                dsp[r] = r * 2;
            }
            int[] sdsp = new int[n];
            int[] rdsp = new int[n];
            Kind[] stypes = new Kind[n];
            Kind[] rtypes = new Kind[n];
            for (int r = 0; r < n; r++) {
                stypes[r] = types[r];
                rtypes[r] = types[me];
                sdsp[r] = r * 16 / stypes[r].size;
                rdsp[r] = r * 16 / rtypes[r].size;
            }
            ByteBuffer sb = ByteBuffer.allocate(16 * n).order(java.nio.ByteOrder.LITTLE_ENDIAN);
            for (int r = 0; r < n; r++) {
                if (types[r] == Kind.INT) {
                    sb.putInt(16 * r, me);
                    sb.putInt(16 * r + 4, r);
                } else {
                    sb.putDouble(16 * r, me + 0.5);
                    sb.putDouble(16 * r + 8, r + 0.25);
                }
            }
            ByteBuffer rb = ByteBuffer.allocate(16 * n).order(java.nio.ByteOrder.LITTLE_ENDIAN);
            c.alltoallw(w, sb, cnt, sdsp, stypes, rb, cnt, rdsp, rtypes);
            for (int r = 0; r < n; r++) {
                if (types[me] == Kind.INT) {
                    assertThat(rb.getInt(16 * r)).isEqualTo(r);
                    assertThat(rb.getInt(16 * r + 4)).isEqualTo(me);
                } else {
                    assertThat(rb.getDouble(16 * r)).isEqualTo(r + 0.5);
                    assertThat(rb.getDouble(16 * r + 8)).isEqualTo(me + 0.25);
                }
            }
        });
    }

    @ParameterizedTest
    @ValueSource(ints = {3, 4})
    void longVectorsOverTcp(int n) throws Exception {
        EngineJob.run(n, "tcp", (e, c, w, me) -> {
            for (String algo : new String[] {"recursive-doubling", "rabenseifner", "ring"}) {
                force(e, "allreduce", algo);
                long[] out = new long[300_000];
                c.allreduce(w, contribution(me, out.length, Reduction.SUM), 0, out, 0, out.length, Kind.LONG, Reduction.SUM);
                assertThat(out).isEqualTo(fold(Reduction.SUM, 0, n, out.length));
            }
            force(e, "bcast", "scatter-ring");
            long[] b = me == 1 ? contribution(1, 200_001, Reduction.SUM) : new long[200_001];
            c.bcast(w, b, Kind.LONG, 0, b.length, 1);
            assertThat(b).isEqualTo(contribution(1, 200_001, Reduction.SUM));
            long[] send = new long[n * 50_000];
            Arrays.fill(send, me);
            long[] recv = new long[n * 50_000];
            c.alltoall(w, send, 0, 50_000, Kind.LONG, recv, 0, 50_000, Kind.LONG);
            for (int r = 0; r < n; r++) {
                assertThat(recv[r * 50_000 + 49_999]).isEqualTo(r);
            }
        });
    }

    private static final ConcurrentHashMap<String, AtomicInteger> ARRIVED = new ConcurrentHashMap<>();

    @ParameterizedTest
    @ValueSource(ints = {2, 3, 5, 6, 8})
    void nodeAwareAlgorithmsOnSimulatedNodes(int n) throws Exception {
        String job = "nodes-" + n + "-" + System.nanoTime();
        EngineJob.run(n, "shm", (e, c, w, me) -> {
            // nodes of uneven sizes whose ranks are not contiguous: a b a c b a c ...
            String[] nodes = new String[n];
            for (int r = 0; r < n; r++) {
                nodes[r] = "node-" + (r * 5 % 3);
            }
            c.assumeNodes(w, nodes);
            AtomicInteger arrived = ARRIVED.computeIfAbsent(job, k -> new AtomicInteger());
            for (int round = 1; round <= 5; round++) {
                arrived.incrementAndGet();
                c.barrier(w);
                // nobody leaves a barrier before everyone has entered it
                assertThat(arrived.get()).isGreaterThanOrEqualTo(round * n);
                c.barrier(w);
            }
            for (int count : new int[] {1, 100, 30_000}) {
                for (int root : roots(n, count)) {
                    long[] b = me == root ? contribution(root, count, Reduction.SUM) : new long[count];
                    c.bcast(w, b, Kind.LONG, 0, count, root);
                    assertThat(b).isEqualTo(contribution(root, count, Reduction.SUM));
                }
                long[] out = new long[count];
                c.allreduce(w, contribution(me, count, Reduction.SUM), 0, out, 0, count, Kind.LONG, Reduction.SUM);
                assertThat(out).isEqualTo(fold(Reduction.SUM, 0, n, count));
                // non-commutative: node-aware does not apply, rank order kept
                long[] m = new long[8];
                c.allreduce(w, contribution(me, 8, MATMUL), 0, m, 0, 8, Kind.LONG, MATMUL);
                assertThat(m).isEqualTo(fold(MATMUL, 0, n, 8));
            }
            if (n > 3 && me == 0) {
                assertThat(e.describeChoices()).contains("barrier 0 B: node-aware").contains("allreduce")
                        .contains(": node-aware");
            }
        });
    }

    @ParameterizedTest
    @ValueSource(ints = {1, 3, 4, 7})
    void nonBlockingCollectivesOverlapAndProgressWithoutTheCaller(int n) throws Exception {
        EngineJob.run(n, "shm", (e, c, w, me) -> {
            long[] b = me == 1 % n ? contribution(9, 5000, Reduction.SUM) : new long[5000];
            long[] sum = new long[300];
            long[] big = new long[20_000];
            long[] all = new long[n * 3];
            long[] recv = new long[n];
            long[] send = new long[n];
            Arrays.fill(send, me);
            // several outstanding at once on one communicator, completed in another order
            Transfer[] ts = {
                c.ibarrier(w),
                c.ibcast(w, b, Kind.LONG, 0, 5000, 1 % n),
                c.iallreduce(w, contribution(me, 300, Reduction.SUM), 0, sum, 0, 300, Kind.LONG, Reduction.SUM),
                c.iallreduce(w, contribution(me, 20_000, Reduction.SUM), 0, big, 0, 20_000, Kind.LONG, Reduction.SUM),
                c.iallgather(w, new long[] {me, me, me}, 0, 3, Kind.LONG, all, 0, 3, Kind.LONG),
                c.ialltoall(w, send, 0, 1, Kind.LONG, recv, 0, 1, Kind.LONG),
            };
            for (int i = ts.length - 1; i >= 0; i--) {
                e.await(ts[i]);
            }
            assertThat(b).isEqualTo(contribution(9, 5000, Reduction.SUM));
            assertThat(sum).isEqualTo(fold(Reduction.SUM, 0, n, 300));
            assertThat(big).isEqualTo(fold(Reduction.SUM, 0, n, 20_000));
            for (int r = 0; r < n; r++) {
                assertThat(all[3 * r]).isEqualTo(r);
                assertThat(recv[r]).isEqualTo(r);
            }
            // a started collective completes while every rank only sleeps: the progress agent runs it
            long[] out = new long[1000];
            Transfer t = c.iallreduce(w, contribution(me, 1000, Reduction.SUM), 0, out, 0, 1000, Kind.LONG, Reduction.SUM);
            // isDone only reads the state: it drives no progress
            Await.awaitUntil(t::isDone, Duration.ofSeconds(10), "iallreduce advanced by the agent alone");
            assertThat(out).isEqualTo(fold(Reduction.SUM, 0, n, 1000));
            c.barrier(w);
        });
    }
}
