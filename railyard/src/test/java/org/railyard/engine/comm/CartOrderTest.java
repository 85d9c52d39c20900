package org.railyard.engine.comm;

import org.railyard.testkit.Graphs;
import org.railyard.types.CartTopology;
import org.railyard.types.GraphTopology;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Arrays;
import org.junit.jupiter.api.Test;

/**
 * The placements the reorder of createCart and createGraph chooses ({@link Placement#cartOrder},
 * {@link Placement#graphOrder}), without processes.
 */
class CartOrderTest {
    @Test
    void aRingDealtToThreeNodesInTurnIsCutOnlyBetweenTheNodes() {
        CartTopology ring = new CartTopology(new int[] {12}, new boolean[] {true});
        int[] cyclic = new int[12];
        for (int r = 0; r < 12; r++) {
            cyclic[r] = r % 3;
        }
        int[] order = Placement.cartOrder(ring, cyclic);
        assertThat(order).containsExactly(0, 3, 6, 9, 1, 4, 7, 10, 2, 5, 8, 11);
        assertThat(cut(ring, cyclic, order)).isEqualTo(6);
        assertThat(cut(ring, cyclic, null)).isEqualTo(24);
    }

    @Test
    void aPlacementAlreadyAsGoodAsAnyIsKept() {
        // rows of two dealt in turn: each node holds one column, only the row links cross
        CartTopology t = new CartTopology(new int[] {3, 2}, new boolean[] {true, false});
        assertThat(Placement.cartOrder(t, new int[] {0, 1, 0, 1, 0, 1})).isNull();
        // nodes holding consecutive ranks: row-major slabs already
        CartTopology grid = new CartTopology(new int[] {4, 4}, new boolean[] {true, true});
        int[] blocks = new int[16];
        for (int r = 0; r < 16; r++) {
            blocks[r] = r / 4;
        }
        assertThat(Placement.cartOrder(grid, blocks)).isNull();
        // one node
        assertThat(Placement.cartOrder(grid, new int[16])).isNull();
    }

    @Test
    void aTorusDealtToFourNodesGetsTwoColumnsPerNode() {
        // 4 x 8, ranks dealt in turn: each link along a row crosses; two columns a node cut half as many
        CartTopology grid = new CartTopology(new int[] {4, 8}, new boolean[] {true, true});
        int[] cyclic = new int[32];
        for (int r = 0; r < 32; r++) {
            cyclic[r] = r % 4;
        }
        int[] order = Placement.cartOrder(grid, cyclic);
        assertThat(order).isNotNull();
        for (int row = 0; row < 4; row++) {
            for (int col = 0; col < 8; col++) {
                assertThat(cyclic[order[grid.rank(new int[] {row, col})]]).as("node of cell %d,%d", row, col)
                        .isEqualTo(col / 2);
            }
        }
        assertThat(cut(grid, cyclic, null)).isEqualTo(64);
        assertThat(cut(grid, cyclic, order)).isEqualTo(32);
    }

    @Test
    void unevenNodesInAnyOrderGetAPermutationThatCutsLess() {
        // 3 processes on node 1, 5 on node 0, 4 on node 2, scattered
        int[] nodeOf = {1, 0, 2, 0, 1, 2, 0, 2, 0, 1, 2, 0};
        CartTopology t = new CartTopology(new int[] {3, 4}, new boolean[] {false, true});
        int[] order = Placement.cartOrder(t, nodeOf);
        assertThat(order).isNotNull();
        int[] sorted = order.clone();
        Arrays.sort(sorted);
        assertThat(sorted).containsExactly(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11);
        assertThat(cut(t, nodeOf, order)).isLessThan(cut(t, nodeOf, null));
    }

    @Test
    void aRingGraphDealtToTwoNodesInTurnIsTakenNodeByNode() {
        int n = 8;
        int[] index = Graphs.ringIndex(n);
        int[] edges = Graphs.ringEdges(n);
        GraphTopology ring = new GraphTopology(index, edges);
        int[] cyclic = {0, 1, 0, 1, 0, 1, 0, 1};
        assertThat(Placement.graphOrder(ring, cyclic)).containsExactly(0, 2, 4, 6, 1, 3, 5, 7);
        // already node by node: kept
        assertThat(Placement.graphOrder(ring, new int[] {0, 0, 0, 0, 1, 1, 1, 1})).isNull();
    }

    @Test
    void aGraphNoOrderHelpsIsKept() {
        // a star: whatever the order, every vertex of the other node has its edge to the centre cut
        GraphTopology star = new GraphTopology(new int[] {5, 6, 7, 8, 9, 10}, new int[] {1, 2, 3, 4, 5, 0, 0, 0, 0, 0});
        assertThat(Placement.graphOrder(star, new int[] {0, 1, 0, 1, 0, 1})).isNull();
    }

    /** Links between neighbours on different nodes, counted here independently of the code under test. */
    private static int cut(CartTopology t, int[] nodeOf, int[] order) {
        int cut = 0;
        for (int r = 0; r < t.size(); r++) {
            int[] c = t.coords(r);
            for (int d = 0; d < c.length; d++) {
                for (int step : new int[] {-1, 1}) {
                    int[] nc = c.clone();
                    nc[d] += step;
                    if (!t.periods()[d] && (nc[d] < 0 || nc[d] >= t.dims()[d])) {
                        continue;
                    }
                    int nb = t.rank(nc);
                    int a = order == null ? r : order[r];
                    int b = order == null ? nb : order[nb];
                    cut += nodeOf[a] != nodeOf[b] ? 1 : 0;
                }
            }
        }
        return cut;
    }
}
