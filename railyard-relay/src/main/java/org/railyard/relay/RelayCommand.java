package org.railyard.relay;

import java.io.PrintWriter;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.Callable;
import org.railyard.error.RailyardException;
import org.railyard.transport.relay.RelayClient;
import org.railyard.daemon.DaemonOptions;
import org.railyard.daemon.Daemons;
import org.railyard.util.KeepAlive;
import org.railyard.util.Config;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code railyard relay}: runs a relay server until it is stopped (SIGTERM or SIGINT), or with
 * {@code --stats HOST:PORT} prints the counters of a running one (SIGUSR2 makes a running relay print
 * its own). Prints one line when it listens
 * ({@code railyard relay: listening on HOST:PORT ...}) and one per job and rank connecting.
 */
@Command(name = "relay", sortOptions = false, usageHelpAutoWidth = true,
        description = {"Runs a relay server: a store-and-forward point (a Channel Memory) for ranks that cannot"
                + " accept connections. Ranks connect out to it; it keeps each message for its destination until"
                + " the destination has consumed it, in memory and, with --log, in an append-only log that a"
                + " restarted relay recovers from. Serves several jobs at once, each proving its job secret."},
        footer = {"", "Example:", "  railyard relay --port 7420 --log /var/lib/railyard-relay --fsync batch --max-bytes 2g",
                "  railyard relay --stats relayhost:7420"})
public final class RelayCommand implements Callable<Integer> {
    /** Largest message a relay accepts by default. */
    public static final int DEFAULT_MAX_MESSAGE = 64 << 20;

    @Spec
    private CommandSpec spec;

    @Option(names = {"-h", "--help"}, usageHelp = true, description = "Show this help and exit.")
    private boolean help;

    @Mixin
    private DaemonOptions daemon = new DaemonOptions(7420);

    @Option(names = "--log", paramLabel = "DIR",
            description = "Directory of the append-only message log (created if absent); a relay started on it"
                    + " delivers again what receivers had not acknowledged. Default: none, memory only.")
    private Path log;

    @Option(names = "--fsync", paramLabel = "POLICY", defaultValue = "batch",
            description = "When the log is forced to disk before a message is acknowledged to its sender: never"
                    + " (survives the relay process, not the machine), batch (group commit), always (each message)."
                    + " Default: ${DEFAULT-VALUE}.")
    private String fsync;

    @Option(names = "--max-bytes", paramLabel = "SIZE", defaultValue = "1g",
            description = "Bound on the message bytes held (e.g. 512m, 2g); beyond it senders are held back, never"
                    + " dropped. Default: ${DEFAULT-VALUE}.")
    private String maxBytes;

    @Option(names = "--max-message", paramLabel = "SIZE", defaultValue = "64m",
            description = "Largest single message accepted. Default: ${DEFAULT-VALUE}.")
    private String maxMessage;

    @Option(names = "--compact-min", paramLabel = "SIZE", defaultValue = "64m",
            description = "The log is rewritten with only what is still held once it is at least SIZE long and less"
                    + " than half of it is live (receivers acknowledged the rest). Default: ${DEFAULT-VALUE}.")
    private String compactMin;

    @Option(names = "--sockbuf", paramLabel = "SIZE", defaultValue = "4m",
            description = "Send and receive buffer asked for on every connection's socket (0: the kernel's defaults)."
                    + " Default: ${DEFAULT-VALUE}.")
    private String sockbuf;

    @Option(names = "--stats", paramLabel = "HOST:PORT",
            description = "Print the counters of the relay at HOST:PORT and exit (kill -USR2 on a relay's process"
                    + " prints them on its output).")
    private String stats;

    @Override
    public Integer call() throws Exception {
        PrintWriter out = spec.commandLine().getOut();
        if (stats != null) {
            Daemons.print(out, RelayClient.stats(daemon.hostPort("--stats", stats), Duration.ofSeconds(10)));
            return 0;
        }
        RelayServer.Settings settings;
        try {
            KeepAlive.configured(); // the server reads it again at start; a bad value is a usage error here
            long max = Config.parseBytes("--max-bytes", maxBytes);
            long msg = Config.parseBytes("--max-message", maxMessage);
            long compact = Config.parseBytes("--compact-min", compactMin);
            if (msg < 1 || msg > RelayClient.MAX_BODY) {
                throw daemon.usageError("--max-message must be between 1 and " + RelayClient.MAX_BODY + " bytes, not "
                        + maxMessage);
            }
            long buf = Config.parseBytes("--sockbuf", sockbuf);
            if (buf < 0 || buf > RelayServer.Settings.SOCKBUF_MAX) {
                throw daemon.usageError("--sockbuf must be between 0 (the kernel's defaults) and "
                        + RelayServer.Settings.SOCKBUF_MAX + " bytes, not " + sockbuf);
            }
            settings = new RelayServer.Settings(daemon.listenAddress(), log,
                    RelayLog.Fsync.parse(fsync), max, (int) msg, Duration.ofSeconds(10), compact, (int) buf);
        } catch (IllegalArgumentException | RailyardException e) {
            throw daemon.usageError(e.getMessage());
        }
        RelayServer server = RelayServer.start(settings, Daemons.lines(out));
        InetSocketAddress a = server.address();
        Daemons.runUntilStopped(server, () -> {
            StatsSignal.install(() -> Daemons.print(out, server.stats()), Daemons.lines(out));
            Daemons.println(out, "railyard relay: listening on " + a.getHostString() + ":" + a.getPort() + " (log "
                    + (log == null ? "none, memory only" : log + ", fsync " + fsync) + ", max-bytes " + settings.maxBytes() + ")");
        });
        return 0;
    }

    /** Runs the command alone (what a test or a service unit starts). */
    public static void main(String[] args) {
        System.exit(new CommandLine(new RelayCommand()).execute(args));
    }
}
