package org.railyard.relay;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledOnOs;
import org.junit.jupiter.api.condition.OS;
import org.railyard.testkit.TcpTable;
import org.railyard.transport.relay.RelayClient;
import org.railyard.util.Config;

/**
 * Both ends of a rank's connection to a relay carry the kernel's keepalive probes of
 * {@code railyard.tcp.keepalive}, so a rank or a relay that vanishes without closing ends the
 * connection instead of holding it forever: read from the kernel's own table of TCP sockets
 * ({@code /proc/net/tcp} and {@code tcp6}, whose timer column says 2 while a keepalive timer is armed), and with the
 * setting 0, no probes on either end.
 */
@EnabledOnOs(OS.LINUX)
class RelayKeepAliveTest {
    @AfterEach
    void clear() {
        System.clearProperty(Config.TCP_KEEPALIVE_PROP);
    }

    @Test
    void bothEndsOfARanksConnectionCarryTheProbes() throws Exception {
        assertThat(timersOfAConnection()).as("timer of the relay's end, then of the rank's: keepalive both").containsExactly(2, 2);
    }

    @Test
    void withTheSettingAtZeroNeitherEndDoes() throws Exception {
        System.setProperty(Config.TCP_KEEPALIVE_PROP, "0");
        assertThat(timersOfAConnection()).as("timer of the relay's end, then of the rank's: none").containsExactly(0, 0);
    }

    /**
     * Starts a relay, connects a receiving rank to it, and returns the timer column of the relay's
     * end and of the rank's, once the connection is quiet (no retransmission timer), within 10 s.
     */
    private static List<Integer> timersOfAConnection() throws Exception {
        RelayServer relay = Relays.start(null, RelayLog.Fsync.NEVER, 1 << 20, 1 << 20, Relays.lines());
        try (RelayClient rank = Relays.rank(relay, "job-ka", 0, 1, true)) {
            return TcpTable.quietTimers(relay.address().getPort(), Duration.ofSeconds(10));
        } finally {
            relay.close();
        }
    }
}
