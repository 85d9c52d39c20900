package org.railyard.mpijava;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.Timeout;
import org.railyard.mpijava.ranks.CollectiveRank;

/** Every collective, operation, communicator constructor and group call on 1, 5 and 8 ranks. */
@Timeout(180)
class CollectiveTest {
    @ParameterizedTest(name = "np {0}")
    @ValueSource(ints = {1, 5, 8})
    void collectives(int np) {
        MpiJob.run(np, CollectiveRank.class).succeeded(np);
    }
}
