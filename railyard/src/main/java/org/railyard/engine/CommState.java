package org.railyard.engine;

import java.util.Arrays;
import org.railyard.error.ErrorClass;
import org.railyard.error.RailyardException;

/**
 * The engine's side of a communicator: its group (world ranks in communicator order), this
 * process's rank in it, and its two matching contexts: {@code context} for point-to-point and
 * {@code context + 1} for the collectives, so that a collective's internal messages never meet a
 * user's receive.
 *
 * <p>An intercommunicator ({@link #isInter()}) joins two disjoint groups. Point-to-point ranks on
 * it name processes of the <em>remote</em> group, so {@code worldRanks}, {@link #size()},
 * {@link #worldRank} and {@link #localRank} describe the remote group, while {@link #rank()} is
 * this process's rank in its local group ({@link #localSize()}, {@link #localGroup()}). Its
 * collectives use {@code context + 1} between the groups and a private intracommunicator over
 * the local group ({@link #localView()}, contexts {@code context + 2} and {@code + 3}).
 */
public final class CommState {
    final int context;
    /** The group point-to-point ranks name: this communicator's group, or an intercommunicator's remote group. */
    final int[] worldRanks;
    final int rank;
    private final int[] localOf;
    private final String name;
    private final int[] localGroup;
    private final CommState localView;
    volatile boolean freed;
    int children;
    /** Number of collectives started on this communicator; their tags derive from it (see CollSchedule). */
    int collSeq;
    /** The whole communicator as a collective team (immutable; made at the first collective). */
    CollTeam team;
    /** Where the members run, for the node-aware algorithms; computed at the first collective that asks. */
    CollNodes nodes;
    /** The shared segment of the blocking collectives when all members run on one node ({@link CollShm}), or null. */
    CollShm shm;
    /** The shared segment could not be set up (or was released): the point-to-point algorithms run. */
    boolean shmRefused;
    /** The shared segment is being set up: the collectives that set it up must not ask for it. */
    boolean shmSetup;
    /** Per (collective, size class): the algorithm last written to the choice log. */
    String[] logged;
    /** Cartesian or graph topology, or null. */
    volatile Topology topology;

    CommState(int context, int[] worldRanks, int worldSize, int myWorldRank, String name) {
        this(context, worldRanks, null, worldSize, myWorldRank, name);
    }

    /**
     * An intercommunicator between {@code localGroup} (which holds this process) and
     * {@code remoteGroup}; it takes contexts {@code context} to {@code context + 3}. With a null
     * {@code remoteGroup}, an intracommunicator over {@code localGroup}.
     */
    CommState(int context, int[] localGroup, int[] remoteGroup, int worldSize, int myWorldRank, String name) {
        this.context = context;
        this.worldRanks = remoteGroup == null ? localGroup : remoteGroup;
        this.localOf = new int[worldSize];
        Arrays.fill(localOf, -1);
        for (int i = 0; i < worldRanks.length; i++) {
            localOf[worldRanks[i]] = i;
        }
        this.localGroup = localGroup;
        int me = -1;
        for (int i = 0; i < localGroup.length; i++) {
            if (localGroup[i] == myWorldRank) {
                me = i;
            }
        }
        this.rank = me;
        this.name = name;
        this.localView = remoteGroup == null ? null
                : new CommState(context + 2, localGroup, null, worldSize, myWorldRank, name + ".local");
    }

    public int rank() {
        return rank;
    }

    /** Number of ranks point-to-point calls address: the group, or an intercommunicator's remote group. */
    public int size() {
        return worldRanks.length;
    }

    /** Size of the group this process belongs to (equal to {@link #size()} unless intercommunicator). */
    public int localSize() {
        return localGroup.length;
    }

    /** True for an intercommunicator. */
    public boolean isInter() {
        return localView != null;
    }

    /** An intercommunicator's private intracommunicator over its local group; null otherwise. */
    public CommState localView() {
        return localView;
    }

    /** The world ranks of the local group, in rank order (a copy). */
    public int[] localGroup() {
        return localGroup.clone();
    }

    /** The topology attached at creation (cart or graph), or null. */
    public Topology topology() {
        return topology;
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

    /** The world ranks of the group point-to-point ranks name, in communicator order (a copy); for an intercommunicator, the remote group. */
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
