package org.railyard.engine.coll;

import org.railyard.types.Reduction;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.railyard.engine.Engine;
import org.railyard.engine.EngineJob;
import org.railyard.types.Kind;
import org.railyard.engine.comm.CommState;

/** Collectives and communicator creation on 1 to 5 engines (powers of two and not). */
class CollectivesTest {

    @ParameterizedTest
    @ValueSource(ints = {1, 2, 3, 4, 5})
    void barrierBcastReduceAllreduceAgreeWithASequentialComputation(int n) throws Exception {
        EngineJob.run(n, "shm", e -> {
            CommState w = e.world();
            int me = e.rank();
            e.collectives().barrier(w);
            for (int root = 0; root < n; root++) {
                long[] b = new long[1000];
                if (me == root) {
                    for (int i = 0; i < b.length; i++) {
                        b[i] = root * 1_000_000L + i;
                    }
                }
                e.collectives().bcast(w, b, Kind.LONG, 0, b.length, root);
                assertThat(b[999]).isEqualTo(root * 1_000_000L + 999);

                int[] mine = {me + 1, -me, me * me};
                int[] out = new int[3];
                e.collectives().reduce(w, mine, 0, out, 0, 3, Kind.INT, Reduction.SUM, root);
                if (me == root) {
                    int sum = n * (n + 1) / 2;
                    int sq = 0;
                    for (int r = 0; r < n; r++) {
                        sq += r * r;
                    }
                    assertThat(out).containsExactly(sum, -(sum - n), sq);
                }
            }
            double[] x = new double[100_000];
            for (int i = 0; i < x.length; i++) {
                x[i] = me + i;
            }
            double[] max = new double[x.length];
            e.collectives().allreduce(w, x, 0, max, 0, x.length, Kind.DOUBLE, Reduction.MAX);
            assertThat(max[0]).isEqualTo(n - 1);
            assertThat(max[99_999]).isEqualTo(n - 1 + 99_999);
            double[] s = new double[1];
            e.collectives().allreduce(w, new double[] {0.5}, 0, s, 0, 1, Kind.DOUBLE, Reduction.SUM);
            assertThat(s[0]).isEqualTo(0.5 * n);
            e.collectives().barrier(w);
        });
    }

    @ParameterizedTest
    @ValueSource(ints = {3, 4})
    void dupAndSplitMakeIndependentCommunicators(int n) throws Exception {
        EngineJob.run(n, "tcp", e -> {
            CommState w = e.world();
            int me = e.rank();
            CommState d = e.communicators().dup(w);
            assertThat(d.context()).isNotEqualTo(w.context());
            assertThat(d.rank()).isEqualTo(me);
            CommState half = e.communicators().split(w, me % 2, -me);
            // ranks ordered by key (-rank): the highest world rank gets rank 0
            int members = (n + 1 - me % 2) / 2;
            assertThat(half.size()).isEqualTo(members);
            int highestOfMyParity = me;
            for (int r = me; r < n; r += 2) {
                highestOfMyParity = r;
            }
            assertThat(half.worldRank(0)).isEqualTo(highestOfMyParity);
            long[] sum = new long[1];
            e.collectives().allreduce(half, new long[] {me}, 0, sum, 0, 1, Kind.LONG, Reduction.SUM);
            long expect = 0;
            for (int r = me % 2; r < n; r += 2) {
                expect += r;
            }
            assertThat(sum[0]).isEqualTo(expect);
            // a message on the dup does not match a receive on the world
            if (me == 0) {
                e.send(d, new int[] {1}, Kind.INT, 0, 1, 1, 0, Engine.MODE_STANDARD);
                e.send(w, new int[] {2}, Kind.INT, 0, 1, 1, 0, Engine.MODE_STANDARD);
            } else if (me == 1) {
                int[] a = new int[1];
                e.recv(w, a, Kind.INT, 0, 1, 0, 0, (src, tag, bytes, size) -> { });
                assertThat(a[0]).isEqualTo(2);
                e.recv(d, a, Kind.INT, 0, 1, 0, 0, (src, tag, bytes, size) -> { });
                assertThat(a[0]).isEqualTo(1);
            }
            assertThat(e.communicators().split(w, me == 0 ? Engine.UNDEFINED : 1, 0) == null).isEqualTo(me == 0);
        });
    }
}
