package org.railyard.systest.lab;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.fail;

import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.railyard.bench.StreamRank;
import org.railyard.launcher.JobResult;

/**
 * Multi-rail channels between two hosts of a {@link NetLab}, rails rate-limited with tc tbf: the
 * stream benchmark ({@link StreamRank}) over striped rails, over rails of unequal speed, with BSS
 * over four paths, and through faults (a rail cut and restored mid-stream, both rails cut within
 * and beyond the partition bound). Sized for CI (100 Mbit/s rails, tens of MiB, assertions on
 * ratios); the full-size numbers come from {@code bench/lab/run.sh}. Skips where no lab can be made.
 */
@Timeout(value = 4, unit = TimeUnit.MINUTES)
class MultiRailLabTest {
    private static final Duration JOB = Duration.ofMinutes(2);
    private static final Duration BOUND = Duration.ofSeconds(60);

    @BeforeAll
    static void labPossible() {
        NetLab.assumeAvailable();
    }

    /** Settings that make failures show within a second or two. */
    private static Map<String, String> settings(String policy, String... more) {
        Map<String, String> s = new HashMap<>(Map.of(
                "RAILYARD_RAIL_POLICY", policy,
                "RAILYARD_RAIL_TIMEOUT", "1s",
                "RAILYARD_RAIL_HEARTBEAT", "200ms",
                "RAILYARD_RECONNECT_MAX", "1s",
                "RAILYARD_PARTITION_TIMEOUT", "20s"));
        for (int i = 0; i < more.length; i += 2) {
            s.put(more[i], more[i + 1]);
        }
        return s;
    }

    /** Streams {@code mib} MiB in the lab; returns Mbit/s as rank 1 measured it, after checking the data. */
    private static double stream(NetLab lab, Map<String, String> settings, int mib) throws Exception {
        try (LabJob job = LabJob.start(lab, 2, StreamRank.class, settings, JOB, "--bytes", mib + "m", "--message", "2m")) {
            JobResult r = job.end(JOB.plusSeconds(30));
            assertThat(r.exitCode()).as("stream job\n%s", job.tail(60)).isZero();
            String result = job.out(1, "RESULT").getFirst();
            assertThat(result).as(job.tail(40)).endsWith(" ok");
            System.out.println("lab stream " + settings.get("RAILYARD_RAIL_POLICY") + " on " + lab + ": " + result);
            return Double.parseDouble(result.split(" ")[3]);
        }
    }

    @ThroughputTest
    void twoRailsCarryTheStreamAtAboutTwiceTheRateOfOne() throws Exception {
        try (NetLab lab = NetLab.create(2, List.of("100mbit", "100mbit"))) {
            double both = stream(lab, settings("even"), 48);
            double one = stream(lab, settings("even", "RAILYARD_RAIL_NETS", "10.201.0.0/24"), 24);
            // generous: the machine may be busy; the physics (one rail cannot beat 100) is exact
            assertThat(one).as("one rail of 100 Mbit/s").isBetween(40.0, 100.0);
            assertThat(both / one).as("two rails (%.1f) over one (%.1f)", both, one).isGreaterThan(1.5);
        }
    }

    @ThroughputTest
    void onUnequalRailsAdaptiveStripingOutrunsEvenStriping() throws Exception {
        try (NetLab lab = NetLab.create(2, List.of("100mbit", "25mbit"))) {
            double even = stream(lab, settings("even"), 24);
            double adaptive = stream(lab, settings("adaptive"), 48);
            // even is held to twice the slow rail (50); adaptive gets near the sum (125)
            assertThat(even).as("even").isLessThan(62.0);
            assertThat(adaptive / even).as("adaptive (%.1f) over even (%.1f)", adaptive, even).isGreaterThan(1.4);
        }
    }

    @ThroughputTest
    void bssFourTwoSettlesOnTheTwoFastPaths() throws Exception {
        try (NetLab lab = NetLab.create(2, List.of("10mbit", "100mbit", "10mbit", "100mbit"));
             LabJob job = LabJob.start(lab, 2, StreamRank.class, settings("bss:4,2"), JOB, "--bytes", "48m", "--message", "1m")) {
            JobResult r = job.end(JOB.plusSeconds(30));
            assertThat(r.exitCode()).as(job.tail(60)).isZero();
            Map<Integer, Long> total = LabJob.railBytes(job.out(1, "PROGRESS").getLast());
            long all = total.values().stream().mapToLong(Long::longValue).sum();
            assertThat(total.get(0) + total.get(2)).as("bytes on the slow paths 0 and 2 of %s", total).isLessThan(all / 10);
        }
    }

    @Test
    void aRailCutMidStreamLosesNothingTheOtherCarriesOnAndTheRailReturns() throws Exception {
        try (NetLab lab = NetLab.create(2, List.of("100mbit", "100mbit"));
             LabJob job = LabJob.start(lab, 2, StreamRank.class, settings("adaptive"), JOB, "--bytes", "96m", "--message", "2m")) {
            long total = 96L << 20;
            String at = awaitProgress(job, total / 4);
            lab.cut(1);
            // the receiver finds rail 1 silent and drops it
            int mark = job.size();
            String down = job.awaitAfter(mark, l -> rank1Progress(l) && "DOWN".equals(LabJob.railStates(l.text()).get(1)), BOUND)
                    .orElseGet(() -> fail("rank 1 never declared rail 1 down\n" + job.tail(60))).text();
            // the survivor carries on: rail 0 grows by 16 MiB while rail 1 stays where it was
            long r0 = LabJob.railBytes(down).get(0);
            long r1Stuck = LabJob.railBytes(down).get(1);
            String later = job.awaitAfter(mark, l -> rank1Progress(l) && LabJob.railBytes(l.text()).get(0) > r0 + (16L << 20), BOUND)
                    .orElseGet(() -> fail("the stream stalled after rail 1 was cut\n" + job.tail(60))).text();
            assertThat(LabJob.railBytes(later).get(1)).as("nothing arrives on the cut rail").isEqualTo(r1Stuck);
            assertThat(LabJob.bytes(later)).isGreaterThan(LabJob.bytes(at));
            lab.restore(1);
            mark = job.size();
            Optional<LabJob.Line> back = job.awaitAfter(mark, l -> rank1Progress(l)
                    && LabJob.railBytes(l.text()).get(1) > r1Stuck + (1L << 20), BOUND);
            assertThat(back).as("rail 1 carries traffic again after it was restored\n%s", job.tail(60)).isPresent();
            JobResult r = job.end(JOB);
            assertThat(r.exitCode()).as(job.tail(60)).isZero();
            assertThat(job.out(1, "RESULT").getFirst()).as("every byte arrived intact").endsWith(" ok");
            assertThat(job.out(0, "EVENT 0 1 ")).as("the sender saw rail 1 go down and come back")
                    .anyMatch(l -> l.contains(" DOWN ")).anyMatch(l -> l.contains(" UP"));
        }
    }

    @Test
    void bothRailsCutWithinThePartitionBoundTheStreamCompletesIntact() throws Exception {
        try (NetLab lab = NetLab.create(2, List.of("100mbit", "100mbit"));
             LabJob job = LabJob.start(lab, 2, StreamRank.class, settings("adaptive"), JOB, "--bytes", "64m", "--message", "2m")) {
            awaitProgress(job, 16L << 20);
            lab.cut(0);
            lab.cut(1);
            int mark = job.size();
            String partitioned = job.awaitAfter(mark, l -> rank1Progress(l)
                    && LabJob.railStates(l.text()).values().stream().allMatch("DOWN"::equals), BOUND)
                    .orElseGet(() -> fail("rank 1 never saw both rails down\n" + job.tail(60))).text();
            assertThat(job.hold(Duration.ofSeconds(3))).as("the partition lasts 3 s without failing the job\n%s", job.tail(40)).isTrue();
            String during = job.out(1, "PROGRESS").getLast();
            assertThat(LabJob.bytes(during)).as("nothing moved during the partition").isEqualTo(LabJob.bytes(partitioned));
            lab.restore(0);
            lab.restore(1);
            JobResult r = job.end(JOB);
            assertThat(r.exitCode()).as(job.tail(60)).isZero();
            assertThat(job.out(1, "RESULT").getFirst()).endsWith(" ok");
            assertThat(job.out(0, "EVENT 0 ")).as("the sender lost both rails").anyMatch(l -> l.startsWith("EVENT 0 0 ") && l.contains(" DOWN "))
                    .anyMatch(l -> l.startsWith("EVENT 0 1 ") && l.contains(" DOWN "));
        }
    }

    @Test
    void bothRailsCutBeyondTheBoundFailWithAnErrorNamingThePeerAndTheBound() throws Exception {
        try (NetLab lab = NetLab.create(2, List.of("100mbit", "100mbit"));
             LabJob job = LabJob.start(lab, 2, StreamRank.class, settings("adaptive", "RAILYARD_PARTITION_TIMEOUT", "3s"), JOB,
                     "--bytes", "256m", "--message", "2m")) {
            awaitProgress(job, 8L << 20);
            lab.cut(0);
            lab.cut(1);
            Optional<LabJob.Line> error = job.await(l -> l.err() && l.text().contains("no rail to rank"), BOUND);
            assertThat(error).as("a rank reports the partition\n%s", job.tail(60)).isPresent();
            assertThat(error.get().text()).contains("no rail to rank " + (1 - error.get().rank())).contains("3000 ms")
                    .contains("railyard.partition.timeout");
            JobResult r = job.end(JOB);
            assertThat(r.exitCode()).as("the job fails").isNotZero();
        }
    }

    /** Waits until rank 1 reports at least {@code bytes} received; returns that PROGRESS line. */
    private static String awaitProgress(LabJob job, long bytes) throws InterruptedException {
        return job.await(l -> l.rank() == 1 && l.text().startsWith("PROGRESS ") && LabJob.bytes(l.text()) >= bytes, BOUND)
                .orElseGet(() -> fail("rank 1 did not report " + bytes + " bytes within " + BOUND.toSeconds() + " s\n" + job.tail(60)))
                .text();
    }

    private static boolean rank1Progress(LabJob.Line l) {
        return l.rank() == 1 && !l.err() && l.text().startsWith("PROGRESS ");
    }
}
