package org.railyard.mpijava;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.railyard.mpijava.ranks.BsendObjectsRank;
import org.railyard.mpijava.ranks.ConstantsRank;
import org.railyard.mpijava.ranks.EmptyTypeRank;
import org.railyard.mpijava.ranks.MpjbufRank;
import org.railyard.mpijava.ranks.ProgramsSuiteRank;
import org.railyard.mpijava.ranks.RangeRank;
import org.railyard.mpijava.ranks.ReinitRank;

/**
 * The programs of issue 26, which MPJ Express 0.44 runs, on real jobs: each item on its own at 2
 * ranks (objects in Bsend, Range_incl/excl, an empty derived type, MPJ Express's constants, the
 * mpjbuf/mpjdev API, Init after Finalize), and all six one after the other in one job of 8 ranks
 * ({@link ProgramsSuiteRank}). {@link MpjExpressApiTest} compares the API itself.
 */
@Timeout(300)
class MpjExpressProgramsTest {
    @ParameterizedTest(name = "{0} on 2 ranks")
    @ValueSource(classes = {BsendObjectsRank.class, RangeRank.class, EmptyTypeRank.class, ConstantsRank.class,
            MpjbufRank.class, ReinitRank.class})
    void eachProgramOnTwoRanks(Class<?> program) {
        MpiJob.run(2, program).succeeded(2);
    }

    @Test
    void allSixOnEightRanksOneAfterTheOther() {
        MpiJob.Output out = MpiJob.run(8, ProgramsSuiteRank.class).succeeded(8);
        for (int r = 0; r < 8; r++) {
            assertThat(out.of(r).stream().filter("done"::equals)).as("rank %d: each program's done and the suite's\n%s",
                    r, out.report()).hasSize(7);
        }
    }
}
