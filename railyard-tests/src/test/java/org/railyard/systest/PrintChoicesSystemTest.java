package org.railyard.systest;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.railyard.launcher.RunCommand;
import org.railyard.systest.ranks.SemanticsRanks;

/**
 * {@code railyard run --print-choices} (which sets RAILYARD_PRINT_CHOICES for the ranks): in a job
 * of 3 ranks on this one node where every rank talks to every other, each rank prints the
 * transport it chose for each peer: shm by default, tcp with {@code --transports tcp}. Runs the
 * real command line ({@link RunCommand}), so the options are tested with the behaviour.
 */
@Timeout(value = 5, unit = TimeUnit.MINUTES)
class PrintChoicesSystemTest {
    /**
     * A choice of transport for a peer, "[a] railyard: rank a -> rank b: ... transport T ...": with
     * one rail "rank 0 -> rank 1: transport shm (...)", with rails "rank 0 -> rank 1: rail 0 up:
     * transport shm (...)", one line per rail.
     */
    private static final Pattern CHOICE = Pattern.compile("\\[(\\d+)] railyard: rank (\\d+) -> rank (\\d+): (?:.*\\s)?transport (\\w+)\\b.*");
    private static final int NP = 3;

    @ParameterizedTest(name = "transports {0}: {1} between ranks of one node")
    @CsvSource({"default, shm", "tcp, tcp", "'shm,tcp', shm"})
    void eachRankPrintsTheTransportItChoseForEachPeer(String transports, String expected) {
        if (transports.equals("default")) {
            Assumptions.assumeTrue(System.getenv("RAILYARD_TRANSPORTS") == null,
                    "RAILYARD_TRANSPORTS is set in this environment; the default cannot be tested");
        }
        List<String> argv = new ArrayList<>(List.of("-np", Integer.toString(NP), "--timeout", "120s", "--print-choices"));
        if (!transports.equals("default")) {
            argv.addAll(List.of("--transports", transports));
        }
        for (String j : Jobs.RANK_JVM) {
            argv.add("--jvm-arg=" + j);
        }
        argv.addAll(List.of(SemanticsRanks.class.getName(), "allpairs"));
        Jobs.CommandRun run = Jobs.command(argv);
        int code = run.code();
        String stdout = run.stdout();
        String stderr = run.stderr();
        String report = run.report();
        assertThat(code).as("exit code of %s", report).isZero();
        for (int r = 0; r < NP; r++) {
            assertThat(stdout).as("stdout").contains("[" + r + "] OK allpairs rank " + r);
        }

        Map<String, Set<String>> chosen = new HashMap<>();
        for (String line : stderr.split("\n")) {
            Matcher m = CHOICE.matcher(line);
            if (m.matches()) {
                assertThat(m.group(1)).as("a rank prints only its own choices: %s", line).isEqualTo(m.group(2));
                chosen.computeIfAbsent(m.group(2) + "->" + m.group(3), k -> new TreeSet<>()).add(m.group(4));
            }
        }
        for (int a = 0; a < NP; a++) {
            for (int b = 0; b < NP; b++) {
                if (a != b) {
                    assertThat(chosen.get(a + "->" + b)).as("transports printed by rank %d for rank %d\n%s", a, b, report)
                            .containsExactly(expected);
                }
            }
        }
        // every rank also prints the transports it started with and its eager limit
        for (int r = 0; r < NP; r++) {
            int rank = r;
            assertThat(stderr.lines()).as("engine choice line of rank %d\n%s", r, report)
                    .anyMatch(l -> l.startsWith("[" + rank + "] railyard: rank " + rank + ": bootstrap railyard-kv")
                            && l.contains("eager limit"));
        }
    }
}
