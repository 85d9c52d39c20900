package org.railyard.launcher;

import java.time.Duration;
import java.util.Arrays;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * What {@link Launcher#run} starts: {@code np} copies of one Java program.
 *
 * @param np        number of ranks, at least 1
 * @param hosts     machines to place ranks on ({@link Host#place}); empty runs every rank on this
 *                  machine without rsh
 * @param main      the program: a class name, or the path of a {@code .jar} whose manifest names
 *                  the Main-Class
 * @param args      arguments of the program, the same for every rank
 * @param classpath entries put before the launcher's own class path (which carries Railyard)
 * @param env       extra environment of every rank; the launcher's {@code RAILYARD_*} identity
 *                  variables win over entries of the same name
 * @param jvmArgs   extra JVM options, before the main class
 * @param timeout   bound on the whole job, or null for none
 * @param rsh       command that runs a command on a remote host, as {@code <rsh> host 'command'};
 *                  split on spaces, so it may carry options ({@code "ssh -o BatchMode=yes"})
 */
public record JobSpec(int np, List<Host> hosts, String main, List<String> args, List<String> classpath,
                      Map<String, String> env, List<String> jvmArgs, Duration timeout, String rsh) {

    /** The rsh command used when none is given. */
    public static final String DEFAULT_RSH = "ssh";

    /**
     * Checks the values and makes the collections immutable; null collections become empty, a
     * null or blank rsh becomes {@link #DEFAULT_RSH}.
     *
     * @throws IllegalArgumentException with a message that names the offending value
     */
    public JobSpec {
        if (np < 1) {
            throw new IllegalArgumentException("the number of ranks (np) must be at least 1, got " + np);
        }
        if (main == null || main.isBlank()) {
            throw new IllegalArgumentException("no program given: MAIN must be a class name or a .jar file");
        }
        if (timeout != null && (timeout.isNegative() || timeout.isZero())) {
            throw new IllegalArgumentException("the job timeout must be positive, got " + timeout);
        }
        hosts = hosts == null ? List.of() : List.copyOf(hosts);
        args = args == null ? List.of() : List.copyOf(args);
        classpath = classpath == null ? List.of() : List.copyOf(classpath);
        jvmArgs = jvmArgs == null ? List.of() : List.copyOf(jvmArgs);
        Map<String, String> e = new LinkedHashMap<>();
        if (env != null) {
            env.forEach((k, v) -> {
                if (k == null || k.isEmpty() || k.indexOf('=') >= 0 || v == null) {
                    throw new IllegalArgumentException("environment entry '" + k + "=" + v
                            + "' needs a non-empty name without '=' and a value");
                }
                e.put(k, v);
            });
        }
        env = Collections.unmodifiableMap(e);
        rsh = rsh == null || rsh.isBlank() ? DEFAULT_RSH : rsh.trim();
    }

    /** {@code np} local ranks of {@code main} with {@code args}, no time limit. */
    public static JobSpec of(int np, String main, String... args) {
        return new JobSpec(np, List.of(), main, Arrays.asList(args), List.of(), Map.of(), List.of(), null, null);
    }

    public JobSpec withHosts(List<Host> newHosts) {
        return new JobSpec(np, newHosts, main, args, classpath, env, jvmArgs, timeout, rsh);
    }

    public JobSpec withArgs(List<String> newArgs) {
        return new JobSpec(np, hosts, main, newArgs, classpath, env, jvmArgs, timeout, rsh);
    }

    public JobSpec withClasspath(List<String> newClasspath) {
        return new JobSpec(np, hosts, main, args, newClasspath, env, jvmArgs, timeout, rsh);
    }

    public JobSpec withEnv(Map<String, String> newEnv) {
        return new JobSpec(np, hosts, main, args, classpath, newEnv, jvmArgs, timeout, rsh);
    }

    public JobSpec withJvmArgs(List<String> newJvmArgs) {
        return new JobSpec(np, hosts, main, args, classpath, env, newJvmArgs, timeout, rsh);
    }

    public JobSpec withTimeout(Duration newTimeout) {
        return new JobSpec(np, hosts, main, args, classpath, env, jvmArgs, newTimeout, rsh);
    }

    public JobSpec withRsh(String newRsh) {
        return new JobSpec(np, hosts, main, args, classpath, env, jvmArgs, timeout, newRsh);
    }
}
