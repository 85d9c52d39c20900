package org.railyard.apps.obstacle;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class DecompositionTest {

    /** Every (n, p, spec) combination worth trying: grids smaller than, equal to and larger than p. */
    private static List<Decomposition> many() {
        List<Decomposition> all = new ArrayList<>();
        int[] ns = {1, 2, 3, 5, 7, 8, 16, 17, 31};
        for (int n : ns) {
            for (int p = 1; p <= 13; p++) {
                for (String spec : new String[] {"slab", "pencil", "block"}) {
                    all.add(Decomposition.of(n, p, spec));
                }
            }
            all.add(Decomposition.of(n, 24, "block"));
            all.add(Decomposition.of(n, 27, "block"));
            all.add(Decomposition.of(n, 6, "1x2x3"));
            all.add(Decomposition.of(n, 6, "3x1x2"));
        }
        return all;
    }

    @Test
    void rangesSplitAnAxisExactlyAndEvenly() {
        for (int n = 1; n <= 40; n++) {
            for (int parts = 1; parts <= 45; parts++) {
                int next = 0;
                for (int c = 0; c < parts; c++) {
                    assertThat(Decomposition.rangeStart(n, parts, c)).isEqualTo(next);
                    int len = Decomposition.rangeLength(n, parts, c);
                    assertThat(len).isBetween(n / parts, n / parts + 1);
                    next += len;
                }
                assertThat(next).as("n=%d parts=%d", n, parts).isEqualTo(n);
            }
        }
    }

    @Test
    void blocksCoverEveryPointExactlyOnce() {
        for (Decomposition d : many()) {
            int n = d.n();
            int[] owner = new int[n * n * n];
            java.util.Arrays.fill(owner, -1);
            long total = 0;
            for (int r = 0; r < d.ranks(); r++) {
                total += d.volume(r);
                for (int i = 0; i < d.count(r, 0); i++) {
                    for (int j = 0; j < d.count(r, 1); j++) {
                        for (int k = 0; k < d.count(r, 2); k++) {
                            int p = ((d.start(r, 0) + i) * n + d.start(r, 1) + j) * n + d.start(r, 2) + k;
                            assertThat(owner[p]).as("%s: point %d owned twice", d, p).isEqualTo(-1);
                            owner[p] = r;
                        }
                    }
                }
            }
            assertThat(total).as("%s", d).isEqualTo((long) n * n * n);
            assertThat(owner).as("%s", d).doesNotContain(-1);
        }
    }

    @Test
    void neighboursAreTheAdjacentBlocksAndAgreeBothWays() {
        for (Decomposition d : many()) {
            for (int r = 0; r < d.ranks(); r++) {
                for (int f = 0; f < Decomposition.FACES; f++) {
                    int axis = f >> 1;
                    boolean high = (f & 1) == 1;
                    int nb = d.neighbour(r, f);
                    if (d.isEmpty(r)) {
                        assertThat(nb).isEqualTo(Decomposition.NONE);
                        continue;
                    }
                    // The block across the face starts where this one ends (or ends where it starts).
                    int edge = high ? d.start(r, axis) + d.count(r, axis) : d.start(r, axis);
                    boolean onBoundary = edge == 0 || edge == d.n();
                    if (onBoundary) {
                        assertThat(nb).as("%s rank %d face %d", d, r, f).isEqualTo(Decomposition.NONE);
                        continue;
                    }
                    assertThat(nb).as("%s rank %d face %d", d, r, f).isNotEqualTo(Decomposition.NONE);
                    assertThat(d.isEmpty(nb)).isFalse();
                    assertThat(d.neighbour(nb, Decomposition.opposite(f))).isEqualTo(r);
                    int nbEdge = high ? d.start(nb, axis) : d.start(nb, axis) + d.count(nb, axis);
                    assertThat(nbEdge).isEqualTo(edge);
                    for (int other = 0; other < 3; other++) {
                        if (other != axis) {
                            assertThat(d.start(nb, other)).isEqualTo(d.start(r, other));
                            assertThat(d.count(nb, other)).isEqualTo(d.count(r, other));
                        }
                    }
                }
            }
        }
    }

    @Test
    void coordinatesAndRanksAreInverse() {
        Decomposition d = Decomposition.of(10, 24, "2x3x4");
        for (int r = 0; r < 24; r++) {
            assertThat(d.rankAt(d.coord(r, 0), d.coord(r, 1), d.coord(r, 2))).isEqualTo(r);
        }
        assertThat(d.coord(23, 0)).isEqualTo(1);
        assertThat(d.coord(23, 1)).isEqualTo(2);
        assertThat(d.coord(23, 2)).isEqualTo(3);
    }

    @Test
    void namedShapesPickTheLeastHaloSurface() {
        assertThat(Decomposition.of(48, 4, "slab").shape()).isEqualTo("4x1x1");
        assertThat(Decomposition.of(48, 4, "block").shape()).isEqualTo("2x2x1");
        assertThat(Decomposition.of(48, 8, "block").shape()).isEqualTo("2x2x2");
        assertThat(Decomposition.of(48, 8, "pencil").shape()).isEqualTo("4x2x1");
        assertThat(Decomposition.of(48, 12, "block").shape()).isEqualTo("3x2x2");
        assertThat(Decomposition.of(48, 7, "block").shape()).isEqualTo("7x1x1");
        assertThat(Decomposition.of(48, 1, "block").shape()).isEqualTo("1x1x1");
        // Two points per axis are enough for 2x2x1: every rank still owns a block.
        assertThat(Decomposition.of(2, 4, "block").shape()).isEqualTo("2x2x1");
    }

    @Test
    void moreRanksThanPlanesLeavesTrailingRanksEmpty() {
        Decomposition d = Decomposition.of(3, 5, "slab");
        assertThat(d.isEmpty(2)).isFalse();
        assertThat(d.isEmpty(3)).isTrue();
        assertThat(d.isEmpty(4)).isTrue();
        assertThat(d.neighbour(2, 1)).isEqualTo(Decomposition.NONE);
        assertThat(d.neighbour(3, 0)).isEqualTo(Decomposition.NONE);
    }

    @Test
    void rejectsShapesThatDoNotMatchTheRankCount() {
        assertThatThrownBy(() -> Decomposition.of(8, 4, "3x1x1")).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("3 blocks but there are 4 ranks");
        assertThatThrownBy(() -> Decomposition.of(8, 4, "cubes")).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> Decomposition.of(8, 4, "2xAx2")).isInstanceOf(IllegalArgumentException.class);
    }
}
