package org.railyard.types;

import java.util.Arrays;
import org.railyard.error.ErrorClass;
import org.railyard.error.RailyardException;

/**
 * A graph of processes in the MPI form: {@code index[i]} is the number of edges of nodes 0 to i
 * together, and {@code edges} lists the neighbours of node 0, then of node 1, and so on. A
 * process's neighbours, in that order, are the blocks of the neighbourhood collectives; edges
 * should be symmetric for them (what i sends to j, j must expect from i). Immutable.
 */
public final class GraphTopology implements Topology {
    private final int[] index;
    private final int[] edges;

    public GraphTopology(int[] index, int[] edges) {
        int n = index.length;
        int prev = 0;
        for (int i = 0; i < n; i++) {
            if (index[i] < prev) {
                throw new RailyardException(ErrorClass.ARG, "graph index " + Arrays.toString(index)
                        + " must be non-decreasing and non-negative");
            }
            prev = index[i];
        }
        if (n > 0 && index[n - 1] > edges.length) {
            throw new RailyardException(ErrorClass.ARG, "graph index ends at " + index[n - 1] + " but there are "
                    + edges.length + " edges");
        }
        int used = n == 0 ? 0 : index[n - 1];
        for (int i = 0; i < used; i++) {
            if (edges[i] < 0 || edges[i] >= n) {
                throw new RailyardException(ErrorClass.RANK, "graph edge to " + edges[i] + " is out of range [0, " + n + ")");
            }
        }
        this.index = index.clone();
        this.edges = Arrays.copyOf(edges, used);
    }

    @Override
    public int size() {
        return index.length;
    }

    public int[] index() {
        return index.clone();
    }

    public int[] edges() {
        return edges.clone();
    }

    public int neighbourCount(int rank) {
        check(rank);
        return index[rank] - (rank == 0 ? 0 : index[rank - 1]);
    }

    @Override
    public int[] neighbours(int rank) {
        check(rank);
        return Arrays.copyOfRange(edges, rank == 0 ? 0 : index[rank - 1], index[rank]);
    }

    private void check(int rank) {
        if (rank < 0 || rank >= index.length) {
            throw new RailyardException(ErrorClass.RANK, "rank " + rank + " is not in the graph of " + index.length);
        }
    }

    @Override
    public String toString() {
        return "graph of " + index.length + " nodes, " + edges.length + " edges";
    }
}
