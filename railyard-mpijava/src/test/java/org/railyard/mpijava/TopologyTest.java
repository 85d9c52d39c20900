package org.railyard.mpijava;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.railyard.mpijava.ranks.IntercommRank;
import org.railyard.mpijava.ranks.TopologyRank;

/** Cartesian and graph topologies on 6 ranks; intercommunicators between groups of 2 and 3. */
@Timeout(180)
class TopologyTest {
    @Test
    void cartesianAndGraphOnSixRanks() {
        MpiJob.run(6, TopologyRank.class).succeeded(6);
    }

    @Test
    void intercommunicatorOnFiveRanks() {
        MpiJob.run(5, IntercommRank.class).succeeded(5);
    }
}
