package org.railyard.mpijava;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.railyard.mpijava.ranks.ObjectRank;

/** {@code MPI.OBJECT} on real jobs. */
@Timeout(300)
class ObjectTest {
    @Test
    void threeRanks() {
        MpiJob.run(3, ObjectRank.class).succeeded(3);
    }
}
