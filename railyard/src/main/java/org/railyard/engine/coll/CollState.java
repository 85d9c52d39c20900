package org.railyard.engine.coll;

import org.railyard.engine.comm.CommState;

/**
 * What the collectives keep per communicator, in its {@link CommState#collState} slot: made at
 * its first collective. Written by the thread that calls a collective on it (all members start
 * its collectives in the same order, one thread at a time).
 */
final class CollState {
    /** The whole communicator as a collective team (immutable). */
    final CollTeam team;
    /** Where the members run, for the node-aware algorithms; computed at the first collective that asks. */
    CollNodes nodes;
    /** Where the members run, by site and node, for the site-aware algorithms; computed at the first collective that asks. */
    CollSites sites;
    /** The shared segment of the blocking collectives when all members run on one node ({@link CollShm}), or null. */
    CollShm shm;
    /** The shared segment could not be set up (or was released): the point-to-point algorithms run. */
    boolean shmRefused;
    /** The shared segment is being set up: the collectives that set it up must not ask for it. */
    boolean shmSetup;
    /** Per (collective, size class): the algorithm last written to the choice log. */
    String[] logged;

    private CollState(CommState c) {
        team = new CollTeam(c.size(), c.rank, null);
    }

    static CollState of(CommState c) {
        Object s = c.collState;
        if (s == null) {
            s = new CollState(c);
            c.collState = s;
        }
        return (CollState) s;
    }
}
