package org.railyard.engine.comm;

import org.railyard.types.Topology;
import org.railyard.types.CartTopology;

/**
 * Where the ranks of a topology go when it is created with reorder over several nodes: a
 * placement that cuts fewer neighbour links between nodes than the ranks' own order, or none.
 * Pure functions of the topology and the node of each rank.
 */
final class Placement {
    private Placement() {
    }

    /**
     * A placement of the first {@code t.size()} ranks on the grid (entry i: the rank that takes
     * cart rank i) with fewer neighbour links between nodes ({@code nodeOf}: node index of each
     * rank) than their own order has, or null when none of the candidates does better. The
     * candidates take the ranks node by node (in rank order within a node) and lay them along
     * the grid with one dimension outermost, so that each node fills slabs across that
     * dimension; one candidate per dimension, each scored by counting the links it cuts. With
     * ranks dealt to the nodes in turn (a cyclic placement) their own order may cut every link of
     * a dimension, where slabs cut only their boundaries.
     */
    static int[] cartOrder(CartTopology t, int[] nodeOf) {
        int n = t.size();
        int[] byNode = byNode(nodeOf, n);
        int[] dims = t.dims();
        int[] best = null;
        long bestCut = cutLinks(t, nodeOf, null);
        for (int outer = 0; outer < dims.length; outer++) {
            // cells counted with dimension outer slowest, the others in their order
            int[] loop = new int[dims.length];
            loop[0] = outer;
            for (int d = 0, k = 1; d < dims.length; d++) {
                if (d != outer) {
                    loop[k++] = d;
                }
            }
            int[] order = new int[n];
            int[] cell = new int[dims.length];
            for (int i = 0; i < n; i++) {
                order[t.rank(cell)] = byNode[i];
                for (int k = dims.length - 1; k >= 0; k--) {
                    int d = loop[k];
                    if (++cell[d] < dims[d]) {
                        break;
                    }
                    cell[d] = 0;
                }
            }
            long cut = cutLinks(t, nodeOf, order);
            if (cut < bestCut) {
                bestCut = cut;
                best = order;
            }
        }
        return best;
    }

    /**
     * A placement of the first {@code t.size()} ranks on the vertices of a graph (entry i: the rank
     * that takes vertex i): the ranks node by node, so each node holds a run of consecutive
     * vertices, if that cuts fewer edges between nodes than their own order; else null. Graphs
     * numbered with some locality (rings, meshes, trees in breadth-first order) keep most edges
     * inside a node that way.
     */
    static int[] graphOrder(Topology t, int[] nodeOf) {
        int[] order = byNode(nodeOf, t.size());
        return cutLinks(t, nodeOf, order) < cutLinks(t, nodeOf, null) ? order : null;
    }

    /** The first {@code n} ranks ordered by node index ({@code nodeOf}), then by rank. */
    private static int[] byNode(int[] nodeOf, int n) {
        int nodes = 0;
        for (int r = 0; r < n; r++) {
            nodes = Math.max(nodes, nodeOf[r] + 1);
        }
        int[] start = new int[nodes + 1];
        for (int r = 0; r < n; r++) {
            start[nodeOf[r] + 1]++;
        }
        for (int i = 0; i < nodes; i++) {
            start[i + 1] += start[i];
        }
        int[] order = new int[n];
        for (int r = 0; r < n; r++) {
            order[start[nodeOf[r]]++] = r;
        }
        return order;
    }

    /** Links between neighbours (each way, as {@code neighbours} lists them) whose ranks run on different nodes. */
    private static long cutLinks(Topology t, int[] nodeOf, int[] order) {
        long cut = 0;
        for (int r = 0; r < t.size(); r++) {
            int here = nodeOf[order == null ? r : order[r]];
            for (int nb : t.neighbours(r)) {
                if (nb >= 0 && nodeOf[order == null ? nb : order[nb]] != here) {
                    cut++;
                }
            }
        }
        return cut;
    }
}
