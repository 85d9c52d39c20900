package org.railyard.mpijava;

import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.railyard.mpijava.ranks.WinRank;

/** {@code mpi.Win}, one-sided communication through the facade, on real jobs. */
@Timeout(300)
class WinTest {
    @ParameterizedTest(name = "np {0}")
    @ValueSource(ints = {2, 3})
    void winRank(int np) {
        MpiJob.run(np, WinRank.class).succeeded(np);
    }
}
