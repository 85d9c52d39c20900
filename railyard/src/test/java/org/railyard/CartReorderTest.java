package org.railyard;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Arrays;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.railyard.engine.EngineJob;
import org.railyard.testkit.Graphs;
import org.railyard.types.CartTopology;

/**
 * createCart with reorder: processes dealt to two nodes in turn are ranked node by node, so most
 * grid neighbours share a node; the reordered grid still carries messages between the right
 * coordinates; cartMap tells each process its rank beforehand; nothing moves on one node, when a
 * node's processes are consecutive already, or without reorder.
 */
class CartReorderTest {
    @ParameterizedTest
    @ValueSource(ints = {4, 5, 6, 8})
    void processesDealtToNodesInTurnAreRankedNodeByNode(int n) throws Exception {
        EngineJob.run(n, "shm", e -> {
            Comm w = new Comm(e, e.world());
            int me = w.rank();
            String[] cyclic = new String[n];
            for (int r = 0; r < n; r++) {
                cyclic[r] = "node-" + r % 2;
            }
            WorldJob.assumeNodes(w, cyclic);
            int grid = n / 2 * 2;
            // a ring, and two rows whose periodic length is the grid's longer side
            int[][] shapes = {{grid}, {2, n / 2}};
            boolean[][] periodics = {{true}, {false, true}};
            for (int s = 0; s < shapes.length; s++) {
                int[] dims = shapes[s];
                boolean[] periods = periodics[s];
                String shape = Arrays.toString(dims);
                Comm kept = w.createCart(dims, periods, false);
                Comm moved = w.createCart(dims, periods, true);
                int mapped = w.cartMap(dims, periods);
                if (me >= grid) {
                    // n = 5: the fifth process is left out either way
                    assertThat(kept).isNull();
                    assertThat(moved).isNull();
                    assertThat(mapped).isEqualTo(Comm.UNDEFINED);
                    continue;
                }
                assertThat(kept.rank()).isEqualTo(me);
                // node-0 processes (even ranks) first, then node-1's, each in rank order
                int[] expected = new int[grid];
                int at = 0;
                for (int parity = 0; parity < 2; parity++) {
                    for (int r = parity; r < grid; r += 2) {
                        expected[at++] = r;
                    }
                }
                int[] got = new int[grid];
                for (int i = 0; i < grid; i++) {
                    got[i] = moved.worldRank(i);
                }
                assertThat(got).as("world rank of each cart rank, %s", shape).containsExactly(expected);
                assertThat(moved.rank()).isEqualTo(mapped);
                assertThat(moved.worldRank(moved.rank())).isEqualTo(me);
                assertThat(crossNodeLinks(moved.cart(), moved, cyclic))
                        .as("grid links between nodes, reordered against kept, %s", shape)
                        .isLessThan(crossNodeLinks(kept.cart(), kept, cyclic));

                // a halo exchange along every dimension of the reordered grid: each value comes
                // from the process at the coordinates before this one
                for (int dim = 0; dim < dims.length; dim++) {
                    int[] sd = moved.cartShift(dim, 1);
                    int[] in = {-1};
                    moved.sendrecv(new int[] {me}, 0, 1, sd[1], 9, in, 0, 1, sd[0], 9);
                    if (sd[0] == Comm.PROC_NULL) {
                        assertThat(in[0]).isEqualTo(-1);
                    } else {
                        int[] c = moved.cartCoords(moved.rank());
                        c[dim] = (c[dim] - 1 + dims[dim]) % dims[dim];
                        assertThat(in[0]).as("halo along dimension %d of %s", dim, shape)
                                .isEqualTo(moved.worldRank(moved.cartRank(c)));
                    }
                }
                long[] sum = new long[1];
                moved.allreduce(new long[] {me}, 0, sum, 0, 1, Op.SUM);
                assertThat(sum[0]).isEqualTo((long) grid * (grid - 1) / 2);
            }
            // a ring graph over the same processes, reordered the same way
            int[] index = Graphs.ringIndex(grid);
            int[] edges = Graphs.ringEdges(grid);
            int gmapped = w.graphMap(index, edges);
            Comm graph = w.createGraph(index, edges, true);
            Comm graphKept = w.createGraph(index, edges, false);
            if (me < grid) {
                assertThat(graph.rank()).isEqualTo(gmapped);
                assertThat(graph.worldRank(0)).isEqualTo(0);
                assertThat(graph.worldRank(grid / 2)).isEqualTo(1);
                int[] nb = graph.graph().neighbours(graph.rank());
                int[] in = {-1};
                graph.sendrecv(new int[] {me}, 0, 1, nb[1], 11, in, 0, 1, nb[0], 11);
                assertThat(in[0]).as("graph ring neighbour").isEqualTo(graph.worldRank(nb[0]));
                assertThat(graphKept.rank()).isEqualTo(me);
            } else {
                assertThat(graph).isNull();
                assertThat(graphKept).isNull();
                assertThat(gmapped).isEqualTo(Comm.UNDEFINED);
            }
            if (me == 0) {
                assertThat(e.describeChoices()).contains("ranks reordered by node (2 nodes").contains("graph of " + grid);
            }
        });
    }

    @ParameterizedTest
    @ValueSource(ints = {1, 4, 6})
    void nothingMovesWhenTheNodesHoldConsecutiveRanksOrThereIsOneNode(int n) throws Exception {
        EngineJob.run(n, "shm", e -> {
            Comm w = new Comm(e, e.world());
            int me = w.rank();
            int[] dims = {n};
            boolean[] periods = {true};
            // one node (the real layout of the job)
            assertThat(w.cartMap(dims, periods)).isEqualTo(me);
            assertThat(w.createCart(dims, periods, true).rank()).isEqualTo(me);
            // two nodes holding a half each, in rank order
            String[] halves = new String[n];
            for (int r = 0; r < n; r++) {
                halves[r] = r < (n + 1) / 2 ? "a" : "b";
            }
            WorldJob.assumeNodes(w, halves);
            assertThat(w.cartMap(dims, periods)).isEqualTo(me);
            Comm cart = w.createCart(dims, periods, true);
            assertThat(cart.rank()).isEqualTo(me);
            assertThat(e.describeChoices()).doesNotContain("reordered");
        });
    }

    /** Pairs of grid neighbours (each pair once per direction it is linked in) whose processes sit on different nodes. */
    private static int crossNodeLinks(CartTopology t, Comm cart, String[] nodeOfWorld) {
        int cross = 0;
        for (int r = 0; r < t.size(); r++) {
            for (int nb : t.neighbours(r)) {
                if (nb >= 0 && !nodeOfWorld[cart.worldRank(r)].equals(nodeOfWorld[cart.worldRank(nb)])) {
                    cross++;
                }
            }
        }
        return cross;
    }
}
