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
 *   <li>a wait of a window's synchronisation counts the members as awaited while it lasts
 *       ({@link #awaited}), with the same delay: a window's receives from every member, posted
 *       ahead of any need, do not make the channel wanted, or every window that lives longer
 *       than the delay would link every member to every other.</li>
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
    /** How many waits that depend on the peer are under way ({@link #awaited}), and since when (0: none). */
    private int awaits;
    private long awaitedSince;
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

    /**
     * A wait that depends on the peer began ({@code on}) or ended. Unlike {@link #wanted}, which
     * lasts, this counts only while such a wait is under way: a receive posted ahead of any need
     * (a window's standing receive from every member) leaves the channel alone, and the waits
     * that need the member (a synchronisation of the window) count it wanted while they last.
     */
    void awaited(boolean on, long now) {
        if (on) {
            if (awaits++ == 0) {
                awaitedSince = now | 1;
            }
        } else if (awaits > 0 && --awaits == 0) {
            awaitedSince = 0;
        }
    }

    /** True if a wanted or awaited channel has waited long enough that this side asks now (the channel is IDLE). */
    boolean askNow(long now) {
        return wantedSince != 0 && now - wantedSince - WANTED_NANOS > 0
                || awaitedSince != 0 && now - awaitedSince - WANTED_NANOS > 0;
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
