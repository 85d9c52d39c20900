package org.railyard.daemon;

import java.net.InetSocketAddress;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/**
 * The options every daemon command takes, as a picocli mixin: where it listens ({@code --port},
 * {@code --bind}), and the usage errors of the values a daemon parses itself, so that both daemons
 * refuse a bad value with the same message. A command mixes it in with its own default port:
 * <pre>{@code @Mixin private final DaemonOptions daemon = new DaemonOptions(7420);}</pre>
 * The options appear in the command's help where the field stands among its own options.
 */
public final class DaemonOptions {
    @Spec(Spec.Target.MIXEE)
    private CommandSpec command;

    @Option(names = "--port", paramLabel = "PORT",
            description = "TCP port to listen on; 0 picks a free one (printed). Default: ${DEFAULT-VALUE}.")
    private int port;

    @Option(names = "--bind", paramLabel = "ADDR", defaultValue = "0.0.0.0",
            description = "Address to listen on. Default: ${DEFAULT-VALUE} (every interface).")
    private String bind;

    /** The options of a daemon that listens on {@code defaultPort} unless told otherwise. */
    public DaemonOptions(int defaultPort) {
        this.port = Daemons.listenPort(defaultPort);
    }

    /**
     * The address to listen on, {@code --bind} and {@code --port}.
     *
     * @throws ParameterException "--port must be between 0 and 65535, not PORT"
     */
    public InetSocketAddress listenAddress() {
        try {
            return new InetSocketAddress(bind, Daemons.listenPort(port));
        } catch (IllegalArgumentException e) {
            throw usageError(e.getMessage());
        }
    }

    /**
     * {@code text}, the value of {@code option}, as {@code HOST:PORT}.
     *
     * @throws ParameterException "OPTION wants HOST:PORT, not 'TEXT'"
     */
    public InetSocketAddress hostPort(String option, String text) {
        try {
            return Daemons.hostPort(option, text);
        } catch (IllegalArgumentException e) {
            throw usageError(e.getMessage());
        }
    }

    /** The command's usage error with {@code message} (printed with the command's name, exit code 2). */
    public ParameterException usageError(String message) {
        return new ParameterException(command.commandLine(), message);
    }
}
