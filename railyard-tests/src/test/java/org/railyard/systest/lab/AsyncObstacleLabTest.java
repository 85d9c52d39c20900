package org.railyard.systest.lab;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.railyard.apps.obstacle.ObstacleDemo;
import org.railyard.launcher.JobResult;
import org.railyard.systest.FullMatrix;

/**
 * The asynchronous obstacle solver across the hosts of a {@link NetLab} whose network drops 5% of
 * the packets at random (iptables statistic, every protocol: the handshakes, tcp segments, udp
 * datagrams alike), on 2, 4 and 8 hosts, over tcp and over udp: it must still stop by itself on an
 * answer that passes the sequential stopping test. Skips where no lab can be made.
 */
@Timeout(value = 8, unit = TimeUnit.MINUTES)
class AsyncObstacleLabTest {
    private static final Duration JOB = Duration.ofMinutes(3);
    private static NetLab lab;

    @BeforeAll
    static void labWithLoss() {
        NetLab.assumeFirewall();
        lab = NetLab.create(8, java.util.Arrays.asList((String) null));
        lab.loss(0, 0.05);
    }

    @AfterAll
    static void removeLab() {
        if (lab != null) {
            lab.close();
        }
    }

    @ParameterizedTest(name = "{0} hosts over {1}, 5% loss")
    @CsvSource({"2, tcp", "4, tcp", "8, tcp", "2, udp", "4, udp", "8, udp"})
    void theAsynchronousSolverConvergesThroughFivePercentLoss(int np, String transport) throws Exception {
        if (np == 8 && transport.equals("tcp")) {
            FullMatrix.heavyRow("8 hosts over tcp (8 hosts run over udp, tcp at 2 and 4)");
        }
        // the iteration bound is the solver's safety cap, not part of what is tested: over tcp a lost
        // segment stalls a flow for a retransmission timeout while the ranks iterate on, and the
        // default cap (RichardsonSettings.DEFAULT_MAX_ITERATIONS) was reached by some runs before
        // enough fresh values came through; the job bound (JOB) still ends a run that never converges
        try (LabJob job = LabJob.start(lab, np, ObstacleDemo.class, Map.of("RAILYARD_TRANSPORTS", transport), JOB,
                "--scheme", "async", "--transport", transport, "--n", "14", "--quiet", "--max-iter", "2000000")) {
            JobResult r = job.end(JOB.plusSeconds(30));
            assertThat(r.exitCode()).as("async obstacle job\n%s", job.tail(60)).isZero();
            List<String> ok = job.out(0, "OK: asynchronous solution meets the stopping test");
            assertThat(ok).as(job.tail(40)).hasSize(1);
            System.out.println("lab async obstacle, " + np + " hosts over " + transport + ", 5% loss: "
                    + job.out(0, "wall time:") + " " + job.out(0, "iterations/rank:"));
        }
    }
}
