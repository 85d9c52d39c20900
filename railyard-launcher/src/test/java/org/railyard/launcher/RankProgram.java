package org.railyard.launcher;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.railyard.bootstrap.KvBootstrap;
import org.railyard.error.RailyardException;

/**
 * The program the launcher tests run as ranks. Every rank first prints {@code "pid <pid>"}, then
 * acts by mode:
 * <ul>
 *   <li>{@code exchange}: puts its host (env RSH_TEST_HOST, else "local"), fences, gets every
 *       rank's and prints {@code "rank R of N sees h0,h1,..."}; exits 0;</li>
 *   <li>{@code intruder}: rank 0 first tries to join with a wrong secret and prints
 *       {@code "intruder refused: <error class>"}; then as {@code exchange};</li>
 *   <li>{@code exit R CODE}: after a fence, rank R exits with CODE and the others wait in a
 *       second fence that cannot complete;</li>
 *   <li>{@code kill R}: after a fence, rank R SIGKILLs itself and the others wait as above;</li>
 *   <li>{@code sleep}: prints "sleeping" and sleeps until stopped;</li>
 *   <li>{@code echo ARGS...}: prints its arguments one per line and exits 0, no bootstrap.</li>
 * </ul>
 */
public final class RankProgram {
    private RankProgram() {
    }

    public static void main(String[] args) throws Exception {
        System.out.println("pid " + ProcessHandle.current().pid());
        switch (args[0]) {
            case "exchange" -> exchange();
            case "intruder" -> {
                intrude();
                exchange();
            }
            case "exit" -> failAfterFence(Integer.parseInt(args[1]), () -> System.exit(Integer.parseInt(args[2])));
            case "kill" -> failAfterFence(Integer.parseInt(args[1]), RankProgram::killSelf);
            case "sleep" -> {
                System.out.println("sleeping");
                Thread.sleep(Long.MAX_VALUE);
            }
            case "jvm-args" -> {
                // the process's command line (its JVM options among its arguments)
                for (String a : ProcessHandle.current().info().arguments().orElseThrow()) {
                    if (a.startsWith("-XX:")) {
                        System.out.println("jvm-arg " + a);
                    }
                }
            }
            case "echo" -> {
                for (int i = 1; i < args.length; i++) {
                    System.out.println(args[i]);
                }
            }
            default -> throw new IllegalArgumentException("unknown mode " + args[0]);
        }
    }

    private static void exchange() {
        try (KvBootstrap b = new KvBootstrap(System.getenv())) {
            String host = System.getenv().getOrDefault("RSH_TEST_HOST", "local");
            b.put("host-" + b.rank(), host + "/" + System.getenv(Launcher.ENV_LOCAL_RANK) + "/" + System.getenv(Launcher.ENV_LOCAL_SIZE));
            b.fence();
            List<String> seen = new ArrayList<>();
            for (int r = 0; r < b.size(); r++) {
                seen.add(b.get("host-" + r));
            }
            System.out.println("rank " + b.rank() + " of " + b.size() + " sees " + String.join(",", seen));
            System.err.println("rank " + b.rank() + " done");
        }
    }

    private static void intrude() {
        if (!"0".equals(System.getenv(KvBootstrap.ENV_RANK))) {
            return;
        }
        Map<String, String> env = new HashMap<>(System.getenv());
        env.put(KvBootstrap.ENV_SECRET, "00".repeat(32));
        try {
            new KvBootstrap(env).close();
            System.out.println("intruder admitted");
        } catch (RailyardException e) {
            System.out.println("intruder refused: " + e.errorClass());
        }
    }

    private static void failAfterFence(int failing, Runnable fail) {
        KvBootstrap b = new KvBootstrap(System.getenv());
        b.fence();
        if (b.rank() == failing) {
            fail.run();
        }
        System.out.println("waiting");
        // Never completes: the failing rank does not come. The launcher must stop this rank.
        b.fence(Duration.ofMinutes(5));
    }

    private static void killSelf() {
        try {
            new ProcessBuilder("kill", "-9", Long.toString(ProcessHandle.current().pid())).inheritIO().start().waitFor();
            // SIGKILL cannot be caught; if we get here the kill command failed.
            Thread.sleep(Duration.ofMinutes(5));
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }
}
