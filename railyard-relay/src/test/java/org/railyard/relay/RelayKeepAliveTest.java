package org.railyard.relay;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledOnOs;
import org.junit.jupiter.api.condition.OS;
import org.railyard.testkit.Await;
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
            int port = relay.address().getPort();
            return Await.awaitValue(() -> {
                Map<String, Integer> t = timers(port);
                Integer server = t.get("local");
                Integer client = t.get("remote");
                return server != null && client != null && server != 1 && client != 1 ? List.of(server, client) : null;
            }, Duration.ofSeconds(10), "a quiet established connection to port " + port + " in /proc/net/tcp or tcp6");
        } finally {
            relay.close();
        }
    }

    /**
     * The timer column ({@code tr}) of the established sockets of this machine whose local port is
     * {@code port} (key "local": the relay's end) or whose remote port is (key "remote": the rank's).
     */
    private static Map<String, Integer> timers(int port) throws IOException {
        String p = String.format(Locale.ROOT, ":%04X", port);
        Map<String, Integer> out = new TreeMap<>();
        List<String> lines = new java.util.ArrayList<>(Files.readAllLines(Path.of("/proc/net/tcp")));
        if (Files.exists(Path.of("/proc/net/tcp6"))) {
            lines.addAll(Files.readAllLines(Path.of("/proc/net/tcp6"))); // a dual-stack socket's IPv4 peers are listed here
        }
        for (String line : lines) {
            String[] f = line.trim().split("\\s+");
            if (f.length < 6 || !f[3].equals("01")) { // 01: ESTABLISHED
                continue;
            }
            int timer = Integer.parseInt(f[5].substring(0, f[5].indexOf(':')), 16);
            if (f[1].endsWith(p)) {
                out.put("local", timer);
            } else if (f[2].endsWith(p)) {
                out.put("remote", timer);
            }
        }
        return out;
    }
}
