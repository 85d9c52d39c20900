package org.railyard.systest;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.railyard.launcher.JobResult;
import org.railyard.launcher.JobResult.Outcome;
import org.railyard.launcher.JobResult.RankStatus;
import org.railyard.launcher.LineSink;
import org.railyard.systest.ranks.KillRanks;

/**
 * A rank of a real job dies from SIGKILL after a barrier, while the other three block in a receive
 * nothing will match: the launcher reports the death (exit code 137, a message naming rank 2 and
 * SIGKILL) and stops the others itself, long before the job's timeout.
 */
@Timeout(value = 5, unit = TimeUnit.MINUTES)
class KilledRankSystemTest {
    private static final Duration JOB_TIMEOUT = Duration.ofSeconds(150);

    @Test
    void theLauncherReportsTheKilledRankAndStopsTheOthers() {
        Jobs.Finished job = Jobs.run("killed-rank-np4", Jobs.spec(4, KillRanks.class, Map.of(), JOB_TIMEOUT, "2"));
        JobResult r = job.result();
        String report = job.report();
        assertThat(r.exitCode()).as("exit code (124 would mean the job ran into its timeout)\n%s", report)
                .isNotEqualTo(JobResult.TIMEOUT_EXIT).isEqualTo(128 + 9);
        assertThat(job.transcript().texts(2, Transcript.Stream.OUT)).as("rank 2 reached its kill\n%s", report)
                .anyMatch(l -> l.startsWith("KILLING rank 2 pid "));
        assertThat(r.summary()).as("summary").contains("rank 2").contains("SIGKILL").contains("signal 9");
        assertThat(job.transcript().texts(LineSink.LAUNCHER, Transcript.Stream.ERR)).as("launcher messages\n%s", report)
                .anyMatch(l -> l.contains("rank 2") && l.contains("SIGKILL") && l.contains("stopping the other 3 ranks"));
        RankStatus victim = r.ranks().get(2);
        assertThat(victim.outcome()).as("outcome of rank 2\n%s", report).isEqualTo(Outcome.KILLED);
        assertThat(victim.exitCode()).isEqualTo(137);
        assertThat(victim.how()).isEqualTo("was killed by signal 9 (SIGKILL)");
        for (int rank : new int[] {0, 1, 3}) {
            RankStatus s = r.ranks().get(rank);
            assertThat(s.outcome()).as("outcome of rank %d (blocked for ever unless stopped)\n%s", rank, report)
                    .isEqualTo(Outcome.STOPPED);
            assertThat(s.exitCode()).as("exit code of rank %d: it has ended", rank).isNotEqualTo(-1);
        }
        assertThat(r.summary()).contains("the launcher stopped ranks 0, 1 and 3");
    }
}
