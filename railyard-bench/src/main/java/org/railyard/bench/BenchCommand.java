package org.railyard.bench;

import java.io.IOException;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import org.railyard.launcher.JobResult;
import org.railyard.launcher.JobSpec;
import org.railyard.launcher.Launcher;
import org.railyard.launcher.LineSink;
import org.railyard.util.Config;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/**
 * {@code railyard bench}: runs {@link BenchRank} as a local job through the {@link Launcher}, once
 * per {@code --transports} value, prints rank 0's TSV results (one header for all runs) and
 * optionally writes them to a file and plots them.
 *
 * <p>Exit status: 0 on success; the job's exit code when a job fails (124 on timeout); 1 when a
 * job succeeds without producing results or the outputs cannot be written; 2 on bad arguments.
 */
@Command(name = "bench", mixinStandardHelpOptions = true, subcommands = {StreamCommand.class, RmaCommand.class},
        description = {"Measures point-to-point latency and bandwidth and allreduce time between local ranks.",
                "Prints TSV: benchmark, transport, np, bytes, iterations, mean_us, p50_us, p99_us, max_us, MB_s."})
public final class BenchCommand implements Callable<Integer> {
    /** The program every rank runs. */
    public static final String RANK_MAIN = BenchRank.class.getName();

    @Spec
    CommandSpec spec;

    @Parameters(index = "0", arity = "0..1", defaultValue = "all", paramLabel = "BENCHMARK",
            description = "latency, bw, bibw, allreduce or all (or a comma-separated list); default: all")
    String benchmarks = "all";

    @Option(names = "--np", defaultValue = "2", description = "number of ranks; default: ${DEFAULT-VALUE}")
    int np = 2;

    @Option(names = "--transports", paramLabel = "LIST",
            description = {"transports the job may use (sets RAILYARD_TRANSPORTS), e.g. shm or tcp; "
                    + "repeat the option to run once per value; default: one run with every transport"})
    List<String> transports = new ArrayList<>();

    @Option(names = "--sizes", defaultValue = Sizes.DEFAULT, paramLabel = "SPEC",
            description = "message sizes: comma-separated sizes (8, 64k, 4m) or power-of-two ranges LO:HI; "
                    + "default: ${DEFAULT-VALUE}")
    String sizes = Sizes.DEFAULT;

    @Option(names = "--iters", paramLabel = "N",
            description = "timed iterations for sizes up to 16 KiB (fewer above); default: per benchmark")
    Long iters;

    @Option(names = "--window", paramLabel = "W", defaultValue = "64",
            description = "messages in flight per window for bw and bibw; default: ${DEFAULT-VALUE}")
    int window = Benchmark.DEFAULT_WINDOW;

    @Option(names = "--alloc", description = "also measure heap bytes allocated per ping-pong message (latency)")
    boolean alloc;

    @Option(names = "--no-jit-warmup", description = "skip the untimed passes before each size that let the JIT settle")
    boolean noJitWarmup;

    @Option(names = "--png", paramLabel = "FILE", description = "write a log-log plot of the results")
    Path png;

    @Option(names = "--tsv", paramLabel = "FILE", description = "also write the results to this file")
    Path tsv;

    @Option(names = "--timeout", paramLabel = "DURATION", defaultValue = "10m",
            description = "bound on each job, e.g. 90s or 10m; default: ${DEFAULT-VALUE}")
    String timeout = "10m";

    @Option(names = "--hosts", paramLabel = "FILE",
            description = "run the ranks on these hosts (a railyard run hosts file) instead of locally")
    Path hosts;

    @Option(names = "--rsh", paramLabel = "CMD", description = "with --hosts: command that runs a command on a host; default: ssh")
    String rsh;

    @Option(names = "--env", paramLabel = "K=V",
            description = "environment of every rank (settings such as RAILYARD_RAILS=4); repeatable")
    Map<String, String> env = new java.util.LinkedHashMap<>();

    @Option(names = "--jvm-arg", paramLabel = "OPTION",
            description = "extra JVM option for every rank (repeatable), e.g. -XX:StartFlightRecording=filename=r.jfr")
    List<String> jvmArgs = new ArrayList<>();

    /** Runs the command; see the class comment for the exit status. */
    @Override
    public Integer call() {
        PrintWriter out = spec.commandLine().getOut();
        PrintWriter err = spec.commandLine().getErr();
        List<JobSpec> jobs;
        try {
            jobs = jobs();
        } catch (IllegalArgumentException e) {
            err.println("railyard bench: " + e.getMessage());
            err.flush();
            return 2;
        }
        return runJobs(jobs, alloc, tsv, png, out, err);
    }

    /**
     * Runs the jobs one after the other, printing rank 0's result rows under one header to
     * {@code out} and everything else to {@code err}; then writes {@code tsv} and {@code png} when
     * given. Returns the exit status of the class comment. Shared by the {@code bench} subcommands
     * that run a rank program as a local job ({@link RmaCommand}).
     */
    static int runJobs(List<JobSpec> jobs, boolean alloc, Path tsv, Path png, PrintWriter out, PrintWriter err) {
        List<Row> rows = new ArrayList<>();
        boolean headerPrinted = false;
        for (JobSpec job : jobs) {
            List<String> lines = new ArrayList<>();
            LineSink stdout = (rank, line) -> {
                if (rank == 0) {
                    lines.add(line);
                } else {
                    err.println("[" + rank + "] " + line);
                    err.flush();
                }
            };
            LineSink stderr = (rank, line) -> {
                err.println((rank == LineSink.LAUNCHER ? "" : "[" + rank + "] ") + line); // the launcher's lines name it already
                err.flush();
            };
            JobResult result = Launcher.run(job, stdout, stderr);
            List<Row> got;
            try {
                got = Tsv.parse(lines);
            } catch (IllegalArgumentException e) {
                err.println("railyard bench: " + e.getMessage());
                got = List.of();
            }
            if (!headerPrinted && !got.isEmpty()) {
                out.println(Tsv.header(alloc));
                headerPrinted = true;
            }
            for (Row r : got) {
                out.println(Tsv.format(r, alloc));
            }
            out.flush();
            for (String l : lines) {
                if (!isResult(l)) {
                    err.println("[0] " + l);
                }
            }
            err.flush();
            rows.addAll(got);
            if (!result.ok()) {
                err.println("railyard bench: " + result.summary());
                err.flush();
                return result.exitCode();
            }
            if (got.isEmpty()) {
                err.println("railyard bench: the job ended without printing results");
                err.flush();
                return 1;
            }
        }
        try {
            if (tsv != null) {
                Path parent = tsv.toAbsolutePath().getParent();
                if (parent != null) {
                    Files.createDirectories(parent);
                }
                Files.writeString(tsv, Tsv.write(rows), StandardCharsets.UTF_8);
            }
            if (png != null) {
                Plot.write(rows, png);
            }
        } catch (IOException | IllegalArgumentException e) {
            err.println("railyard bench: cannot write results: " + e.getMessage());
            err.flush();
            return 1;
        }
        return 0;
    }

    /**
     * The jobs this command runs: one per {@code --transports} value (one job with no restriction
     * when none is given), each checked and bounded by {@code --timeout}.
     *
     * @throws IllegalArgumentException on a bad option value
     */
    List<JobSpec> jobs() {
        if (np < 1) {
            throw new IllegalArgumentException("--np must be at least 1, got " + np);
        }
        if (window < 1) {
            throw new IllegalArgumentException("--window must be at least 1, got " + window);
        }
        if (iters != null && iters < 1) {
            throw new IllegalArgumentException("--iters must be at least 1, got " + iters);
        }
        // an unknown name is refused here, once, rather than by every rank
        if (Benchmark.parseList(benchmarks).stream().anyMatch(Benchmark::pointToPoint) && np < 2) {
            throw new IllegalArgumentException("latency, bw and bibw need --np 2 or more");
        }
        Sizes.parseList(sizes);
        List<String> args = new ArrayList<>(List.of(benchmarks, "--sizes", sizes, "--window", Integer.toString(window)));
        if (iters != null) {
            args.addAll(List.of("--iters", Long.toString(iters)));
        }
        if (alloc) {
            args.add("--alloc");
        }
        if (noJitWarmup) {
            args.add("--no-jit-warmup");
        }
        return perTransport(RANK_MAIN, np, args, transports, env, jvmArgs, timeout, hosts, rsh);
    }

    /**
     * One job of {@code np} ranks running {@code main} with {@code args} per value of
     * {@code transports} (one job with no restriction when empty): each value is added to the
     * arguments as {@code --transport T} and set as RAILYARD_TRANSPORTS; every job is bounded by
     * {@code timeout}, on {@code hosts} (a hosts file) when given.
     *
     * @throws IllegalArgumentException on a bad transport list, timeout or hosts file
     */
    static List<JobSpec> perTransport(String main, int np, List<String> args, List<String> transports,
                                      Map<String, String> env, List<String> jvmArgs, String timeout, Path hosts,
                                      String rsh) {
        Duration limit = Config.parseDuration("--timeout", timeout);
        if (limit.isZero()) {
            throw new IllegalArgumentException("--timeout must be positive");
        }
        List<org.railyard.launcher.Host> hostList = hosts == null ? List.of() : org.railyard.launcher.Host.readFile(hosts);
        List<String> runs = transports.isEmpty() ? java.util.Collections.singletonList(null) : transports;
        List<JobSpec> out = new ArrayList<>();
        for (String t : runs) {
            List<String> jobArgs = new ArrayList<>(args);
            Map<String, String> jobEnv = new java.util.LinkedHashMap<>(env);
            // a benchmark measures warm code: the ahead-of-time cache stays off unless asked for
            // (with the launcher's auto, the second run would train it and time the training)
            jobEnv.putIfAbsent(Config.envName(Config.AOT_PROP), Config.string(Config.AOT_PROP, "off"));
            if (t != null) {
                if (t.isBlank() || t.chars().anyMatch(Character::isWhitespace)) {
                    throw new IllegalArgumentException("--transports value '" + t + "' must be a name or comma list without blanks");
                }
                try {
                    org.railyard.Railyard.checkTransports(t);
                } catch (IllegalArgumentException e) {
                    throw new IllegalArgumentException("--transports " + t + ": " + e.getMessage());
                }
                jobArgs.addAll(List.of("--transport", t));
                jobEnv.put(Config.envName(Config.TRANSPORTS_PROP), t);
            }
            out.add(new JobSpec(np, hostList, main, jobArgs, List.of(), jobEnv, jvmArgs, limit, rsh));
        }
        return out;
    }

    /** True for the header and the result rows among rank 0's lines; false for anything else it printed. */
    private static boolean isResult(String line) {
        if (Tsv.isHeader(line)) {
            return true;
        }
        try {
            return Tsv.parseRow(line) != null;
        } catch (IllegalArgumentException e) {
            return false;
        }
    }

    /** Runs {@code railyard bench} on its own (the CLI normally hosts it as a subcommand). */
    public static void main(String[] args) {
        System.exit(new CommandLine(new BenchCommand()).execute(args));
    }
}
