package org.railyard.types;


/**
 * A virtual topology attached to a communicator: a Cartesian grid ({@link CartTopology}), a
 * graph ({@link GraphTopology}) or a distributed graph ({@link DistGraphTopology}). It names each
 * process's neighbours, in the order the
 * neighbourhood collectives use for their blocks.
 */
public sealed interface Topology permits CartTopology, GraphTopology, DistGraphTopology {
    /** Number of processes the topology describes (the size of its communicator). */
    int size();

    /**
     * The neighbours of {@code rank}, in block order; {@link CommState#PROC_NULL} where a
     * non-periodic grid ends. A fresh array.
     */
    int[] neighbours(int rank);

    /** The processes {@code rank} receives from in the neighbourhood collectives, in block order. */
    default int[] sources(int rank) {
        return neighbours(rank);
    }

    /** The processes {@code rank} sends to in the neighbourhood collectives, in block order. */
    default int[] destinations(int rank) {
        return neighbours(rank);
    }
}
