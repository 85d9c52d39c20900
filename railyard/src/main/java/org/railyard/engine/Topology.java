package org.railyard.engine;

/**
 * A virtual topology attached to a communicator: a Cartesian grid ({@link CartTopology}) or a
 * graph ({@link GraphTopology}). It names each process's neighbours, in the order the
 * neighbourhood collectives use for their blocks.
 */
public sealed interface Topology permits CartTopology, GraphTopology {
    /** Number of processes the topology describes (the size of its communicator). */
    int size();

    /**
     * The neighbours of {@code rank}, in block order; {@link Engine#PROC_NULL} where a
     * non-periodic grid ends. A fresh array.
     */
    int[] neighbours(int rank);
}
