package org.railyard.mpijava;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.Timeout;
import org.railyard.mpijava.ranks.CollectiveAllocRank;
import org.railyard.mpijava.ranks.CollectiveRank;

/**
 * Every collective, operation, communicator constructor and group call on 1, 5 and 8 ranks; and
 * the collectives a solver calls in its loop, which allocate nothing per call once warm (under
 * the rank JVMs' C1, which removes no allocation: before, Allreduce took 16 B a call and
 * Allgather and Alltoall 48). The figure held to the bound is the least of several windows of
 * calls ({@link org.railyard.testkit.Allocation}): an object per call shows in every window, a
 * pool or a statistics series growing once shows in one.
 */
@Timeout(300)
class CollectiveTest {
    /** Bytes per call over every thread of a rank's JVM, in its cleanest window: below the smallest object (16 B). */
    private static final double BOUND = CollectiveAllocRank.GOAL;

    @ParameterizedTest(name = "np {0}")
    @ValueSource(ints = {1, 5, 8})
    void collectives(int np) {
        MpiJob.run(np, CollectiveRank.class).succeeded(np);
    }

    @Test
    void warmCollectivesAllocateNothingPerCall() {
        int np = 4;
        MpiJob.Output out = MpiJob.run(np, CollectiveAllocRank.class).succeeded(np);
        for (int r = 0; r < np; r++) {
            List<String> rows = out.of(r).stream().filter(l -> l.startsWith("ALLOC ")).toList();
            assertThat(rows).as("rank %d measurements\n%s", r, out.report()).hasSize(14);
            for (String row : rows) {
                assertThat(Double.parseDouble(row.split(" ")[2])).as("rank %d: %s (bytes allocated per call)", r, row)
                        .isLessThan(BOUND);
            }
        }
    }
}
