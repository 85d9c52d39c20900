package org.railyard.transport;

/**
 * What a transport's links guarantee or need; the layers above compose what is missing (the
 * stack floor adds acknowledgements and retransmission over a transport that is not
 * {@link #RELIABLE}, for example) and print it with the choices.
 */
public enum Capability {
    /** Every frame written arrives, unless the link breaks (then the link says so). */
    RELIABLE,
    /** Frames arrive in the order they were written. */
    ORDERED,
    /** Only reaches processes on the same node (shared memory). */
    SAME_NODE,
    /** Can reach processes on other nodes. */
    REMOTE,
    /** A broken link is detected by the transport itself (socket error, end of stream, lifeline). */
    DETECTS_FAILURE,
    /** Links a process to itself through {@link Transport#loopback}, without a handshake. */
    LOOPBACK,
    /**
     * Reaches a peer through an intermediary (a relay server, a site gateway), with links made by
     * {@link Transport#join} from the two address cards: the two processes never connect to each
     * other, and the intermediary checks the job secret of each.
     */
    INDIRECT,
    /**
     * Shares the memory of this node's processes with the layers above through
     * {@link Transport#nodeMemory}: segments mapped by several processes, reads of another
     * process's memory (shm).
     */
    NODE_MEMORY;

    /**
     * A set of capabilities that cannot be changed: a transport returns one constant set, so
     * asking it (as the engine does between duty cycles) allocates nothing.
     */
    public static java.util.Set<Capability> fixed(Capability first, Capability... rest) {
        return java.util.Collections.unmodifiableSet(java.util.EnumSet.of(first, rest));
    }

    /** The default: a reliable, ordered stream that reaches other nodes and notices a broken link. */
    static final java.util.Set<Capability> STREAM = fixed(RELIABLE, ORDERED, REMOTE, DETECTS_FAILURE);
}
