package org.railyard.launcher;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;
import org.railyard.relay.RelayServer;
import org.railyard.relay.StatsSignal;

/**
 * Relays the launcher runs for one job ({@code railyard run --relays N}): memory only, on free
 * ports of every interface, advertised at the address the ranks reach the launcher by; closed when
 * the job ends. Their notices go to the launcher's stderr prefixed {@code relay K:}; SIGUSR2 to
 * the launcher prints their counters.
 */
final class EmbeddedRelays implements AutoCloseable {
    /** Bound on what an embedded relay holds; senders beyond it are held back. */
    static final long MAX_BYTES = 1L << 30;

    private final List<RelayServer> servers = new ArrayList<>();
    private final String advertised;
    private final Consumer<String> say;
    private StatsSignal signal;

    private EmbeddedRelays(String advertised, Consumer<String> say) {
        this.advertised = advertised;
        this.say = say;
    }

    /** Starts {@code n} relays; {@code host} is the address ranks use to reach this machine. */
    static EmbeddedRelays start(int n, String host, Consumer<String> say) throws IOException {
        EmbeddedRelays r = new EmbeddedRelays(host, say);
        try {
            for (int i = 0; i < n; i++) {
                int k = i;
                r.servers.add(RelayServer.start(RelayServer.Settings.memoryOnly(new InetSocketAddress(
                        host.startsWith("127.") ? host : "0.0.0.0", 0), MAX_BYTES, 64 << 20),
                        line -> say.accept("relay " + k + ": " + line)));
            }
        } catch (IOException | RuntimeException e) {
            r.close();
            throw e;
        }
        r.signal = StatsSignal.install(() -> {
            for (int i = 0; i < r.servers.size(); i++) {
                for (String line : r.servers.get(i).stats().split("\n")) {
                    say.accept("relay " + i + " " + r.addresses().get(i) + ": " + line);
                }
            }
        }, say);
        return r;
    }

    /** HOST:PORT of each relay, in order (the value of {@code railyard.relays}). */
    List<String> addresses() {
        List<String> out = new ArrayList<>();
        for (RelayServer s : servers) {
            out.add(advertised + ":" + s.address().getPort());
        }
        return out;
    }

    @Override
    public void close() {
        if (signal != null) {
            signal.close();
        }
        for (RelayServer s : servers) {
            try {
                s.close();
            } catch (IOException e) {
                say.accept("relay at port " + s.address().getPort() + ": closing failed: " + e.getMessage());
            }
        }
    }
}
