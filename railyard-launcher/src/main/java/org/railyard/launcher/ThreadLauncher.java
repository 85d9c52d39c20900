package org.railyard.launcher;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.URL;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.railyard.bootstrap.KvServer;
import org.railyard.util.Config;

/**
 * {@code railyard run --threads}: runs a job's ranks as threads of this JVM, one class loader per
 * rank ({@link RankLoader}: statics stay per rank; the class files read once for all of them,
 * {@link RankClasses}), instead of one JVM per rank ({@link Launcher}).
 * Everything else is as the process launcher does it: the same key-value server on the loopback,
 * the same identity per rank ({@code RAILYARD_KV}, {@code _RANK}, {@code _SIZE}, {@code _JOB},
 * {@code _SECRET}, {@code _LOCAL_RANK}, {@code _LOCAL_SIZE}) plus the spec's environment, handed to
 * the rank's copy of the library as its Config overlay rather than as process environment; the
 * same {@code [rank]} prefixed output ({@link RankOutput}); the same exit codes and stop on the
 * first failure ({@link ThreadJob}). Between ranks the transports are those of a job on one node
 * (shm, whose files map into this one process as into several).
 *
 * <p>What differs: a rank's program sees the overlay only through Railyard (its own
 * {@code System.getenv} is the launcher's environment); system properties, the working directory,
 * the heap, the collector and the JIT are shared by all ranks; JVM options (--jvm-arg) and the
 * ahead-of-time cache do not apply (give JVM options to the launcher's own JVM); only local jobs.
 */
public final class ThreadLauncher {
    private ThreadLauncher() {
    }

    /** The system property of the virtual threads' scheduler's carrier count. */
    static final String CARRIERS_PROP = "jdk.virtualThreadScheduler.parallelism";
    /** ... and of the most carriers it may add while others are blocked. */
    static final String MAX_CARRIERS_PROP = "jdk.virtualThreadScheduler.maxPoolSize";
    /** The most carriers asked for. */
    static final int MAX_CARRIERS = 256;

    /**
     * Gives the virtual threads of this JVM a carrier per rank (as many as the processors at least,
     * {@link #MAX_CARRIERS} at most) unless the JVM's options chose: every rank's connections are made
     * on virtual threads, and a handshake whose thread blocks where the JDK cannot unmount it (a
     * native call, a mapped file) holds its carrier; with the default of a carrier per processor, 64
     * ranks' handshakes queued behind two carriers for tens of seconds. Effective only before the
     * JVM's first virtual thread, which the launcher starts after this (its key-value server).
     */
    static void carriersFor(int np) {
        if (System.getProperty(CARRIERS_PROP) == null) {
            int carriers = Math.min(MAX_CARRIERS, Math.max(np, Runtime.getRuntime().availableProcessors()));
            System.setProperty(CARRIERS_PROP, Integer.toString(carriers));
            if (System.getProperty(MAX_CARRIERS_PROP) == null) {
                System.setProperty(MAX_CARRIERS_PROP, Integer.toString(Math.max(MAX_CARRIERS, carriers)));
            }
        }
    }

    /** The environment variable of {@code railyard.native.setup}. */
    static final String ENV_NATIVE_SETUP = Config.envName(Config.NATIVE_SETUP_PROP);

    /**
     * Turns the ranks' native set-up thread off in {@code env} unless the job's or this process's
     * environment sets it: the ranks share this JVM's processors, and a set-up thread per rank
     * beside the rank's own thread made their start slower, not faster
     * (bench/results/log/2026-11-29-0925-cold-start.md).
     */
    static void nativeSetupOff(Map<String, String> env) {
        if (!env.containsKey(ENV_NATIVE_SETUP) && System.getenv(ENV_NATIVE_SETUP) == null) {
            env.put(ENV_NATIVE_SETUP, "false");
        }
    }

    /**
     * Runs the job to its end, like {@link Launcher#run(JobSpec, LineSink, LineSink)}.
     *
     * @throws IllegalArgumentException when the spec has hosts or JVM options, or its main class
     *                                  cannot be loaded or has no static main(String[])
     * @throws UncheckedIOException     when the key-value server cannot be started
     */
    public static JobResult run(JobSpec spec, LineSink out, LineSink err) {
        if (!spec.hosts().isEmpty()) {
            throw new IllegalArgumentException("--threads runs every rank in this JVM: it does not take --hosts or --sites");
        }
        if (!spec.jvmArgs().isEmpty()) {
            throw new IllegalArgumentException("--threads runs every rank in this JVM: --jvm-arg does not apply"
                    + " (give JVM options to the launcher's JVM)");
        }
        List<String> classpath = new ArrayList<>(spec.classpath());
        String mainClass = Launcher.mainClass(spec.main(), classpath);
        classpath.addAll(RankLoader.ownClasspath());
        carriersFor(spec.np());

        JobIdentity identity = JobIdentity.fresh();
        SerialSinks sinks = SerialSinks.of(out, err);
        LineSink serialOut = sinks.out();
        LineSink serialErr = sinks.err();
        try (KvServer kv = KvServer.start(spec.np(), identity.id(), identity.secret(), new InetSocketAddress(0),
                msg -> serialErr.line(LineSink.LAUNCHER, msg))) {
            String kvAddress = "127.0.0.1:" + kv.port();
            URL[] urls = RankLoader.urls(classpath);
            RankClasses classes = new RankClasses(urls);
            List<RankLoader> loaders = new ArrayList<>(spec.np());
            List<Map<String, String>> envs = new ArrayList<>(spec.np());
            for (int r = 0; r < spec.np(); r++) {
                Map<String, String> env = new LinkedHashMap<>(spec.env());
                identity.putBootstrapEnv(env, kvAddress, r, spec.np());
                env.put(Launcher.ENV_LOCAL_RANK, Integer.toString(r));
                env.put(Launcher.ENV_LOCAL_SIZE, Integer.toString(spec.np()));
                nativeSetupOff(env);
                envs.add(env);
                loaders.add(new RankLoader(r, urls, classes));
            }
            RankOutput output = RankOutput.install(spec.np(), serialOut, serialErr);
            ThreadJob job = null;
            try {
                job = new ThreadJob(loaders, envs, mainClass, spec.args(), spec.timeout(), serialErr, output);
                return job.run();
            } finally {
                // a rank still running keeps writing until the JVM ends: its lines keep their prefix
                if (job == null || !job.lingering()) {
                    output.close();
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException("could not start the job's key-value server: " + e.getMessage(), e);
        }
    }
}
