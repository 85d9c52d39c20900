package org.railyard.launcher;

import java.util.List;
import java.util.Map;

/**
 * How a job ended.
 *
 * @param exitCode what {@code railyard run} exits with: 0 when every rank exited 0; else the code
 *                 of the first rank that failed (128+N for a rank killed by signal N), or
 *                 {@link #TIMEOUT_EXIT}, {@link #INTERRUPTED_EXIT}, {@link #START_FAILED_EXIT}
 * @param ranks    the end of each rank, by rank
 * @param summary  one human sentence: what failed first and what the launcher did about it, or
 *                 that every rank succeeded
 */
public record JobResult(int exitCode, List<RankStatus> ranks, String summary) {
    /** Exit code of a job stopped because its timeout expired (as coreutils' timeout(1)). */
    public static final int TIMEOUT_EXIT = 124;
    /** Exit code of a job stopped because the launcher was interrupted (as a shell's Ctrl-C). */
    public static final int INTERRUPTED_EXIT = 130;
    /** Exit code of a job of which some rank could not be started. */
    public static final int START_FAILED_EXIT = 127;

    public JobResult {
        ranks = List.copyOf(ranks);
    }

    /** True when every rank exited 0 on its own. */
    public boolean ok() {
        return exitCode == 0;
    }

    /** How a rank ended. */
    public enum Outcome {
        /** Exited with code 0 on its own. */
        SUCCEEDED,
        /** Exited with a non-zero code on its own. */
        FAILED,
        /** Died from a signal the launcher did not send. */
        KILLED,
        /** Stopped by the launcher, because another rank failed, the timeout expired or the launcher was interrupted. */
        STOPPED,
        /** The launcher could not start it, or did not because an earlier rank could not be started. */
        NOT_STARTED
    }

    /**
     * The end of one rank.
     *
     * @param rank     the rank
     * @param host     where it ran: "localhost" for ranks started without rsh
     * @param pid      pid of the process the launcher started (the rsh command's for remote ranks), -1 if none
     * @param exitCode its exit code, 128+N when killed by signal N; -1 if it never ran or did not end
     * @param outcome  how it ended
     */
    public record RankStatus(int rank, String host, long pid, int exitCode, Outcome outcome) {
        /** "rank 2 (pid 1234)" for local ranks, "rank 2 (on node7)" for remote ones. */
        public String who() {
            return "rank " + rank + (host.equals(LOCALHOST) ? " (pid " + pid + ")" : " (on " + host + ")");
        }

        /** "exited with code 3", "was killed by signal 9 (SIGKILL)". */
        public String how() {
            return Signals.describeExit(exitCode);
        }
    }

    static final String LOCALHOST = "localhost";

    /** Names of the signals a process commonly dies from, by number (Linux numbering). */
    static final class Signals {
        private Signals() {
        }

        private static final Map<Integer, String> NAMES = Map.ofEntries(
                Map.entry(1, "SIGHUP"), Map.entry(2, "SIGINT"), Map.entry(3, "SIGQUIT"), Map.entry(4, "SIGILL"),
                Map.entry(5, "SIGTRAP"), Map.entry(6, "SIGABRT"), Map.entry(7, "SIGBUS"), Map.entry(8, "SIGFPE"),
                Map.entry(9, "SIGKILL"), Map.entry(10, "SIGUSR1"), Map.entry(11, "SIGSEGV"), Map.entry(12, "SIGUSR2"),
                Map.entry(13, "SIGPIPE"), Map.entry(14, "SIGALRM"), Map.entry(15, "SIGTERM"), Map.entry(24, "SIGXCPU"),
                Map.entry(25, "SIGXFSZ"), Map.entry(31, "SIGSYS"));

        /**
         * A process that dies from signal N is reported with exit code 128+N, by Java's Process and
         * by shells alike; 64 covers the real-time signals too.
         */
        static boolean isSignal(int exitCode) {
            return exitCode > 128 && exitCode <= 128 + 64;
        }

        static String describeExit(int exitCode) {
            if (!isSignal(exitCode)) {
                return "exited with code " + exitCode;
            }
            int sig = exitCode - 128;
            String name = NAMES.get(sig);
            return "was killed by signal " + sig + (name == null ? "" : " (" + name + ")");
        }
    }
}
