package org.railyard.relay;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.PrintWriter;
import java.io.StringWriter;
import org.junit.jupiter.api.Test;
import org.railyard.util.Config;
import picocli.CommandLine;

/** {@code railyard relay}'s options refused before anything starts, each naming the option and the text. */
class RelayCommandTest {
    private record Run(int code, String err) { }

    private static Run run(String... args) {
        StringWriter err = new StringWriter();
        CommandLine cl = new CommandLine(new RelayCommand());
        cl.setErr(new PrintWriter(err));
        cl.setOut(new PrintWriter(new StringWriter()));
        int code = cl.execute(args);
        return new Run(code, err.toString());
    }

    @Test
    void badSocketBuffersAreRefusedNamingTheOption() {
        Run negative = run("--port", "0", "--bind", "127.0.0.1", "--sockbuf", "-1");
        assertThat(negative.code()).isNotZero();
        assertThat(negative.err()).contains("--sockbuf").contains("-1");
        Run huge = run("--port", "0", "--bind", "127.0.0.1", "--sockbuf", "2g");
        assertThat(huge.code()).isNotZero();
        assertThat(huge.err()).contains("--sockbuf must be between 0").contains("2g");
        Run words = run("--port", "0", "--bind", "127.0.0.1", "--sockbuf", "lots");
        assertThat(words.code()).isNotZero();
        assertThat(words.err()).contains("--sockbuf").contains("lots");
    }

    @Test
    void aBadKeepaliveSettingIsAUsageErrorNamingIt() {
        System.setProperty(Config.TCP_KEEPALIVE_PROP, "3s");
        try {
            Run r = run("--port", "0", "--bind", "127.0.0.1");
            assertThat(r.code()).isEqualTo(2);
            assertThat(r.err()).contains("railyard.tcp.keepalive = 3s").doesNotContain("\tat ");
        } finally {
            System.clearProperty(Config.TCP_KEEPALIVE_PROP);
        }
    }
}
