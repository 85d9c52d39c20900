package org.railyard.launcher;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.IntFunction;
import org.railyard.gateway.GatewayServer;
import org.railyard.util.Config;

/**
 * What a multi-site job adds to a run: each rank's site and gateway(s) as settings in its
 * environment ({@code railyard.site}, {@code railyard.gateway}), and with embedded gateways, one
 * gateway per site started in the launcher's process for the job's life, each knowing the others.
 */
public final class SiteJob implements AutoCloseable {
    private final List<Sites.Site> bySite;
    private final List<String> gatewayOf;
    private final List<GatewayServer> embedded;

    private SiteJob(List<Sites.Site> bySite, List<String> gatewayOf, List<GatewayServer> embedded) {
        this.bySite = bySite;
        this.gatewayOf = gatewayOf;
        this.embedded = embedded;
    }

    /**
     * @param embedded true: start the gateways here (the sites file's gateways are then ignored);
     *                 false: every site must name its gateway(s)
     * @param log      where the embedded gateways' lines go
     */
    public static SiteJob prepare(Sites sites, int np, boolean embedded, LineSink log) {
        List<String> gatewayOf = new ArrayList<>();
        List<GatewayServer> servers = new ArrayList<>();
        if (embedded) {
            boolean local = sites.hosts().stream().allMatch(Host::isLoopback);
            String host = local ? "127.0.0.1" : Launcher.advertisedHost(sites.hosts());
            try {
                for (Sites.Site s : sites.sites()) {
                    GatewayServer g = GatewayServer.start(new GatewayServer.Settings(s.name(),
                            new InetSocketAddress(local ? "127.0.0.1" : "0.0.0.0", 0), List.of(), 1,
                            Config.duration(Config.CONNECT_TIMEOUT_PROP, Config.CONNECT_TIMEOUT_DEFAULT),
                            (int) Math.max(1 << 20, Config.bytes(Config.TCP_FRAME_PROP, Config.TCP_FRAME_DEFAULT))),
                            line -> log.line(LineSink.LAUNCHER, line));
                    servers.add(g);
                    gatewayOf.add(host + ":" + g.address().getPort());
                }
            } catch (IOException e) {
                servers.forEach(SiteJob::stop);
                throw new UncheckedIOException("could not start the embedded gateways: " + e.getMessage(), e);
            }
            for (int i = 0; i < servers.size(); i++) {
                for (int j = 0; j < servers.size(); j++) {
                    if (i != j) {
                        servers.get(i).peer(sites.sites().get(j).name(), servers.get(j).address());
                    }
                }
            }
        } else {
            for (Sites.Site s : sites.sites()) {
                if (s.gateways().isEmpty()) {
                    throw new IllegalArgumentException("site " + s.name() + " names no gateway: write 'site "
                            + s.name() + " gateway HOST:PORT' in the sites file, or use --gateways embedded");
                }
                gatewayOf.add(String.join(",", s.gateways()));
            }
        }
        return new SiteJob(sites.placeSites(np), gatewayOf(sites, gatewayOf, np), servers);
    }

    private static List<String> gatewayOf(Sites sites, List<String> perSite, int np) {
        List<String> out = new ArrayList<>(np);
        for (Sites.Site s : sites.placeSites(np)) {
            out.add(perSite.get(sites.sites().indexOf(s)));
        }
        return out;
    }

    /** The settings each rank gets. */
    public IntFunction<Map<String, String>> rankEnv() {
        return r -> Map.of(Config.envName(Config.SITE_PROP), bySite.get(r).name(),
                Config.envName(Config.GATEWAY_PROP), gatewayOf.get(r));
    }

    /** The embedded gateways (empty when the sites run their own). */
    public List<GatewayServer> gateways() {
        return List.copyOf(embedded);
    }

    private static void stop(GatewayServer g) {
        try {
            g.close();
        } catch (IOException ignored) {
            // stopping anyway
        }
    }

    @Override
    public void close() {
        embedded.forEach(SiteJob::stop);
    }
}
