package org.railyard;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.railyard.engine.EngineJob;
import org.railyard.error.ErrorClass;
import org.railyard.error.RailyardException;

/**
 * Persistent operations: arguments fixed once, an instance per start, each reading the buffers as
 * they are when it starts; point-to-point in a ring and the collectives, over several iterations.
 */
class PersistentTest {
    @ParameterizedTest
    @ValueSource(ints = {1, 2, 3, 5})
    void instancesReadTheBuffersAsTheyAreAtEachStart(int n) throws Exception {
        EngineJob.run(n, "shm", e -> {
            Comm w = new Comm(e, e.world());
            int me = w.rank();
            int right = (me + 1) % n;
            int left = (me - 1 + n) % n;
            long[] out = new long[3];
            long[] in = new long[3];
            Persistent send = w.sendInit(out, 0, 3, right, 7);
            Persistent recv = w.recvInit(in, 0, 3, left, 7);
            double[] mine = new double[2];
            double[] sum = new double[2];
            Persistent allreduce = w.allreduceInit(mine, 0, sum, 0, 2, Op.SUM);
            int[] value = new int[1];
            Persistent bcast = w.bcastInit(value, 0, 1, n - 1);
            int[] gathered = new int[n];
            int[] one = new int[1];
            Persistent allgather = w.allgatherInit(one, 0, 1, gathered, 0, 1);
            int[] toAll = new int[n];
            int[] fromAll = new int[n];
            Persistent alltoall = w.alltoallInit(toAll, 0, 1, fromAll, 0, 1);
            long[] reduced = new long[1];
            Persistent reduce = w.reduceInit(new long[] {me + 1}, 0, reduced, 0, 1, Op.MAX, 0);
            Persistent barrier = w.barrierInit();
            long[] scanIn = new long[1];
            long[] scanOut = new long[1];
            long[] exOut = new long[1];
            Persistent scan = w.scanInit(scanIn, 0, scanOut, 0, 1, Op.SUM);
            Persistent exscan = w.exscanInit(scanIn, 0, exOut, 0, 1, Op.SUM);
            int[] toRoot = new int[1];
            int[] atRoot = new int[n];
            Persistent gather = w.gatherInit(toRoot, 0, 1, atRoot, 0, 1, 0);
            int[] fromRoot = new int[n];
            int[] mine1 = new int[1];
            Persistent scatter = w.scatterInit(fromRoot, 0, 1, mine1, 0, 1, n - 1);
            // any non-blocking call made persistent: an allgatherv of me + 1 elements from each
            int[] counts = new int[n];
            int[] displs = new int[n];
            for (int r = 0; r < n; r++) {
                counts[r] = r + 1;
                displs[r] = r * (r + 1) / 2;
            }
            int[] vsend = new int[me + 1];
            int[] vrecv = new int[n * (n + 1) / 2];
            Persistent allgatherv = Persistent.of("allgatherv", () -> w.iallgatherv(vsend, 0, me + 1, vrecv, 0, counts, displs));
            for (int it = 0; it < 6; it++) {
                out[0] = me;
                out[1] = it;
                out[2] = 1000L * me + it;
                Persistent.startAll(recv, send);
                assertThat(recv.isActive()).isTrue();
                Persistent.awaitAll(send, recv);
                assertThat(recv.isActive()).isFalse();
                assertThat(in).containsExactly(left, it, 1000L * left + it);
                assertThat(recv.await().source()).isEqualTo(left);

                mine[0] = me + it;
                mine[1] = 1;
                allreduce.start();
                while (!allreduce.test()) {
                    Thread.onSpinWait();
                }
                assertThat(sum).containsExactly(n * (n - 1) / 2.0 + (double) n * it, n);

                value[0] = me == n - 1 ? 10 * it + 3 : -1;
                bcast.start().await();
                assertThat(value[0]).isEqualTo(10 * it + 3);

                one[0] = me * it;
                for (int r = 0; r < n; r++) {
                    toAll[r] = 100 * me + r + it;
                }
                Persistent.startAll(allgather, alltoall);
                Persistent.awaitAll(allgather, alltoall);
                for (int r = 0; r < n; r++) {
                    assertThat(gathered[r]).isEqualTo(r * it);
                    assertThat(fromAll[r]).isEqualTo(100 * r + me + it);
                }
                reduce.start().await();
                if (me == 0) {
                    assertThat(reduced[0]).isEqualTo(n);
                }
                barrier.start().await();

                scanIn[0] = me + it;
                exOut[0] = -1;
                Persistent.startAll(scan, exscan);
                Persistent.awaitAll(scan, exscan);
                assertThat(scanOut[0]).isEqualTo((long) me * (me + 1) / 2 + (long) (me + 1) * it);
                if (me > 0) {
                    assertThat(exOut[0]).isEqualTo((long) (me - 1) * me / 2 + (long) me * it);
                }
                toRoot[0] = 10 * me + it;
                for (int r = 0; r < n; r++) {
                    fromRoot[r] = 7 * r + it;
                }
                Persistent.startAll(gather, scatter);
                Persistent.awaitAll(gather, scatter);
                if (me == 0) {
                    for (int r = 0; r < n; r++) {
                        assertThat(atRoot[r]).isEqualTo(10 * r + it);
                    }
                }
                assertThat(mine1[0]).isEqualTo(7 * me + it);
                java.util.Arrays.fill(vsend, 1000 * me + it);
                allgatherv.start().await();
                for (int r = 0; r < n; r++) {
                    for (int x = 0; x <= r; x++) {
                        assertThat(vrecv[displs[r] + x]).isEqualTo(1000 * r + it);
                    }
                }
            }
        });
    }

    @ParameterizedTest
    @ValueSource(ints = {2})
    void startingAnActiveOperationAgainIsAnError(int n) throws Exception {
        EngineJob.run(n, "shm", e -> {
            Comm w = new Comm(e, e.world());
            int me = w.rank();
            int[] buf = new int[1];
            Persistent recv = w.recvInit(buf, 0, 1, 1 - me, 3);
            recv.start();
            assertThatThrownBy(recv::start).isInstanceOf(RailyardException.class)
                    .satisfies(x -> assertThat(((RailyardException) x).errorClass()).isEqualTo(ErrorClass.ARG))
                    .hasMessageContaining("started again while its last instance is active");
            w.send(new int[] {41 + me}, 0, 1, 1 - me, 3);
            assertThat(recv.await()).isNotNull();
            assertThat(buf[0]).isEqualTo(41 + (1 - me));
            // completed: it may start again
            recv.start();
            w.send(new int[] {7}, 0, 1, 1 - me, 3);
            recv.await();
            assertThat(buf[0]).isEqualTo(7);
            // a bad argument is reported when an instance starts
            Persistent bad = w.sendInit(buf, 0, 1, 9, 3);
            assertThatThrownBy(bad::start).isInstanceOf(RailyardException.class).hasMessageContaining("9");
            assertThat(bad.isActive()).isFalse();
        });
    }
}
