package org.railyard.engine.rma;

import java.util.Arrays;

/**
 * The window ranks of the group of a post or a start, translated from world ranks once and kept
 * while the next epoch names the same world ranks (the common case: a program posts to and starts
 * towards the same neighbours every iteration), so that a warm epoch allocates nothing. A
 * different group is translated again. Not thread-safe: one per epoch kind of a window, used under
 * the window's epoch rules (one thread at a time).
 */
final class GroupRanks {
    private int[] world;
    private int[] members;

    /** The window ranks of {@code worldRanks} (not modified, not kept); an ARG error names one that is no member. */
    int[] members(int[] worldRanks, Pscw pscw, String what) {
        if (world == null || !Arrays.equals(world, worldRanks)) {
            int[] m = pscw.members(worldRanks, what);
            world = worldRanks.clone();
            members = m;
        }
        return members;
    }
}
