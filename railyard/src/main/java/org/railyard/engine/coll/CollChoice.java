package org.railyard.engine.coll;

/**
 * The names of the collectives and of their algorithms, as the choice log prints them and
 * {@code railyard.coll.<collective>=<algorithm>} forces them, and for each collective the
 * algorithms that may be forced. The thresholds that pick among them are in {@link CollTuning}.
 */
final class CollChoice {
    static final String[] NAMES = {"barrier", "bcast", "reduce", "allreduce", "reduce_scatter", "scan",
        "exscan", "gather", "gatherv", "scatter", "scatterv", "allgather", "allgatherv", "alltoall", "alltoallv",
        "alltoallw", "neighbour_allgather", "neighbour_alltoall", "reduce_scatter_block", "neighbour_allgatherv",
        "neighbour_alltoallv", "neighbour_alltoallw"};
    static final int BARRIER = 0;
    static final int BCAST = 1;
    static final int REDUCE = 2;
    static final int ALLREDUCE = 3;
    static final int REDUCE_SCATTER = 4;
    static final int SCAN = 5;
    static final int EXSCAN = 6;
    static final int GATHER = 7;
    static final int GATHERV = 8;
    static final int SCATTER = 9;
    static final int SCATTERV = 10;
    static final int ALLGATHER = 11;
    static final int ALLGATHERV = 12;
    static final int ALLTOALL = 13;
    static final int ALLTOALLV = 14;
    static final int ALLTOALLW = 15;
    static final int NEIGHBOUR_ALLGATHER = 16;
    static final int NEIGHBOUR_ALLTOALL = 17;
    static final int REDUCE_SCATTER_BLOCK = 18;
    static final int NEIGHBOUR_ALLGATHERV = 19;
    static final int NEIGHBOUR_ALLTOALLV = 20;
    static final int NEIGHBOUR_ALLTOALLW = 21;
    /** The collectives an intercommunicator offers ({@link CollInter}). */
    static final int[] ON_INTER = {BARRIER, BCAST, ALLREDUCE, ALLGATHER, ALLGATHERV, ALLTOALL, ALLTOALLV,
        ALLTOALLW, GATHER, GATHERV, SCATTER, SCATTERV, REDUCE, REDUCE_SCATTER, REDUCE_SCATTER_BLOCK};
    static final int SIZE_CLASSES = 34;

    static final String DISSEMINATION = "dissemination";
    static final String NODE_AWARE = "node-aware";
    /** The site-aware algorithms of a communicator spanning several sites ({@link CollSites}). */
    static final String SITE_AWARE = "site-aware";
    static final String BINOMIAL = "binomial";
    static final String BINOMIAL_VIA_0 = "binomial via rank 0";
    static final String SCATTER_RING = "scatter-ring";
    static final String RABENSEIFNER = "rabenseifner";
    static final String RECURSIVE_DOUBLING = "recursive-doubling";
    static final String RING = "ring";
    static final String ALLREDUCE_COPY = "allreduce";
    static final String REDUCE_SCATTERV = "reduce-scatterv";
    static final String LINEAR = "linear";
    static final String PIPELINE = "pipeline";
    static final String BRUCK = "bruck";
    static final String PAIRWISE = "pairwise";
    static final String INTER = "inter-leaders";
    static final String LOCAL = "local";

    // the algorithms railyard.coll.<collective> may force, per collective: constant arrays, so
    // that choosing (a varargs call otherwise) allocates nothing on each call
    static final String[] BARRIER_ALGOS = {NODE_AWARE, DISSEMINATION, CollCounter.NAME};
    static final String[] BCAST_ALGOS = {BINOMIAL, SCATTER_RING, NODE_AWARE, LINEAR, PIPELINE, CollCounter.NAME};
    static final String[] REDUCE_ALGOS = {BINOMIAL, RABENSEIFNER};
    static final String[] ALLREDUCE_ALGOS = {RECURSIVE_DOUBLING, RABENSEIFNER, RING, NODE_AWARE, CollCounter.NAME};
    static final String[] REDUCE_SCATTER_ALGOS = {ALLREDUCE_COPY, RING, REDUCE_SCATTERV};
    static final String[] REDUCE_SCATTER_NONCOMMUTATIVE_ALGOS = {ALLREDUCE_COPY, REDUCE_SCATTERV};
    static final String[] GATHER_ALGOS = {BINOMIAL, LINEAR};
    static final String[] ALLGATHER_ALGOS = {RING, BRUCK, RECURSIVE_DOUBLING};
    static final String[] ALLTOALL_ALGOS = {BRUCK, PAIRWISE, LINEAR};
    static final String[] ALLTOALLV_ALGOS = {PAIRWISE, LINEAR};

    static String bytesLabel(long b) {
        if (b >= 1L << 30 && b % (1L << 30) == 0) {
            return (b >> 30) + " GiB";
        }
        if (b >= 1L << 20 && b % (1L << 20) == 0) {
            return (b >> 20) + " MiB";
        }
        if (b >= 1024 && b % 1024 == 0) {
            return (b >> 10) + " KiB";
        }
        return b + " B";
    }

    private CollChoice() {
    }
}
