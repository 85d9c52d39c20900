package org.railyard.mpijava;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.railyard.mpijava.ranks.CartReorderRank;
import org.railyard.mpijava.ranks.IntercommRank;
import org.railyard.mpijava.ranks.TopologyRank;

/** Cartesian and graph topologies on 6 ranks, a reordered ring on 5 over two simulated nodes; intercommunicators between groups of 2 and 3. */
@Timeout(300)
class TopologyTest {
    @Test
    void cartesianAndGraphOnSixRanks() {
        MpiJob.run(6, TopologyRank.class).succeeded(6);
    }

    @Test
    void reorderedGridOverTwoNodesDealtInTurn() {
        MpiJob.run(5, CartReorderRank.class).succeeded(5);
    }

    @Test
    void intercommunicatorOnFiveRanks() {
        MpiJob.run(5, IntercommRank.class).succeeded(5);
    }
}
