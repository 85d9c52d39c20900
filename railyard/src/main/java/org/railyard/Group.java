package org.railyard;

import java.util.Arrays;
import java.util.BitSet;
import org.railyard.error.ErrorClass;
import org.railyard.error.RailyardException;

/**
 * An ordered set of processes, as in MPI: the ranks of a group are 0 to size - 1, and each names a
 * process of the job. A group is a local value (making one is not collective and sends nothing);
 * it becomes a communicator through {@link Comm#create(Group)}. Immutable.
 *
 * <p>The set operations keep MPI's orders: {@link #union} lists the first group, then the
 * members of the second that are not in it; {@link #intersection} and {@link #difference} keep
 * the first group's order.
 */
public final class Group {
    /** Same members in the same order ({@link #compare}); for communicators, the same communicator. */
    public static final int IDENT = 0;
    /** Communicators only: the same group in the same order, but a different context. */
    public static final int CONGRUENT = 1;
    /** Same members, different order. */
    public static final int SIMILAR = 2;
    /** Different members. */
    public static final int UNEQUAL = 3;
    /** The rank of a process not in the group ({@link #rank()}, {@link #translateRanks}). */
    public static final int UNDEFINED = Comm.UNDEFINED;

    private final int[] world;
    private final int me;

    /** A group of the given world ranks; {@code myWorldRank} is this process's (for {@link #rank()}). */
    Group(int[] worldRanks, int myWorldRank) {
        this.world = worldRanks;
        this.me = myWorldRank;
    }

    /** The empty group of this process. */
    public Group empty() {
        return new Group(new int[0], me);
    }

    /** Number of processes. */
    public int size() {
        return world.length;
    }

    /** This process's rank in the group, or {@link #UNDEFINED} if it is not a member. */
    public int rank() {
        int r = indexOf(me);
        return r < 0 ? UNDEFINED : r;
    }

    /** The world rank of member {@code rank}. */
    public int worldRank(int rank) {
        check(rank);
        return world[rank];
    }

    /** The world ranks of the members, in group order (a copy). */
    public int[] worldRanks() {
        return world.clone();
    }

    /** The world ranks themselves, not a copy, for this package's callers that only read them. */
    int[] worldRanksUnshared() {
        return world;
    }

    private int indexOf(int worldRank) {
        for (int i = 0; i < world.length; i++) {
            if (world[i] == worldRank) {
                return i;
            }
        }
        return -1;
    }

    private void check(int rank) {
        if (rank < 0 || rank >= world.length) {
            throw new RailyardException(ErrorClass.RANK, "rank " + rank + " is out of range [0, " + world.length + ") of the group");
        }
    }

    /**
     * The ranks in {@code b} of the processes with ranks {@code ranks} in {@code a}:
     * {@link #UNDEFINED} for one not in {@code b}, {@link Comm#PROC_NULL} for PROC_NULL.
     */
    public static int[] translateRanks(Group a, int[] ranks, Group b) {
        int[] out = new int[ranks.length];
        for (int i = 0; i < ranks.length; i++) {
            if (ranks[i] == Comm.PROC_NULL) {
                out[i] = Comm.PROC_NULL;
                continue;
            }
            int r = b.indexOf(a.worldRank(ranks[i]));
            out[i] = r < 0 ? UNDEFINED : r;
        }
        return out;
    }

    /** {@link #IDENT}, {@link #SIMILAR} or {@link #UNEQUAL}. */
    public static int compare(Group a, Group b) {
        if (Arrays.equals(a.world, b.world)) {
            return IDENT;
        }
        if (a.world.length != b.world.length) {
            return UNEQUAL;
        }
        int[] x = a.world.clone();
        int[] y = b.world.clone();
        Arrays.sort(x);
        Arrays.sort(y);
        return Arrays.equals(x, y) ? SIMILAR : UNEQUAL;
    }

    /** The members of {@code a}, then those of {@code b} not in {@code a}. */
    public static Group union(Group a, Group b) {
        BitSet inA = bits(a);
        int[] out = Arrays.copyOf(a.world, a.world.length + b.world.length);
        int n = a.world.length;
        for (int w : b.world) {
            if (!inA.get(w)) {
                out[n++] = w;
            }
        }
        return new Group(Arrays.copyOf(out, n), mine(a, b));
    }

    /** The members of {@code a} that are also in {@code b}, in {@code a}'s order. */
    public static Group intersection(Group a, Group b) {
        return filter(a, bits(b), true, mine(a, b));
    }

    /** The members of {@code a} that are not in {@code b}, in {@code a}'s order. */
    public static Group difference(Group a, Group b) {
        return filter(a, bits(b), false, mine(a, b));
    }

    private static int mine(Group a, Group b) {
        return a.me >= 0 ? a.me : b.me;
    }

    private static BitSet bits(Group g) {
        BitSet s = new BitSet();
        for (int w : g.world) {
            s.set(w);
        }
        return s;
    }

    private static Group filter(Group a, BitSet set, boolean keepIn, int me) {
        int[] out = new int[a.world.length];
        int n = 0;
        for (int w : a.world) {
            if (set.get(w) == keepIn) {
                out[n++] = w;
            }
        }
        return new Group(Arrays.copyOf(out, n), me);
    }

    /** The members with ranks {@code ranks}, in that order (distinct ranks of this group). */
    public Group incl(int... ranks) {
        BitSet seen = new BitSet();
        int[] out = new int[ranks.length];
        for (int i = 0; i < ranks.length; i++) {
            check(ranks[i]);
            if (seen.get(ranks[i])) {
                throw new RailyardException(ErrorClass.RANK, "rank " + ranks[i] + " appears twice in incl");
            }
            seen.set(ranks[i]);
            out[i] = world[ranks[i]];
        }
        return new Group(out, me);
    }

    /** The members whose ranks are not in {@code ranks}, in group order (distinct ranks of this group). */
    public Group excl(int... ranks) {
        BitSet drop = new BitSet();
        for (int r : ranks) {
            check(r);
            if (drop.get(r)) {
                throw new RailyardException(ErrorClass.RANK, "rank " + r + " appears twice in excl");
            }
            drop.set(r);
        }
        int[] out = new int[world.length - ranks.length];
        int n = 0;
        for (int i = 0; i < world.length; i++) {
            if (!drop.get(i)) {
                out[n++] = world[i];
            }
        }
        return new Group(out, me);
    }

    /**
     * {@link #incl} of the ranks named by triplets {@code {first, last, stride}}: first,
     * first + stride, ... not beyond last (stride may be negative, not zero).
     */
    public Group rangeIncl(int[][] ranges) {
        return incl(expand(ranges));
    }

    /** {@link #excl} of the ranks named by triplets, as in {@link #rangeIncl}. */
    public Group rangeExcl(int[][] ranges) {
        return excl(expand(ranges));
    }

    private int[] expand(int[][] ranges) {
        for (int[] t : ranges) {
            if (t.length != 3 || t[2] == 0) {
                throw new RailyardException(ErrorClass.ARG, "range " + Arrays.toString(t)
                        + " must be {first, last, stride} with a non-zero stride");
            }
            check(t[0]);
            check(t[1]);
        }
        return Arrays.stream(ranges)
                .flatMapToInt(t -> java.util.stream.IntStream.iterate(t[0], r -> t[2] > 0 ? r <= t[1] : r >= t[1], r -> r + t[2]))
                .toArray();
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof Group g && Arrays.equals(world, g.world);
    }

    @Override
    public int hashCode() {
        return Arrays.hashCode(world);
    }

    @Override
    public String toString() {
        return "Group" + Arrays.toString(world);
    }
}
