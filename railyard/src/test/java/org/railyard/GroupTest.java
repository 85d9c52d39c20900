package org.railyard;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;
import org.railyard.error.RailyardException;

/** Group set operations, inclusion and exclusion by ranks and ranges, translation and comparison. */
class GroupTest {
    /** World ranks 10 to 15 in order; this process is world rank 12. */
    private final Group g = new Group(new int[] {10, 11, 12, 13, 14, 15}, 12);

    @Test
    void ranksAndMembership() {
        assertThat(g.size()).isEqualTo(6);
        assertThat(g.rank()).isEqualTo(2);
        assertThat(g.excl(2).rank()).isEqualTo(Group.UNDEFINED);
        assertThat(g.empty().size()).isZero();
        assertThatThrownBy(() -> g.worldRank(6)).isInstanceOf(RailyardException.class);
    }

    @Test
    void inclExclAndRanges() {
        assertThat(g.incl(4, 0, 2).worldRanks()).containsExactly(14, 10, 12);
        assertThat(g.excl(0, 5).worldRanks()).containsExactly(11, 12, 13, 14);
        assertThat(g.rangeIncl(new int[][] {{0, 4, 2}, {5, 5, 1}, {3, 1, -2}}).worldRanks()).containsExactly(10, 12, 14, 15, 13, 11);
        assertThat(g.rangeExcl(new int[][] {{1, 5, 2}}).worldRanks()).containsExactly(10, 12, 14);
        assertThat(g.rangeIncl(new int[][] {{3, 1, 1}}).size()).isZero();
        assertThatThrownBy(() -> g.incl(1, 1)).isInstanceOf(RailyardException.class).hasMessageContaining("twice");
        assertThatThrownBy(() -> g.rangeIncl(new int[][] {{0, 2, 0}})).isInstanceOf(RailyardException.class);
    }

    @Test
    void setOperationsKeepMpiOrders() {
        Group a = g.incl(5, 1, 3);
        Group b = g.incl(3, 0, 5, 4);
        assertThat(Group.union(a, b).worldRanks()).containsExactly(15, 11, 13, 10, 14);
        assertThat(Group.intersection(a, b).worldRanks()).containsExactly(15, 13);
        assertThat(Group.difference(a, b).worldRanks()).containsExactly(11);
        assertThat(Group.difference(b, a).worldRanks()).containsExactly(10, 14);
        assertThat(Group.union(a, b).rank()).isEqualTo(Group.UNDEFINED);
        assertThat(Group.union(a, g).rank()).isEqualTo(4);
    }

    @Test
    void translateAndCompare() {
        Group rev = g.incl(5, 4, 3, 2, 1, 0);
        assertThat(Group.translateRanks(g, new int[] {0, 2, Comm.PROC_NULL}, rev)).containsExactly(5, 3, Comm.PROC_NULL);
        assertThat(Group.translateRanks(g, new int[] {1}, g.excl(1))).containsExactly(Group.UNDEFINED);
        assertThat(Group.compare(g, g.incl(0, 1, 2, 3, 4, 5))).isEqualTo(Group.IDENT);
        assertThat(Group.compare(g, rev)).isEqualTo(Group.SIMILAR);
        assertThat(Group.compare(g, g.excl(0))).isEqualTo(Group.UNEQUAL);
        assertThat(Group.compare(g.incl(0, 1), g.incl(0, 2))).isEqualTo(Group.UNEQUAL);
    }
}
