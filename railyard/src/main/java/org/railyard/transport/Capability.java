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
    DETECTS_FAILURE
}
