package org.railyard.systest.slurm;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Assumptions;
import org.railyard.systest.Jobs;
import org.railyard.testkit.Await;

/**
 * A one-node Slurm cluster on this machine, for the tests' lifetime: munged (started as user
 * {@code munge} when none answers, with its socket directory made and its directories owned by
 * {@code munge}), then slurmctld and slurmd in the foreground, from a slurm.conf written under
 * the test's directory with ports of their own, so that nothing else on the machine is touched.
 * {@link #close()} cancels what is left of the jobs and stops slurmctld and slurmd. munged, the
 * machine's one authentication daemon (its socket is /run/munge's, not the test's), stays up:
 * another suite on the machine may be using it, and one that stopped it made a concurrent suite's
 * cluster fail every authentication (two fresh-clone CI runs side by side).
 *
 * <p>The node declares {@value #CPUS} CPUs ({@code SlurmdParameters=config_overrides}), so that
 * tests may oversubscribe a small machine as the PMI tests do. {@link #startOrSkip(Path, int)}
 * with two or more nodes runs one slurmd per node on this host (Slurm's multiple-slurmd mode:
 * nodes {@code ry1}, {@code ry2}, ... with a port, spool directory, pid and log file each,
 * {@code slurmd -N name}), which Debian's slurm-wlm 22.05 accepts.
 *
 * <p>Skips (JUnit assumption, with the reason) when slurm-wlm or munge is not installed, or when
 * not run as root (slurmd must be root to start tasks as the job's user).
 */
public final class SlurmCluster implements AutoCloseable {
    static final int CPUS = 64;
    private static final Duration START_LIMIT = Duration.ofSeconds(90);
    private static final Path MUNGE_SOCKET_DIR = Path.of("/run/munge");

    private final Path dir;
    private final Path conf;
    private final String node;
    private final int nodes;
    private final List<Process> daemons = new ArrayList<>();

    private SlurmCluster(Path dir, String node, int nodes) {
        this.dir = dir;
        this.conf = dir.resolve("slurm.conf");
        this.node = node;
        this.nodes = nodes;
    }

    /** Starts a one-node cluster under {@code dir}, or skips the calling tests saying why it cannot. */
    public static SlurmCluster startOrSkip(Path dir) throws Exception {
        return startOrSkip(dir, 1);
    }

    /**
     * Starts a cluster of {@code nodes} nodes on this host under {@code dir} (one slurmd each from
     * two on), or skips the calling tests saying why it cannot.
     */
    public static SlurmCluster startOrSkip(Path dir, int nodes) throws Exception {
        for (String tool : List.of("srun", "sbatch", "scancel", "slurmctld", "slurmd", "munged", "munge")) {
            Assumptions.assumeTrue(Jobs.onPath(tool).isPresent() || Files.isExecutable(Path.of("/usr/sbin", tool)),
                    tool + " is not installed (Debian: apt-get install slurm-wlm munge; bin/test installs them):"
                            + " skipping the Slurm system tests");
        }
        Assumptions.assumeTrue("root".equals(System.getProperty("user.name")),
                "not root: slurmd must run as root to start tasks, skipping the Slurm system tests");
        String node = run(List.of("hostname", "-s"), Duration.ofSeconds(10), Map.of()).trim();
        SlurmCluster c = new SlurmCluster(dir, node, nodes);
        try {
            c.start();
        } catch (Exception | AssertionError e) {
            c.close();
            throw e;
        }
        return c;
    }

    private void start() throws Exception {
        ensureMunge();
        Files.createDirectories(dir.resolve("state"));
        Files.createDirectories(dir.resolve("spool"));
        List<String> names = new ArrayList<>();
        List<String> nodeLines = new ArrayList<>();
        if (nodes == 1) {
            names.add(node);
            nodeLines.add("NodeName=" + node + " CPUs=" + CPUS + " State=UNKNOWN");
        } else {
            for (int i = 1; i <= nodes; i++) {
                names.add("ry" + i);
                Files.createDirectories(dir.resolve("spool-ry" + i));
                nodeLines.add("NodeName=ry" + i + " NodeHostname=" + node + " NodeAddr=127.0.0.1 Port=" + freePort()
                        + " CPUs=" + CPUS + " State=UNKNOWN");
            }
        }
        String each = nodes == 1 ? "" : "-%n";
        Files.writeString(conf, String.join("\n",
                "ClusterName=railyard-test",
                "SlurmctldHost=" + node,
                "SlurmUser=root",
                "SlurmctldPort=" + freePort(),
                "SlurmdPort=" + freePort(),
                "AuthType=auth/munge",
                "StateSaveLocation=" + dir.resolve("state"),
                "SlurmdSpoolDir=" + dir.resolve("spool" + each),
                "SlurmctldPidFile=" + dir.resolve("slurmctld.pid"),
                "SlurmdPidFile=" + dir.resolve("slurmd" + each + ".pid"),
                "SlurmctldLogFile=" + dir.resolve("slurmctld.log"),
                "SlurmdLogFile=" + dir.resolve("slurmd" + each + ".log"),
                "ProctrackType=proctrack/linuxproc",
                "TaskPlugin=task/none",
                "MpiDefault=none",
                "SelectType=select/cons_tres",
                "SelectTypeParameters=CR_CPU",
                "SchedulerType=sched/builtin",
                "ReturnToService=2",
                "SlurmdParameters=config_overrides",
                "JobCompType=jobcomp/none",
                "AccountingStorageType=accounting_storage/none",
                "KillWait=5",
                "MinJobAge=600",
                "InactiveLimit=0",
                String.join("\n", nodeLines),
                "PartitionName=debug Nodes=ALL Default=YES MaxTime=INFINITE State=UP",
                ""));
        daemons.add(daemon(List.of(sbin("slurmctld"), "-D", "-c", "-f", conf.toString()), "slurmctld"));
        if (nodes == 1) {
            daemons.add(daemon(List.of(sbin("slurmd"), "-D", "-f", conf.toString()), "slurmd"));
        } else {
            for (String n : names) {
                daemons.add(daemon(List.of(sbin("slurmd"), "-D", "-N", n, "-f", conf.toString()), "slurmd-" + n));
            }
        }
        Await.awaitUntil(() -> {
            for (Process p : daemons) {
                if (!p.isAlive()) {
                    throw new AssertionError("a Slurm daemon exited with code " + p.exitValue() + " at start; see "
                            + dir.resolve("slurmctld.log") + " and " + dir.resolve("slurmd.log") + "\n" + logs());
                }
            }
            String state = tryRun(List.of("sinfo", "-h", "-N", "-o", "%T"));
            return state != null && state.trim().lines().filter(l -> l.trim().equals("idle")).count() == nodes;
        }, START_LIMIT, () -> "the " + names + " to be idle in sinfo\n" + logs());
    }

    /** munged answers already, or is started here as user munge (and left running: see the class). */
    private void ensureMunge() throws Exception {
        if (tryRun(List.of("sh", "-c", "munge -n | unmunge")) != null) {
            return;
        }
        Files.createDirectories(MUNGE_SOCKET_DIR);
        for (String d : List.of(MUNGE_SOCKET_DIR.toString(), "/var/log/munge", "/var/lib/munge", "/etc/munge")) {
            run(List.of("chown", "-R", "munge:munge", d), Duration.ofSeconds(10), Map.of());
        }
        run(List.of("runuser", "-u", "munge", "--", sbin("munged")), Duration.ofSeconds(30), Map.of());
        Await.awaitUntil(() -> tryRun(List.of("sh", "-c", "munge -n | unmunge")) != null, Duration.ofSeconds(30),
                "munged to answer on " + MUNGE_SOCKET_DIR);
    }

    /** A daemon's binary: on the PATH, or in /usr/sbin where Debian puts it (not on every PATH). */
    private static String sbin(String name) {
        return Jobs.onPath(name).map(Path::toString).orElse("/usr/sbin/" + name);
    }

    private Process daemon(List<String> command, String name) throws IOException {
        ProcessBuilder pb = new ProcessBuilder(command);
        pb.redirectErrorStream(true);
        pb.redirectOutput(dir.resolve(name + ".out").toFile());
        return pb.start();
    }

    /** The environment every Slurm command of this cluster needs. */
    Map<String, String> env() {
        return Map.of("SLURM_CONF", conf.toString());
    }

    String node() {
        return node;
    }

    Path dir() {
        return dir;
    }

    /** The end of both daemons' logs, for failure messages. */
    public String logs() {
        StringBuilder sb = new StringBuilder();
        List<String> files = new ArrayList<>(List.of("slurmctld.log", "slurmctld.out"));
        for (String d : nodes == 1 ? List.of("slurmd") : java.util.stream.IntStream.rangeClosed(1, nodes)
                .mapToObj(i -> "slurmd-ry" + i).toList()) {
            files.add(d + ".log");
            files.add(d + ".out");
        }
        for (String f : files) {
            try {
                List<String> lines = Files.readAllLines(dir.resolve(f));
                sb.append("--- ").append(f).append(" (end)\n");
                lines.subList(Math.max(0, lines.size() - 20), lines.size()).forEach(l -> sb.append(l).append('\n'));
            } catch (IOException e) {
                sb.append("--- ").append(f).append(": ").append(e.getMessage()).append('\n');
            }
        }
        return sb.toString();
    }

    /** A finished command: exit code and both streams. */
    public record Result(int exitCode, String stdout, String stderr) {
        @Override
        public String toString() {
            return "exit code " + exitCode + "\n--- stdout\n" + stdout + "--- stderr\n" + stderr;
        }
    }

    /**
     * Runs {@code command} with this cluster's environment, bounded by {@code limit} (then it is
     * killed, with its descendants, and the result has exit code -1).
     */
    public Result exec(List<String> command, Duration limit) throws IOException, InterruptedException {
        ProcessBuilder pb = new ProcessBuilder(command);
        pb.environment().putAll(env());
        Path out = Files.createTempFile(dir, "out", ".txt");
        Path err = Files.createTempFile(dir, "err", ".txt");
        pb.redirectOutput(out.toFile());
        pb.redirectError(err.toFile());
        Process p = pb.start();
        boolean ended = p.waitFor(limit.toMillis(), TimeUnit.MILLISECONDS);
        if (!ended) {
            p.descendants().forEach(ProcessHandle::destroyForcibly);
            p.destroyForcibly();
            p.waitFor(10, TimeUnit.SECONDS);
        }
        return new Result(ended ? p.exitValue() : -1, Files.readString(out, StandardCharsets.UTF_8),
                Files.readString(err, StandardCharsets.UTF_8));
    }

    /** Starts {@code command} with this cluster's environment, output to {@code out}. */
    Process spawn(List<String> command, Path out) throws IOException {
        ProcessBuilder pb = new ProcessBuilder(command);
        pb.environment().putAll(env());
        pb.redirectErrorStream(true);
        pb.redirectOutput(out.toFile());
        return pb.start();
    }

    /** A command's stdout under this cluster's environment, or null if it failed. */
    private String tryRun(List<String> command) {
        try {
            return run(command, Duration.ofSeconds(20), env());
        } catch (Exception e) {
            return null;
        }
    }

    private static String run(List<String> command, Duration limit, Map<String, String> env) throws Exception {
        ProcessBuilder pb = new ProcessBuilder(command);
        pb.environment().putAll(env);
        pb.redirectErrorStream(true);
        Process p = pb.start();
        byte[] out = p.getInputStream().readAllBytes();
        if (!p.waitFor(limit.toMillis(), TimeUnit.MILLISECONDS)) {
            p.destroyForcibly();
            throw new IOException(command + " did not end within " + limit);
        }
        String text = new String(out, StandardCharsets.UTF_8);
        if (p.exitValue() != 0) {
            throw new IOException(command + " exited with code " + p.exitValue() + ": " + text);
        }
        return text;
    }

    private static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getByName("0.0.0.0"))) {
            return s.getLocalPort();
        }
    }

    /** Cancels the remaining jobs, then stops slurmd and slurmctld (munged stays: see the class). */
    @Override
    public void close() {
        tryRun(List.of("scancel", "--quiet", "--partition=debug"));
        for (Process p : daemons.reversed()) {
            p.destroy(); // SIGTERM: both daemons shut down cleanly on it
            try {
                if (!p.waitFor(30, TimeUnit.SECONDS)) {
                    p.destroyForcibly();
                    p.waitFor(10, TimeUnit.SECONDS);
                }
            } catch (InterruptedException e) {
                p.destroyForcibly();
                Thread.currentThread().interrupt();
            }
        }
    }
}
