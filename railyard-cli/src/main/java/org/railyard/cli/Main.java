package org.railyard.cli;

import java.io.IOException;
import java.io.InputStream;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.util.Properties;
import java.util.concurrent.Callable;
import org.railyard.bench.BenchCommand;
import org.railyard.gateway.GatewayCommand;
import org.railyard.launcher.RunCommand;
import org.railyard.launcher.ShortErrorHandler;
import org.railyard.relay.RelayCommand;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.IVersionProvider;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;

/** The {@code railyard} command; {@code bin/railyard} runs it with a JDK 25 and the project's jars. */
@Command(name = "railyard", mixinStandardHelpOptions = true, versionProvider = Main.Version.class,
        usageHelpAutoWidth = true,
        description = "Railyard: message passing for Java. Runs MPI-style Java programs as jobs of"
                + " communicating processes, locally or across hosts and sites, benchmarks them, and serves relays and"
                + " site gateways.",
        footer = {"", "Run 'railyard COMMAND --help' for the options of a command."})
public final class Main implements Callable<Integer> {
    @Spec
    private CommandSpec spec;

    /** Without a command there is nothing to do: show what there is, as a usage error. */
    @Override
    public Integer call() {
        spec.commandLine().usage(spec.commandLine().getErr());
        return spec.exitCodeOnInvalidInput();
    }

    /** The whole command tree, printing to the given streams. */
    public static CommandLine commandLine(PrintStream out, PrintStream err) {
        return commandLine(out, err, false);
    }

    /**
     * The command tree for {@code args}: with {@code run} first, the {@code run} command alone (a
     * job's launcher starts its ranks sooner without building the other commands' models in
     * picocli's reflection: bench/results/log/2026-11-28-0500-startup.md); otherwise the whole tree.
     */
    static CommandLine commandLineFor(String[] args, PrintStream out, PrintStream err) {
        return commandLine(out, err, args.length > 0 && args[0].equals("run"));
    }

    private static CommandLine commandLine(PrintStream out, PrintStream err, boolean runOnly) {
        CommandLine cl = new CommandLine(new Main());
        cl.addSubcommand("run", RunCommand.newCommandLine(out, err));
        if (!runOnly) {
            cl.addSubcommand("bench", new BenchCommand());
            cl.addSubcommand("relay", new RelayCommand());
            cl.addSubcommand("gateway", new GatewayCommand());
        }
        cl.setOut(new PrintWriter(out, true));
        cl.setErr(new PrintWriter(err, true));
        cl.setParameterExceptionHandler(new ShortErrorHandler());
        return cl;
    }

    public static void main(String[] args) {
        System.exit(commandLineFor(args, System.out, System.err).execute(args));
    }

    /** Reads the version Maven wrote into the jar at build time. */
    static final class Version implements IVersionProvider {
        @Override
        public String[] getVersion() {
            Properties p = new Properties();
            try (InputStream in = Main.class.getResourceAsStream("version.properties")) {
                if (in != null) {
                    p.load(in);
                }
            } catch (IOException e) {
                // Reported as an unknown version below.
            }
            return new String[] {"railyard " + p.getProperty("version", "(unknown version)"),
                    "Java " + Runtime.version() + " (" + System.getProperty("java.vm.name") + ")"};
        }
    }
}
