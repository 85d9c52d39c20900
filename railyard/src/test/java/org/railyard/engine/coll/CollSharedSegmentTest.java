package org.railyard.engine.coll;

import static org.assertj.core.api.Assertions.assertThat;
import static org.railyard.engine.coll.CollExpect.MATMUL;
import static org.railyard.engine.coll.CollExpect.allgatherChecked;
import static org.railyard.engine.coll.CollExpect.alltoallChecked;
import static org.railyard.engine.coll.CollExpect.bcastFromRoot;
import static org.railyard.engine.coll.CollExpect.contribution;
import static org.railyard.engine.coll.CollExpect.expectElement;
import static org.railyard.engine.coll.CollExpect.fold;
import static org.railyard.engine.coll.CollExpect.roots;
import static org.railyard.engine.coll.CollExpect.force;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteBuffer;
import java.util.Arrays;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.railyard.engine.Engine;
import org.railyard.engine.EngineJob;
import org.railyard.engine.comm.CommState;
import org.railyard.testkit.Blocks;
import org.railyard.types.Kind;
import org.railyard.types.Reduction;

/**
 * The collectives that go through a communicator's shared segment ({@link CollShm}), forced: with
 * segments so small that every payload goes in many pieces, of 16 KiB, and of the default; every
 * member's result equal to the sequential fold or to what was sent, nothing around it written;
 * and the segment refused by all when one member cannot map it.
 */
class CollSharedSegmentTest {
    /**
     * bcast, allgather(v) and alltoall through the shared segment of a communicator, forced, with
     * segments so small that every payload goes in many pieces (a communicator each, since the
     * segment is mapped once per communicator), of 16 KiB, and of the default: every root, zero
     * and uneven blocks, gaps between blocks, a native buffer, and a non-blocking call on the same
     * communicator in between (it keeps its own algorithm). The segment's file is gone once set up.
     */
    @ParameterizedTest
    @ValueSource(ints = {1, 2, 3, 4, 5, 8})
    void sharedSegmentCollectivesDeliverEveryPiece(int n) throws Exception {
        onEachSegmentSize(n, new String[] {"bcast", "allgather", "allgatherv", "alltoall"}, (e, c, me, w, size) -> {
            for (int count : new int[] {0, 1, 7, 1000, 40_003}) {
                if (size < 16 * 1024 && count > 1000) {
                    continue; // 1000 already goes in many pieces of the smallest segment
                }
                for (int root : roots(n, count)) {
                    bcastFromRoot(c, w, me, count, root, "shared segment of " + size + " B");
                }
                long[] nb = me == 0 ? contribution(0, count, Reduction.SUM) : new long[count];
                e.await(c.ibcast(w, nb, Kind.LONG, 0, count, 0));
                assertThat(nb).as("non-blocking bcast between, count %d", count).isEqualTo(contribution(0, count, Reduction.SUM));
                allgatherChecked(c, w, me, n, count, "through " + size + " B");
                alltoallChecked(c, w, me, n, count, "through " + size + " B");
            }
            // allgatherv: blocks backwards with gaps of 2, rank 1's empty
            Blocks blocks = Blocks.backwards(Blocks.counts(n, r -> r % 2 == 0 ? 3 * r + 1 : (r == 1 ? 0 : 5000)), 0, 2);
            int[] counts = blocks.counts();
            int[] displs = blocks.displs();
            long[] all = new long[blocks.length()];
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
        });
    }

    /** What a rank checks on one communicator {@code w} whose collective segment has {@code size} bytes. */
    private interface SegmentBody {
        void run(Engine e, Collectives c, int me, CommState w, long size) throws Exception;
    }

    /**
     * Runs {@code n} ranks on shm with the shared segment forced for {@code colls}; each runs
     * {@code body} with segments of three sizes, each on a fresh duplicate of the world (so a
     * segment of that size): so small that vectors go in many pieces and some members own no item
     * of a piece, 16 KiB, and the default.
     */
    private static void onEachSegmentSize(int n, String[] colls, SegmentBody body) throws Exception {
        EngineJob.run(n, "shm", e -> {
            for (String coll : colls) {
                force(e, coll, CollShm.NAME);
            }
            for (long size : new long[] {64L * n * n, 16 * 1024, CollTuning.SHM_SIZE_DEFAULT}) {
                e.collectives().tuning().shmSize(size);
                CommState w = e.communicators().dup(e.world());
                body.run(e, e.collectives(), e.rank(), w, size);
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
    @ValueSource(ints = {1, 2, 3, 4, 5, 8})
    void sharedSegmentAllreduceFoldsEveryRangeInRankOrder(int n) throws Exception {
        onEachSegmentSize(n, new String[] {"allreduce"}, (e, c, me, w, size) -> {
            for (Reduction op : new Reduction[] {Reduction.SUM, MATMUL}) {
                for (int count : new int[] {4, 36, 1000, 40_000}) {
                    if (size < 16 * 1024 && count > 1000) {
                        continue; // 1000 already goes in many pieces of the smallest segment
                    }
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
                    expectElement(bb.getLong(8 * i), expect[i], "native in, ByteBuffer out", i);
                }
            }
            if (n > 1) {
                assertThat(e.describeChoices()).contains("allreduce").contains("SUM: " + CollShm.NAME);
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
        onEachSegmentSize(n, new String[] {"reduce", "reduce_scatter", "reduce_scatter_block"}, (e, c, me, w, size) -> {
            for (Reduction op : new Reduction[] {Reduction.SUM, MATMUL}) {
                for (int count : new int[] {4, 36, 40_000}) {
                    if (size < 16 * 1024 && count > 36) {
                        continue; // 36 already goes in several pieces of the smallest segment
                    }
                    long[] expect = fold(op, 0, n, count);
                    for (int root : roots(n, count)) {
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
                    // blocks of several pieces in the small segments, whole in the default's half
                    counts[r] = r == 1 ? 0 : 4 * (r + 1) * (size < 16 * 1024 ? 31 : 301);
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
                    expectElement(bb.getLong(8 * i), expect[i], "reduce into a ByteBuffer", i);
                }
            }
            if (n > 1) {
                assertThat(e.describeChoices()).contains("SUM: " + CollShm.NAME).contains("reduce_scatter [")
                        .contains("reduce_scatter_block [");
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
}
