package org.railyard.mpijava;

import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.railyard.mpijava.ranks.BsendObjectsRank;
import org.railyard.mpijava.ranks.ConstantsRank;
import org.railyard.mpijava.ranks.EmptyTypeRank;
import org.railyard.mpijava.ranks.MpjbufRank;
import org.railyard.mpijava.ranks.RangeRank;
import org.railyard.mpijava.ranks.ReinitRank;

/**
 * The programs of issue 26, which MPJ Express 0.44 runs, on real jobs of 2 and 8 ranks: one test
 * per item (objects in Bsend, Range_incl/excl, an empty derived type, MPJ Express's constants,
 * the mpjbuf/mpjdev API, Init after Finalize). {@link MpjExpressApiTest} compares the API itself.
 */
@Timeout(300)
class MpjExpressProgramsTest {
    @ParameterizedTest(name = "np {0}")
    @ValueSource(ints = {2, 8})
    void bsendOfObjects(int np) {
        MpiJob.run(np, BsendObjectsRank.class).succeeded(np);
    }

    @ParameterizedTest(name = "np {0}")
    @ValueSource(ints = {2, 8})
    void rangesCheckOnlyTheRanksTheyProduce(int np) {
        MpiJob.run(np, RangeRank.class).succeeded(np);
    }

    @ParameterizedTest(name = "np {0}")
    @ValueSource(ints = {2, 8})
    void anEmptyTypeFitsAnyBuffer(int np) {
        MpiJob.run(np, EmptyTypeRank.class).succeeded(np);
    }

    @ParameterizedTest(name = "np {0}")
    @ValueSource(ints = {2, 8})
    void specialValuesAreMpjExpresss(int np) {
        MpiJob.run(np, ConstantsRank.class).succeeded(np);
    }

    @ParameterizedTest(name = "np {0}")
    @ValueSource(ints = {2, 8})
    void mpjbufAndMpjdev(int np) {
        MpiJob.run(np, MpjbufRank.class).succeeded(np);
    }

    @ParameterizedTest(name = "np {0}")
    @ValueSource(ints = {2, 8})
    void initAfterFinalize(int np) {
        MpiJob.run(np, ReinitRank.class).succeeded(np);
    }
}
