package org.railyard.mpijava;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.railyard.mpijava.ranks.DatatypeRank;

/** {@code mpi.Datatype} and packing, on real jobs. */
@Timeout(300)
class DatatypeTest {
    @Test
    void twoRanks() {
        MpiJob.run(2, DatatypeRank.class).succeeded(2);
    }
}
