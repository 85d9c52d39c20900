package org.railyard.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The command tree as bin/railyard runs it; no job is started here (see the launcher's tests). */
class MainTest {
    record Output(int exitCode, String out, String err) {
    }

    private static Output railyard(String... args) {
        return execute(false, args);
    }

    /** What main builds for these arguments: for {@code run}, the run command alone. */
    private static Output asMainRuns(String... args) {
        return execute(true, args);
    }

    private static Output execute(boolean asMain, String... args) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int code;
        try (PrintStream o = new PrintStream(out, true, StandardCharsets.UTF_8);
             PrintStream e = new PrintStream(err, true, StandardCharsets.UTF_8)) {
            code = (asMain ? Main.commandLineFor(args, o, e) : Main.commandLine(o, e)).execute(args);
        }
        return new Output(code, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
    }

    @Test
    void runThroughTheRunOnlyTreeSaysWhatTheWholeTreeSays() {
        for (String[] args : new String[][] {{"run", "--help"}, {"run", "-np", "0", "Main"}, {"run", "--no-such-option"},
                {"run"}}) {
            assertThat(asMainRuns(args)).as(String.join(" ", args)).isEqualTo(railyard(args));
        }
        assertThat(Main.commandLineFor(new String[] {"run"}, System.out, System.err).getSubcommands().keySet())
                .containsExactly("run");
        assertThat(Main.commandLineFor(new String[] {"relay"}, System.out, System.err).getSubcommands().keySet())
                .contains("run", "bench", "relay", "gateway");
    }

    @Test
    void versionNamesTheBuildAndTheJava() {
        Output o = railyard("--version");
        assertThat(o.exitCode()).isZero();
        assertThat(o.out()).startsWith("railyard ").contains("Java " + Runtime.version().feature());
        assertThat(o.out().lines().findFirst().orElseThrow()).doesNotContain("${").doesNotContain("unknown");
    }

    @Test
    void helpListsTheCommands() {
        Output o = railyard("--help");
        assertThat(o.exitCode()).isZero();
        assertThat(o.out()).contains("Usage: railyard").contains("run").contains("bench").contains("relay");
    }

    @Test
    void relayErrorsNameTheOptionAndItsValue() {
        Output fsync = railyard("relay", "--port", "0", "--fsync", "sometimes");
        assertThat(fsync.exitCode()).isEqualTo(2);
        assertThat(fsync.err().lines().findFirst().orElseThrow())
                .isEqualTo("railyard relay: --fsync must be never, batch or always, not 'sometimes'");
        Output max = railyard("relay", "--port", "0", "--max-bytes", "lots");
        assertThat(max.exitCode()).isEqualTo(2);
        assertThat(max.err()).startsWith("railyard relay: ").contains("--max-bytes = 'lots' is not a non-negative size").doesNotContain("env");
        Output stats = railyard("relay", "--stats", "nohostport");
        assertThat(stats.exitCode()).isEqualTo(2);
        assertThat(stats.err()).startsWith("railyard relay: --stats wants HOST:PORT, not 'nohostport'");
    }

    /**
     * The relay and the gateway take their listening and address options from one mixin: the same
     * bad value is refused by both, before anything starts, with the same message behind each
     * command's name (the gateway is given its site, which it checks first).
     */
    @Test
    void bothDaemonsRefuseTheSameBadValueWithTheSameMessage() {
        String[][] cases = {
                {"--port must be between 0 and 65535, not 70000", "--port", "70000"},
                {"--port must be between 0 and 65535, not -1", "--port", "-1"},
                {"Invalid value for option '--port': 'many' is not an int", "--port", "many"},
                {"--stats wants HOST:PORT, not 'nohostport'", "--stats", "nohostport"},
                {"--stats wants HOST:PORT, not 'host:0'", "--stats", "host:0"},
                {"Missing required parameter for option '--bind' (ADDR)", "--port", "0", "--bind"},
        };
        for (String[] c : cases) {
            List<String> options = List.of(c).subList(1, c.length);
            for (List<String> daemon : List.of(List.of("relay"), List.of("gateway", "--site", "east"))) {
                List<String> args = new ArrayList<>(daemon);
                args.addAll(options);
                Output o = railyard(args.toArray(String[]::new));
                assertThat(o.exitCode()).as(String.join(" ", args)).isEqualTo(2);
                assertThat(o.err().lines().findFirst().orElseThrow()).as(String.join(" ", args))
                        .isEqualTo("railyard " + daemon.get(0) + ": " + c[0]);
            }
        }
    }

    @Test
    void relayHelpShowsItsOptions() {
        Output o = railyard("relay", "--help");
        assertThat(o.exitCode()).isZero();
        assertThat(o.out()).contains("Usage: railyard relay").contains("--port=PORT").contains("--bind=ADDR")
                .contains("--log=DIR").contains("--fsync=POLICY").contains("--max-bytes=SIZE").contains("--stats=HOST:PORT");
    }

    @Test
    void noCommandIsAUsageError() {
        Output o = railyard();
        assertThat(o.exitCode()).isEqualTo(2);
        assertThat(o.err()).contains("Usage: railyard");
    }

    @Test
    void runErrorsNameTheFullCommand() {
        Output o = railyard("run", "-np", "0", "Main");
        assertThat(o.exitCode()).isEqualTo(2);
        assertThat(o.err().lines()).containsExactly("railyard run: -np must be at least 1, got 0",
                "Try 'railyard run --help' for more information.");
    }

    @Test
    void runHelpShowsItsOptions() {
        Output o = railyard("run", "--help");
        assertThat(o.exitCode()).isZero();
        assertThat(o.out()).contains("Usage: railyard run").contains("-np=N").contains("--hosts=FILE").contains("--rsh=CMD")
                .contains("--timeout=D").contains("--print-choices").contains("MAIN");
    }

    @Test
    void benchIsThere() {
        Output o = railyard("bench", "--help");
        assertThat(o.exitCode()).isZero();
        assertThat(o.out()).contains("Usage: railyard bench");
    }

    @Test
    void unknownCommandIsAUsageError() {
        Output o = railyard("xyzzy");
        assertThat(o.exitCode()).isEqualTo(2);
        assertThat(o.err().lines()).containsExactly("railyard: Unmatched argument at index 0: 'xyzzy'",
                "Try 'railyard --help' for more information.");
    }
}
