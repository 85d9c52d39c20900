package org.railyard.launcher;

import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.DatagramSocket;
import java.net.Inet4Address;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.NetworkInterface;
import java.net.SocketException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.jar.JarFile;
import java.util.jar.Manifest;
import org.railyard.bootstrap.KvBootstrap;
import org.railyard.bootstrap.KvServer;
import org.railyard.bootstrap.StartupTiming;
import org.railyard.util.Config;

/**
 * Runs a job: starts its ranks, serves their key-value bootstrap ({@link KvServer}), forwards their
 * output line by line, and stops them all when one fails, when the job's timeout expires or when
 * the launcher itself is stopped.
 *
 * <h2>What each rank gets</h2>
 * Every rank runs the launcher's own {@code java} binary with
 * {@code --enable-native-access=ALL-UNNAMED}, {@value #EXIT_WITHOUT_WAIT}, the spec's JVM options, and a class path of the
 * spec's entries followed by the launcher's class path (so Railyard is found). Its environment is
 * the spec's, plus:
 * <ul>
 *   <li>{@code RAILYARD_KV} ({@link KvBootstrap#ENV_KV}): {@code host:port} of the key-value
 *       server, on 127.0.0.1 for local jobs and on this machine's address for jobs with hosts
 *       (override with the setting {@code railyard.launcher.host}, env
 *       {@code RAILYARD_LAUNCHER_HOST});</li>
 *   <li>{@code RAILYARD_RANK}, {@code RAILYARD_SIZE}, {@code RAILYARD_JOB},
 *       {@code RAILYARD_SECRET} (32 fresh random bytes per job, in hex);</li>
 *   <li>{@link #ENV_LOCAL_RANK}, {@link #ENV_LOCAL_SIZE}: position among the ranks placed on
 *       the same host, and their number.</li>
 * </ul>
 * Local ranks also inherit the launcher's environment; remote ranks get only the above, in the
 * launcher's working directory.
 *
 * <h2>Inside a Slurm allocation</h2>
 * With {@code SLURM_JOB_ID} set and no hosts, the ranks are started by {@code srun --mpi=pmi2}
 * and bootstrap through PMI-2 instead; see {@link SrunLaunch}.
 *
 * <h2>Remote ranks</h2>
 * A rank placed on a host other than localhost is started as {@code <rsh> host 'sh -c ...'}.
 * The remote shell runs the JVM in the background and watches its own standard input, which the
 * launcher holds open: when the launcher closes it (to stop the rank) or dies, the remote JVM gets
 * SIGTERM, so no rank outlives its launcher for lack of a pty.
 */
public final class Launcher {
    private Launcher() {
    }

    /** Environment variable: this rank's position among the ranks on its host, from 0. */
    public static final String ENV_LOCAL_RANK = "RAILYARD_LOCAL_RANK";
    /** Environment variable: the number of ranks on this rank's host. */
    public static final String ENV_LOCAL_SIZE = "RAILYARD_LOCAL_SIZE";
    /** Setting: address the ranks of a multi-host job use to reach the launcher. */
    public static final String LAUNCHER_HOST_PROP = "railyard.launcher.host";

    static final String NATIVE_ACCESS = "--enable-native-access=ALL-UNNAMED";
    /**
     * A rank's JVM ends without waiting for threads blocked in native code (the JDK's socket
     * poller, a futex wait) to leave it: JDK 25 otherwise waits for them at every exit
     * ({@code UserThreadWaitAttemptsAtExit}), for
     * threads whose work is over. Given before the spec's JVM options, so a job can ask otherwise.
     * What it saves at a job's end: docs/slurm.md, "What is left" of the threads25 pass.
     */
    static final String EXIT_WITHOUT_WAIT = "-XX:UserThreadWaitAttemptsAtExit=0";

    /**
     * Runs the job to its end and returns how it ended. Blocks for as long as the job runs (bounded
     * by the spec's timeout, if any). Lines of each rank's stdout go to {@code out}, of its stderr
     * to {@code err}; the launcher's own messages go to {@code err} with rank
     * {@link LineSink#LAUNCHER}. If the calling thread is interrupted, the ranks are stopped and
     * the result has exit code {@link JobResult#INTERRUPTED_EXIT}, with the interrupt flag set again.
     *
     * @throws IllegalArgumentException when the spec names a jar that does not exist or has no Main-Class
     * @throws UncheckedIOException     when the key-value server cannot be started
     */
    public static JobResult run(JobSpec spec, LineSink out, LineSink err) {
        return run(spec, r -> Map.of(), out, err);
    }

    /** Like {@link #run(JobSpec, LineSink, LineSink)}, with {@code perRank} adding to each rank's environment. */
    public static JobResult run(JobSpec spec, java.util.function.IntFunction<Map<String, String>> perRank, LineSink out,
                                LineSink err) {
        List<String> classpath = new ArrayList<>(spec.classpath());
        String mainClass = mainClass(spec.main(), classpath);
        String own = System.getProperty("java.class.path", "");
        if (!own.isEmpty()) {
            classpath.add(own);
        }
        List<String> command = new ArrayList<>();
        command.add(javaBinary());
        command.add(NATIVE_ACCESS);
        command.add(EXIT_WITHOUT_WAIT);
        command.addAll(spec.jvmArgs());
        command.add("-cp");
        command.add(String.join(File.pathSeparator, classpath));
        command.add(mainClass);
        command.addAll(spec.args());
        Map<String, String> launch = launchStamp(System.getenv());
        if (SrunLaunch.applies(spec, System.getenv())) {
            return SrunLaunch.run(spec, command, System.getenv(), launch, out, err);
        }

        List<Host> placement = spec.hosts().isEmpty() ? null : Host.place(spec.np(), spec.hosts());
        JobIdentity identity = JobIdentity.fresh();
        SerialSinks sinks = SerialSinks.of(out, err);
        LineSink serialOut = sinks.out();
        LineSink serialErr = sinks.err();
        AotCache aot = AotCache.plan(spec.env().getOrDefault(Config.envName(Config.AOT_PROP),
                Config.string(Config.AOT_PROP, Config.AOT_DEFAULT)), command.getFirst(), classpath, mainClass, spec.jvmArgs(),
                identity.id());
        String said = aot == null ? null : aot.describe();
        if (said != null) {
            serialErr.line(LineSink.LAUNCHER, "railyard run: " + said);
        }
        try (KvServer kv = KvServer.start(spec.np(), identity.id(), identity.secret(), new InetSocketAddress(0),
                msg -> serialErr.line(LineSink.LAUNCHER, msg))) {
            int restarts = (int) Long.parseLong(spec.env().getOrDefault(Config.envName(Config.RESTARTS_PROP), "0"));
            if (restarts > 0) {
                kv.allowRestarts();
            }
            // --restart: the ranks' checkpoints (Railyard.checkpoint) go to a directory of the job's,
            // unless one is given; ranks are started again on this host only, so a local one serves
            String ckptName = Config.envName(Config.CHECKPOINT_DIR_PROP);
            Path ckptDir = restarts > 0 && !spec.env().containsKey(ckptName) && System.getenv(ckptName) == null
                    ? Files.createTempDirectory("railyard-ckpt-" + identity.id() + "-") : null;
            Map<String, String> jobEnv = new LinkedHashMap<>(launch);
            jobEnv.putAll(stallReportDefault(spec, System.getenv()));
            if (ckptDir != null) {
                jobEnv.put(ckptName, ckptDir.toString());
            }
            String kvAddress = advertisedHost(placement) + ":" + kv.port();
            List<Job.Launch> launches = new ArrayList<>(spec.np());
            for (int r = 0; r < spec.np(); r++) {
                Map<String, String> env = new LinkedHashMap<>(spec.env());
                env.putAll(jobEnv);
                identity.putBootstrapEnv(env, kvAddress, r, spec.np());
                env.putAll(localPosition(placement, spec.np(), r));
                env.putAll(perRank.apply(r));
                Host host = placement == null ? null : placement.get(r);
                launches.add(host == null || host.isLoopback()
                        ? Job.Launch.local(r, inOwnSession(withAot(command, aot, r)), env)
                        : Job.Launch.remote(r, host.name(), rshCommand(spec.rsh(), host.name(), env, command)));
            }
            JobResult result;
            try {
                result = new Job(launches, spec.timeout(), restarts, serialOut, aot == null ? serialErr : aot.watch(serialErr)).run();
            } finally {
                deleteTree(ckptDir);
            }
            String kept = aot == null ? null : aot.finish(result.exitCode() == 0);
            if (kept != null) {
                serialErr.line(LineSink.LAUNCHER, "railyard run: " + kept);
            }
            return result;
        } catch (IOException e) {
            throw new UncheckedIOException("could not start the job's key-value server: " + e.getMessage(), e);
        }
    }

    /** Removes a directory of the job's (the checkpoints) and what it holds; null: nothing. */
    private static void deleteTree(Path dir) {
        if (dir == null) {
            return;
        }
        try (var files = Files.list(dir)) {
            for (Path f : files.toList()) {
                Files.deleteIfExists(f);
            }
            Files.deleteIfExists(dir);
        } catch (IOException e) {
            // a temporary directory left behind; the job's result stands
        }
    }

    /**
     * The launch time the ranks report their start-up stages from ({@link StartupTiming}): this
     * launcher's own start, unless {@code inherited} already holds one (a benchmark that timed
     * from before the launcher); empty when this JVM's start is unknown.
     */
    static Map<String, String> launchStamp(Map<String, String> inherited) {
        if (inherited.get(StartupTiming.LAUNCH_ENV) != null) {
            return Map.of();
        }
        return ProcessHandle.current().info().startInstant()
                .map(t -> Map.of(StartupTiming.LAUNCH_ENV, Long.toString(t.getEpochSecond() * 1_000_000L + t.getNano() / 1000)))
                .orElse(Map.of());
    }

    /** {@code setsid} of util-linux, or null where it is missing. */
    private static final String SETSID = java.util.stream.Stream.of("/usr/bin/setsid", "/bin/setsid")
            .filter(f -> Files.isExecutable(Path.of(f))).findFirst().orElse(null);

    /**
     * A local rank's command run in a session of its own ({@code setsid}, which execs the rank in
     * the same process, since the launcher's children lead no process group), as Hydra's proxy
     * starts each rank. Linux's scheduler with autogroups (sched_autogroup_enabled) shares the
     * processors between sessions first: in the launcher's one session, all ranks together got
     * one session's share on a busy machine (4 to 5 times Hydra's start-up time at 8 ranks with
     * the same processor time per rank). Unchanged where setsid is missing.
     */
    static List<String> inOwnSession(List<String> command) {
        if (SETSID == null) {
            return command;
        }
        List<String> c = new ArrayList<>(command.size() + 1);
        c.add(SETSID);
        c.addAll(command);
        return c;
    }

    /** The rank's command with its ahead-of-time cache options after the java binary (none without a cache). */
    private static List<String> withAot(List<String> command, AotCache aot, int rank) {
        if (aot == null || aot.optionsFor(rank).isEmpty()) {
            return command;
        }
        List<String> c = new ArrayList<>(command);
        c.addAll(1, aot.optionsFor(rank));
        return c;
    }

    /** The java binary of this very JVM, so ranks run the same Java as the launcher. */
    static String javaBinary() {
        return ProcessHandle.current().info().command()
                .orElse(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    }

    /** Resolves MAIN to a class name; a jar is added at the front of the class path. */
    static String mainClass(String main, List<String> classpath) {
        if (!main.toLowerCase(java.util.Locale.ROOT).endsWith(".jar")) {
            return main;
        }
        Path jar = Path.of(main).toAbsolutePath();
        if (!Files.isRegularFile(jar)) {
            throw new IllegalArgumentException("program jar " + main + " does not exist");
        }
        String cls;
        try (JarFile jf = new JarFile(jar.toFile())) {
            Manifest mf = jf.getManifest();
            cls = mf == null ? null : mf.getMainAttributes().getValue("Main-Class");
        } catch (IOException e) {
            throw new IllegalArgumentException("cannot read program jar " + main + ": " + e.getMessage(), e);
        }
        if (cls == null || cls.isBlank()) {
            throw new IllegalArgumentException("program jar " + main + " has no Main-Class in its manifest;"
                    + " give the class name as MAIN and the jar with --classpath");
        }
        classpath.addFirst(jar.toString());
        return cls.trim();
    }

    /**
     * Where ranks reach the key-value server: the loopback when every rank runs here, else the
     * configured launcher host, else the address this machine sends from to the first remote host
     * that resolves and has a route ({@link #routeSource}), else this machine's first non-loopback
     * IPv4 address (the system's order of interfaces, which need not be the one the hosts reach:
     * a bridge or a virtual machine's veth may come first).
     */
    static String advertisedHost(List<Host> placement) {
        if (placement == null || placement.stream().allMatch(Host::isLoopback)) {
            return "127.0.0.1";
        }
        String configured = Config.string(LAUNCHER_HOST_PROP, "");
        if (!configured.isEmpty()) {
            return configured;
        }
        for (Host h : placement) {
            String via = h.isLoopback() ? null : routeSource(h.name());
            if (via != null) {
                return via;
            }
        }
        try {
            for (NetworkInterface nif : Collections.list(NetworkInterface.getNetworkInterfaces())) {
                if (!nif.isUp() || nif.isLoopback()) {
                    continue;
                }
                for (InetAddress a : Collections.list(nif.getInetAddresses())) {
                    if (a instanceof Inet4Address && !a.isLoopbackAddress() && !a.isLinkLocalAddress()) {
                        return a.getHostAddress();
                    }
                }
            }
            return InetAddress.getLocalHost().getHostAddress();
        } catch (SocketException | java.net.UnknownHostException e) {
            throw new UncheckedIOException("cannot find an address of this machine for remote ranks to reach;"
                    + " set RAILYARD_LAUNCHER_HOST", e);
        }
    }

    /**
     * The IPv4 address of this machine that the kernel's routes send from to {@code host}; null
     * when the name does not resolve to an IPv4 address, no route leads there, or the route is the
     * loopback's. Connecting a datagram socket looks the route up and sends nothing.
     */
    static String routeSource(String host) {
        try {
            for (InetAddress a : InetAddress.getAllByName(host)) {
                if (!(a instanceof Inet4Address)) {
                    continue;
                }
                try (DatagramSocket probe = new DatagramSocket()) {
                    probe.connect(a, 9);
                    InetAddress from = probe.getLocalAddress();
                    if (from instanceof Inet4Address && !from.isAnyLocalAddress() && !from.isLoopbackAddress()) {
                        return from.getHostAddress();
                    }
                }
            }
        } catch (IOException e) {
            // an unknown name, or no route: the caller falls back
        }
        return null;
    }

    private static Map<String, String> localPosition(List<Host> placement, int np, int rank) {
        if (placement == null) {
            return Map.of(ENV_LOCAL_RANK, Integer.toString(rank), ENV_LOCAL_SIZE, Integer.toString(np));
        }
        String host = placement.get(rank).name();
        int localRank = 0;
        int localSize = 0;
        for (int r = 0; r < placement.size(); r++) {
            if (placement.get(r).name().equals(host)) {
                localRank += r < rank ? 1 : 0;
                localSize++;
            }
        }
        return Map.of(ENV_LOCAL_RANK, Integer.toString(localRank), ENV_LOCAL_SIZE, Integer.toString(localSize));
    }

    /**
     * The command that starts a rank on {@code host}: {@code rsh... host 'sh -c <script>'}. The
     * script runs in the launcher's working directory, starts the JVM in the background with
     * stdin from /dev/null, and kills it with SIGTERM when its own stdin (the rsh connection)
     * reaches end of file; it exits with the JVM's status, 128+N when the JVM died from signal N.
     */
    static List<String> rshCommand(String rsh, String host, Map<String, String> env, List<String> command) {
        StringBuilder java = new StringBuilder("env");
        env.forEach((k, v) -> java.append(' ').append(quote(k + "=" + v)));
        for (String word : command) {
            java.append(' ').append(quote(word));
        }
        // fd 3 keeps the rsh connection for the watcher; the JVM must not hold it, or the
        // connection would not reach end of file while the JVM lives.
        String script = "cd " + quote(System.getProperty("user.dir")) + " || exit 127; exec 3<&0; "
                + java + " </dev/null 3<&- & p=$!; "
                + "{ while read -r line; do :; done; kill -TERM $p 2>/dev/null; } <&3 & w=$!; exec 3<&-; "
                + "wait $p; s=$?; kill $w 2>/dev/null; exit $s";
        List<String> argv = new ArrayList<>(List.of(rsh.trim().split("\\s+")));
        argv.add(host);
        argv.add("sh -c " + quote(script));
        return argv;
    }

    /** Quotes a word for a POSIX shell: single quotes, with each embedded quote spelled '\''. */
    static String quote(String word) {
        return "'" + word.replace("'", "'\\''") + "'";
    }

    /**
     * A job with a timeout that does not set {@code railyard.stall.report} gets one at three fifths
     * of its timeout: a job killed by its timeout has then already printed, rank by rank, what each
     * waited for (the engine's stall report) instead of ending without a word.
     */
    static Map<String, String> stallReportDefault(JobSpec spec, Map<String, String> launcherEnv) {
        String name = Config.envName(Config.STALL_REPORT_PROP);
        if (spec.timeout() == null || spec.env().containsKey(name) || launcherEnv.containsKey(name)
                || System.getProperty(Config.STALL_REPORT_PROP) != null) {
            return Map.of();
        }
        return Map.of(name, Math.max(1, spec.timeout().toSeconds() * 3 / 5) + "s");
    }
}
