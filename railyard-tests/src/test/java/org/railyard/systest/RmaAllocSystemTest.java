package org.railyard.systest;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.railyard.systest.ranks.RmaAllocRanks;

/**
 * Synchronisation epochs of a window mapped on this node take nothing from the Java heap once
 * warm: a lock epoch is two atomics on the mapping's lock word, a PSCW epoch pair counters
 * per pair, a fence the barrier's words, with the group translated once and the waits' conditions made once per window. Two
 * processes run {@link RmaAllocRanks} over shm; every epoch must stay under {@link #BOUND} bytes
 * over all threads of the measuring rank's JVM.
 */
@Timeout(value = 4, unit = TimeUnit.MINUTES)
class RmaAllocSystemTest {
    private static final int NP = 2;
    /** Bytes per epoch: room for a pool growing once during the measured calls, not for an object per epoch. */
    private static final double BOUND = RmaAllocRanks.GOAL;

    @Test
    void mappedLockAndPscwEpochsAllocateNothingPerEpoch() {
        Jobs.Finished job = Jobs.run("rma-alloc", Jobs.spec(NP, RmaAllocRanks.class,
                Map.of("RAILYARD_TRANSPORTS", "shm"), Duration.ofSeconds(180)));
        assertThat(job.result().exitCode()).as("exit code\n%s", job.report()).isZero();
        List<String> rows = new java.util.ArrayList<>();
        for (int r = 0; r < NP; r++) {
            assertThat(job.transcript().texts(r, Transcript.Stream.OUT)).as("rank %d\n%s", r, job.report())
                    .contains("OK rma-alloc rank " + r);
            job.transcript().texts(r, Transcript.Stream.OUT).stream().filter(l -> l.startsWith("ALLOC ")).forEach(rows::add);
        }
        // the lock epoch at its origin, PSCW and fence at both ranks
        assertThat(rows).as("measurements\n%s", job.report()).hasSize(5);
        for (String row : rows) {
            String[] f = row.split(" ");
            assertThat(Double.parseDouble(f[4])).as("%s (bytes allocated per epoch)", row).isLessThan(BOUND);
        }
    }
}
