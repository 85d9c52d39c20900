package org.railyard.systest;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.railyard.systest.ranks.SharedSegmentRanks;

/**
 * Large collectives of heap arrays between 4 processes of this node ({@link SharedSegmentRanks}):
 * by default bcast, allgather(v), alltoall, allreduce, reduce and reduce_scatter_block of the
 * world and of a split of 3 go through each communicator's shared segment, and every rank's
 * choice log says so (not for the last rank's split, which holds it alone); with
 * {@code RAILYARD_COLL_SHM=false} the same results come through the point-to-point algorithms and
 * no segment is named. An alltoall of native buffers reads each block straight from the sender's
 * memory, and the choice log says so; with {@code RAILYARD_CMA=false} it goes through the
 * segment's cells, and the log says why. A rank that halts once the segment is in use makes the others' next
 * collective fail with an error instead of a wait without end, and the segment file is gone.
 */
@Timeout(value = 5, unit = TimeUnit.MINUTES)
class SharedSegmentSystemTest {
    private static final Duration JOB_TIMEOUT = Duration.ofSeconds(150);
    private static final int NP = 4;

    @ParameterizedTest(name = "segment {0}, cross-memory reads {1}")
    @CsvSource({"true, true", "false, true", "true, false"})
    void largeCollectivesDeliverWithAndWithoutTheSegment(boolean segment, boolean cma) {
        Map<String, String> env = new HashMap<>();
        env.put("RAILYARD_TRANSPORTS", "shm");
        env.put("RAILYARD_PRINT_CHOICES", "true");
        env.put("RAILYARD_COLL_SHM", Boolean.toString(segment));
        env.put("RAILYARD_CMA", Boolean.toString(cma));
        Jobs.Finished job = Jobs.run("shared-segment-" + segment + "-" + cma, Jobs.spec(NP, SharedSegmentRanks.class, env,
                JOB_TIMEOUT, "check"));
        assertThat(job.result().exitCode()).as("exit code\n%s", job.report()).isZero();
        Transcript t = job.transcript();
        for (int r = 0; r < NP; r++) {
            assertThat(t.texts(r, Transcript.Stream.OUT)).as("rank %d\n%s", r, job.report()).contains("OK shared rank " + r);
            List<String> choices = t.texts(r, Transcript.Stream.ERR);
            for (String coll : List.of("bcast", "allgather", "allgatherv", "alltoall", "allreduce", "reduce",
                    "reduce_scatter_block")) {
                for (String comm : List.of("WORLD (4 ranks)", ".split")) {
                    boolean said = choices.stream().anyMatch(l -> l.contains(comm) && l.contains("): " + coll + " [")
                            && l.endsWith(": shared-segment"));
                    // the last rank's split holds it alone: nothing to share
                    boolean expected = segment && (comm.startsWith("WORLD") || r < NP - 1);
                    assertThat(said).as("rank %d says %s on %s went through the shared segment: %s\n%s", r, coll, comm,
                            expected, job.report()).isEqualTo(expected);
                }
            }
            if (segment && !cma) {
                assertThat(choices).as("rank %d says why it does not read\n%s", r, job.report())
                        .anyMatch(l -> l.contains("no cross-memory reads through the shared segment, cross-memory reads are off"));
            }
            // native buffers at every member: each reads its blocks from the others' memory
            for (String comm : List.of("WORLD (4 ranks)", ".split")) {
                boolean read = choices.stream().anyMatch(l -> l.contains(comm) && l.contains("): alltoall [512 KiB, 1 MiB)")
                        && l.endsWith(": shared-segment+cross-memory-reads"));
                boolean expected = segment && cma && (comm.startsWith("WORLD") || r < NP - 1);
                assertThat(read).as("rank %d says the native alltoall on %s read the others' buffers: %s\n%s", r, comm,
                        expected, job.report()).isEqualTo(expected);
            }
        }
    }

    @Test
    void aRankThatHaltsFailsTheOthersCollective() throws Exception {
        Map<String, String> env = new HashMap<>();
        env.put("RAILYARD_TRANSPORTS", "shm");
        env.put("RAILYARD_PRINT_CHOICES", "true");
        java.util.Set<String> before = segmentFiles();
        Jobs.Finished job = Jobs.run("shared-segment-die", Jobs.spec(NP, SharedSegmentRanks.class, env, JOB_TIMEOUT, "die"));
        Transcript t = job.transcript();
        assertThat(t.texts(NP - 1, Transcript.Stream.OUT)).as("the last rank halts\n%s", job.report())
                .contains("HALTING rank " + (NP - 1));
        for (int r = 0; r < NP - 1; r++) {
            assertThat(t.texts(r, Transcript.Stream.OUT)).as("rank %d\n%s", r, job.report())
                    .anyMatch(l -> l.startsWith("FAILED PEER_FAILED "));
            assertThat(t.texts(r, Transcript.Stream.ERR)).as("rank %d used the segment\n%s", r, job.report())
                    .anyMatch(l -> l.contains("bcast [1 MiB, 2 MiB): shared-segment"));
        }
        java.util.Set<String> left = segmentFiles();
        left.removeAll(before);
        // another job on this machine (a second test run) may be between creating a segment and
        // unlinking it, for milliseconds; a segment this job left stays: wait for the listed ones to go
        org.railyard.testkit.Await.awaitUntil(() -> {
            java.util.Set<String> still = segmentFilesOrNone();
            still.retainAll(left);
            return still.isEmpty();
        }, Duration.ofSeconds(10), () -> "segment files left in /dev/shm: " + left);
    }

    private static java.util.Set<String> segmentFilesOrNone() {
        try {
            return segmentFiles();
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    private static java.util.Set<String> segmentFiles() throws java.io.IOException {
        try (var files = java.nio.file.Files.list(java.nio.file.Path.of("/dev/shm"))) {
            return files.map(f -> f.getFileName().toString()).filter(f -> f.startsWith("railyard-") && f.contains("-coll-"))
                    .collect(java.util.stream.Collectors.toCollection(java.util.HashSet::new));
        }
    }
}
