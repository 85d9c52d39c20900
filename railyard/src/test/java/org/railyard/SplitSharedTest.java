package org.railyard;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.railyard.error.ErrorClass;
import org.railyard.error.RailyardException;

/** splitShared: one communicator per node, ordered by key; on one node, everyone together. */
class SplitSharedTest {
    @ParameterizedTest
    @ValueSource(ints = {1, 3, 5, 8})
    void oneCommunicatorPerNodeOrderedByKey(int n) throws Exception {
        WorldJob.run(n, "shm", (w, me) -> {
            // the job's real layout: one node
            Comm node = w.splitShared(0);
            assertThat(node.size()).isEqualTo(n);
            assertThat(node.rank()).isEqualTo(me);
            // taken for three nodes, dealt in turn; keys reverse the order within a node
            String[] nodes = new String[n];
            for (int r = 0; r < n; r++) {
                nodes[r] = "node-" + r % 3;
            }
            WorldJob.assumeNodes(w, nodes);
            Comm mine = w.splitShared(-me);
            int members = 0;
            int above = 0;
            long sum = 0;
            for (int r = me % 3; r < n; r += 3) {
                members++;
                above += r > me ? 1 : 0;
                sum += r;
            }
            assertThat(mine.size()).isEqualTo(members);
            assertThat(mine.rank()).as("ranks ordered by key, the highest world rank first").isEqualTo(above);
            for (int i = 0; i < members; i++) {
                assertThat(mine.worldRank(i) % 3).isEqualTo(me % 3);
            }
            long[] total = new long[1];
            mine.allreduce(new long[] {me}, 0, total, 0, 1, Op.SUM);
            assertThat(total[0]).isEqualTo(sum);
            // the node's communicator splits again like any other
            assertThat(mine.splitShared(0).size()).isEqualTo(members);
        });
    }

    @ParameterizedTest
    @ValueSource(ints = {3})
    void anIntercommunicatorIsRefused(int n) throws Exception {
        WorldJob.run(n, "shm", (w, me) -> {
            Comm half = w.split(me == 0 ? 0 : 1, 0);
            Comm inter = half.createIntercomm(0, w, me == 0 ? 1 : 0, 5);
            assertThatThrownBy(() -> inter.splitShared(0)).isInstanceOf(RailyardException.class)
                    .satisfies(x -> assertThat(((RailyardException) x).errorClass()).isEqualTo(ErrorClass.COMM))
                    .hasMessageContaining("split by node needs an intracommunicator");
        });
    }
}
