package org.railyard.engine.comm;

import org.railyard.types.Topology;

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
    /** A rank that names no process: sends to it and receives from it complete at once, empty. */
    public static final int PROC_NULL = -2;
    /** The color of a split that joins no new communicator; the rank of a process outside a topology. */
    public static final int UNDEFINED = -32766;

    // read on every message by the engine and the collectives, hence fields; never written after construction
    /** Context id of point-to-point traffic; the collectives use {@code context + 1}. */
    public final int context;
    /** The group point-to-point ranks name: this communicator's group, or an intercommunicator's remote group. Never modified. */
    public final int[] worldRanks;
    /** This process's rank in its (local) group. */
    public final int rank;
    private final int[] localOf;
    private final String name;
    private final int[] localGroup;
    private final CommState localView;
    private volatile boolean freed;
    /** Number of communicators derived from this one; names them. */
    private int children;
    /** Number of collectives started on this communicator; their tags derive from it ({@link #nextCollectiveTag}). */
    private int collSeq;
    /**
     * What the collectives keep per communicator (its teams, node layout, shared segment, choice
     * log), owned by {@code engine.coll}; opaque here so that this package does not depend on it.
     */
    public Object collState;
    /** Cartesian or graph topology, or null. */
    volatile Topology topology;

    public CommState(int context, int[] worldRanks, int worldSize, int myWorldRank, String name) {
        this(context, worldRanks, null, worldSize, myWorldRank, name);
    }

    /**
     * An intercommunicator between {@code localGroup} (which holds this process) and
     * {@code remoteGroup}; it takes contexts {@code context} to {@code context + 3}. With a null
     * {@code remoteGroup}, an intracommunicator over {@code localGroup}.
     */
    public CommState(int context, int[] localGroup, int[] remoteGroup, int worldSize, int myWorldRank, String name) {
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

    /**
     * The tag base of the next collective on this communicator: the collective sequence number
     * shifted left by 8, so collectives outstanding at once (which all members start in the same
     * order) never match each other's messages; the low 8 bits are the algorithm's sub-tags.
     */
    public int nextCollectiveTag() {
        return (collSeq++ & 0x3F_FFFF) << 8;
    }

    /** Collectives started on this communicator so far (a checkpoint records it). */
    public int collectiveCount() {
        return collSeq;
    }

    /** Communicators derived from this one so far (a checkpoint records it). */
    public int childCount() {
        return children;
    }

    /** A rank started from a checkpoint: the counters go on from where they were. */
    public void resumeCounters(int collectives, int derived) {
        collSeq = collectives;
        children = derived;
    }

    /** Marks it freed: every later use fails with a COMM error. */
    public void markFreed() {
        freed = true;
    }

    /** The number of the next communicator derived from this one (it names that child). */
    public int nextChild() {
        return ++children;
    }

    public void checkUsable() {
        if (freed) {
            throw new RailyardException(ErrorClass.COMM, "communicator " + name + " was freed");
        }
    }

    @Override
    public String toString() {
        return name;
    }
}
