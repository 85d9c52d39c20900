package mpi;

import org.railyard.error.RailyardException;

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
        return check(this).rank();
    }

    /**
     * The ranks in {@code group2} of the processes with ranks {@code ranks1} in {@code group1}:
     * {@link MPI#UNDEFINED} for a process not in {@code group2}, {@link MPI#PROC_NULL} for
     * {@link MPI#PROC_NULL}.
     */
    public static int[] Translate_ranks(Group group1, int[] ranks1, Group group2) throws MPIException {
        try {
            return org.railyard.Group.translateRanks(check(group1), ranks1, check(group2));
        } catch (RailyardException e) {
            throw MPIException.of(e);
        }
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
        try {
            return new Group(check(this).incl(ranks));
        } catch (RailyardException e) {
            throw MPIException.of(e);
        }
    }

    /** The members other than those with the given ranks, in group order (ranks must be distinct). */
    public Group Excl(int[] ranks) throws MPIException {
        try {
            return new Group(check(this).excl(ranks));
        } catch (RailyardException e) {
            throw MPIException.of(e);
        }
    }

    /**
     * The members of the ranges {@code {first, last, stride}}, in range order:
     * {@code first, first + stride, ...} not beyond {@code last} (stride may be negative, not zero).
     */
    public Group Range_incl(int[][] ranges) throws MPIException {
        try {
            return new Group(check(this).rangeIncl(ranges));
        } catch (RailyardException e) {
            throw MPIException.of(e);
        }
    }

    /** The members not in the ranges {@code {first, last, stride}}, in group order. */
    public Group Range_excl(int[][] ranges) throws MPIException {
        try {
            return new Group(check(this).rangeExcl(ranges));
        } catch (RailyardException e) {
            throw MPIException.of(e);
        }
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
