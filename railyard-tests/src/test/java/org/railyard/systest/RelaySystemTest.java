package org.railyard.systest;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.fail;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.railyard.systest.ranks.RelayMixRanks;
import org.railyard.systest.ranks.SemanticsRanks;

/**
 * The relay transport with a real {@code railyard relay} process: the semantics checks (ordering,
 * ANY_SOURCE matching, truncation, sizes up to rendezvous, synchronous sends, collectives) of
 * {@link SemanticsRanks} pass when every pair goes through the relay, and in a job where only the
 * pairs with a rank that listens for nothing go through it while the others stay direct.
 */
@Timeout(value = 10, unit = TimeUnit.MINUTES)
class RelaySystemTest {
    private static final Duration JOB_TIMEOUT = Duration.ofSeconds(240);

    private static void requireAllChecks(Jobs.Finished job, int np, List<String> checks, String what) {
        if (job.result().exitCode() != 0) {
            fail(what + ": the job failed\n" + job.report());
        }
        for (String c : checks) {
            for (int r = 0; r < np; r++) {
                if (!job.transcript().texts(r, Transcript.Stream.OUT).contains("OK " + c + " rank " + r)) {
                    fail(what + ": rank " + r + " did not pass '" + c + "'\n" + job.report());
                }
            }
        }
    }

    private static long choicesSaying(Jobs.Finished job, String part) {
        return job.transcript().lines().stream().filter(l -> l.text().contains(part)).count();
    }

    @Test
    void everyCheckPassesWhenEveryPairGoesThroughTheRelay() throws Exception {
        try (RelayProcess relay = RelayProcess.start("127.0.0.1", 0)) {
            int np = 4;
            List<String> checks = new java.util.ArrayList<>(SemanticsRanks.CHECKS);
            checks.addAll(SemanticsRanks.COLLECTIVE_CHECKS);
            Jobs.Finished job = Jobs.run("relay-only-np4", Jobs.spec(np, SemanticsRanks.class,
                    Map.of("RAILYARD_TRANSPORTS", "relay", "RAILYARD_RELAYS", relay.address(), "RAILYARD_PRINT_CHOICES", "true"),
                    JOB_TIMEOUT, checks.toArray(String[]::new)));
            requireAllChecks(job, np, checks, "railyard.transports=relay");
            assertThat(choicesSaying(job, "up: transport relay (relay: to rank")).as("--print-choices names the relay links\n"
                    + job.report()).isPositive();
            assertThat(choicesSaying(job, "up: transport tcp")).as("no direct tcp link\n" + job.report()).isZero();
            // SIGUSR2 makes the relay print its counters: every message of the job was stored and acknowledged
            Process kill = new ProcessBuilder("kill", "-USR2", Long.toString(relay.process().pid())).inheritIO().start();
            assertThat(kill.waitFor()).isZero();
            long stored = Long.parseLong(relay.awaitLine("stored ", Duration.ofSeconds(20)).split(" ")[1]);
            assertThat(stored).as("messages the relay stored").isPositive();
            for (int r = 0; r < np; r++) {
                String receiving = " rank " + r + " ";
                assertThat(relay.lines()).as("the relay saw rank %d connect to receive", r)
                        .anyMatch(l -> l.contains(receiving) && l.contains("receiving here"));
            }
        }
    }

    @Test
    void aJobMixingDirectAndRelayedPeersKeepsOrderAndMatching() throws Exception {
        try (RelayProcess relay = RelayProcess.start("127.0.0.1", 0)) {
            int np = 4;
            Jobs.Finished job = Jobs.run("relay-mixed-np4", Jobs.spec(np, RelayMixRanks.class,
                    Map.of("RAILYARD_TRANSPORTS", "self,tcp,relay", "RAILYARD_RELAYS", relay.address(),
                            "RELAY_SILENT", "0,3", "RAILYARD_PRINT_CHOICES", "true"),
                    JOB_TIMEOUT, withMain(SemanticsRanks.class, SemanticsRanks.CHECKS)));
            requireAllChecks(job, np, SemanticsRanks.CHECKS, "ranks 0 and 3 listening for nothing");
            // every link printed: pairs with rank 0 or 3 through the relay, the pair 1-2 direct
            java.util.regex.Pattern up = java.util.regex.Pattern.compile("rank (\\d) -> rank (\\d): rail 0 up: transport (\\w+)");
            int relayed = 0;
            int direct = 0;
            for (Transcript.Line l : job.transcript().lines()) {
                java.util.regex.Matcher m = up.matcher(l.text());
                if (!m.find() || m.group(1).equals(m.group(2))) {
                    continue;
                }
                boolean silent = List.of("0", "3").contains(m.group(1)) || List.of("0", "3").contains(m.group(2));
                assertThat(m.group(3)).as(l.text()).isEqualTo(silent ? "relay" : "tcp");
                relayed += silent ? 1 : 0;
                direct += silent ? 0 : 1;
            }
            assertThat(relayed).as("links through the relay\n" + job.report()).isPositive();
            assertThat(direct).as("direct links between ranks 1 and 2\n" + job.report()).isPositive();
        }
    }

    @Test
    void aJobGoesOnWhileItsRelayIsKilledAndStartedAgainTwice(@org.junit.jupiter.api.io.TempDir java.nio.file.Path log)
            throws Exception {
        int np = 3;
        int rounds = 900;
        Transcript t = new Transcript();
        RelayProcess relay = RelayProcess.start("127.0.0.1", 0, "--log", log.toString(), "--fsync", "batch");
        int port = relay.port();
        try {
            java.util.concurrent.CompletableFuture<org.railyard.launcher.JobResult> result = Jobs.start(Jobs.spec(np,
                    org.railyard.systest.ranks.RelayRestartRanks.class, Map.of("RAILYARD_TRANSPORTS", "relay",
                            "RAILYARD_RELAYS", relay.address()), JOB_TIMEOUT, String.valueOf(rounds)), t);
            for (int kill : new int[] {150, 500}) {
                String at = "ROUND " + kill;
                t.await(l -> l.text().equals(at), Duration.ofSeconds(120))
                        .orElseThrow(() -> new AssertionError("rank 0 never said '" + at + "'\n" + t.tail(60)));
                relay.process().destroyForcibly(); // SIGKILL
                relay.process().waitFor(10, TimeUnit.SECONDS);
                relay = RelayProcess.start("127.0.0.1", port, "--log", log.toString(), "--fsync", "batch");
            }
            org.railyard.launcher.JobResult r = result.get(JOB_TIMEOUT.toSeconds() + 30, TimeUnit.SECONDS);
            t.save("relay-restart-np3");
            Jobs.Finished job = new Jobs.Finished(r, t);
            requireAllChecks(job, np, List.of("relay-restart"), "relay killed and restarted twice");
            assertThat(relay.lines()).as("the restarted relay recovered its log").anyMatch(l -> l.contains("relay log "));
        } finally {
            relay.close();
        }
    }

    private static String[] withMain(Class<?> main, List<String> args) {
        List<String> out = new java.util.ArrayList<>(List.of(main.getName()));
        out.addAll(args);
        return out.toArray(String[]::new);
    }
}
