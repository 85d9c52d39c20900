package mpi;


/**
 * An ordered set of processes. Purely local: no call here communicates.
 *
 * <h2>How it maps to Railyard</h2>
 * A thin wrapper of {@link org.railyard.Group}: every call is the native one of the same name
 * ({@code Union} is {@code union}, {@code Range_incl} is {@code rangeIncl} ...), with the
 * comparison results translated to MPJ Express's values ({@link MPI#IDENT} ...). A group becomes
 * a communicator through {@link Intracomm#Create(Group)}.
 */
public class Group implements Freeable {
    final org.railyard.Group nat;
    private boolean freed;

    Group(org.railyard.Group nat) {
        this.nat = nat;
    }

    /** Marks the group unusable; later calls on it fail (communicators made from it are not affected). */
    @Override
    public void free() {
        freed = true;
    }

    /** Number of members. */
    public int Size() throws MPIException {
        return check(this).size();
    }

    /** This process's rank in the group, or {@link MPI#UNDEFINED} if it is not a member. */
    public int Rank() throws MPIException {
        return Special.rankOut(check(this).rank());
    }

    /**
     * The ranks in {@code group2} of the processes with ranks {@code ranks1} in {@code group1}:
     * {@link MPI#UNDEFINED} for a process not in {@code group2}, {@link MPI#PROC_NULL} for
     * {@link MPI#PROC_NULL}.
     */
    public static int[] Translate_ranks(Group group1, int[] ranks1, Group group2) throws MPIException {
        return MPIException.call(() -> Special.ranksOut(org.railyard.Group.translateRanks(check(group1), Special.ranksIn(ranks1), check(group2))));
    }

    /**
     * {@link MPI#IDENT} if the groups have the same members in the same order, {@link MPI#SIMILAR}
     * if the same members in another order, {@link MPI#UNEQUAL} otherwise.
     */
    public static int Compare(Group group1, Group group2) throws MPIException {
        return result(org.railyard.Group.compare(check(group1), check(group2)));
    }

    /** MPJ Express's value of a comparison result of Railyard's. */
    static int result(int railyard) {
        return switch (railyard) {
            case org.railyard.Group.IDENT -> MPI.IDENT;
            case org.railyard.Group.CONGRUENT -> MPI.CONGRUENT;
            case org.railyard.Group.SIMILAR -> MPI.SIMILAR;
            default -> MPI.UNEQUAL;
        };
    }

    /** The members of {@code group1}, then those of {@code group2} not in {@code group1}. */
    public static Group Union(Group group1, Group group2) throws MPIException {
        return new Group(org.railyard.Group.union(check(group1), check(group2)));
    }

    /** The members of {@code group1} that are also in {@code group2}, in {@code group1}'s order. */
    public static Group Intersection(Group group1, Group group2) throws MPIException {
        return new Group(org.railyard.Group.intersection(check(group1), check(group2)));
    }

    /** The members of {@code group1} that are not in {@code group2}, in {@code group1}'s order. */
    public static Group Difference(Group group1, Group group2) throws MPIException {
        return new Group(org.railyard.Group.difference(check(group1), check(group2)));
    }

    /** The members with the given ranks, in that order (ranks must be distinct). */
    public Group Incl(int[] ranks) throws MPIException {
        return MPIException.call(() -> new Group(check(this).incl(ranks)));
    }

    /** The members other than those with the given ranks, in group order (ranks must be distinct). */
    public Group Excl(int[] ranks) throws MPIException {
        return MPIException.call(() -> new Group(check(this).excl(ranks)));
    }

    /**
     * The members of the ranges {@code {first, last, stride}}, in range order:
     * {@code first, first + stride, ...} not beyond {@code last} (stride may be negative, not zero).
     * As MPI says (and MPICH does), only the ranks a range produces must be ranks of the group:
     * {@code {5, 8, 2}} in a group of 8 is ranks 5 and 7, although 8 is not a rank.
     */
    public Group Range_incl(int[][] ranges) throws MPIException {
        return MPIException.call(() -> new Group(check(this).incl(expand(ranges, Size(), "Range_incl"))));
    }

    /** The members not in the ranges {@code {first, last, stride}}, in group order; ranges as in {@link #Range_incl}. */
    public Group Range_excl(int[][] ranges) throws MPIException {
        return MPIException.call(() -> new Group(check(this).excl(expand(ranges, Size(), "Range_excl"))));
    }

    /** The ranks the ranges produce, in range order; each must be in {@code [0, size)} and produced once. */
    static int[] expand(int[][] ranges, int size, String call) {
        if (ranges == null) {
            throw MPIException.error(call + ": the ranges are null");
        }
        int[] out = new int[size];
        boolean[] seen = new boolean[size];
        int n = 0;
        for (int i = 0; i < ranges.length; i++) {
            int[] r = ranges[i];
            if (r == null || r.length < 3) {
                throw MPIException.error(call + ": range " + i + " must be {first, last, stride}");
            }
            String range = "range " + i + " {" + r[0] + ", " + r[1] + ", " + r[2] + "}";
            if (r[2] == 0) {
                throw MPIException.error(call + ": " + range + " has stride 0");
            }
            for (long k = r[0]; r[2] > 0 ? k <= r[1] : k >= r[1]; k += r[2]) {
                if (k < 0 || k >= size) {
                    throw MPIException.error(call + ": " + range + " produces rank " + k
                            + ", outside the group's ranks [0, " + size + ")");
                }
                if (seen[(int) k]) {
                    throw MPIException.error(call + ": " + range + " produces rank " + k + " a second time");
                }
                seen[(int) k] = true;
                out[n++] = (int) k;
            }
        }
        return java.util.Arrays.copyOf(out, n);
    }

    private static org.railyard.Group check(Group g) {
        if (g == null) {
            throw MPIException.error("group is null (MPI.GROUP_NULL)");
        }
        if (g.freed) {
            throw MPIException.error("group was freed");
        }
        return g.nat;
    }

    @Override
    public String toString() {
        return nat.toString();
    }
}
