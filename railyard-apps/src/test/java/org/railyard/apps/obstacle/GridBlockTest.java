package org.railyard.apps.obstacle;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class GridBlockTest {

    private static GridBlock block(int nx, int ny, int nz) {
        return new GridBlock(ObstacleProblem.membraneOnBump(8), 1.0, 0, nx, 0, ny, 0, nz);
    }

    @Test
    void sweepPlanPartitionsTheInteriorForEveryNeighbourPattern() {
        for (int nx = 0; nx <= 4; nx++) {
            for (int ny = 0; ny <= 3; ny++) {
                for (int nz = 0; nz <= 3; nz++) {
                    GridBlock b = block(nx, ny, nz);
                    for (int mask = 0; mask < 64; mask++) {
                        boolean[] has = new boolean[6];
                        for (int f = 0; f < 6; f++) {
                            has[f] = (mask >> f & 1) == 1;
                        }
                        int[][] plan = b.sweepPlan(has);
                        int[] covered = new int[(nx + 2) * b.sx];
                        for (int[] box : plan) {
                            for (int i = box[0]; i <= box[1]; i++) {
                                for (int j = box[2]; j <= box[3]; j++) {
                                    for (int k = box[4]; k <= box[5]; k++) {
                                        covered[i * b.sx + j * b.sy + k]++;
                                    }
                                }
                            }
                        }
                        for (int i = 0; i <= nx + 1; i++) {
                            for (int j = 0; j <= ny + 1; j++) {
                                for (int k = 0; k <= nz + 1; k++) {
                                    boolean interior = i >= 1 && i <= nx && j >= 1 && j <= ny && k >= 1 && k <= nz;
                                    assertThat(covered[i * b.sx + j * b.sy + k])
                                            .as("block %dx%dx%d mask %d point (%d,%d,%d)", nx, ny, nz, mask, i, j, k)
                                            .isEqualTo(interior ? 1 : 0);
                                }
                            }
                        }
                        // The inner box must not touch a layer next to a face with a neighbour.
                        int[] inner = plan[0];
                        if (inner[0] <= inner[1] && inner[2] <= inner[3] && inner[4] <= inner[5]) {
                            for (int a = 0; a < 3; a++) {
                                if (has[2 * a]) {
                                    assertThat(inner[2 * a]).isGreaterThanOrEqualTo(2);
                                }
                                if (has[2 * a + 1]) {
                                    assertThat(inner[2 * a + 1]).isLessThanOrEqualTo(b.extent(a) - 1);
                                }
                            }
                        }
                    }
                }
            }
        }
    }

    @Test
    void faceBoxesAreTheBoundaryAndGhostLayers() {
        GridBlock b = block(3, 4, 5);
        assertThat(b.faceBox(0, false)).containsExactly(1, 1, 1, 4, 1, 5);
        assertThat(b.faceBox(0, true)).containsExactly(0, 0, 1, 4, 1, 5);
        assertThat(b.faceBox(1, false)).containsExactly(3, 3, 1, 4, 1, 5);
        assertThat(b.faceBox(1, true)).containsExactly(4, 4, 1, 4, 1, 5);
        assertThat(b.faceBox(3, true)).containsExactly(1, 3, 5, 5, 1, 5);
        assertThat(b.faceBox(4, false)).containsExactly(1, 3, 1, 4, 1, 1);
        assertThat(b.faceBox(5, true)).containsExactly(1, 3, 1, 4, 6, 6);
        for (int f = 0; f < 6; f++) {
            int[] box = b.faceBox(f, false);
            int points = (box[1] - box[0] + 1) * (box[3] - box[2] + 1) * (box[5] - box[4] + 1);
            assertThat(b.faceSize(f)).isEqualTo(points);
        }
    }

    @Test
    void copyBoxRoundTripsThroughABuffer() {
        GridBlock b = block(3, 4, 5);
        double[] interior = new double[60];
        assertThat(b.packInterior(interior)).isEqualTo(60);
        double[] plane = new double[b.faceSize(2)];
        for (int p = 0; p < plane.length; p++) {
            plane[p] = p + 1;
        }
        assertThat(b.copyBox(plane, b.faceBox(2, true), false)).isEqualTo(plane.length);
        double[] back = new double[plane.length];
        b.copyBox(back, b.faceBox(2, true), true);
        assertThat(back).containsExactly(plane);
        // Ghost layers are not part of the interior.
        double[] again = new double[60];
        b.packInterior(again);
        assertThat(again).containsExactly(interior);
        assertThat(b.valueAt(1, 0, 1)).isEqualTo(1.0);
    }
}
