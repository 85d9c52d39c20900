package org.railyard.systest.lab;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.railyard.launcher.JobResult;
import org.railyard.systest.ranks.RmaRanks;

/**
 * A one-sided put of 1 GiB between two hosts of a {@link NetLab} joined by two rails: the put is
 * one rendezvous message striped over both rails, and a rail cut while it is under way loses
 * nothing (the target checks every long). Skips where no lab can be made.
 */
@Timeout(value = 8, unit = TimeUnit.MINUTES)
class RmaLabTest {
    private static final Duration JOB = Duration.ofMinutes(6);
    private static final Duration BOUND = Duration.ofSeconds(240);

    @BeforeAll
    static void labPossible() {
        NetLab.assumeAvailable();
    }

    @Test
    void aRailCutDuringA1GiBPutLosesNothing() throws Exception {
        long total = 1L << 30;
        Map<String, String> settings = Map.of(
                "RAILYARD_RAIL_POLICY", "adaptive",
                "RAILYARD_RAIL_TIMEOUT", "1s",
                "RAILYARD_RAIL_HEARTBEAT", "200ms",
                "RAILYARD_RECONNECT_MAX", "1s",
                "RAILYARD_PARTITION_TIMEOUT", "30s");
        try (NetLab lab = NetLab.create(2, List.of("1gbit", "1gbit"));
             LabJob job = LabJob.start(lab, 2, RmaRanks.class, settings, JOB, "bigput", "1024")) {
            LabJob.Line quarter = job.await(l -> l.rank() == 0 && l.text().startsWith("PROGRESS ")
                    && LabJob.bytes(l.text()) >= total / 4, BOUND)
                    .orElseGet(() -> fail("the put did not reach a quarter\n" + job.tail(60)));
            Map<Integer, Long> before = LabJob.railBytes(quarter.text());
            assertThat(before.keySet()).as("two rails carry the put: %s", quarter.text()).containsExactly(0, 1);
            lab.cut(1);
            JobResult r = job.end(JOB);
            assertThat(r.exitCode()).as("job\n%s", job.tail(80)).isZero();
            assertThat(job.out(1, "RESULT")).as(job.tail(60)).containsExactly("RESULT bigput ok " + total);
            List<String> progress = job.out(0, "PROGRESS");
            String last = progress.getLast();
            assertThat(LabJob.railBytes(last).get(0)).as("rail 0 carried the rest after the cut: %s", last)
                    .isGreaterThan(before.get(0));
        }
    }
}
