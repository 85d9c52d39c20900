package org.railyard.gateway;

import java.io.PrintWriter;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import org.railyard.transport.gateway.GatewayClient;
import org.railyard.daemon.DaemonOptions;
import org.railyard.daemon.Daemons;
import org.railyard.util.KeepAlive;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code railyard gateway}: runs a site gateway until it is stopped (SIGTERM or SIGINT), or with
 * {@code --stats HOST:PORT} prints the counters of a running one. Prints one line when it listens
 * ({@code railyard gateway: site S listening on HOST:PORT ...}) and one per job and rank connecting.
 */
@Command(name = "gateway", sortOptions = false, usageHelpAutoWidth = true,
        description = {"Runs the gateway of a site (a cluster of a grid): the ranks of the site reach ranks of other"
                + " sites only through it, and it keeps a few long-lived connections to the gateways of the other"
                + " sites, so that only the gateways' ports need to be open between sites and the WAN sees long warm"
                + " flows. Forwards by routing header while it receives. Serves several jobs at once, each proving"
                + " its job secret."},
        footer = {"", "Example:", "  railyard gateway --site east --port 7430 --peers gw.west:7430 --connections 2",
                "  railyard gateway --stats gw.east:7430"})
public final class GatewayCommand implements Callable<Integer> {
    @Spec
    private CommandSpec spec;

    @Option(names = {"-h", "--help"}, usageHelp = true, description = "Show this help and exit.")
    private boolean help;

    @Option(names = "--site", paramLabel = "NAME",
            description = "The site this gateway serves (the ranks' railyard.site).")
    private String site;

    @Mixin
    private DaemonOptions daemon = new DaemonOptions(7430);

    @Option(names = "--peers", paramLabel = "[SITE=]HOST:PORT,...", split = ",",
            description = "The gateways of the other sites; SITE= saves asking a peer its site. Two of one site:"
                    + " the second takes over when the first cannot be reached.")
    private List<String> peers = new ArrayList<>();

    @Option(names = "--connections", paramLabel = "K", defaultValue = "1",
            description = "WAN connections per job to each peer site; frames are spread over them by (source,"
                    + " destination) pair. Default: ${DEFAULT-VALUE}.")
    private int connections;

    @Option(names = "--warm", paramLabel = "MS", defaultValue = "0",
            description = "Send a WARM frame on a WAN connection idle for this many milliseconds, so that TCP does not"
                    + " restart it from a small window after the application's quiet spells (cubic and reno do after"
                    + " one retransmission timeout, 200 ms at least, unless net.ipv4.tcp_slow_start_after_idle=0;"
                    + " bbr does not). 0: never. Default: ${DEFAULT-VALUE}.")
    private int warmMillis;

    @Option(names = "--wait", paramLabel = "SECONDS", defaultValue = "20",
            description = "Bound on each handshake step, on a connection to a peer gateway, and on the wait for a"
                    + " destination rank to connect. Default: ${DEFAULT-VALUE}.")
    private int waitSeconds;

    @Option(names = "--max-frame", paramLabel = "BYTES", defaultValue = "16777216",
            description = "Largest frame body forwarded. Default: ${DEFAULT-VALUE}.")
    private int maxFrame;

    @Option(names = "--self-warm", paramLabel = "ROUNDTRIPS", defaultValue = "" + GatewaySelfWarm.DEFAULT_ROUND_TRIPS,
            description = "Before reporting ready, forward this many ping-pong round trips (mostly small, a few"
                    + " large and cut) through two throwaway gateways over loopback, so that"
                    + " the first job's frames meet a compiled forwarding path; stops after 10 s whatever the count and"
                    + " leaves nothing behind. 0: off. Default: ${DEFAULT-VALUE}.")
    private int selfWarm;

    @Option(names = "--stats", paramLabel = "HOST:PORT",
            description = "Print the counters of the gateway at HOST:PORT and exit.")
    private String stats;

    @Override
    public Integer call() throws Exception {
        PrintWriter out = spec.commandLine().getOut();
        if (stats != null) {
            Daemons.print(out, GatewayClient.stats(daemon.hostPort("--stats", stats), Duration.ofSeconds(10)));
            return 0;
        }
        if (site == null || site.isEmpty() || !site.matches("[!-~]+") || site.matches(".*[;:,].*")) {
            throw daemon.usageError("--site NAME is required: printable, without spaces,"
                    + " ';', ':' or ',' (the ranks' railyard.site), not " + (site == null ? "missing" : "'" + site + "'"));
        }
        InetSocketAddress listen = daemon.listenAddress();
        if (connections < 1 || connections > 64) {
            throw daemon.usageError("--connections must be between 1 and 64, not " + connections);
        }
        if (warmMillis < 0) {
            throw daemon.usageError("--warm must not be negative, not " + warmMillis);
        }
        if (waitSeconds < 1) {
            throw daemon.usageError("--wait must be at least 1 second, not " + waitSeconds);
        }
        if (maxFrame < 1024) {
            throw daemon.usageError("--max-frame must be at least 1024, not " + maxFrame);
        }
        if (selfWarm < 0) {
            throw daemon.usageError("--self-warm must not be negative, not " + selfWarm);
        }
        try {
            KeepAlive.configured(); // the server reads it again at start; a bad value is a usage error here
        } catch (IllegalArgumentException e) {
            throw daemon.usageError(e.getMessage());
        }
        List<GatewayServer.Peer> ps = new ArrayList<>();
        for (String p : peers) {
            int eq = p.indexOf('=');
            ps.add(new GatewayServer.Peer(eq > 0 ? p.substring(0, eq) : null, daemon.hostPort("--peers", p.substring(eq + 1))));
        }
        GatewayServer.Settings settings = new GatewayServer.Settings(site, listen, ps,
                connections, Duration.ofSeconds(waitSeconds), maxFrame, Duration.ofMillis(warmMillis));
        GatewaySelfWarm.Result warmed = selfWarm(settings);
        if (warmed != null) {
            Daemons.println(out, warmed.describe());
        }
        GatewayServer server = GatewayServer.start(settings, Daemons.lines(out));
        InetSocketAddress a = server.address();
        Daemons.runUntilStopped(server, () -> Daemons.println(out, "railyard gateway: site " + site + " listening on "
                + a.getHostString() + ":" + a.getPort() + " (peers " + (peers.isEmpty() ? "none" : String.join(",", peers))
                + ", connections " + connections + (warmMillis > 0 ? ", warm " + warmMillis + " ms" : "") + ")"));
        return 0;
    }

    /** The self-warm this command's options ask for, run with {@code settings}; null when it is off. */
    GatewaySelfWarm.Result selfWarm(GatewayServer.Settings settings) {
        return selfWarm == 0 ? null : GatewaySelfWarm.run(settings, selfWarm, GatewaySelfWarm.BOUND);
    }

    /** Runs the command alone (what a test or a service unit starts). */
    public static void main(String[] args) {
        System.exit(new CommandLine(new GatewayCommand()).execute(args));
    }
}
