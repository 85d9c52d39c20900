package org.railyard.systest;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.railyard.systest.ranks.SemanticsRanks;

/**
 * The launcher's relay flags, through the real command line ({@link org.railyard.launcher.RunCommand}): {@code --no-listen}
 * (ranks open no listening socket, the launcher starts a relay for the job and every pair goes
 * through it), {@code --relays N} (N relays, the ranks spread over them as owners), and a
 * {@code --relay} that is no HOST:PORT refused with a message naming it.
 */
@Timeout(value = 6, unit = TimeUnit.MINUTES)
class RelayLauncherSystemTest {
    private static final Pattern CHOICE = Pattern.compile("\\[(\\d+)] railyard: rank (\\d+) -> rank (\\d+): rail 0 up: transport (\\w+)");
    private static final int NP = 3;

    private record Run(int code, String stdout, String stderr, String report) { }

    private static Run run(String... options) {
        List<String> argv = new ArrayList<>(List.of("-np", Integer.toString(NP), "--timeout", "180s", "--print-choices"));
        argv.addAll(List.of(options));
        for (String j : Jobs.RANK_JVM) {
            argv.add("--jvm-arg=" + j);
        }
        argv.addAll(List.of(SemanticsRanks.class.getName(), "allpairs"));
        Jobs.CommandRun c = Jobs.command(argv);
        return new Run(c.code(), c.stdout(), c.stderr(), c.report());
    }

    /** Every peer link the ranks printed is a relay link, and every rank printed its OK. */
    private static void requireAllThroughRelays(Run r) {
        assertThat(r.code()).as("exit code of %s", r.report()).isZero();
        for (int k = 0; k < NP; k++) {
            assertThat(r.stdout()).as(r.report()).contains("[" + k + "] OK allpairs rank " + k);
        }
        int links = 0;
        for (String line : r.stderr().split("\n")) {
            Matcher m = CHOICE.matcher(line);
            if (m.find() && !m.group(2).equals(m.group(3))) {
                assertThat(m.group(4)).as(line).isEqualTo("relay");
                links++;
            }
        }
        assertThat(links).as("links printed, each rank to each other\n" + r.report()).isEqualTo(NP * (NP - 1));
    }

    @Test
    void noListenStartsARelayForTheJobAndEveryPairGoesThroughIt() {
        Run r = run("--no-listen");
        requireAllThroughRelays(r);
        assertThat(r.stderr()).as(r.report()).contains("railyard: 1 relay for this job at 127.0.0.1:");
        for (int k = 0; k < NP; k++) {
            assertThat(r.stderr()).as(r.report()).containsPattern("relay 0: job \\S+ rank " + k + " .*receiving here");
        }
    }

    @Test
    void relaysNSpreadsTheRanksOverNRelays() {
        Run r = run("--relays", "2", "--transports", "self,relay");
        requireAllThroughRelays(r);
        // owner of rank k is relay k mod 2
        for (int k = 0; k < NP; k++) {
            assertThat(r.stderr()).as(r.report()).containsPattern("relay " + (k % 2) + ": job \\S+ rank " + k
                    + " .*receiving here");
        }
    }

    @Test
    void aRelayThatIsNoHostPortIsRefusedNamingIt() {
        Run r = run("--relay", "relayhost");
        assertThat(r.code()).as(r.report()).isEqualTo(2);
        assertThat(r.stderr()).as(r.report()).contains("--relay").contains("relayhost").contains("HOST:PORT");
    }
}
