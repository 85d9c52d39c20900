package org.railyard.systest;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.railyard.systest.ranks.RmaLockRanks;

/**
 * Locks and PSCW of a mapped window between real processes ({@link RmaLockRanks}): 4 ranks on shm,
 * a counter under exclusive locks ending exact, PSCW rounds, and a rank that halts holding an
 * exclusive lock, whose share a survivor releases once the launcher reports the death.
 */
@Timeout(value = 5, unit = TimeUnit.MINUTES)
class RmaMappedSyncSystemTest {
    @Test
    void countersUnderMappedLocksEndExactAndADeadHolderDoesNotBlockTheOthers() {
        int rounds = 2000;
        Jobs.Finished job = Jobs.run("rma-mapped-locks", Jobs.spec(4, RmaLockRanks.class,
                Map.of("RAILYARD_TRANSPORTS", "shm", "RAILYARD_PRINT_CHOICES", "true"), Duration.ofSeconds(180),
                Integer.toString(rounds)));
        Transcript t = job.transcript();
        assertThat(t.texts(0, Transcript.Stream.OUT)).as(job.report()).contains("RESULT counter " + 4 * rounds);
        assertThat(t.texts(3, Transcript.Stream.OUT)).as(job.report()).contains("HALT rank 3");
        for (int r = 0; r < 3; r++) {
            assertThat(t.texts(r, Transcript.Stream.OUT)).as("rank %d\n%s", r, job.report()).contains("OK rmalock rank " + r);
        }
        assertThat(job.report()).as("the choice log names the mapped synchronisation").contains("through the mapping's header");
    }
}
