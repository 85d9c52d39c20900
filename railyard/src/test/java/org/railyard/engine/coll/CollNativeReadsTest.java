package org.railyard.engine.coll;

import static org.assertj.core.api.Assertions.assertThat;
import static org.railyard.engine.coll.CollExpect.alltoallChecked;
import static org.railyard.engine.coll.CollExpect.expectElement;
import static org.railyard.engine.coll.CollExpect.nativeAlltoallChecked;
import static org.railyard.engine.coll.CollExpect.occurrences;
import static org.railyard.engine.coll.CollExpect.value;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.railyard.engine.EngineJob;
import org.railyard.engine.comm.CommState;
import org.railyard.error.ErrorClass;
import org.railyard.error.RailyardException;
import org.railyard.testkit.Blocks;
import org.railyard.types.Kind;

/**
 * alltoall and allgather(v) of large blocks on one node: through the shared segment's cells, or
 * read by each member straight from the others' native send buffers ({@link CollShm#READS}), and
 * pairwise when the members are on several nodes; errors of mismatched block sizes reach every
 * member that reads them, and the next call works.
 */
class CollNativeReadsTest {
    @ParameterizedTest
    @ValueSource(ints = {3, 4})
    void alltoallOfLargeBlocksPostsEverythingOnOneNodeAndGoesPairwiseOverSeveral(int n) throws Exception {
        EngineJob.run(n, "shm", (e, c, w, me) -> {
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
        EngineJob.run(n, "shm", (e, c, w, me) -> {
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
        EngineJob.run(n, "shm", (e, c, w, me) -> {
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
                Blocks blocks = Blocks.backwards(Blocks.counts(n, r -> r == 1 ? 0 : each - 1000 * r), 0, 2);
                int[] counts = blocks.counts();
                int[] displs = blocks.displs();
                MemorySegment v = arena.allocate(8L * blocks.length(), 8);
                c.allgatherv(w, send, 1, counts[me], Kind.LONG, v, 0, counts, displs, Kind.LONG);
                for (int r = 0; r < n; r++) {
                    String block = "allgatherv block " + r;
                    for (int i = 0; i < counts[r]; i++) {
                        expectElement(v.getAtIndex(ValueLayout.JAVA_LONG, displs[r] + i), value(r, i), block, i);
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
}
