package org.railyard.mpijava;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.railyard.mpijava.ranks.WinRank;

/** {@code mpi.Win}, one-sided communication through the facade, on real jobs. */
@Timeout(300)
class WinTest {
    @Test
    void twoRanks() {
        MpiJob.run(2, WinRank.class).succeeded(2);
    }

    @Test
    void threeRanks() {
        MpiJob.run(3, WinRank.class).succeeded(3);
    }
}
