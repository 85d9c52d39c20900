package org.railyard.types;

import java.util.Arrays;
import org.railyard.error.ErrorClass;
import org.railyard.error.RailyardException;

/**
 * A distributed graph (MPI's {@code MPI_Dist_graph_create_adjacent}): each process names only its
 * own edges, the processes it receives from ({@link #sources}) and those it sends to
 * ({@link #destinations}), which may differ; an edge may repeat, and each occurrence is a block of
 * the neighbourhood collectives (between one pair, blocks match in the order of the lists). A
 * process knows no other process's edges. Immutable.
 */
public final class DistGraphTopology implements Topology {
    private final int size;
    private final int rank;
    private final int[] sources;
    private final int[] destinations;

    /**
     * The edges of process {@code rank} of {@code size}.
     *
     * @throws RailyardException RANK if an edge names no process of the group
     */
    public DistGraphTopology(int size, int rank, int[] sources, int[] destinations) {
        this.size = size;
        this.rank = rank;
        this.sources = checked("source", sources, size);
        this.destinations = checked("destination", destinations, size);
    }

    private static int[] checked(String what, int[] ranks, int size) {
        if (ranks == null) {
            throw new RailyardException(ErrorClass.ARG, "distributed graph " + what + "s are null");
        }
        for (int r : ranks) {
            if (r < 0 || r >= size) {
                throw new RailyardException(ErrorClass.RANK, "distributed graph " + what + " " + r
                        + " is out of range [0, " + size + ")");
            }
        }
        return ranks.clone();
    }

    @Override
    public int size() {
        return size;
    }

    /** The process these edges are of. */
    public int rank() {
        return rank;
    }

    @Override
    public int[] sources(int r) {
        own(r);
        return sources.clone();
    }

    @Override
    public int[] destinations(int r) {
        own(r);
        return destinations.clone();
    }

    /**
     * Not defined for a distributed graph, whose incoming and outgoing edges differ: a COMM error
     * naming {@link #sources} and {@link #destinations}.
     */
    @Override
    public int[] neighbours(int r) {
        throw new RailyardException(ErrorClass.COMM, "a distributed graph has sources and destinations, not one list"
                + " of neighbours: ask for those");
    }

    private void own(int r) {
        if (r != rank) {
            throw new RailyardException(ErrorClass.RANK, "a distributed graph knows the edges of process " + rank
                    + " only, not of " + r);
        }
    }

    @Override
    public String toString() {
        return "distributed graph: process " + rank + " of " + size + " receives from " + Arrays.toString(sources)
                + " and sends to " + Arrays.toString(destinations);
    }
}
