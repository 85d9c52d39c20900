package org.railyard.mpijava;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.railyard.mpijava.ranks.PointToPointRank;

/** {@code mpi.Comm} point to point, requests, persistent requests, buffered sends, cancel: real jobs. */
@Timeout(300)
class PointToPointTest {
    @Test
    void threeRanks() {
        MpiJob.run(3, PointToPointRank.class).succeeded(3);
    }
}
