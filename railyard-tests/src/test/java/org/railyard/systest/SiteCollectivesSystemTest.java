package org.railyard.systest;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.railyard.systest.ranks.SiteCollRanks;

/**
 * Site-aware collectives in real processes: each rank of a local job takes its site from a list
 * (uneven sites whose ranks are interleaved, at 2 and at 3 sites) and runs every collective on
 * random data, from every root, on the world, on a reordered split, on a communicator of one site
 * and across an intercommunicator ({@link SiteCollRanks}); each result is checked against a
 * sequential computation. The same job with {@code railyard.coll.sites} off (the flat
 * algorithms) must print the same digest of every result, and only the first may say it chose the
 * site-aware algorithms (at 2 sites; at 3 sites the flat run is a {@link FullMatrix} row).
 */
@Timeout(value = 10, unit = TimeUnit.MINUTES)
class SiteCollectivesSystemTest {
    private static final Duration BOUND = Duration.ofMinutes(4);
    /**
     * A rank that waits this long prints what it waits for (railyard.stall.report): before the
     * ranks' own 60 s bound on a non-blocking collective fails the job, which the launcher's
     * default (three fifths of the job's bound) would come after. A stuck exchange then names its
     * pending sends and receives, and each channel's packet counts, in the transcript.
     */
    private static final String STALL_REPORT = "20s";

    @ParameterizedTest(name = "sites {0}")
    @CsvSource({"'a,b,b,a,b', 11", "'a,b,c,a,b,b', 12"})
    void everyCollectiveSiteAwareEqualsFlat(String sites, long seed) {
        int np = sites.split(",").length;
        Jobs.Finished aware = Jobs.run("site-collectives-aware-" + np, Jobs.spec(np, SiteCollRanks.class,
                Map.of("RAILYARD_PRINT_CHOICES", "true", "RAILYARD_STALL_REPORT", STALL_REPORT), BOUND, sites,
                Long.toString(seed)));
        aware.requireSuccessSaying("site-aware", ": site-aware");
        // the ranks' nodes are named apart, but they run on this machine: their connections go over
        // the loopback, not through an interface address that may be another test's network lab and
        // vanish mid-job, stopping the connections through it without an error (issue 20)
        assertThat(aware.transcript().find(l -> l.text().matches(".*: rail \\d+ up: transport tcp.*")))
                .as("a tcp rail").isPresent();
        assertThat(aware.transcript().find(l -> l.text().matches(".*: rail \\d+ up: transport tcp.*")
                && !l.text().contains("127.0.0.1"))).as("a tcp rail off the loopback").isEmpty();
        List<String> awareDigests = digests(aware);
        assertThat(awareDigests).as("digests of the site-aware run").hasSizeGreaterThan(np * 50);
        for (String what : List.of("world gatherv", "reversed alltoallv", "half allgatherv", "world reduce n=3000",
                "inter allreduce", "world igatherv", "reversed iscatterv", "world ialltoallv")) {
            assertThat(awareDigests).as("results of " + what).anyMatch(d -> d.startsWith("DIGEST " + what));
        }
        // every kind of collective that has a site-aware form chose it somewhere
        for (String coll : List.of("barrier", "bcast", "reduce", "allreduce", "gather", "gatherv", "scatter", "scatterv",
                "allgather", "allgatherv", "alltoall", "alltoallv")) {
            assertThat(aware.transcript().find(l -> l.text().matches(".*: " + coll + " .*: site-aware.*")))
                    .as(coll + " chose site-aware").isPresent();
        }
        if (!FullMatrix.on() && np > 5) {
            // each result was already checked against a sequential computation inside the job; the flat run of the
            // 2-site row shows the flat algorithms agree, the 3-site row's flat run is a heavy row
            return;
        }
        Jobs.Finished flat = Jobs.run("site-collectives-flat-" + np, Jobs.spec(np, SiteCollRanks.class,
                Map.of("RAILYARD_PRINT_CHOICES", "true", "RAILYARD_COLL_SITES", "off", "RAILYARD_STALL_REPORT",
                        STALL_REPORT), BOUND, sites, Long.toString(seed)));
        flat.requireSuccessSaying("flat", "OK site-collectives rank 0");
        assertThat(flat.transcript().find(l -> l.text().contains(": site-aware"))).as("a flat run chose site-aware")
                .isEmpty();
        assertThat(awareDigests).as("every result of the site-aware run, against the flat run's")
                .containsExactlyInAnyOrderElementsOf(digests(flat));
    }

    private static List<String> digests(Jobs.Finished job) {
        return job.transcript().lines().stream().map(Transcript.Line::text).filter(t -> t.startsWith("DIGEST ")).toList();
    }
}
