package org.railyard.gateway;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.PrintWriter;
import java.io.StringWriter;
import org.junit.jupiter.api.Test;
import org.railyard.util.Config;
import picocli.CommandLine;

/** {@code railyard gateway} refuses a bad setting before anything starts (no self-warm, no listening), naming it. */
class GatewayCommandTest {
    @Test
    void aBadKeepaliveSettingIsAUsageErrorNamingIt() {
        System.setProperty(Config.TCP_KEEPALIVE_PROP, "3s");
        try {
            StringWriter err = new StringWriter();
            StringWriter out = new StringWriter();
            CommandLine cl = new CommandLine(new GatewayCommand());
            cl.setErr(new PrintWriter(err));
            cl.setOut(new PrintWriter(out));
            int code = cl.execute("--site", "east", "--port", "0", "--bind", "127.0.0.1");
            assertThat(code).isEqualTo(2);
            assertThat(err.toString()).contains("railyard.tcp.keepalive = 3s").doesNotContain("\tat ");
            assertThat(out.toString()).as("nothing started").doesNotContain("self-warm").doesNotContain("listening");
        } finally {
            System.clearProperty(Config.TCP_KEEPALIVE_PROP);
        }
    }
}
