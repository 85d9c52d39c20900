package org.railyard.systest.lab;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.fail;

import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.railyard.launcher.JobResult;
import org.railyard.testkit.Await;
import org.railyard.systest.ranks.SilentPathRanks;

/**
 * A single tcp rail between two hosts of a {@link NetLab} that goes silent (its interface set down
 * at one host: no reset, no error, packets simply lost) while both ranks wait for each other: the
 * kernel's keepalive probes ({@code railyard.tcp.keepalive}) end the connection, and both waits
 * fail with {@code PEER_FAILED} about the bound after the last traffic. With the probes off the
 * same waits are still pending at their own bound: nothing else would have ended them. Skips
 * where no lab can be made.
 */
@Timeout(value = 4, unit = TimeUnit.MINUTES)
class SilentPathLabTest {
    private static final Duration JOB = Duration.ofSeconds(90);
    private static final Duration BOUND = Duration.ofSeconds(60);

    @BeforeAll
    static void labPossible() {
        NetLab.assumeAvailable();
    }

    @Test
    void bothWaitsOnASilentPathFailWithPeerFailedWithinTheKeepaliveBound() throws Exception {
        List<String> results = silencedJob("8s", 40, true);
        for (int rank = 0; rank < 2; rank++) {
            String result = results.get(rank);
            System.out.println("silent path, keepalive 8 s: " + result);
            assertThat(result).as("rank %d", rank).startsWith("RESULT " + rank + " FAILED PEER_FAILED ")
                    .contains("connection to rank " + (1 - rank) + " lost");
            long ms = Long.parseLong(result.split(" ")[4]);
            assertThat(ms).as("rank %d failed %d ms after READY: by the probes of an 8 s bound", rank, ms)
                    .isBetween(3_000L, 30_000L);
        }
    }

    @Test
    void withoutTheProbesTheSameWaitsAreStillPendingAtTheirBound() throws Exception {
        assertThat(silencedJob("0", 15, false)).containsExactly("RESULT 0 PENDING after 15 s", "RESULT 1 PENDING after 15 s");
    }

    /**
     * Runs {@link SilentPathRanks} on two lab hosts with {@code railyard.tcp.keepalive} =
     * {@code keepalive}, silences the rail once both are ready, and returns each rank's RESULT line;
     * with {@code ends}, also checks that the job then ends, and with exit code 0.
     */
    private static List<String> silencedJob(String keepalive, int waitSeconds, boolean ends) throws Exception {
        try (NetLab lab = NetLab.create(2, List.of("100mbit"));
             LabJob job = LabJob.start(lab, 2, SilentPathRanks.class, Map.of("RAILYARD_TCP_KEEPALIVE", keepalive), JOB,
                     Integer.toString(waitSeconds))) {
            silenceWhenReady(lab, job);
            List<String> results = List.of(result(job, 0), result(job, 1));
            if (ends) {
                JobResult r = job.end(JOB);
                assertThat(r.exitCode()).as(job.tail(40)).isZero();
            }
            return results;
        }
    }

    /**
     * Sets the rail's interface down at host 0 once both ranks have printed READY and neither end
     * of their connection holds data its peer has not acknowledged: the probes work on an idle
     * connection only, and an end that waits for an acknowledgement (a delayed ACK lost in the
     * cut) is bounded by the kernel's retransmission limit instead (railyard.tcp.keepalive).
     */
    private static void silenceWhenReady(NetLab lab, LabJob job) throws InterruptedException {
        for (int rank = 0; rank < 2; rank++) {
            int r = rank;
            job.await(l -> l.rank() == r && !l.err() && l.text().equals("READY"), BOUND)
                    .orElseGet(() -> fail("rank " + r + " never printed READY\n" + job.tail(40)));
        }
        Await.awaitUntil(() -> idle(lab, 0) && idle(lab, 1), BOUND, "the rail connection idle at both ends");
        lab.cut(0);
    }

    /**
     * True if host {@code h} has an established connection on its rail-0 address and every such
     * connection has nothing unacknowledged and no retransmission timer ({@code /proc/net/tcp}
     * and {@code tcp6} inside the host: the tx_queue and timer columns).
     */
    private static boolean idle(NetLab lab, int h) {
        String[] ip = lab.railAddress(h, 0).split("\\.");
        String hex = String.format(Locale.ROOT, "%02X%02X%02X%02X:", Integer.parseInt(ip[3]), Integer.parseInt(ip[2]),
                Integer.parseInt(ip[1]), Integer.parseInt(ip[0])); // the kernel's byte order
        int found = 0;
        for (String line : lab.exec(h, "cat", "/proc/net/tcp", "/proc/net/tcp6").split("\n")) {
            String[] f = line.trim().split("\\s+");
            if (f.length < 6 || !f[3].equals("01") || !f[1].contains(hex)) {
                continue;
            }
            found++;
            long unacked = Long.parseLong(f[4].substring(0, f[4].indexOf(':')), 16);
            if (unacked != 0 || f[5].startsWith("01:")) {
                return false;
            }
        }
        return found > 0;
    }

    private static String result(LabJob job, int rank) throws InterruptedException {
        return job.await(l -> l.rank() == rank && !l.err() && l.text().startsWith("RESULT "), BOUND)
                .orElseGet(() -> fail("rank " + rank + " printed no RESULT within " + BOUND.toSeconds() + " s\n" + job.tail(40)))
                .text();
    }
}
