package org.railyard.testkit;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;

/**
 * The kernel's table of this machine's TCP sockets ({@code /proc/net/tcp} and {@code tcp6}, Linux
 * only), read by tests that check what the kernel does with a connection: its timer column says 0
 * when no timer is armed, 1 while a retransmission timer is, 2 while a keepalive timer is.
 */
public final class TcpTable {
    /** Timer column value of a socket whose keepalive timer is armed. */
    public static final int KEEPALIVE = 2;
    /** Timer column value of a socket waiting to retransmit. */
    public static final int RETRANSMIT = 1;

    private TcpTable() {
    }

    /**
     * The timer column of the two established ends of a connection to the listening port
     * {@code port}: key "local" for the end whose local port it is (the server's), "remote" for the
     * end whose remote port it is (the client's). Connections whose client end has one of the ports
     * {@code skipClientPorts} are left out; of several others, the last of each end is taken.
     */
    public static Map<String, Integer> timers(int port, int... skipClientPorts) throws IOException {
        String p = hexPort(port);
        List<String> skip = new ArrayList<>();
        for (int c : skipClientPorts) {
            skip.add(hexPort(c));
        }
        Map<String, Integer> out = new TreeMap<>();
        List<String> lines = new ArrayList<>(Files.readAllLines(Path.of("/proc/net/tcp")));
        if (Files.exists(Path.of("/proc/net/tcp6"))) {
            lines.addAll(Files.readAllLines(Path.of("/proc/net/tcp6"))); // a dual-stack socket's IPv4 peers are listed here
        }
        for (String line : lines) {
            String[] f = line.trim().split("\\s+");
            if (f.length < 6 || !f[3].equals("01")) { // 01: ESTABLISHED
                continue;
            }
            int timer = Integer.parseInt(f[5].substring(0, f[5].indexOf(':')), 16);
            if (skip.stream().anyMatch(c -> f[1].endsWith(c) || f[2].endsWith(c))) {
                continue;
            }
            if (f[1].endsWith(p)) {
                out.put("local", timer);
            } else if (f[2].endsWith(p)) {
                out.put("remote", timer);
            }
        }
        return out;
    }

    private static String hexPort(int port) {
        return String.format(Locale.ROOT, ":%04X", port);
    }

    /**
     * The timers of the server's end and of the client's end (in that order) of a connection to
     * {@code port} (leaving out those of {@code skipClientPorts}, as {@link #timers}), once both
     * are listed and neither waits to retransmit, within {@code bound}.
     */
    public static List<Integer> quietTimers(int port, Duration bound, int... skipClientPorts) {
        return Await.awaitValue(() -> {
            Map<String, Integer> t = timers(port, skipClientPorts);
            Integer server = t.get("local");
            Integer client = t.get("remote");
            return server != null && client != null && server != RETRANSMIT && client != RETRANSMIT
                    ? List.of(server, client) : null;
        }, bound, "a quiet established connection to port " + port + " in /proc/net/tcp or tcp6");
    }
}
