package org.railyard.systest;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.railyard.systest.ranks.CollAllocRanks;

/**
 * A blocking collective called in a loop takes nothing from the Java heap once warm: its
 * schedule, its point-to-point requests and its lists of counts are reused, and its checks build
 * no strings. Four processes on this node run {@link CollAllocRanks}; every collective, size and
 * kind of buffer must stay under {@link #BOUND} bytes a call over all threads of each JVM, in the
 * cleanest of its windows of calls ({@link org.railyard.testkit.Allocation}: an object per call
 * shows in every window, a pool or a statistics series growing once in one). Before a
 * collective's requests were pooled, this test read 288 bytes a call for a barrier at np 4 and 896
 * for an allgather.
 */
@Timeout(value = 4, unit = TimeUnit.MINUTES)
class CollAllocSystemTest {
    private static final int NP = 4;
    /** Bytes per call: room for a pool growing once during the measured calls, not for a request per call. */
    private static final double BOUND = CollAllocRanks.GOAL;

    @Test
    void warmCollectivesAllocateNothingPerCall() {
        Jobs.Finished job = Jobs.run("coll-alloc", Jobs.spec(NP, CollAllocRanks.class, Map.of("RAILYARD_TRANSPORTS", "shm"),
                Duration.ofSeconds(180)));
        assertThat(job.result().exitCode()).as("exit code\n%s", job.report()).isZero();
        for (int r = 0; r < NP; r++) {
            List<String> out = job.transcript().texts(r, Transcript.Stream.OUT);
            assertThat(out).as("rank %d\n%s", r, job.report()).contains("OK alloc rank " + r);
            List<String> rows = out.stream().filter(l -> l.startsWith("ALLOC ")).toList();
            // 7 collectives with heap arrays at 1 KiB, 6 at 8 B (no reduce_scatter_block of one double), 4 off-heap at
            // each, and the allreduce of one value
            assertThat(rows).as("rank %d measurements\n%s", r, job.report()).hasSize(22);
            for (String row : rows) {
                String[] f = row.split(" ");
                assertThat(Double.parseDouble(f[4])).as("rank %d: %s (bytes allocated per call)", r, row).isLessThan(BOUND);
            }
        }
    }
}
