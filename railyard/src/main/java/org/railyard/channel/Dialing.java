package org.railyard.channel;

/**
 * A channel's way to its first rail, in time (its IDLE and CONNECTING states; the states
 * themselves stay with {@link VirtualChannel}). Rules:
 * <ul>
 *   <li>a send asks for a connection at once, and the connection must come within
 *       {@code railyard.connect.timeout}, or the channel fails;</li>
 *   <li>the channel fails once the first attempt of every rail failed;</li>
 *   <li>a receive or a wait that depends on the peer only marks the channel wanted: if no
 *       connection came or was asked for within {@link #WANTED_NANOS}, this side asks itself. A
 *       peer that only ever receives from another never connects to it, so without this it would
 *       wait forever for a peer that died before connecting. A live peer links as usual (when both
 *       sides connect at once, the lower rank's connection wins); a dead one refuses.</li>
 * </ul>
 */
final class Dialing {
    /**
     * How long a wanted channel may stay unconnected before this side asks for the connection:
     * long enough that a live peer has connected first in any ordinary start, so that both sides
     * dialling at once stays rare.
     */
    static final long WANTED_NANOS = 10_000_000_000L;

    private final int peer;
    private final long timeoutNanos;
    /** When the channel was first wanted, or 0. */
    private long wantedSince;
    private long deadline;
    private int failures;

    Dialing(int peer, long timeoutNanos) {
        this.peer = peer;
        this.timeoutNanos = timeoutNanos;
    }

    /** A receive or a wait depends on the peer (the channel is IDLE). */
    void wanted(long now) {
        if (wantedSince == 0) {
            wantedSince = now | 1;
        }
    }

    /** True if a wanted channel has waited long enough that this side asks now (the channel is IDLE). */
    boolean askNow(long now) {
        return wantedSince != 0 && now - wantedSince - WANTED_NANOS > 0;
    }

    /** The connection was asked for at {@code now}. */
    void asked(long now) {
        deadline = now + timeoutNanos;
    }

    /** Why the connection asked for has failed by {@code now} (the channel is CONNECTING), or null. */
    String late(long now) {
        return now - deadline > 0
                ? "no connection to rank " + peer + " within " + timeoutNanos / 1_000_000 + " ms (railyard.connect.timeout)"
                : null;
    }

    /** A first attempt of a rail failed; true once as many failed as the channel has rails. */
    boolean allFailed(int slots) {
        return ++failures >= Math.max(1, slots);
    }
}
