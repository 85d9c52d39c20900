package org.railyard.stack;

/**
 * Events one micro-protocol raises for the others of its session (Cactus' events): the protocol
 * that learns something (an acknowledgement, a loss) says so once, and whoever cares reacts, above
 * or below it. Raised with {@link Session#signal}; each protocol sees it in
 * {@link MicroProtocol#onSignal}. The argument's meaning is given per signal.
 */
public enum Signal {
    /**
     * Data segments were acknowledged; argument: how many. The acknowledged point is already in the
     * session ({@link Session#sndUna}, {@link Session#pipe}) when this is raised.
     */
    ACKED,
    /** An acknowledgement repeated the previous one; argument: that acknowledgement. */
    DUP_ACK,
    /** The third duplicate acknowledgement: retransmit at once; argument: the missing sequence number. */
    FAST_RETRANSMIT,
    /** Retransmit one segment now (a partial acknowledgement in recovery); argument: its sequence number. */
    RETRANSMIT,
    /** The retransmission (or congestion) timer expired; argument: the oldest unacknowledged sequence number. */
    TIMEOUT,
    /** Segments were found lost by an ack vector (unreliable flows); argument: how many. */
    LOSS,
    /** The flow's window may have room again (acknowledgement, loss or timeout processed); argument unused. */
    WINDOW
}
