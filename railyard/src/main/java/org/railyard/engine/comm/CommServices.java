package org.railyard.engine.comm;

import org.railyard.types.Kind;

/**
 * What making communicators needs from the layers around it: a few collectives and exchanges
 * over the communicators that exist, where their members run, and the checks and choice log of
 * the engine. The engine provides it, so that this package depends on no collective algorithm.
 * Every call is made by the thread that creates a communicator and blocks until done.
 */
public interface CommServices {
    /** The reductions creating a communicator needs, over longs. */
    enum Fold { MAX, MIN, SUM }

    /** Fails with a clear error if {@code c} was freed or the library was closed. */
    void checkComm(CommState c);

    /** One line for the choice log. */
    void choice(String line);

    /** Collective over {@code c}: {@code out[i]} is {@code in[i]} folded over every member, {@code i < n}. */
    void allreduce(CommState c, long[] in, long[] out, int n, Fold op);

    /** Collective over {@code c}: {@code count} elements of {@code buf} from {@code root} to every member. */
    void bcast(CommState c, Object buf, Kind k, int count, int root);

    /** Collective over {@code c}: element r of {@code out} goes to rank r; element r of {@code in} comes from it. */
    void alltoall(CommState c, int[] out, int[] in);

    /** Collective over {@code c}: the blocks of {@code send} to each rank, the blocks of {@code recv} from each. */
    void alltoallv(CommState c, int[] send, int[] scounts, int[] sdispls, int[] recv, int[] rcounts, int[] rdispls);

    /** The node index (0, 1, ... in order of first appearance) of each rank of {@code c}. */
    int[] nodeOf(CommState c);

    /** The number of nodes {@code c}'s members run on. */
    int nodeCount(CommState c);

    /**
     * Sends {@code out} to and receives {@code in} from rank {@code peer} of {@code c} with a
     * user's {@code tag} (point-to-point context, arguments checked), and waits for both.
     */
    void sendrecv(CommState c, Object out, Object in, Kind k, int outCount, int inCount, int peer, int tag);

    /** As {@link #sendrecv}, on {@code c}'s collective context (no user receive can match), {@code tag} unchecked. */
    void sendrecvCollective(CommState c, long[] out, long[] in, int peer, int tag);

    /** {@code c} is freed: what the collectives hold for it (a shared segment) is given back. */
    void freed(CommState c);
}
