package org.railyard.daemon;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.InetSocketAddress;
import java.util.concurrent.Callable;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/** The mixin in a command of its own: its default port, the address it makes, and its usage errors. */
class DaemonOptionsTest {
    /** A daemon command reduced to the mixin and one option that takes a HOST:PORT. */
    @Command(name = "probe", sortOptions = false)
    static final class Probe implements Callable<Integer> {
        @Option(names = "--first", description = "An option of the command before the mixin's.")
        private String first;

        @Mixin
        private DaemonOptions daemon = new DaemonOptions(7999);

        @Option(names = "--to", paramLabel = "HOST:PORT")
        private String to;

        InetSocketAddress listen;
        InetSocketAddress target;

        @Override
        public Integer call() {
            listen = daemon.listenAddress();
            target = to == null ? null : daemon.hostPort("--to", to);
            return 0;
        }
    }

    private record Run(int code, String out, String err, Probe probe) { }

    private static Run run(String... args) {
        Probe probe = new Probe();
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        CommandLine cl = new CommandLine(probe);
        cl.setOut(new PrintWriter(out));
        cl.setErr(new PrintWriter(err));
        int code = cl.execute(args);
        return new Run(code, out.toString(), err.toString(), probe);
    }

    @Test
    void theCommandsDefaultPortAndTheWildcardAddressApplyUnlessGiven() {
        Run defaults = run();
        assertThat(defaults.code()).isZero();
        assertThat(defaults.probe().listen.getPort()).isEqualTo(7999);
        assertThat(defaults.probe().listen.getAddress().isAnyLocalAddress()).isTrue();
        Run given = run("--port", "0", "--bind", "127.0.0.1", "--to", "peer:7");
        assertThat(given.code()).isZero();
        assertThat(given.probe().listen).isEqualTo(new InetSocketAddress("127.0.0.1", 0));
        assertThat(given.probe().target.getHostString()).isEqualTo("peer");
        assertThat(given.probe().target.getPort()).isEqualTo(7);
    }

    @Test
    void theHelpShowsTheOptionsWhereTheMixinStandsWithTheCommandsDefault() {
        String help = new CommandLine(new Probe()).getUsageMessage(CommandLine.Help.Ansi.OFF);
        assertThat(help.replaceAll("\\s+", " ")).contains("Default: 7999.").contains("Default: 0.0.0.0 (every interface).");
        assertThat(help.lastIndexOf("--first")).isLessThan(help.lastIndexOf("--port=PORT"));
        assertThat(help.lastIndexOf("--port=PORT")).isLessThan(help.lastIndexOf("--bind=ADDR"));
        assertThat(help.lastIndexOf("--bind=ADDR")).isLessThan(help.lastIndexOf("--to=HOST:PORT"));
    }

    @Test
    void badValuesAreUsageErrorsNamingTheOptionAndTheValue() {
        Run port = run("--port", "65536");
        assertThat(port.code()).isEqualTo(2);
        assertThat(port.err().lines().findFirst().orElseThrow()).isEqualTo("--port must be between 0 and 65535, not 65536");
        Run negative = run("--port", "-1");
        assertThat(negative.code()).isEqualTo(2);
        assertThat(negative.err()).startsWith("--port must be between 0 and 65535, not -1");
        for (String bad : new String[] {"nohostport", "host:", ":80", "host:0", "host:65536", "host:http"}) {
            Run to = run("--port", "0", "--to", bad);
            assertThat(to.code()).as(bad).isEqualTo(2);
            assertThat(to.err().lines().findFirst().orElseThrow()).as(bad).isEqualTo("--to wants HOST:PORT, not '" + bad + "'");
        }
    }

    @Test
    void aDefaultPortOutOfRangeIsAProgrammingError() {
        assertThatThrownBy(() -> new DaemonOptions(70000))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("70000");
    }
}
