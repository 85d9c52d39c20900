package org.railyard.transport;

/**
 * Where the channel floor gets its links from: the {@link Connector} in a process, an in-memory
 * double in tests. Requests return at once; every outcome comes back as an {@link Event} through
 * {@link #poll()}, which only the progress agent calls.
 *
 * <p>Rails: a channel to a peer may have several rails, numbered {@code 0 .. rails-1} the same way
 * at both ends (one per network path and connection on it). {@link #connect} asks for all of them;
 * afterwards a rail that died is asked for again with {@link #connectRail} by the lower-ranked
 * side only (the higher-ranked side waits to accept it), which keeps the tie-break per rail
 * simple.
 */
public interface LinkSource extends AutoCloseable {
    /** Rail number of an {@link Event} that answers {@link #probe}. */
    int PROBE = -1;

    /**
     * A finished attempt.
     *
     * @param peer    the peer's world rank
     * @param rail    which rail ({@link #PROBE} for a probe's answer)
     * @param rails   how many rails the channel to this peer has
     * @param epoch   identifies this link among the links the rail had, for {@link #railLost}
     * @param link    the link, or null when the attempt failed
     * @param error   why it failed (null on success; for a probe, what was found)
     * @param refused the peer's machine answered, and nothing listens for handshakes there any
     *                more: the peer process is gone (as opposed to a path that does not answer)
     */
    record Event(int peer, int rail, int rails, long epoch, Link link, String error, boolean refused) {
        /** A single-rail success or failure. */
        public Event(int peer, Link link, String error) {
            this(peer, 0, 1, 0, link, error, false);
        }
    }

    /** The next outcome, or null. */
    Event poll();

    /** Starts linking every rail to {@code peer} that has no link and no attempt under way. */
    void connect(int peer);

    /** Starts linking rail {@code rail} to {@code peer} again. */
    void connectRail(int peer, int rail);

    /** Asks whether the peer's process still listens for handshakes (answer: an event with rail {@link #PROBE}). */
    void probe(int peer);

    /** The link of rail {@code rail} with {@code epoch} is gone; the rail may be linked again. */
    void railLost(int peer, int rail, long epoch);

    /** Every link to {@code peer} is gone for good; refuse new ones. */
    void lost(int peer);

    /** Stops listening and releases the transports. */
    @Override
    void close();
}
