package org.railyard;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.railyard.error.ErrorClass;
import org.railyard.error.RailyardException;

/**
 * Distributed graph topologies: each process gives its own sources and destinations, which differ;
 * the neighbourhood collectives receive from the sources and send to the destinations.
 */
class DistGraphTest {
    /** The job's edges, the same on every process: i to j where (7i + 3j) mod 4 is 0, and 0 to 1 twice. */
    static List<int[]> edges(int n) {
        List<int[]> e = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            for (int j = 0; j < n; j++) {
                if ((7 * i + 3 * j) % 4 == 0) {
                    e.add(new int[] {i, j});
                }
            }
        }
        if (n > 1) {
            e.add(new int[] {0, 1});
            e.add(new int[] {0, 1});
        }
        return e;
    }

    static int[] sourcesOf(List<int[]> edges, int me) {
        return edges.stream().filter(x -> x[1] == me).mapToInt(x -> x[0]).toArray();
    }

    static int[] destinationsOf(List<int[]> edges, int me) {
        return edges.stream().filter(x -> x[0] == me).mapToInt(x -> x[1]).toArray();
    }

    /** How many of the first {@code upTo} entries of {@code list} equal {@code v}: the occurrence of an edge. */
    static int occurrence(int[] list, int upTo, int v) {
        int k = 0;
        for (int i = 0; i < upTo; i++) {
            k += list[i] == v ? 1 : 0;
        }
        return k;
    }

    /** Elements from i to j, occurrence k: 1 to 3 of them, fewer for some edges. */
    static int count(int i, int j, int k) {
        return (i + 2 * j + k) % 4;
    }

    static int value(int i, int j, int k, int e) {
        return 100_000 * i + 1000 * j + 100 * k + e;
    }

    @ParameterizedTest
    @ValueSource(ints = {1, 2, 3, 4, 6})
    void neighbourhoodCollectivesFollowSourcesAndDestinations(int n) throws Exception {
        WorldJob.run(n, "shm", (w, me) -> {
            List<int[]> all = edges(n);
            int[] src = sourcesOf(all, me);
            int[] dst = destinationsOf(all, me);
            Comm g = w.distGraphCreateAdjacent(src, dst, false);
            neighbourhoodOf(g, me, src, dst);
        });
    }

    /**
     * The general constructor: the job's edges handed out round robin (edge k given by process
     * k mod n, or all by process 0), each giver grouping its edges by source. Every process must
     * learn its sources and destinations in the givers' order, and the neighbourhood collectives
     * must run on them.
     */
    @ParameterizedTest
    @ValueSource(ints = {1, 2, 3, 5, 6})
    void anyProcessMayGiveAnyEdge(int n) throws Exception {
        WorldJob.run(n, "shm", (w, me) -> {
            List<int[]> all = edges(n);
            for (boolean fromZero : new boolean[] {false, true}) {
                // per giver, its edges grouped by source in order of first appearance
                List<List<int[]>> given = new ArrayList<>();
                for (int p = 0; p < n; p++) {
                    given.add(new ArrayList<>());
                }
                for (int k = 0; k < all.size(); k++) {
                    given.get(fromZero ? 0 : k % n).add(all.get(k));
                }
                List<int[]> order = new ArrayList<>();
                for (List<int[]> g : given) {
                    order.addAll(groupedBySource(g));
                }
                List<int[]> mine = groupedBySource(given.get(me));
                int[] sources = mine.stream().mapToInt(x -> x[0]).distinct().toArray();
                int[] degrees = java.util.Arrays.stream(sources)
                        .map(src -> (int) mine.stream().filter(x -> x[0] == src).count()).toArray();
                int[] destinations = mine.stream().mapToInt(x -> x[1]).toArray();
                Comm g = w.distGraphCreate(sources, degrees, destinations, false);
                neighbourhoodOf(g, me, sourcesOf(order, me), destinationsOf(order, me));
            }
        });
    }

    /** Edges grouped by source, sources in order of first appearance, each group in its order. */
    static List<int[]> groupedBySource(List<int[]> edges) {
        List<int[]> out = new ArrayList<>();
        edges.stream().mapToInt(x -> x[0]).distinct().forEach(src -> edges.stream().filter(x -> x[0] == src).forEach(out::add));
        return out;
    }

    /**
     * Checks a distributed graph communicator whose sources must be {@code src} and destinations
     * {@code dst}: the lists themselves, then an allgather and an alltoallv over its edges (blocks
     * of differing counts, zero for some, repeated edges paired in order), then frees it.
     */
    static void neighbourhoodOf(Comm g, int me, int[] src, int[] dst) {
        assertThat(g.sources()).containsExactly(src);
        assertThat(g.destinations()).containsExactly(dst);
        assertThatThrownBy(g::neighbours).isInstanceOf(RailyardException.class).hasMessageContaining("sources and destinations");

        // allgather: my rank to every destination, one block per source
        int[] got = new int[src.length + 1];
        java.util.Arrays.fill(got, -7);
        g.neighbourAllgather(new int[] {me}, 0, 1, got, 0, 1);
        for (int j = 0; j < src.length; j++) {
            assertThat(got[j]).isEqualTo(src[j]);
        }
        assertThat(got[src.length]).isEqualTo(-7);

        // alltoallv: a block per destination edge, counts differing per edge (zero for some)
        int[] scounts = new int[dst.length];
        int[] sdispls = new int[dst.length];
        int total = 0;
        for (int j = 0; j < dst.length; j++) {
            scounts[j] = count(me, dst[j], occurrence(dst, j, dst[j]));
            sdispls[j] = total;
            total += scounts[j];
        }
        int[] send = new int[total];
        for (int j = 0; j < dst.length; j++) {
            for (int x = 0; x < scounts[j]; x++) {
                send[sdispls[j] + x] = value(me, dst[j], occurrence(dst, j, dst[j]), x);
            }
        }
        int[] rcounts = new int[src.length];
        int[] rdispls = new int[src.length];
        int rtotal = 0;
        for (int j = 0; j < src.length; j++) {
            rcounts[j] = count(src[j], me, occurrence(src, j, src[j]));
            rdispls[j] = rtotal + 1; // a gap of one element before each block
            rtotal += rcounts[j] + 1;
        }
        int[] recv = new int[rtotal];
        java.util.Arrays.fill(recv, -1);
        Request r = g.ineighbourAlltoallv(send, 0, scounts, sdispls, recv, 0, rcounts, rdispls);
        r.await();
        int[] expected = new int[rtotal];
        java.util.Arrays.fill(expected, -1);
        for (int j = 0; j < src.length; j++) {
            for (int x = 0; x < rcounts[j]; x++) {
                expected[rdispls[j] + x] = value(src[j], me, occurrence(src, j, src[j]), x);
            }
        }
        assertThat(recv).containsExactly(expected);
        g.free();
    }

    @ParameterizedTest
    @ValueSource(ints = {2, 3})
    void edgesThatDisagreeFailOnEveryProcess(int n) throws Exception {
        WorldJob.run(n, "shm", (w, me) -> {
            // every process sends to its right neighbour, but process 0 also claims to receive from 1
            int right = (me + 1) % n;
            int left = (me - 1 + n) % n;
            int[] sources = me == 0 ? new int[] {left, 1} : new int[] {left};
            assertThatThrownBy(() -> w.distGraphCreateAdjacent(sources, new int[] {right}, false))
                    .isInstanceOf(RailyardException.class)
                    .satisfies(x -> assertThat(((RailyardException) x).errorClass()).isEqualTo(ErrorClass.ARG))
                    .hasMessageContaining("distributed graph");
            // an edge to no process: a RANK error there, an ARG error on the others
            int[] bad = me == n - 1 ? new int[] {n} : new int[0];
            assertThatThrownBy(() -> w.distGraphCreateAdjacent(new int[0], bad, false)).isInstanceOf(RailyardException.class);
            // the general constructor: a malformed list on one process fails everywhere
            assertThatThrownBy(() -> w.distGraphCreate(new int[] {me}, new int[] {me == 0 ? 2 : 1}, new int[] {right}, false))
                    .isInstanceOf(RailyardException.class)
                    .satisfies(x -> assertThat(((RailyardException) x).errorClass()).isEqualTo(ErrorClass.ARG))
                    .hasMessageContaining(me == 0 ? "degrees add up to 2 but 1 destinations" : "process 0");
            assertThatThrownBy(() -> w.distGraphCreate(new int[] {me == 1 ? -1 : me}, new int[] {1}, new int[] {right}, false))
                    .isInstanceOf(RailyardException.class)
                    .satisfies(x -> assertThat(((RailyardException) x).errorClass())
                            .isEqualTo(me == 1 ? ErrorClass.RANK : ErrorClass.ARG));
            // the communicator still works
            assertThat(w.allreduce((long) me, Op.SUM)).isEqualTo((long) n * (n - 1) / 2);
        });
    }
}
