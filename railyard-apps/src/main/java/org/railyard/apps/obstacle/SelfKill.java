package org.railyard.apps.obstacle;

import java.io.IOException;
import java.io.PrintStream;
import java.util.concurrent.TimeUnit;

/**
 * {@code --kill RANK:AFTER}: rank {@code RANK} kills itself with SIGKILL at the first convergence
 * test at or after {@code AFTER} iterations, in its first run only (a rank the launcher started
 * again, {@code railyard run --restart}, has a non-zero incarnation and runs to the end). For
 * trying recovery: nothing is flushed or closed, as in a real crash.
 *
 * @param rank  the rank that dies, or -1 for none
 * @param after iterations it completes first
 */
public record SelfKill(int rank, int after) {
    /** Nobody dies. */
    public static final SelfKill NONE = new SelfKill(-1, 0);

    /** Parses {@code RANK:AFTER}, both at least 0. */
    public static SelfKill parse(String spec) {
        String[] p = spec.split(":");
        try {
            if (p.length == 2) {
                int rank = Integer.parseInt(p[0].trim());
                int after = Integer.parseInt(p[1].trim());
                if (rank >= 0 && after >= 0) {
                    return new SelfKill(rank, after);
                }
            }
        } catch (NumberFormatException e) {
            // reported below
        }
        throw new IllegalArgumentException("--kill must be RANK:AFTER_ITERATIONS (both 0 or more), got '" + spec + "'");
    }

    /**
     * The listener that kills this process at the right check; in a run started again, the one
     * that says once when the rank is past that check again ({@code back past iteration K at T ms},
     * T the wall clock, as in the line of the kill, for measuring recovery); else {@code next}.
     */
    ProgressListener around(ProgressListener next, int myRank, int incarnation, PrintStream err) {
        if (rank != myRank) {
            return next;
        }
        boolean[] said = {false};
        return (iteration, residual) -> {
            next.onCheck(iteration, residual);
            if (iteration < after) {
                return;
            }
            if (incarnation == 0) {
                die(iteration, err);
            } else if (!said[0]) {
                said[0] = true;
                err.println("ObstacleDemo: rank " + rank + " (run " + (incarnation + 1) + ") back past iteration " + iteration
                        + " at " + System.currentTimeMillis() + " ms");
                err.flush();
            }
        };
    }

    /** SIGKILL to this process; {@link Runtime#halt} (exit status 137, as a SIGKILL gives) if kill cannot run. */
    private void die(int iteration, PrintStream err) {
        long pid = ProcessHandle.current().pid();
        err.println("ObstacleDemo: rank " + rank + " kills itself (SIGKILL, pid " + pid + ") after " + iteration
                + " iterations at " + System.currentTimeMillis() + " ms");
        err.flush();
        try {
            Process kill = new ProcessBuilder("kill", "-KILL", Long.toString(pid)).start();
            kill.waitFor(10, TimeUnit.SECONDS); // the signal ends this process before the wait does
        } catch (IOException e) {
            // no kill command: halt below
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        Runtime.getRuntime().halt(128 + 9);
    }
}
