package org.railyard.engine.coll;

import org.railyard.types.Reduction;

import static org.assertj.core.api.Assertions.assertThat;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.Arrays;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.railyard.engine.Engine;
import org.railyard.engine.EngineJob;
import org.railyard.types.Kind;
import org.railyard.engine.request.Transfer;
import org.railyard.engine.comm.CommState;
import org.railyard.error.ErrorClass;
import org.railyard.error.RailyardException;
import org.railyard.testkit.Await;

/**
 * Every collective algorithm, forced one by one, on 1 to 8 engines (powers of two and not), with
 * zero counts, every root, vectors that do not divide evenly, rendezvous-sized messages, a
 * non-commutative user operation checked against a sequential fold, and MAXLOC ties. Each job
 * runs the whole matrix so the engines start once per size.
 */
class CollAlgorithmsTest {
    /** 2x2 matrix product over longs (items of 4): associative, not commutative. */
    static final Reduction MATMUL = Reduction.of("MATMUL", false, 4, (k, in, inOff, inout, ioOff, n) -> {
        long[] a = (long[]) in;
        long[] b = (long[]) inout;
        for (int i = 0; i < n; i += 4) {
            long a0 = a[inOff + i], a1 = a[inOff + i + 1], a2 = a[inOff + i + 2], a3 = a[inOff + i + 3];
            long b0 = b[ioOff + i], b1 = b[ioOff + i + 1], b2 = b[ioOff + i + 2], b3 = b[ioOff + i + 3];
            b[ioOff + i] = a0 * b0 + a1 * b2;
            b[ioOff + i + 1] = a0 * b1 + a1 * b3;
            b[ioOff + i + 2] = a2 * b0 + a3 * b2;
            b[ioOff + i + 3] = a2 * b1 + a3 * b3;
        }
    });

    static long value(int rank, int i) {
        return (rank + 1) * 1_000_003L + i * 7L + (i % 5 == 0 ? -rank : rank * rank);
    }

    static long[] contribution(int rank, int n, Reduction op) {
        long[] v = new long[n];
        for (int i = 0; i < n; i++) {
            v[i] = op == MATMUL ? (i % 4 == 0 || i % 4 == 3 ? 1 : (rank * 31 + i) % 11 - 4) : value(rank, i);
        }
        return v;
    }

    /** v[lo] op v[lo+1] op ... op v[hi-1], folded sequentially. */
    static long[] fold(Reduction op, int lo, int hi, int n) {
        long[] acc = contribution(hi - 1, n, op);
        for (int r = hi - 2; r >= lo; r--) {
            op.apply(Kind.LONG, contribution(r, n, op), 0, acc, 0, n);
        }
        return acc;
    }

    static void force(Engine e, String coll, String algo) {
        e.collectives().tuning().force(coll, algo);
    }

    /** Broadcasts {@code count} longs from {@code root} into element 1 of a buffer; checks them and the two around. */
    private static void bcastFromRoot(Collectives c, CommState w, int me, int count, int root, String what) {
        long[] b = new long[count + 2];
        if (me == root) {
            for (int i = 0; i < count; i++) {
                b[i + 1] = value(root, i);
            }
        }
        c.bcast(w, b, Kind.LONG, 1, count, root);
        for (int i = 0; i < count; i++) {
            assertThat(b[i + 1]).as("bcast %s count %d root %d at %d", what, count, root, i).isEqualTo(value(root, i));
        }
        assertThat(b[0]).isZero();
        assertThat(b[count + 1]).isZero();
    }

    /** Allgathers {@code count} longs from each of the {@code n} ranks and checks every block. */
    private static void allgatherChecked(Collectives c, CommState w, int me, int n, int count, String what) {
        long[] all = new long[n * count];
        c.allgather(w, contribution(me, count, Reduction.SUM), 0, count, Kind.LONG, all, 0, count, Kind.LONG);
        for (int r = 0; r < n; r++) {
            assertThat(Arrays.copyOfRange(all, r * count, (r + 1) * count)).as("allgather %s count %d block %d", what, count, r)
                    .isEqualTo(contribution(r, count, Reduction.SUM));
        }
    }

    /** Alltoall of {@code count} longs between each pair of the {@code n} ranks; checks every element. */
    private static void alltoallChecked(Collectives c, CommState w, int me, int n, int count, String what) {
        long[] send = new long[n * count];
        for (int r = 0; r < n; r++) {
            for (int i = 0; i < count; i++) {
                send[r * count + i] = me * 1_000_000L + r * 1000L + i;
            }
        }
        long[] recv = new long[n * count];
        c.alltoall(w, send, 0, count, Kind.LONG, recv, 0, count, Kind.LONG);
        for (int r = 0; r < n; r++) {
            for (int i = 0; i < count; i++) {
                assertThat(recv[r * count + i]).as("alltoall %s count %d", what, count).isEqualTo(r * 1_000_000L + me * 1000L + i);
            }
        }
    }

    /**
     * The pipelined broadcast with segments of 56 bytes (7 longs: many segments, a short last
     * one), of 8 KiB, and of the default: every root, around the buffer untouched.
     */
    @ParameterizedTest
    @ValueSource(ints = {1, 2, 3, 4, 5, 7, 8})
    void pipelinedBroadcastDeliversEverySegment(int n) throws Exception {
        EngineJob.run(n, "shm", e -> {
            CommState w = e.world();
            Collectives c = e.collectives();
            int me = e.rank();
            force(e, "bcast", "pipeline");
            for (long segment : new long[] {56, 8192, CollTuning.BCAST_SEGMENT_DEFAULT}) {
                c.tuning().bcastSegment(segment);
                for (int count : new int[] {0, 1, 7, 8, 1000, 40_003}) {
                    if (segment == 56 && count > 1000) {
                        continue;
                    }
                    for (int root = 0; root < n; root++) {
                        bcastFromRoot(c, w, me, count, root, "pipeline, segment " + segment);
                    }
                }
            }
        });
    }

    /**
     * bcast, allgather(v) and alltoall through the shared segment of a communicator, forced, with
     * segments so small that every payload goes in many pieces (a communicator each, since the
     * segment is mapped once per communicator), of 16 KiB, and of the default: every root, zero
     * and uneven blocks, gaps between blocks, a native buffer, and a non-blocking call on the same
     * communicator in between (it keeps its own algorithm). The segment's file is gone once set up.
     */
    @ParameterizedTest
    @ValueSource(ints = {1, 2, 3, 4, 5, 7, 8})
    void sharedSegmentCollectivesDeliverEveryPiece(int n) throws Exception {
        EngineJob.run(n, "shm", e -> {
            Collectives c = e.collectives();
            int me = e.rank();
            for (String coll : new String[] {"bcast", "allgather", "allgatherv", "alltoall"}) {
                force(e, coll, CollShm.NAME);
            }
            for (long size : new long[] {64L * n * n, 16 * 1024, CollTuning.SHM_SIZE_DEFAULT}) {
                c.tuning().shmSize(size);
                CommState w = e.communicators().dup(e.world());
                for (int count : new int[] {0, 1, 7, 1000, 40_003}) {
                    for (int root = 0; root < n; root++) {
                        bcastFromRoot(c, w, me, count, root, "shared segment of " + size + " B");
                    }
                    long[] nb = me == 0 ? contribution(0, count, Reduction.SUM) : new long[count];
                    e.await(c.ibcast(w, nb, Kind.LONG, 0, count, 0));
                    assertThat(nb).as("non-blocking bcast between, count %d", count).isEqualTo(contribution(0, count, Reduction.SUM));
                    allgatherChecked(c, w, me, n, count, "through " + size + " B");
                    alltoallChecked(c, w, me, n, count, "through " + size + " B");
                }
                // allgatherv: blocks backwards with gaps of 2, rank 1's empty
                int[] counts = new int[n];
                int[] displs = new int[n];
                int at = 0;
                for (int r = n - 1; r >= 0; r--) {
                    counts[r] = r % 2 == 0 ? 3 * r + 1 : (r == 1 ? 0 : 5000);
                    displs[r] = at;
                    at += counts[r] + 2;
                }
                long[] all = new long[at];
                c.allgatherv(w, contribution(me, counts[me], Reduction.SUM), 0, counts[me], Kind.LONG, all, 0, counts,
                        displs, Kind.LONG);
                for (int r = 0; r < n; r++) {
                    assertThat(Arrays.copyOfRange(all, displs[r], displs[r] + counts[r]))
                            .as("allgatherv through %d B, block %d", size, r).isEqualTo(contribution(r, counts[r], Reduction.SUM));
                    assertThat(all[displs[r] + counts[r]]).as("gap after block %d", r).isZero();
                }
                // bytes from a native segment at the root into heap arrays elsewhere, and back
                try (Arena arena = Arena.ofShared()) {
                    MemorySegment seg = arena.allocate(70_001);
                    byte[] heap = new byte[70_001];
                    for (int i = 0; i < heap.length; i++) {
                        heap[i] = (byte) (i * 31 + 7);
                    }
                    if (me == n - 1) {
                        seg.copyFrom(MemorySegment.ofArray(heap));
                    }
                    c.bcast(w, seg, Kind.BYTE, 0, 70_001, n - 1);
                    assertThat(seg.toArray(ValueLayout.JAVA_BYTE)).as("native bcast").isEqualTo(heap);
                }
                if (n > 1) {
                    assertThat(e.describeChoices()).contains("bcast").contains(": " + CollShm.NAME);
                    try (var files = java.nio.file.Files.list(java.nio.file.Path.of("/dev/shm"))) {
                        assertThat(files.map(f -> f.getFileName().toString())
                                .filter(f -> f.startsWith("railyard-" + e.jobId() + "-coll-"))).as("segment files left").isEmpty();
                    }
                }
                e.communicators().free(w);
            }
        });
    }

    /**
     * allreduce through the shared segment, forced, with segments so small that a vector goes in
     * many pieces and some members own no item of a piece, of 16 KiB and of the default: a sum, a
     * 2x2 matrix product (not commutative: each range must be folded in rank order), MAXLOC with
     * ties, in place, a native send buffer and a ByteBuffer result; each member's result equals
     * the sequential fold, and the choice log names the segment.
     */
    @ParameterizedTest
    @ValueSource(ints = {1, 2, 3, 4, 5, 7, 8})
    void sharedSegmentAllreduceFoldsEveryRangeInRankOrder(int n) throws Exception {
        EngineJob.run(n, "shm", e -> {
            Collectives c = e.collectives();
            int me = e.rank();
            force(e, "allreduce", CollShm.NAME);
            for (long size : new long[] {64L * n * n, 16 * 1024, CollTuning.SHM_SIZE_DEFAULT}) {
                c.tuning().shmSize(size);
                CommState w = e.communicators().dup(e.world());
                for (Reduction op : new Reduction[] {Reduction.SUM, MATMUL}) {
                    for (int count : new int[] {4, 36, 1000, 40_000}) {
                        long[] out = new long[count + 2];
                        c.allreduce(w, contribution(me, count, op), 0, out, 1, count, Kind.LONG, op);
                        assertThat(Arrays.copyOfRange(out, 1, count + 1)).as("allreduce %s count %d through %d B", op, count,
                                size).isEqualTo(fold(op, 0, n, count));
                        assertThat(out[0] | out[count + 1]).as("around the result").isZero();
                        long[] inPlace = contribution(me, count, op);
                        c.allreduce(w, inPlace, 0, inPlace, 0, count, Kind.LONG, op);
                        assertThat(inPlace).as("in place, %s count %d", op, count).isEqualTo(fold(op, 0, n, count));
                    }
                }
                double[] pairs = {me % 2, me, 5.0, 10 - me, -me, me};
                double[] res = new double[6];
                c.allreduce(w, pairs, 0, res, 0, 6, Kind.DOUBLE, Reduction.MAXLOC);
                assertThat(res).containsExactly(n > 1 ? 1 : 0, n > 1 ? 1 : 0, 5.0, 10 - (n - 1), 0, 0);
                try (Arena arena = Arena.ofShared()) {
                    long[] mine = contribution(me, 30_001, Reduction.SUM);
                    MemorySegment in = arena.allocate(8L * mine.length, 8);
                    in.copyFrom(MemorySegment.ofArray(mine));
                    ByteBuffer bb = ByteBuffer.allocate(8 * mine.length).order(java.nio.ByteOrder.LITTLE_ENDIAN);
                    c.allreduce(w, in, 0, bb, 0, mine.length, Kind.LONG, Reduction.SUM);
                    long[] expect = fold(Reduction.SUM, 0, n, mine.length);
                    for (int i = 0; i < mine.length; i++) {
                        assertThat(bb.getLong(8 * i)).as("native in, ByteBuffer out, element %d", i).isEqualTo(expect[i]);
                    }
                }
                if (n > 1) {
                    assertThat(e.describeChoices()).contains("allreduce").contains("SUM: " + CollShm.NAME);
                }
                e.communicators().free(w);
            }
        });
    }

    /**
     * reduce and reduce_scatter(_block) through the shared segment, forced, with segments so small
     * that vectors and blocks go in many pieces, and of the default: a sum and a 2x2 matrix product
     * (not commutative) to every root, in place at the root, into a ByteBuffer at the root; blocks
     * of uneven sizes with an empty one; each result equals the sequential fold of its part and
     * nothing around it is written.
     */
    @ParameterizedTest
    @ValueSource(ints = {1, 2, 3, 4, 5, 8})
    void sharedSegmentReduceAndReduceScatterFoldInRankOrder(int n) throws Exception {
        EngineJob.run(n, "shm", e -> {
            Collectives c = e.collectives();
            int me = e.rank();
            for (String coll : new String[] {"reduce", "reduce_scatter", "reduce_scatter_block"}) {
                force(e, coll, CollShm.NAME);
            }
            for (long size : new long[] {64L * n * n, 16 * 1024, CollTuning.SHM_SIZE_DEFAULT}) {
                c.tuning().shmSize(size);
                CommState w = e.communicators().dup(e.world());
                for (Reduction op : new Reduction[] {Reduction.SUM, MATMUL}) {
                    for (int count : new int[] {4, 36, 40_000}) {
                        long[] expect = fold(op, 0, n, count);
                        for (int root = 0; root < n; root++) {
                            long[] out = new long[count + 2];
                            c.reduce(w, contribution(me, count, op), 0, out, 1, count, Kind.LONG, op, root);
                            if (me == root) {
                                assertThat(Arrays.copyOfRange(out, 1, count + 1)).as("reduce %s count %d to %d through %d B",
                                        op, count, root, size).isEqualTo(expect);
                                assertThat(out[0] | out[count + 1]).as("around the result").isZero();
                            } else {
                                assertThat(out).as("a non-root's receive buffer").containsOnly(0L);
                            }
                        }
                        long[] inPlace = contribution(me, count, op);
                        c.reduce(w, inPlace, 0, inPlace, 0, count, Kind.LONG, op, n - 1);
                        if (me == n - 1) {
                            assertThat(inPlace).as("reduce in place, %s count %d", op, count).isEqualTo(expect);
                        }
                        int block = count / 4 * 4 / Math.max(1, n) / 4 * 4;
                        long[] mine = new long[block];
                        c.reduceScatterBlock(w, contribution(me, block * n, op), 0, mine, 0, block, Kind.LONG, op);
                        assertThat(mine).as("reduce_scatter_block %s %d each", op, block)
                                .isEqualTo(Arrays.copyOfRange(fold(op, 0, n, block * n), me * block, me * block + block));
                    }
                    // uneven blocks, rank 1's empty, last the largest
                    int[] counts = new int[n];
                    int total = 0;
                    for (int r = 0; r < n; r++) {
                        counts[r] = r == 1 ? 0 : 4 * (r + 1) * 3001;
                        total += counts[r];
                    }
                    int start = 0;
                    for (int r = 0; r < me; r++) {
                        start += counts[r];
                    }
                    long[] got = new long[counts[me] + 1];
                    c.reduceScatter(w, contribution(me, total, op), 0, got, 1, counts, Kind.LONG, op);
                    assertThat(Arrays.copyOfRange(got, 1, got.length)).as("reduce_scatter %s, block %d", op, me)
                            .isEqualTo(Arrays.copyOfRange(fold(op, 0, n, total), start, start + counts[me]));
                    assertThat(got[0]).as("before the block").isZero();
                }
                ByteBuffer bb = ByteBuffer.allocate(8 * 30_001).order(java.nio.ByteOrder.LITTLE_ENDIAN);
                c.reduce(w, contribution(me, 30_001, Reduction.SUM), 0, bb, 0, 30_001, Kind.LONG, Reduction.SUM, 0);
                if (me == 0) {
                    long[] expect = fold(Reduction.SUM, 0, n, 30_001);
                    for (int i = 0; i < expect.length; i++) {
                        assertThat(bb.getLong(8 * i)).as("reduce into a ByteBuffer, element %d", i).isEqualTo(expect[i]);
                    }
                }
                if (n > 1) {
                    assertThat(e.describeChoices()).contains("SUM: " + CollShm.NAME).contains("reduce_scatter [")
                            .contains("reduce_scatter_block [");
                }
                e.communicators().free(w);
            }
        });
    }

    /**
     * The shared segment is refused by all when one member cannot map it (its size setting
     * differs), and when shared memory is not among the transports: the collectives then run
     * their point-to-point algorithms and still deliver.
     */
    @ParameterizedTest
    @ValueSource(strings = {"shm", "tcp"})
    void sharedSegmentRefusedByOneIsUsedByNone(String transports) throws Exception {
        EngineJob.run(3, transports, e -> {
            Collectives c = e.collectives();
            int me = e.rank();
            force(e, "bcast", CollShm.NAME);
            c.tuning().shmSize(me == 2 ? 1 << 20 : 2 << 20);
            CommState w = e.world();
            for (int root = 0; root < 3; root++) {
                bcastFromRoot(c, w, me, 100_000, root, "refused segment over " + transports);
            }
            assertThat(e.describeChoices()).doesNotContain(": " + CollShm.NAME).contains("bcast [512 KiB, 1 MiB)");
            if (transports.equals("shm")) {
                assertThat(e.describeChoices()).contains("no shared segment for large collectives");
            }
        });
    }

    @ParameterizedTest
    @ValueSource(ints = {1, 2, 3, 4, 5, 6, 7, 8})
    void rootedCollectivesAgreeWithSequentialResults(int n) throws Exception {
        EngineJob.run(n, "shm", e -> {
            CommState w = e.world();
            Collectives c = e.collectives();
            int me = e.rank();
            for (String algo : new String[] {"binomial", "scatter-ring", "node-aware", "linear", "pipeline"}) {
                force(e, "bcast", algo);
                for (int count : new int[] {0, 1, 7, 1000, 40_000}) {
                    for (int root = 0; root < n; root++) {
                        bcastFromRoot(c, w, me, count, root, algo);
                    }
                }
            }
            for (String algo : new String[] {"binomial", "rabenseifner"}) {
                force(e, "reduce", algo);
                for (Reduction op : new Reduction[] {Reduction.SUM, MATMUL}) {
                    for (int count : new int[] {0, 4, 20, 12_000}) {
                        for (int root = 0; root < n; root++) {
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
                    for (int root = 0; root < n; root++) {
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
            int[] counts = new int[n];
            int[] displs = new int[n];
            int at = 0;
            for (int r = n - 1; r >= 0; r--) {
                counts[r] = r % 3 == 1 ? 0 : r + 2;
                displs[r] = at;
                at += counts[r] + 1;
            }
            for (int root = 0; root < n; root++) {
                long[] all = new long[at];
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
        EngineJob.run(n, "shm", e -> {
            CommState w = e.world();
            Collectives c = e.collectives();
            int me = e.rank();
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
                int[] sc = new int[n];
                int[] sd = new int[n];
                int[] rc = new int[n];
                int[] rd = new int[n];
                int sat = 0;
                int rat = 0;
                for (int r = n - 1; r >= 0; r--) {
                    sc[r] = (me + r) % 3 * 2;
                    sd[r] = sat;
                    sat += sc[r] + 1;
                    rc[r] = (r + me) % 3 * 2;
                    rd[r] = rat;
                    rat += rc[r] + 1;
                }
                long[] send = new long[sat];
                for (int r = 0; r < n; r++) {
                    for (int i = 0; i < sc[r]; i++) {
                        send[sd[r] + i] = me * 100L + r * 10L + i;
                    }
                }
                long[] recv = new long[rat];
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
        EngineJob.run(n, "tcp", e -> {
            CommState w = e.world();
            Collectives c = e.collectives();
            int me = e.rank();
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

    @ParameterizedTest
    @ValueSource(ints = {3, 4})
    void alltoallOfLargeBlocksPostsEverythingOnOneNodeAndGoesPairwiseOverSeveral(int n) throws Exception {
        EngineJob.run(n, "shm", e -> {
            CommState w = e.world();
            Collectives c = e.collectives();
            int me = e.rank();
            // 40 000 longs: 320 000 B a block, above the pairwise threshold of several nodes, below that of one
            alltoallChecked(c, w, me, n, 40_000, "one node, segment");
            assertThat(e.describeChoices()).contains("alltoall [256 KiB, 512 KiB): " + CollShm.NAME);
            c.tuning().alltoallShared(Long.MAX_VALUE);
            alltoallChecked(c, w, me, n, 40_000, "one node");
            String[] nodes = new String[n];
            for (int r = 0; r < n; r++) {
                nodes[r] = "node-" + r % 2;
            }
            c.assumeNodes(w, nodes);
            alltoallChecked(c, w, me, n, 40_000, "two nodes");
            String log = e.describeChoices();
            assertThat(log).contains("alltoall [256 KiB, 512 KiB): linear")
                    .contains("alltoall [256 KiB, 512 KiB): pairwise");
            assertThat(log.indexOf(": linear")).isLessThan(log.indexOf(": pairwise"));
        });
    }

    /**
     * alltoall of native buffers through the shared segment: when every member's buffers are
     * native, each reads its blocks from the others' send buffers (one copy; the ranks of this
     * job are threads of one process, which reads itself); blocks below the setting take the
     * segment's cells; a member whose blocks are not the size the others receive gets an error
     * at every member, and the next alltoall works; a member with a heap array makes every member
     * take the cells for that call and the next {@link CollShm#SKIP_AFTER_HEAP}, then they ask
     * again. Offsets of one element, and the elements around the blocks untouched.
     */
    @ParameterizedTest
    @ValueSource(ints = {3, 4, 5})
    void alltoallOfNativeBuffersReadsTheSendersMemory(int n) throws Exception {
        EngineJob.run(n, "shm", e -> {
            CommState w = e.world();
            Collectives c = e.collectives();
            int me = e.rank();
            int block = 80_000; // longs: 640 000 B, through the segment and read by default
            String reads = "alltoall [512 KiB, 1 MiB): " + CollShm.READS;
            nativeAlltoallChecked(c, w, me, n, block, false, false, "segments");
            assertThat(e.describeChoices()).contains(reads);
            nativeAlltoallChecked(c, w, me, n, block, true, false, "direct buffers");
            assertThat(e.describeChoices()).doesNotContain("alltoall [512 KiB, 1 MiB): " + CollShm.NAME + "\n");
            assertThat(e.remoteReads()).as("no rendezvous read: the blocks went by the alltoall's own reads").isZero();
            c.tuning().alltoallReads(Long.MAX_VALUE);
            nativeAlltoallChecked(c, w, me, n, block, false, false, "reads off");
            c.tuning().alltoallReads(CollTuning.ALLTOALL_READS_DEFAULT);
            // rank n - 1 sends shorter blocks than the others receive: every member is told
            int mine = me == n - 1 ? block - 1000 : block;
            try (Arena arena = Arena.ofShared()) {
                MemorySegment send = arena.allocate(8L * n * mine);
                MemorySegment recv = arena.allocate(8L * n * mine);
                org.assertj.core.api.Assertions.assertThatThrownBy(() -> c.alltoall(w, send, 0, mine, Kind.LONG, recv, 0,
                        mine, Kind.LONG)).isInstanceOf(RailyardException.class)
                        .hasMessageContaining("sends blocks of").satisfies(x -> assertThat(
                                ((RailyardException) x).errorClass()).isEqualTo(ErrorClass.COUNT));
            }
            nativeAlltoallChecked(c, w, me, n, block, false, false, "after the error");
            // a heap array at one member: that call, and the next ones for a while, through the cells
            String cells = "alltoall [512 KiB, 1 MiB): " + CollShm.NAME + "\n";
            int before = occurrences(e.describeChoices(), cells);
            nativeAlltoallChecked(c, w, me, n, block, false, me == 1, "rank 1 with a heap array");
            assertThat(occurrences(e.describeChoices(), cells)).as("through the cells").isEqualTo(before + 1);
            int said = occurrences(e.describeChoices(), reads);
            for (int i = 0; i < CollShm.SKIP_AFTER_HEAP; i++) {
                nativeAlltoallChecked(c, w, me, n, block + i, false, false, "after a heap array, " + i);
            }
            assertThat(occurrences(e.describeChoices(), reads)).as("reads again too soon").isEqualTo(said);
            nativeAlltoallChecked(c, w, me, n, block, false, false, "asking again");
            assertThat(occurrences(e.describeChoices(), reads)).as("reads again").isEqualTo(said + 1);
        });
    }

    /**
     * allgather and allgatherv of native buffers through the shared segment, with reads turned on
     * from 256 KiB: every member reads the others' blocks from their send buffers; allgatherv with blocks laid out backwards, gaps
     * between them and rank 1's empty; a member that sends a block of another size than the
     * others receive from it gets an error at the members that read it, and every member's next
     * call works.
     */
    @ParameterizedTest
    @ValueSource(ints = {3, 4, 5})
    void allgatherOfNativeBuffersReadsTheSendersMemory(int n) throws Exception {
        EngineJob.run(n, "shm", e -> {
            CommState w = e.world();
            Collectives c = e.collectives();
            int me = e.rank();
            int each = 40_000; // longs: 320 000 B a block
            c.tuning().allgatherReads(256 * 1024);
            try (Arena arena = Arena.ofShared()) {
                MemorySegment send = arena.allocate(8L * (each + 1), 8);
                for (int i = 0; i < each; i++) {
                    send.setAtIndex(ValueLayout.JAVA_LONG, 1 + i, value(me, i));
                }
                MemorySegment all = arena.allocate(8L * n * each, 8);
                c.allgather(w, send, 1, each, Kind.LONG, all, 0, each, Kind.LONG);
                for (int r = 0; r < n; r++) {
                    for (int i = 0; i < each; i += 97) {
                        assertThat(all.getAtIndex(ValueLayout.JAVA_LONG, (long) r * each + i))
                                .as("allgather block %d element %d", r, i).isEqualTo(value(r, i));
                    }
                }
                assertThat(e.describeChoices()).contains("allgather [").contains("): " + CollShm.READS + "\n");
                int[] counts = new int[n];
                int[] displs = new int[n];
                int at = 0;
                for (int r = n - 1; r >= 0; r--) {
                    counts[r] = r == 1 ? 0 : each - 1000 * r;
                    displs[r] = at;
                    at += counts[r] + 2;
                }
                MemorySegment v = arena.allocate(8L * at, 8);
                c.allgatherv(w, send, 1, counts[me], Kind.LONG, v, 0, counts, displs, Kind.LONG);
                for (int r = 0; r < n; r++) {
                    for (int i = 0; i < counts[r]; i++) {
                        assertThat(v.getAtIndex(ValueLayout.JAVA_LONG, displs[r] + i))
                                .as("allgatherv block %d element %d", r, i).isEqualTo(value(r, i));
                    }
                    assertThat(v.getAtIndex(ValueLayout.JAVA_LONG, displs[r] + counts[r]))
                            .as("gap after block %d", r).isZero();
                }
                assertThat(e.describeChoices()).contains("allgatherv [").contains("): " + CollShm.READS + "\n");
                // rank 0 sends one long fewer than the others expect from it
                int[] wrong = counts.clone();
                int mine = me == 0 ? counts[0] - 1 : counts[me];
                if (me == 0) {
                    wrong[0] = mine;
                }
                try {
                    c.allgatherv(w, send, 1, mine, Kind.LONG, v, 0, wrong, displs, Kind.LONG);
                    assertThat(me).as("only rank 0 reads no block of the wrong size").isZero();
                } catch (RailyardException x) {
                    assertThat(me).as("rank 0 reads none of the wrong size").isNotZero();
                    assertThat(x.errorClass()).isEqualTo(ErrorClass.COUNT);
                    assertThat(x.getMessage()).contains("rank 0 sends a block of");
                }
                c.allgather(w, send, 1, each, Kind.LONG, all, 0, each, Kind.LONG);
                assertThat(all.getAtIndex(ValueLayout.JAVA_LONG, (long) (n - 1) * each + each - 1))
                        .as("the next allgather").isEqualTo(value(n - 1, each - 1));
            }
        });
    }

    private static int occurrences(String text, String part) {
        int n = 0;
        for (int at = text.indexOf(part); at >= 0; at = text.indexOf(part, at + 1)) {
            n++;
        }
        return n;
    }

    /**
     * An alltoall of {@code count} longs a block from native memory (a segment, or direct buffers
     * with {@code direct}; a heap array with {@code heap}) at an offset of one element, checked.
     */
    private static void nativeAlltoallChecked(Collectives c, CommState w, int me, int n, int count, boolean direct,
                                              boolean heap, String what) {
        long cells = (long) n * count + 2;
        try (Arena arena = Arena.ofShared()) {
            MemorySegment s = arena.allocate(8 * cells, 8);
            MemorySegment r = arena.allocate(8 * cells, 8);
            for (int q = 0; q < n; q++) {
                for (int i = 0; i < count; i++) {
                    s.setAtIndex(ValueLayout.JAVA_LONG, 1 + (long) q * count + i, me * 1_000_000L + q * 1000L + i);
                }
            }
            Object send = heap ? s.toArray(ValueLayout.JAVA_LONG)
                    : direct ? s.asByteBuffer().order(java.nio.ByteOrder.nativeOrder()) : s;
            Object recv = direct ? r.asByteBuffer().order(java.nio.ByteOrder.nativeOrder()) : r;
            c.alltoall(w, send, 1, count, Kind.LONG, recv, 1, count, Kind.LONG);
            for (int q = 0; q < n; q++) {
                for (int i = 0; i < count; i++) {
                    assertThat(r.getAtIndex(ValueLayout.JAVA_LONG, 1 + (long) q * count + i))
                            .as("alltoall of %s, block from %d element %d", what, q, i).isEqualTo(q * 1_000_000L + me * 1000L + i);
                }
            }
            assertThat(r.getAtIndex(ValueLayout.JAVA_LONG, 0)).as("before the blocks, %s", what).isZero();
            assertThat(r.getAtIndex(ValueLayout.JAVA_LONG, cells - 1)).as("after the blocks, %s", what).isZero();
        }
    }

    private static final ConcurrentHashMap<String, AtomicInteger> ARRIVED = new ConcurrentHashMap<>();

    @ParameterizedTest
    @ValueSource(ints = {2, 3, 5, 6, 8})
    void nodeAwareAlgorithmsOnSimulatedNodes(int n) throws Exception {
        String job = "nodes-" + n + "-" + System.nanoTime();
        EngineJob.run(n, "shm", e -> {
            CommState w = e.world();
            Collectives c = e.collectives();
            int me = e.rank();
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
                for (int root = 0; root < n; root++) {
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
        EngineJob.run(n, "shm", e -> {
            CommState w = e.world();
            Collectives c = e.collectives();
            int me = e.rank();
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
