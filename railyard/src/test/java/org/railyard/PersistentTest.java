package org.railyard;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.railyard.error.ErrorClass;
import org.railyard.error.RailyardException;
import org.railyard.testkit.Await;
import org.railyard.testkit.Blocks;

/**
 * Persistent operations: arguments fixed once, an instance per start, each reading the buffers as
 * they are when it starts; point-to-point in a ring and the collectives, over several iterations.
 */
class PersistentTest {
    @ParameterizedTest
    @ValueSource(ints = {1, 2, 3, 5})
    void instancesReadTheBuffersAsTheyAreAtEachStart(int n) throws Exception {
        WorldJob.run(n, "shm", (w, me) -> {
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
                Await.awaitUntil(allreduce::test, Duration.ofSeconds(60), "the persistent allreduce, polled with test");
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
    @ValueSource(ints = {1, 2, 3, 5})
    void vectorWAndNeighbourCollectivesHaveTheirOwnPersistentForms(int n) throws Exception {
        WorldJob.run(n, "shm", (w, me) -> {
            int right = (me + 1) % n;
            int left = (me - 1 + n) % n;
            // rank r contributes r + 1 elements; blocks laid out backwards with a gap of 2 after each
            int total = n * (n + 1) / 2;
            Blocks blocks = Blocks.backwards(Blocks.counts(n, r -> r + 1), 0, 2);
            int[] counts = blocks.counts();
            int[] displs = blocks.displs();
            int span = blocks.length();
            int[] expectedCounts = counts.clone();
            int[] expectedDispls = displs.clone();
            int[] ss = new int[1];
            int[] sr = new int[1];
            Persistent ssend = w.ssendInit(ss, 0, 1, right, 4);
            Persistent srecv = w.recvInit(sr, 0, 1, left, 4);
            int[] vmine = new int[me + 1];
            int[] atRoot = new int[span];
            Persistent gatherv = w.gathervInit(vmine, 0, me + 1, atRoot, 0, counts, displs, 0);
            int[] fromRoot = new int[span];
            int[] vpart = new int[me + 1];
            Persistent scatterv = w.scattervInit(fromRoot, 0, counts, displs, vpart, 0, me + 1, n - 1);
            int[] everyone = new int[span];
            Persistent allgatherv = w.allgathervInit(vmine, 0, me + 1, everyone, 0, counts, displs);
            // alltoallv: rank s sends (s + r) % 3 elements to rank r, packed in rank order
            Blocks sent = Blocks.inOrder(Blocks.counts(n, r -> (me + r) % 3), 0, 0);
            Blocks received = Blocks.inOrder(Blocks.counts(n, r -> (r + me) % 3), 0, 0);
            int[] sc = sent.counts();
            int[] sd = sent.displs();
            int[] rc = received.counts();
            int[] rd = received.displs();
            int[] vsend = new int[sent.length()];
            int[] vrecv = new int[received.length()];
            Persistent alltoallv = w.alltoallvInit(vsend, 0, sc, sd, vrecv, 0, rc, rd);
            Datatype[] ints = new Datatype[n];
            java.util.Arrays.fill(ints, Datatype.INT);
            int[] wrecv = new int[received.length()];
            Persistent alltoallw = w.alltoallwInit(vsend, sc, sd, ints, wrecv, rc, rd, ints);
            long[] rsIn = new long[total];
            long[] rsOut = new long[me + 1];
            Persistent reduceScatter = w.reduceScatterInit(rsIn, 0, rsOut, 0, counts, Op.SUM);
            long[] rbIn = new long[2 * n];
            long[] rbOut = new long[2];
            Persistent reduceScatterBlock = w.reduceScatterBlockInit(rbIn, 0, rbOut, 0, 2, Op.SUM);
            // the neighbours of a periodic ring: left, then right (the same process when n <= 2)
            Comm ring = w.createCart(new int[] {n}, new boolean[] {true}, false);
            int[] nOne = new int[1];
            int[] nBoth = new int[2];
            Persistent nAllgather = ring.neighbourAllgatherInit(nOne, 0, 1, nBoth, 0, 1);
            int[] nTwo = new int[2];
            int[] nv = new int[5];
            int[] nvCounts = {2, 2};
            int[] nvDispls = {3, 0};
            Persistent nAllgatherv = ring.neighbourAllgathervInit(nTwo, 0, 2, nv, 0, nvCounts, nvDispls);
            int[] nOut = new int[2];
            int[] nIn = new int[2];
            Persistent nAlltoall = ring.neighbourAlltoallInit(nOut, 0, 1, nIn, 0, 1);
            int[] nvOut = new int[3];
            int[] nvIn = new int[3];
            int[] toLeftRight = {1, 2};
            int[] fromLeftRight = {2, 1};
            Persistent nAlltoallv = ring.neighbourAlltoallvInit(nvOut, 0, toLeftRight, new int[] {0, 1}, nvIn, 0,
                    fromLeftRight, new int[] {1, 0});
            int[] nwIn = new int[3];
            Datatype[] two = {Datatype.INT, Datatype.INT};
            Persistent nAlltoallw = ring.neighbourAlltoallwInit(nvOut, toLeftRight, new int[] {0, 1}, two, nwIn,
                    fromLeftRight, new int[] {1, 0}, two);
            // what was named at init counts, not what the arrays hold later
            java.util.Arrays.fill(counts, 0);
            java.util.Arrays.fill(displs, 0);
            java.util.Arrays.fill(sc, 0);
            java.util.Arrays.fill(rd, 0);
            java.util.Arrays.fill(ints, Datatype.LONG);
            nvCounts[0] = 0;
            fromLeftRight[0] = 0;

            for (int it = 0; it < 4; it++) {
                ss[0] = 50 * me + it;
                Persistent.startAll(srecv, ssend);
                Persistent.awaitAll(ssend, srecv);
                assertThat(sr[0]).isEqualTo(50 * left + it);

                java.util.Arrays.fill(vmine, 100 * me + it);
                for (int r = 0; r < n; r++) {
                    for (int x = 0; x <= r; x++) {
                        fromRoot[expectedDispls[r] + x] = 7 * r + x + it;
                    }
                }
                java.util.Arrays.fill(atRoot, -1);
                java.util.Arrays.fill(everyone, -1);
                Persistent.startAll(gatherv, scatterv, allgatherv);
                Persistent.awaitAll(allgatherv, scatterv, gatherv);
                for (int r = 0; r < n; r++) {
                    for (int x = 0; x <= r; x++) {
                        assertThat(everyone[expectedDispls[r] + x]).as("allgatherv it %d", it).isEqualTo(100 * r + it);
                        if (me == 0) {
                            assertThat(atRoot[expectedDispls[r] + x]).as("gatherv it %d", it).isEqualTo(100 * r + it);
                        }
                    }
                    // the gaps stay untouched
                    assertThat(everyone[expectedDispls[r] + r + 1]).isEqualTo(-1);
                }
                for (int x = 0; x <= me; x++) {
                    assertThat(vpart[x]).as("scatterv it %d", it).isEqualTo(7 * me + x + it);
                }

                int k = 0;
                for (int r = 0; r < n; r++) {
                    for (int x = 0; x < (me + r) % 3; x++) {
                        vsend[k++] = 1000 * me + 10 * r + x + it;
                    }
                }
                Persistent.startAll(alltoallv, alltoallw);
                Persistent.awaitAll(alltoallv, alltoallw);
                k = 0;
                for (int r = 0; r < n; r++) {
                    for (int x = 0; x < (r + me) % 3; x++) {
                        assertThat(vrecv[k]).as("alltoallv it %d", it).isEqualTo(1000 * r + 10 * me + x + it);
                        assertThat(wrecv[k]).as("alltoallw it %d", it).isEqualTo(1000 * r + 10 * me + x + it);
                        k++;
                    }
                }

                for (int i = 0; i < total; i++) {
                    rsIn[i] = (long) (me + 1) * i + it;
                }
                for (int i = 0; i < 2 * n; i++) {
                    rbIn[i] = me * 3L + i + it;
                }
                Persistent.startAll(reduceScatter, reduceScatterBlock);
                Persistent.awaitAll(reduceScatter, reduceScatterBlock);
                // rank r gets elements [r(r+1)/2, r(r+1)/2 + r] of the sum over ranks
                long ranksPlusOne = (long) n * (n + 1) / 2;
                for (int x = 0; x <= me; x++) {
                    long i = (long) me * (me + 1) / 2 + x;
                    assertThat(rsOut[x]).as("reduce_scatter it %d", it).isEqualTo(ranksPlusOne * i + (long) n * it);
                }
                for (int x = 0; x < 2; x++) {
                    long i = 2L * me + x;
                    assertThat(rbOut[x]).as("reduce_scatter_block it %d", it)
                            .isEqualTo(3L * n * (n - 1) / 2 + n * i + (long) n * it);
                }

                nOne[0] = 10 * me + it;
                nTwo[0] = 20 * me + it;
                nTwo[1] = 20 * me + it + 1;
                nOut[0] = 30 * me + it; // to the left
                nOut[1] = 40 * me + it; // to the right
                nvOut[0] = 50 * me + it; // one to the left
                nvOut[1] = 60 * me + it; // two to the right
                nvOut[2] = 61 * me + it;
                java.util.Arrays.fill(nv, -1);
                Persistent.startAll(nAllgather, nAllgatherv, nAlltoall, nAlltoallv, nAlltoallw);
                Persistent.awaitAll(nAllgather, nAllgatherv, nAlltoall, nAlltoallv, nAlltoallw);
                assertThat(nBoth).as("neighbour allgather it %d", it).containsExactly(10 * left + it, 10 * right + it);
                assertThat(nv).as("neighbour allgatherv it %d", it)
                        .containsExactly(20 * right + it, 20 * right + it + 1, -1, 20 * left + it, 20 * left + it + 1);
                // the left neighbour sent its right-hand block here, the right one its left-hand block
                assertThat(nIn).as("neighbour alltoall it %d", it).containsExactly(40 * left + it, 30 * right + it);
                // two from the left at 1..2, one from the right at 0
                assertThat(nvIn).as("neighbour alltoallv it %d", it)
                        .containsExactly(50 * right + it, 60 * left + it, 61 * left + it);
                assertThat(nwIn).as("neighbour alltoallw it %d", it).containsExactly(nvIn);
            }
        });
    }

    @ParameterizedTest
    @ValueSource(ints = {2})
    void startingAnActiveOperationAgainIsAnError(int n) throws Exception {
        WorldJob.run(n, "shm", (w, me) -> {
            int[] buf = new int[1];
            Persistent recv = w.recvInit(buf, 0, 1, 1 - me, 3);
            recv.start();
            assertThatThrownBy(recv::start).isInstanceOf(RailyardException.class)
                    .satisfies(x -> assertThat(((RailyardException) x).errorClass()).isEqualTo(ErrorClass.ARG))
                    .hasMessageContaining("started again while its last instance is active");
            w.send(new int[] {41 + me}, 0, 1, 1 - me, 3);
            Status got = recv.await();
            assertThat(got.source()).isEqualTo(1 - me);
            assertThat(got.tag()).isEqualTo(3);
            assertThat(got.bytes()).isEqualTo(Integer.BYTES);
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
