package org.railyard.bench;

import java.io.IOException;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.railyard.launcher.Host;
import org.railyard.launcher.JobResult;
import org.railyard.launcher.JobSpec;
import org.railyard.launcher.Launcher;
import org.railyard.launcher.LineSink;
import org.railyard.util.Config;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code railyard bench stream}: one long stream from rank 0 to rank 1 ({@link StreamRank}) on
 * the hosts given (or locally), with the rails and policy given, while a script of steps runs
 * beside it: each step is a shell command run when the receiver has reported a given amount of
 * data, or a given time after the step before, so faults happen at moments tied to progress
 * ({@code --step 30%:'ip link set r1 down' --step +10s:'ip link set r1 up'}). Prints the result and
 * what each rail did, and writes the throughput over time as TSV and as a PNG with the steps and
 * the rails' failures marked.
 *
 * <p>Exit status: the job's (non-zero when a rank failed, for example when a partition outlasted
 * its bound); 1 when the data arrived damaged or an output cannot be written; 2 on bad options.
 */
@Command(name = "stream", mixinStandardHelpOptions = true,
        description = {"Streams data from rank 0 to rank 1 and reports throughput over time per rail, "
                + "optionally running fault steps (shell commands) at given points of the transfer."})
public final class StreamCommand implements Callable<Integer> {
    @Spec
    CommandSpec spec;

    @Option(names = "--bytes", defaultValue = "1g", description = "data to stream; default: ${DEFAULT-VALUE}")
    String bytes = "1g";

    @Option(names = "--message", defaultValue = "4m", description = "message size; default: ${DEFAULT-VALUE}")
    String message = "4m";

    @Option(names = "--window", defaultValue = "4", description = "messages in flight; default: ${DEFAULT-VALUE}")
    int window = 4;

    @Option(names = "--warmup", defaultValue = "0",
            description = "data streamed first and left out of the timing (JIT warm-up); default: ${DEFAULT-VALUE}")
    String warmup = "0";

    @Option(names = "--hosts", paramLabel = "FILE", description = "hosts file for the two ranks (see railyard run)")
    Path hosts;

    @Option(names = "--rsh", paramLabel = "CMD", description = "command that runs a command on a host; default: ssh")
    String rsh;

    @Option(names = "--rails", paramLabel = "N", description = "connections per network path (RAILYARD_RAILS)")
    Integer rails;

    @Option(names = "--policy", paramLabel = "P", description = "rail policy (RAILYARD_RAIL_POLICY), e.g. even, adaptive, bss:4,2")
    String policy;

    @Option(names = "--env", paramLabel = "K=V", description = "environment of both ranks; repeatable")
    Map<String, String> env = new LinkedHashMap<>();

    @Option(names = "--step", paramLabel = "WHEN:CMD",
            description = {"run CMD (with sh -c) when WHEN holds: a size (300m) or a share (30%%) of the data received "
                    + "(warm-up included), "
                    + "or +DURATION after the previous step (+10s); repeatable, run in order"})
    List<String> steps = new ArrayList<>();

    @Option(names = "--label", description = "name of this run in the result line; default: the policy")
    String label;

    @Option(names = "--title", description = "title of the plot")
    String title;

    @Option(names = "--png", paramLabel = "FILE", description = "write throughput over time as a PNG plot")
    Path png;

    @Option(names = "--tsv", paramLabel = "FILE", description = "write throughput over time as TSV")
    Path tsv;

    @Option(names = "--timeout", defaultValue = "10m", description = "bound on the job; default: ${DEFAULT-VALUE}")
    String timeout = "10m";

    @Option(names = "--jvm-arg", paramLabel = "OPTION", description = "extra JVM option for both ranks; repeatable")
    List<String> jvmArgs = new ArrayList<>();

    /** A parsed {@code --step}: after {@code afterBytes} received, or {@code afterNanos} after the previous step. */
    record Step(long afterBytes, long afterNanos, String command) {
        static Step parse(String text, long total) {
            int colon = text.indexOf(':');
            if (colon <= 0 || colon == text.length() - 1) {
                throw new IllegalArgumentException("--step '" + text + "' is not WHEN:COMMAND");
            }
            String when = text.substring(0, colon).trim();
            String cmd = text.substring(colon + 1).trim();
            if (when.startsWith("+")) {
                return new Step(-1, Config.parseDuration("--step", when.substring(1)).toNanos(), cmd);
            }
            if (when.endsWith("%")) {
                double share = Double.parseDouble(when.substring(0, when.length() - 1));
                if (share < 0 || share > 100) {
                    throw new IllegalArgumentException("--step '" + text + "': a share must be between 0% and 100%");
                }
                return new Step((long) (total * share / 100), -1, cmd);
            }
            return new Step(Config.parseBytes("--step", when), -1, cmd);
        }
    }

    @Override
    public Integer call() {
        PrintWriter out = spec.commandLine().getOut();
        PrintWriter err = spec.commandLine().getErr();
        JobSpec job;
        List<Step> plan = new ArrayList<>();
        try {
            StreamRank.Options o = StreamRank.Options.parse("--bytes", bytes, "--message", message, "--window",
                    Integer.toString(window), "--warmup", warmup);
            long total = o.messages() * o.message();
            for (String s : steps) {
                plan.add(Step.parse(s, total));
            }
            job = job();
        } catch (IllegalArgumentException e) {
            err.println("railyard bench stream: " + e.getMessage());
            err.flush();
            return 2;
        }
        StreamReport report = new StreamReport();
        AtomicLong received = new AtomicLong();
        AtomicLong startWall = new AtomicLong();
        Object lock = new Object();
        LineSink stdout = (rank, line) -> {
            synchronized (lock) {
                if (rank == 1 && line.startsWith("START ")) {
                    startWall.set(Long.parseLong(line.substring(6).trim()));
                }
                if (rank == 1 && line.startsWith("PROGRESS ")) {
                    received.set(Long.parseLong(line.split(" ")[1]));
                    lock.notifyAll();
                }
                if (!report.add(rank, line)) {
                    err.println("[" + rank + "] " + line);
                    err.flush();
                }
            }
        };
        LineSink stderr = (rank, line) -> {
            err.println((rank == LineSink.LAUNCHER ? "" : "[" + rank + "] ") + line);
            err.flush();
        };
        Thread stepper = Thread.ofPlatform().daemon().name("stream-steps").unstarted(
                () -> runSteps(plan, received, startWall, lock, report, err));
        stepper.start();
        JobResult result = Launcher.run(job, stdout, stderr);
        stepper.interrupt();
        try {
            stepper.join(Duration.ofSeconds(65));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        String name = label != null ? label : policy != null ? policy : "default";
        out.println("run\ttimed_bytes\tseconds\tMbit_s\tcheck");
        if (report.result != null) {
            out.printf("%s\t%d\t%.3f\t%.1f\t%s%n", name, report.bytes, report.seconds, report.mbit, report.crcOk ? "ok" : report.result);
        } else {
            out.printf("%s\t-\t-\t-\tfailed: %s%n", name, result.summary());
        }
        for (String f : report.failures) {
            out.println("failed\trank " + f);
        }
        for (StreamReport.Step s : report.steps) {
            out.printf("step\t%.1f s\t%s%n", s.ms() / 1000, s.label());
        }
        for (StreamReport.Event e : report.events) {
            out.printf("event\trank %d rail %d\t%.1f s\t%s%s%n", e.rank(), e.rail(), e.ms() / 1000, e.state(),
                    e.why().isEmpty() ? "" : "\t" + e.why());
        }
        for (String r : report.rails) {
            out.println("rail\t" + r);
        }
        out.flush();
        try {
            if (tsv != null) {
                Path parent = tsv.toAbsolutePath().getParent();
                if (parent != null) {
                    Files.createDirectories(parent);
                }
                Files.writeString(tsv, report.tsv(), StandardCharsets.UTF_8);
            }
            if (png != null && !report.series.isEmpty()) {
                report.plot(png, title != null ? title : "stream, " + name);
            }
        } catch (IOException | IllegalArgumentException e) {
            err.println("railyard bench stream: cannot write results: " + e.getMessage());
            err.flush();
            return 1;
        }
        if (!result.ok()) {
            err.println("railyard bench stream: " + result.summary());
            err.flush();
            return result.exitCode();
        }
        return report.crcOk ? 0 : 1;
    }

    /** Runs the steps in order as their conditions come true; stops when interrupted (the job ended). */
    private static void runSteps(List<Step> plan, AtomicLong received, AtomicLong startWall, Object lock,
                                 StreamReport report, PrintWriter err) {
        long previous = System.nanoTime();
        try {
            for (Step s : plan) {
                synchronized (lock) {
                    if (s.afterBytes() >= 0) {
                        while (received.get() < s.afterBytes()) {
                            lock.wait(1000); // woken by every PROGRESS line; the job's end interrupts
                        }
                    }
                }
                if (s.afterNanos() >= 0) {
                    long due = previous + s.afterNanos();
                    long left;
                    while ((left = due - System.nanoTime()) > 0) {
                        TimeUnit.NANOSECONDS.sleep(left); // the scenario's own duration, not a stand-in for a condition
                    }
                }
                previous = System.nanoTime();
                double ms = startWall.get() == 0 ? 0 : System.currentTimeMillis() - startWall.get();
                synchronized (lock) {
                    report.steps.add(new StreamReport.Step(ms, s.command()));
                }
                err.printf("railyard bench stream: step at %.1f s: %s%n", ms / 1000, s.command());
                err.flush();
                Process p = new ProcessBuilder("sh", "-c", s.command()).inheritIO().start();
                if (!p.waitFor(60, TimeUnit.SECONDS)) {
                    p.destroyForcibly();
                    err.println("railyard bench stream: step did not end within 60 s: " + s.command());
                } else if (p.exitValue() != 0) {
                    err.println("railyard bench stream: step exited with " + p.exitValue() + ": " + s.command());
                }
                err.flush();
            }
        } catch (InterruptedException e) {
            // the job ended before every step ran: the rest do not apply
        } catch (IOException e) {
            err.println("railyard bench stream: cannot run a step: " + e.getMessage());
            err.flush();
        }
    }

    /** The job this command runs, checked. */
    JobSpec job() {
        if (window < 1) {
            throw new IllegalArgumentException("--window must be at least 1, got " + window);
        }
        Duration limit = Config.parseDuration("--timeout", timeout);
        Map<String, String> e = new LinkedHashMap<>(env);
        if (rails != null) {
            if (rails < 1) {
                throw new IllegalArgumentException("--rails must be at least 1, got " + rails);
            }
            e.put(Config.envName(Config.RAILS_PROP), Integer.toString(rails));
        }
        if (policy != null) {
            org.railyard.channel.RailPolicies.create(policy, 0, 1);
            e.put(Config.envName(Config.RAIL_POLICY_PROP), policy);
        }
        List<Host> hostList = hosts == null ? List.of() : Host.readFile(hosts);
        List<String> args = List.of("--bytes", bytes, "--message", message, "--window", Integer.toString(window),
                "--warmup", warmup);
        return new JobSpec(2, hostList, StreamRank.class.getName(), args, List.of(), e, jvmArgs, limit, rsh);
    }
}
