package org.railyard.systest;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.railyard.systest.ranks.AnySourceRestartRanks;
import org.railyard.systest.ranks.CheckpointGcRanks;
import org.railyard.systest.ranks.SplitCheckpointRanks;

/**
 * A rank SIGKILLed in the middle of a job and started again by the launcher ({@code railyard run
 * --relays 1 --restart 1}) through the real command line: the job ends as it would have without
 * the failure. The obstacle demo (rank 2 kills itself after 30 iterations) converges to the
 * sequential answer, bit for bit, in the same iterations as an unfailed run, and so it does when
 * the rank goes on from its last checkpoint ({@code --checkpoint-every 40}, killed after 100); a program whose rank
 * 0 takes every message with ANY_SOURCE receives and is killed half way hands rank 1 one
 * consistent match order (the one its first run began, continued by the run started again), also
 * when it goes on from a checkpoint taken in the middle. And
 * --restart without relays is refused, naming what is missing.
 */
@Timeout(value = 8, unit = TimeUnit.MINUTES)
class RankRestartSystemTest {
    private static final String DEMO = "org.railyard.apps.obstacle.ObstacleDemo";
    private static final Pattern RESULT = Pattern.compile("RESULT obstacle .* iterations=(\\d+) converged=(\\w+) residual=(\\S+)");
    private static final Pattern FINAL = Pattern.compile("\\[(\\d)] FINAL ([0-9a-f]+)");

    private static Jobs.CommandRun run(List<String> options, String main, String... args) {
        List<String> argv = new ArrayList<>(List.of("--timeout", "300s"));
        argv.addAll(options);
        for (String j : Jobs.RANK_JVM) {
            argv.add("--jvm-arg=" + j);
        }
        argv.add(main);
        argv.addAll(List.of(args));
        return Jobs.command(argv);
    }

    private static Matcher result(Jobs.CommandRun r) {
        Matcher m = RESULT.matcher(r.stdout());
        assertThat(m.find()).as("a RESULT line in\n%s", r.report()).isTrue();
        return m;
    }

    /** The FINAL hashes ranks 0 and 1 printed. */
    private static String[] finals(Jobs.CommandRun r) {
        String[] finals = new String[2];
        Matcher m = FINAL.matcher(r.stdout());
        while (m.find()) {
            finals[Integer.parseInt(m.group(1))] = m.group(2);
        }
        return finals;
    }

    @Test
    void obstacleDemoWithARankKilledAndStartedAgainGivesTheUnfailedAnswer() {
        List<String> job = List.of("-np", "4", "--relays", "1", "--restart", "1");
        String[] demo = {"--n", "20", "--check-every", "5", "--quiet"};
        Jobs.CommandRun clean = run(job, DEMO, demo);
        assertThat(clean.code()).as(clean.report()).isZero();
        assertThat(clean.stdout()).as(clean.report()).contains("OK: parallel solution agrees with sequential");
        Matcher expected = result(clean);

        String[] killing = {"--n", "20", "--check-every", "5", "--quiet", "--kill", "2:30"};
        Jobs.CommandRun failed = run(job, DEMO, killing);
        assertThat(failed.code()).as(failed.report()).isZero();
        assertThat(failed.stderr()).as(failed.report())
                .contains("ObstacleDemo: rank 2 kills itself (SIGKILL")
                .containsPattern("railyard: rank 2 .*was killed by signal 9 \\(SIGKILL\\); starting it again \\(restart 1 of 1\\)");
        assertSameAnswer(failed, expected);

        // with checkpoints every 40 iterations, rank 2 goes on from the one after 80, not from the start
        Jobs.CommandRun resumed = run(job, DEMO, "--n", "20", "--check-every", "5", "--quiet", "--checkpoint-every", "40",
                "--kill", "2:100");
        assertThat(resumed.code()).as(resumed.report()).isZero();
        assertThat(resumed.stderr()).as(resumed.report())
                .contains("ObstacleDemo: rank 2 kills itself (SIGKILL")
                .contains("ObstacleDemo: rank 2 (run 2) resumes from its checkpoint after 80 iterations");
        assertSameAnswer(resumed, expected);
    }

    /** The run agrees with the sequential solve, in the same iterations and the same residual, bit for bit, as {@code expected}. */
    private static void assertSameAnswer(Jobs.CommandRun failed, Matcher expected) {
        assertThat(failed.stdout()).as(failed.report()).contains("OK: parallel solution agrees with sequential");
        Matcher got = result(failed);
        assertThat(got.group(1)).as("iterations\n%s", failed.report()).isEqualTo(expected.group(1));
        assertThat(got.group(2)).as("converged\n%s", failed.report()).isEqualTo("true");
        assertThat(got.group(3)).as("residual, bit for bit\n%s", failed.report()).isEqualTo(expected.group(3));
    }

    @Test
    void anySourceMatchesAreReplayedAsFirstMadeAfterARestart() {
        Jobs.CommandRun r = run(List.of("-np", "4", "--relays", "1", "--restart", "1"), AnySourceRestartRanks.class.getName(),
                "400", "600");
        assertThat(r.code()).as(r.report()).isZero();
        assertThat(r.stdout()).as(r.report()).contains("rank 0 kills itself after 600 matches")
                .contains("[1] OK anysource chain of 1200");
        assertThat(r.stderr()).as(r.report()).containsPattern("railyard: rank 0 .*starting it again \\(restart 1 of 1\\)");
        String[] finals = finals(r);
        assertThat(finals[0]).as("rank 0's final hash\n%s", r.report()).isNotNull();
        assertThat(finals[1]).as("the hash rank 1 checked, against rank 0's after its restart\n%s", r.report())
                .isEqualTo(finals[0]);
    }

    @Test
    void anySourceMatchesAfterACheckpointAreReplayedAsFirstMade() {
        Jobs.CommandRun r = run(List.of("-np", "4", "--relays", "1", "--restart", "1"), AnySourceRestartRanks.class.getName(),
                "400", "900", "500");
        assertThat(r.code()).as(r.report()).isZero();
        assertThat(r.stdout()).as(r.report()).contains("rank 0 kills itself after 900 matches")
                .contains("rank 0 resumes after 500 matches")
                .contains("[1] OK anysource chain of 1200");
        String[] finals = finals(r);
        assertThat(finals[0]).as("rank 0's final hash\n%s", r.report()).isNotNull();
        assertThat(finals[1]).as("the hash rank 1 checked\n%s", r.report()).isEqualTo(finals[0]);
    }

    @Test
    void theRelayFreesWhatACheckpointCoversAndARestartAfterItStillComputesRight() {
        Jobs.CommandRun r = run(List.of("-np", "2", "--relays", "1", "--restart", "1"), CheckpointGcRanks.class.getName(), "200");
        assertThat(r.code()).as(r.report()).isZero();
        assertThat(r.stdout()).as(r.report())
                .contains("[1] refused: checkpoint of rank 1 refused: it must be taken where nothing is pending, and"
                        + " 1 send(s) or receive(s) in flight")
                .contains("rank 0 kills itself after 300 messages")
                .contains("rank 0 resumes after 200 messages")
                .contains("[1] OK checkpoint gc");
        Matcher held = Pattern.compile("relay held (\\d+) before the checkpoint, (\\d+) after").matcher(r.stdout());
        assertThat(held.find()).as(r.report()).isTrue();
        assertThat(Long.parseLong(held.group(1))).as("200 messages of 4 KiB held in replay mode").isGreaterThanOrEqualTo(200L * 4096);
    }

    @Test
    void aLoggingRelayCompactsItsLogOnceACheckpointFreesWhatItHeld(@TempDir Path dir) throws Exception {
        // compaction starts at 512 KiB: the 200 messages of 4 KiB before the checkpoint fill about 830 KB
        try (RelayProcess relay = RelayProcess.start("127.0.0.1", 0, "--log", dir.toString(), "--fsync", "never",
                "--compact-min", "512k")) {
            Jobs.CommandRun r = run(List.of("-np", "2", "--relay", relay.address(), "--restart", "1"),
                    CheckpointGcRanks.class.getName(), "200");
            assertThat(r.code()).as(r.report()).isZero();
            assertThat(r.stdout()).as(r.report()).contains("rank 0 resumes after 200 messages").contains("[1] OK checkpoint gc");
            Matcher log = Pattern.compile("relay log (\\d+) bytes and (\\d+) compactions before the checkpoint, (\\d+) and (\\d+) after")
                    .matcher(r.stdout());
            assertThat(log.find()).as(r.report()).isTrue();
            long before = Long.parseLong(log.group(1));
            long after = Long.parseLong(log.group(3));
            assertThat(before).as("the log holds the 200 messages of 4 KiB before the checkpoint\n%s", r.report())
                    .isGreaterThanOrEqualTo(200L * 4096);
            assertThat(Long.parseLong(log.group(4))).as("compactions after the checkpoint\n%s", r.report())
                    .isGreaterThan(Long.parseLong(log.group(2)));
            assertThat(after).as("the log once the checkpoint's acknowledgements were compacted away\n%s", r.report())
                    .isLessThan(before / 4);
        }
    }

    @Test
    void aCheckpointIsTakenAfterADupAndRefusedAfterASplit() {
        Jobs.CommandRun r = run(List.of("-np", "2", "--relays", "1", "--restart", "1"), SplitCheckpointRanks.class.getName());
        assertThat(r.code()).as(r.report()).isZero();
        assertThat(r.stdout()).as(r.report())
                .contains("[0] checkpoint after dup taken").contains("[1] checkpoint after dup taken")
                .contains("[0] refused after split: checkpoint of rank 0 refused: it must be taken where nothing is"
                        + " pending, and 1 communicator(s) were made by a call other than dup of an intracommunicator")
                .contains("[1] refused after split: checkpoint of rank 1 refused")
                .contains("[0] split sum 3").contains("[1] split sum 3");
    }

    @Test
    void restartWithoutRelaysOrWithDirectTransportsIsRefused() {
        Jobs.CommandRun r = run(List.of("-np", "2", "--restart", "1"), AnySourceRestartRanks.class.getName(), "1", "1");
        assertThat(r.code()).as(r.report()).isNotZero();
        assertThat(r.stderr()).as(r.report()).contains("--restart needs relays: add --relays N");
        Jobs.CommandRun direct = run(List.of("-np", "2", "--relays", "1", "--restart", "1", "--transports", "shm,relay"),
                AnySourceRestartRanks.class.getName(), "1", "1");
        assertThat(direct.code()).as(direct.report()).isNotZero();
        assertThat(direct.stderr()).as(direct.report())
                .contains("--restart sends every pair through the relays: --transports must be self,relay (or left out), not 'shm,relay'");
    }
}
