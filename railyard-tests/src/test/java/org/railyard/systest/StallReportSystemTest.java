package org.railyard.systest;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.railyard.systest.ranks.StallRanks;

/**
 * The stall report: a job that stops moving and is ended by its timeout has first printed, rank by
 * rank, what each rank waits for. The job sets {@code railyard.stall.report} itself (4 s), far
 * below its timeout: the report counts from the start of a wait, and on a loaded machine the ranks'
 * start alone has taken most of a 30 s job whose report came at the launcher's default (three
 * fifths of the timeout, 18 s, which LauncherTest checks), so that it came too late.
 */
@Timeout(value = 3, unit = TimeUnit.MINUTES)
class StallReportSystemTest {
    @Test
    void aJobEndedByItsTimeoutSaysWhatEachRankWaitedFor() {
        Jobs.Finished job = Jobs.run("stall-report", Jobs.spec(2, StallRanks.class, Map.of("RAILYARD_STALL_REPORT", "4s"),
                Duration.ofSeconds(40)));
        assertThat(job.result().exitCode()).as(job.report()).isEqualTo(124);
        Transcript t = job.transcript();
        assertThat(t.find(l -> l.text().contains("FAIL"))).as(job.report()).isEmpty();
        assertThat(t.find(l -> l.text().matches("railyard: stall: rank 0 of 2: an application thread has waited \\d+ s .*")))
                .as(job.report()).isPresent();
        // rank 0: its receive is posted, and rank 1's barrier message waits for a barrier rank 0 never calls
        assertThat(t.find(l -> l.text().equals("railyard: stall:   posted: receive from rank 1, context 0, tag 0x7, up to 16 B")))
                .as(job.report()).isPresent();
        // rank 1: in the (counter) barrier, alone, with rank 0's message of 8000 B unreceived
        assertThat(t.find(l -> l.text().startsWith(
                "railyard: stall:   waiting in barrier on WORLD (node-counter): 1 of 2 arrived, generation 1")))
                .as(job.report()).isPresent();
        assertThat(t.find(l -> l.text().equals("railyard: stall:   unexpected: from rank 0, context 0, tag 0x3, 8000 B")))
                .as(job.report()).isPresent();
        assertThat(t.find(l -> l.text().startsWith("railyard: stall:   channel to rank 0: UP"))).as(job.report()).isPresent();
    }
}
