package org.railyard.launcher;

import java.io.File;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.stream.Collectors;
import org.railyard.Railyard;
import org.railyard.util.Config;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;
import picocli.CommandLine.TypeConversionException;

/**
 * {@code railyard run}: the command-line face of {@link Launcher}. Each line a rank writes is
 * printed with the rank in front ({@code "[2] hello"}), stdout to stdout and stderr to stderr;
 * the launcher's own messages start with {@code "railyard: "}. The command's exit code is the
 * job's ({@link JobResult#exitCode()}), or 2 for bad input.
 *
 * <p>Build it with {@link #newCommandLine}, which makes option parsing stop at MAIN so the
 * program's own arguments pass through untouched.
 */
@Command(name = "run", sortOptions = false, usageHelpAutoWidth = true,
        description = {"Runs N copies of a Java program as one Railyard job.",
                "Starts the ranks here, or on the hosts of a hosts file through rsh/ssh; serves the key-value"
                        + " exchange they bootstrap from; prints their output with a [rank] prefix; stops them all"
                        + " as soon as one fails."},
        footer = {"",
                "Exit code: 0 when every rank exits 0; else that of the first rank that failed (128+N for a rank"
                        + " killed by signal N), 124 after --timeout, 127 when a rank cannot start, 2 for bad options.",
                "", "Example:", "  railyard run -np 4 --timeout 10m -cp app.jar org.example.Solver --size 4096"})
public final class RunCommand implements Callable<Integer> {
    @Spec
    private CommandSpec spec;

    @Option(names = {"-h", "--help"}, usageHelp = true, description = "Show this help and exit.")
    private boolean help;

    @Option(names = "-np", required = true, paramLabel = "N", description = "Number of ranks, at least 1.")
    private int np;

    @Option(names = "--threads",
            description = "Run the ranks as threads of this JVM, one class loader per rank (statics stay per rank),"
                    + " instead of one JVM per rank. Local jobs only; no --jvm-arg (give JVM options to the launcher)."
                    + " Default: one JVM per rank.")
    private boolean threads;

    @Option(names = "--hosts", paramLabel = "FILE",
            description = "Hosts to place ranks on, one per line: 'host' or 'host slots=N'; '#' comments."
                    + " Ranks fill each host's slots in turn. Default: every rank on this machine.")
    private Path hosts;

    @Option(names = "--sites", paramLabel = "FILE",
            description = "Sites file: 'site NAME [gateway HOST:PORT[,HOST:PORT]]' lines, each followed by that site's"
                    + " hosts as in a hosts file. Ranks of different sites talk through the sites' gateways."
                    + " Not with --hosts.")
    private Path sites;

    @Option(names = "--gateways", paramLabel = "MODE", defaultValue = "external",
            description = "With --sites: 'external' (the gateways the sites file names, already running) or"
                    + " 'embedded' (the launcher runs one gateway per site for the job's life). Default: ${DEFAULT-VALUE}.")
    private String gateways;

    @Option(names = "--rsh", paramLabel = "CMD", defaultValue = JobSpec.DEFAULT_RSH,
            description = "Command that runs a command on a host, called as CMD host 'command'. Default: ${DEFAULT-VALUE}.")
    private String rsh;

    @Option(names = "--timeout", paramLabel = "D", converter = DurationConverter.class,
            description = "Stop the whole job after D (500ms, 20s, 2m, 1h). Default: no limit.")
    private Duration timeout;

    @Option(names = "--transports", paramLabel = "LIST",
            description = "Transports the ranks may use, comma separated (sets RAILYARD_TRANSPORTS).")
    private String transports;

    @Option(names = "--eager-limit", paramLabel = "BYTES",
            description = "Largest message sent eagerly, e.g. 65536, 64k (sets RAILYARD_EAGER_LIMIT).")
    private String eagerLimit;

    @Option(names = "--rails", paramLabel = "N",
            description = "Connections per network path between two ranks on different hosts, at least 1"
                    + " (sets RAILYARD_RAILS). Ranks reached by several rails stripe and fail over over them.")
    private Integer rails;

    @Option(names = "--rail-policy", paramLabel = "P",
            description = "How messages use the rails: binding, rr, wrr:W, even, weighted:w0,w1,..., adaptive[:alpha],"
                    + " bss:NPATHS,NBATCH[,alpha] or epc (sets RAILYARD_RAIL_POLICY). Default: adaptive.")
    private String railPolicy;

    @Option(names = "--relay", paramLabel = "HOST:PORT[,...]",
            description = "Running relay servers (railyard relay) the ranks use; the owner relay of rank r is entry"
                    + " r mod count (sets RAILYARD_RELAYS).")
    private String relay;

    @Option(names = "--relays", paramLabel = "N",
            description = "Start N relays inside the launcher for this job (memory only), closed when it ends. The"
                    + " default, one, when the job needs relays (--no-listen, or relay in --transports) and --relay"
                    + " names none.")
    private Integer relays;

    @Option(names = "--no-listen",
            description = "Ranks open no listening socket (the firewalled case): every pair goes through the relays"
                    + " (sets RAILYARD_LISTEN=false).")
    private boolean noListen;

    @Option(names = "--restart", paramLabel = "N",
            description = "Start a rank that dies from a signal (SIGKILL, a crash) again, up to N times per rank,"
                    + " instead of ending the job; needs relays (--relays or --relay): every pair goes through them,"
                    + " they keep each rank's messages, and a rank started again runs from the start, or from its"
                    + " last Railyard.checkpoint, and is given them again in the same order (sets RAILYARD_RESTARTS,"
                    + " and RAILYARD_CHECKPOINT_DIR to a directory of the job's unless set). Local ranks only.")
    private Integer restart;

    @Option(names = "--aot", paramLabel = "DIR", arity = "0..1", fallbackValue = "on",
            description = "Ahead-of-time cache of this program's rank JVMs (JDK 25): without the option (auto) the"
                    + " second job of a program trains it on rank 0 and later jobs start from it, under"
                    + " ~/.cache/railyard/aot. DIR (or 'on': the default directory): train at the first job;"
                    + " 'off' disables (sets RAILYARD_AOT).")
    private String aot;

    @Option(names = "--print-choices",
            description = "Ranks print each choice the library makes for them (sets RAILYARD_PRINT_CHOICES).")
    private boolean printChoices;

    @Option(names = {"-cp", "--classpath", "--class-path"}, paramLabel = "CP",
            description = "Class path of the program, entries separated by ':'.")
    private String classpath;

    @Option(names = "--jvm-arg", paramLabel = "ARG", description = "Option for the ranks' JVMs; repeatable.")
    private List<String> jvmArgs = new ArrayList<>();

    @Option(names = "--env", paramLabel = "K=V", description = "Environment variable for every rank; repeatable.")
    private Map<String, String> env = new LinkedHashMap<>();

    @Parameters(index = "0", paramLabel = "MAIN", description = "Main class of the program, or a .jar with a Main-Class.")
    private String main;

    @Parameters(index = "1..*", paramLabel = "ARGS", description = "Arguments of the program.")
    private List<String> args = new ArrayList<>();

    private final PrintStream out;
    private final PrintStream err;

    /** A command that prints to {@code out} and {@code err}. */
    public RunCommand(PrintStream out, PrintStream err) {
        this.out = out;
        this.err = err;
    }

    public RunCommand() {
        this(System.out, System.err);
    }

    /** {@code railyard run} on its own (the {@code railyard} command adds the other subcommands). */
    public static void main(String[] args) {
        System.exit(newCommandLine(System.out, System.err).execute(args));
    }

    /** The command ready to execute: output to the given streams, parsing that stops at MAIN, short errors. */
    public static CommandLine newCommandLine(PrintStream out, PrintStream err) {
        CommandLine cl = new CommandLine(new RunCommand(out, err));
        cl.setStopAtPositional(true);
        cl.setOut(new PrintWriter(out, true));
        cl.setErr(new PrintWriter(err, true));
        cl.setParameterExceptionHandler(new ShortErrorHandler());
        return cl;
    }

    @Override
    public Integer call() {
        JobSpec job;
        int embedded;
        try {
            job = jobSpec();
            embedded = embeddedRelays();
        } catch (IllegalArgumentException e) {
            throw new ParameterException(spec.commandLine(), e.getMessage(), e);
        }
        EmbeddedRelays started = null;
        try {
            if (embedded > 0) {
                List<Host> placement = job.hosts().isEmpty() ? null : Host.place(job.np(), job.hosts());
                started = EmbeddedRelays.start(embedded, Launcher.advertisedHost(placement),
                        line -> print(err, LineSink.LAUNCHER, "railyard: " + line));
                Map<String, String> withRelays = new LinkedHashMap<>(job.env());
                withRelays.put(Config.envName(Config.RELAYS_PROP), String.join(",", started.addresses()));
                job = job.withEnv(withRelays);
                print(err, LineSink.LAUNCHER, "railyard: " + embedded + (embedded == 1 ? " relay" : " relays")
                        + " for this job at " + String.join(",", started.addresses()));
            }
            LineSink o = (rank, line) -> print(out, rank, line);
            LineSink e2 = (rank, line) -> print(err, rank, line);
            if (threads) {
                return ThreadLauncher.run(job, o, e2).exitCode();
            }
            String hint = crowdedHint(job.np(), Runtime.getRuntime().availableProcessors(),
                    job.hosts().isEmpty() && !SrunLaunch.applies(job, System.getenv()));
            if (hint != null) {
                print(err, LineSink.LAUNCHER, hint);
            }
            if (sites == null) {
                return Launcher.run(job, o, e2).exitCode();
            }
            try (SiteJob siteJob = SiteJob.prepare(Sites.readFile(sites), np, gateways.equals("embedded"), e2)) {
                return Launcher.run(job, siteJob.rankEnv(), o, e2).exitCode();
            }
        } catch (IllegalArgumentException e) {
            throw new ParameterException(spec.commandLine(), e.getMessage(), e);
        } catch (UncheckedIOException e) {
            err.println(spec.qualifiedName() + ": " + e.getMessage());
            return 1;
        } catch (java.io.IOException e) {
            err.println(spec.qualifiedName() + ": cannot start the job's relays: " + e.getMessage());
            return 1;
        } finally {
            if (started != null) {
                started.close();
            }
        }
    }

    /** Ranks per processor from which a job of one JVM per rank on this machine gets {@link #crowdedHint}'s line. */
    static final int CROWDED_RANKS_PER_PROCESSOR = 2;

    /**
     * The line that points a job of {@code np} JVMs on this machine ({@code local}) with
     * {@code processors} processors to {@code --threads}, when the ranks outnumber the processors
     * {@link #CROWDED_RANKS_PER_PROCESSOR} times or more; null otherwise. Every JVM compiles, loads
     * and links the same code on the same few processors, which ranks that are threads of one JVM do
     * once (measured at 16 and 32 ranks on 2 processors: bench/results/log/2026-11-29-0428-quiet-window.md;
     * at 4, the obstacle demo: bench/results/log/2026-11-29-1031-quiet-window.md). At one rank per
     * processor the processes' solve was not slower, so no line below two.
     */
    static String crowdedHint(int np, int processors, boolean local) {
        if (!local || processors < 1 || np < CROWDED_RANKS_PER_PROCESSOR * processors) {
            return null;
        }
        return "railyard run: " + np + " ranks on " + processors + (processors == 1 ? " processor" : " processors")
                + ", one JVM each: every JVM compiles, loads and links the same code on them; --threads runs the"
                + " ranks as threads of one JVM (README, --threads)";
    }

    /** How many relays to start in the launcher: --relays, else one if the job needs relays and --relay names none. */
    private int embeddedRelays() {
        if (relays != null) {
            if (relays < 1 || relays > 64) {
                throw new IllegalArgumentException("--relays must be between 1 and 64, got " + relays);
            }
            if (relay != null) {
                throw new IllegalArgumentException("--relay and --relays exclude each other: use running relays, or start"
                        + " them for the job");
            }
            return relays;
        }
        boolean needs = noListen || (transports != null && List.of(transports.split(",")).stream().map(String::trim)
                .anyMatch("relay"::equals));
        return relay == null && needs ? 1 : 0;
    }

    private JobSpec jobSpec() {
        if (np < 1) {
            throw new IllegalArgumentException("-np must be at least 1, got " + np);
        }
        Map<String, String> rankEnv = new LinkedHashMap<>(env);
        if (transports != null) {
            if (transports.isBlank()) {
                throw new IllegalArgumentException("--transports needs a comma-separated list, e.g. shm,tcp");
            }
            try {
                Railyard.checkTransports(transports);
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException("--transports " + transports.trim() + ": " + e.getMessage());
            }
            rankEnv.put(Config.envName(Config.TRANSPORTS_PROP), transports.trim());
        }
        if (eagerLimit != null) {
            try {
                rankEnv.put(Config.envName(Config.EAGER_LIMIT_PROP),
                        Long.toString(Config.parseBytes(Config.EAGER_LIMIT_PROP, eagerLimit)));
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException("--eager-limit '" + eagerLimit + "' is not a size such as 65536, 64k or 4m");
            }
        }
        if (rails != null) {
            if (rails < 1) {
                throw new IllegalArgumentException("--rails must be at least 1, got " + rails);
            }
            rankEnv.put(Config.envName(Config.RAILS_PROP), Integer.toString(rails));
        }
        if (railPolicy != null) {
            try {
                Railyard.checkRailPolicy(railPolicy);
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException("--rail-policy " + e.getMessage());
            }
            rankEnv.put(Config.envName(Config.RAIL_POLICY_PROP), railPolicy.trim());
        }
        if (aot != null) {
            rankEnv.put(Config.envName(Config.AOT_PROP), aot.trim());
        }
        if (printChoices) {
            rankEnv.put(Config.envName(Config.PRINT_CHOICES_PROP), "true");
        }
        if (relay != null) {
            checkRelays(relay);
            rankEnv.put(Config.envName(Config.RELAYS_PROP), relay.trim());
        }
        if (noListen) {
            rankEnv.put(Config.envName(Config.LISTEN_PROP), "false");
        }
        if (restart != null) {
            restartEnv(rankEnv);
        }
        List<String> cp = new ArrayList<>();
        if (classpath != null) {
            for (String entry : classpath.split(File.pathSeparator)) {
                if (!entry.isBlank()) {
                    cp.add(entry);
                }
            }
        }
        if (sites != null && hosts != null) {
            throw new IllegalArgumentException("--sites and --hosts exclude each other: a sites file lists the hosts");
        }
        if (!gateways.equals("external") && !gateways.equals("embedded")) {
            throw new IllegalArgumentException("--gateways must be 'external' or 'embedded', not '" + gateways + "'");
        }
        if (threads && (hosts != null || sites != null || relays != null)) {
            throw new IllegalArgumentException("--threads runs every rank in this JVM: it does not take --hosts, --sites"
                    + " or --relays");
        }
        if (threads && restart != null && restart > 0) {
            throw new IllegalArgumentException("--threads and --restart exclude each other: a rank thread does not die"
                    + " alone, so there is no process to start again");
        }
        if (threads && aot != null) {
            throw new IllegalArgumentException("--threads and --aot exclude each other: the ranks share the launcher's JVM");
        }
        List<Host> hostList = sites != null ? Sites.readFile(sites).hosts() : hosts == null ? List.of() : Host.readFile(hosts);
        return new JobSpec(np, hostList, main, args, cp, rankEnv, jvmArgs, timeout, rsh);
    }

    /**
     * --restart N: N between 0 and 100; above 0 it needs relays (--relay or --relays), and every pair
     * goes through them (--transports self,relay, which it sets when --transports is not given), and
     * nothing passes outside the channels (no collective shared segment, no cross-memory reads).
     */
    private void restartEnv(Map<String, String> rankEnv) {
        if (restart < 0 || restart > 100) {
            throw new IllegalArgumentException("--restart must be between 0 and 100, got " + restart);
        }
        if (restart == 0) {
            return;
        }
        if (relay == null && relays == null) {
            throw new IllegalArgumentException("--restart needs relays: add --relays N (relays the launcher starts) or"
                    + " --relay HOST:PORT (running ones); a rank started again finds its messages at its owner relay");
        }
        if (transports == null) {
            rankEnv.put(Config.envName(Config.TRANSPORTS_PROP), "self,relay");
        } else if (!Set.of("relay").equals(Arrays.stream(transports.split(",")).map(String::trim)
                .filter(t -> !t.equals("self")).collect(Collectors.toSet()))) {
            throw new IllegalArgumentException("--restart sends every pair through the relays: --transports must be"
                    + " self,relay (or left out), not '" + transports + "'");
        }
        rankEnv.put(Config.envName(Config.RESTARTS_PROP), Integer.toString(restart));
        // what passes between processes outside the channels is neither kept nor given again by a
        // relay: a collective's shared segment and cross-memory reads are off in such a job
        rankEnv.put(Config.envName("railyard.coll.shm"), "false");
        rankEnv.put(Config.envName(Config.CMA_PROP), "false");
    }

    /** A --relay value: HOST:PORT entries separated by commas, at least one, each port in 1..65535. */
    private static void checkRelays(String list) {
        String want = "--relay wants HOST:PORT[,HOST:PORT...], not '" + list + "'";
        boolean any = false;
        for (String part : list.split(",")) {
            String p = part.trim();
            if (p.isEmpty()) {
                continue;
            }
            int colon = p.lastIndexOf(':');
            try {
                int port = Integer.parseInt(p.substring(colon + 1));
                if (colon <= 0 || port < 1 || port > 65535) {
                    throw new NumberFormatException();
                }
            } catch (RuntimeException e) {
                throw new IllegalArgumentException(want + ": '" + p + "' is not HOST:PORT (port 1..65535)");
            }
            any = true;
        }
        if (!any) {
            throw new IllegalArgumentException(want + ": it names no relay");
        }
    }

    private static void print(PrintStream stream, int rank, String line) {
        // One write per line, flushed: stdout and stderr of all ranks share the terminal.
        stream.print(rank == LineSink.LAUNCHER ? line + "\n" : "[" + rank + "] " + line + "\n");
        stream.flush();
    }

    /** Parses --timeout with the library's duration syntax, and says so when it does not parse. */
    static final class DurationConverter implements ITypeConverter<Duration> {
        @Override
        public Duration convert(String value) {
            try {
                return Config.parseDuration("--timeout", value);
            } catch (IllegalArgumentException e) {
                throw new TypeConversionException("'" + value + "' is not a duration such as 500ms, 20s, 2m or 1h");
            }
        }
    }
}
