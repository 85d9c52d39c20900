package org.railyard.mpijava;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.railyard.mpijava.ranks.EnvironmentRank;

/** Thread levels and concurrent threads, Abort, and the error handlers, on 2 ranks. */
@Timeout(300)
class EnvironmentTest {
    @Test
    void twoThreadsPerRankShareTheWorld() {
        MpiJob.run(2, EnvironmentRank.class, "threads").succeeded(2);
    }

    @Test
    void abortEndsTheJobWithItsCode() {
        MpiJob.Output o = MpiJob.run(2, EnvironmentRank.class, "abort");
        assertThat(o.result().exitCode()).as(o.report()).isEqualTo(3);
        assertThat(o.of(1)).containsExactly("aborting");
        assertThat(o.out()).as(o.report()).noneMatch(l -> l.endsWith("not reached"));
    }

    @Test
    void errorsAreReturnedThenFatal() {
        MpiJob.Output o = MpiJob.run(2, EnvironmentRank.class, "fatal");
        assertThat(o.of(0)).containsExactly("returned: RANK");
        assertThat(o.result().exitCode()).as(o.report()).isEqualTo(1);
        assertThat(o.err()).as(o.report()).anyMatch(l -> l.startsWith("1:railyard: MPI error (MPI.ERRORS_ARE_FATAL): RANK"));
        assertThat(o.out()).noneMatch(l -> l.endsWith("not reached"));
    }
}
