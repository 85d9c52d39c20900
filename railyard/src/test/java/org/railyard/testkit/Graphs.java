package org.railyard.testkit;

/**
 * Graph topologies the tests create, in the arrays MPI's graph constructors take: {@code index}
 * (vertex v's neighbours end at {@code index[v]} in {@code edges}) and {@code edges}.
 */
public final class Graphs {
    private Graphs() {
    }

    /** The {@code index} of a ring of {@code n} vertices: two neighbours each. */
    public static int[] ringIndex(int n) {
        int[] index = new int[n];
        for (int v = 0; v < n; v++) {
            index[v] = 2 * (v + 1);
        }
        return index;
    }

    /** The {@code edges} of a ring of {@code n} vertices: vertex v's neighbours are v - 1, then v + 1 (mod n). */
    public static int[] ringEdges(int n) {
        int[] edges = new int[2 * n];
        for (int v = 0; v < n; v++) {
            edges[2 * v] = (v + n - 1) % n;
            edges[2 * v + 1] = (v + 1) % n;
        }
        return edges;
    }
}
