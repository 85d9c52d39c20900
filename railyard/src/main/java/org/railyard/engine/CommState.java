package org.railyard.engine;

import java.util.Arrays;
import org.railyard.error.ErrorClass;
import org.railyard.error.RailyardException;

/**
 * The engine's side of a communicator: its group (world ranks in communicator order), this
 * process's rank in it, and its two matching contexts: {@code context} for point-to-point and
 * {@code context + 1} for the collectives, so that a collective's internal messages never meet a
 * user's receive.
 */
public final class CommState {
    final int context;
    final int[] worldRanks;
    final int rank;
    private final int[] localOf;
    private final String name;
    volatile boolean freed;
    int children;

    CommState(int context, int[] worldRanks, int worldSize, int myWorldRank, String name) {
        this.context = context;
        this.worldRanks = worldRanks;
        this.localOf = new int[worldSize];
        Arrays.fill(localOf, -1);
        for (int i = 0; i < worldRanks.length; i++) {
            localOf[worldRanks[i]] = i;
        }
        this.rank = localOf[myWorldRank];
        this.name = name;
    }

    public int rank() {
        return rank;
    }

    public int size() {
        return worldRanks.length;
    }

    public String name() {
        return name;
    }

    /** Context id for point-to-point traffic. */
    public int context() {
        return context;
    }

    public int worldRank(int r) {
        if (r < 0 || r >= worldRanks.length) {
            throw new RailyardException(ErrorClass.RANK, "rank " + r + " is out of range [0, " + worldRanks.length
                    + ") for communicator " + name);
        }
        return worldRanks[r];
    }

    /** The rank in this communicator of a world rank, or -1 if it is not a member. */
    public int localRank(int world) {
        return world >= 0 && world < localOf.length ? localOf[world] : -1;
    }

    /** The world ranks of the group, in communicator order (a copy). */
    public int[] group() {
        return worldRanks.clone();
    }

    void checkUsable() {
        if (freed) {
            throw new RailyardException(ErrorClass.COMM, "communicator " + name + " was freed");
        }
    }

    @Override
    public String toString() {
        return name;
    }
}
