package org.railyard.engine.coll;

import org.railyard.engine.comm.CommState;

/**
 * The processes an algorithm runs over: the whole communicator, or a part of it (the ranks of one
 * node, the leaders of the nodes) for the node-aware two-level algorithms. Members are numbered
 * from 0; {@link #rank(int)} gives a member's rank in the communicator.
 */
final class CollTeam {
    final int size;
    final int me;
    private final int[] ranks;

    /** {@code ranks[i]} is member i's rank in the communicator; null means member i is rank i. */
    CollTeam(int size, int me, int[] ranks) {
        this.size = size;
        this.me = me;
        this.ranks = ranks;
    }

    /** The whole (intra)communicator, made once per communicator. */
    static CollTeam of(CommState c) {
        return CollState.of(c).team;
    }

    /** A team of the given communicator ranks (ascending or not); {@code me} must be one of them. */
    static CollTeam of(int[] members, int myCommRank) {
        int me = -1;
        for (int i = 0; i < members.length; i++) {
            if (members[i] == myCommRank) {
                me = i;
            }
        }
        return new CollTeam(members.length, me, members);
    }

    int rank(int member) {
        return ranks == null ? member : ranks[member];
    }

    /** Largest power of two not above the size. */
    int pof2() {
        return Integer.highestOneBit(size);
    }
}
