package org.railyard.bench;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import org.railyard.launcher.JobSpec;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/**
 * {@code railyard bench rma}: runs {@link RmaBenchRank} as a local job of two ranks, once per
 * {@code --transports} value, and prints rank 0's TSV (benchmark column {@code NAME-MODE}, such as
 * {@code put_latency-flush}); the exit status is {@code railyard bench}'s.
 */
@Command(name = "rma", mixinStandardHelpOptions = true,
        description = {"Measures one-sided communication (windows) between two local ranks, by the OSU one-sided method: "
                + "put/get latency and bandwidth, accumulate, fetch-and-op and compare-and-swap latency, "
                + "under flush, lock, fence and post/start/complete/wait synchronisation.",
                "Prints TSV: benchmark-mode, transport, np, bytes, iterations, mean_us, p50_us, p99_us, max_us, MB_s."})
public final class RmaCommand implements Callable<Integer> {
    @Spec
    CommandSpec spec;

    @Parameters(index = "0", arity = "0..1", defaultValue = "all", paramLabel = "BENCHMARK",
            description = "put_latency, get_latency, put_bw, get_bw, acc_latency, fop_latency, cas_latency or all "
                    + "(or a comma-separated list); default: all")
    String benchmarks = "all";

    @Option(names = "--sync", paramLabel = "LIST", defaultValue = "all",
            description = "synchronisation modes: flush, lock, fence, pscw or all (comma-separated); default: all")
    String sync = "all";

    @Option(names = "--transports", paramLabel = "LIST",
            description = "transports the job may use (RAILYARD_TRANSPORTS), e.g. shm or tcp; repeat to run once per value")
    List<String> transports = new ArrayList<>();

    @Option(names = "--sizes", defaultValue = Sizes.DEFAULT, paramLabel = "SPEC",
            description = "sizes: comma-separated (8, 64k, 4m) or power-of-two ranges LO:HI; default: ${DEFAULT-VALUE}")
    String sizes = Sizes.DEFAULT;

    @Option(names = "--iters", paramLabel = "N",
            description = "timed latency iterations up to 8 KiB (others scale with it); default: 10000")
    Long iters;

    @Option(names = "--op", paramLabel = "OP[:TYPE]", defaultValue = "sum",
            description = "acc_latency's operation: sum, prod, max, min or bor, of int (default), long, float or "
                    + "double values, e.g. max:float (bor: integers only); default: ${DEFAULT-VALUE}")
    String op = "sum";

    @Option(names = "--no-jit-warmup", description = "skip the untimed passes before each size that let the JIT settle")
    boolean noJitWarmup;

    @Option(names = "--alloc", description = "add a column: heap bytes rank 0's JVM allocated per operation once warm")
    boolean alloc;

    @Option(names = "--heap", description = "windows over byte arrays (Window.create) instead of allocated ones; put and get only")
    boolean heap;

    @Option(names = "--png", paramLabel = "FILE", description = "write a log-log plot of the results")
    Path png;

    @Option(names = "--tsv", paramLabel = "FILE", description = "also write the results to this file")
    Path tsv;

    @Option(names = "--timeout", paramLabel = "DURATION", defaultValue = "30m",
            description = "bound on each job, e.g. 90s or 10m; default: ${DEFAULT-VALUE}")
    String timeout = "30m";

    @Option(names = "--env", paramLabel = "K=V", description = "environment of both ranks; repeatable")
    Map<String, String> env = new LinkedHashMap<>();

    @Option(names = "--jvm-arg", paramLabel = "OPTION", description = "extra JVM option for both ranks (repeatable)")
    List<String> jvmArgs = new ArrayList<>();

    @Override
    public Integer call() {
        List<JobSpec> jobs;
        try {
            jobs = jobs();
        } catch (IllegalArgumentException e) {
            spec.commandLine().getErr().println("railyard bench rma: " + e.getMessage());
            spec.commandLine().getErr().flush();
            return 2;
        }
        return BenchCommand.runJobs(jobs, alloc, tsv, png, spec.commandLine().getOut(), spec.commandLine().getErr());
    }

    /** The jobs: one per transport; the rank program's options are checked here first. */
    List<JobSpec> jobs() {
        List<String> args = new ArrayList<>(List.of(benchmarks, "--sync", sync, "--sizes", sizes, "--op", op));
        if (iters != null) {
            args.addAll(List.of("--iters", Long.toString(iters)));
        }
        if (noJitWarmup) {
            args.add("--no-jit-warmup");
        }
        if (alloc) {
            args.add("--alloc");
        }
        if (heap) {
            args.add("--heap");
        }
        RmaBenchRank.Options.parse(args.toArray(String[]::new));
        return BenchCommand.perTransport(RmaBenchRank.class.getName(), 2, args, transports, env, jvmArgs, timeout,
                null, null);
    }
}
