package org.railyard.util;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

/**
 * How long an idle waiter busy-polls before it yields and parks, chosen from the share of this
 * node's processors its ranks get. Rules:
 * <ul>
 *   <li>fewer ranks on the node than processors it may use: {@link Config#IDLE_SPINS_DEFAULT}
 *       spins. Each rank owns a processor and there is one to spare for the progress agents,
 *       compilers and collectors, so polling costs nobody anything and answers fastest;</li>
 *   <li>as many ranks as processors (a well-filled HPC node): {@link Config#IDLE_SPINS_FULL_DEFAULT}
 *       spins, a short poll that still catches a peer answering within microseconds, then the
 *       waiter backs off. A long poll here holds the processor that the rank's own agent,
 *       compiler or collector needs;</li>
 *   <li>more ranks than processors: no spin at all. The rank being waited for may need this very
 *       processor to get anywhere.</li>
 * </ul>
 * {@code railyard.idle.spins} overrides the choice. On a node with at least {@link #CROWDED_SHARE}
 * ranks per processor a waiter also skips the yields after its (zero) spins and sleeps on the
 * doorbell from its first park ({@link #yields}, {@link #sleepFirst}; {@code railyard.idle.yields}
 * and {@code railyard.idle.sleepfirst} override): there a yield hands the processor to another idle
 * rank rather than to the one with work, and a timed park outlasts the frame it waits for. With
 * fewer ranks per processor the early sleep costs a wake-up on waits the yields would have
 * caught (figures: bench/results/log/2026-11-28-1300-quiet-window.md). The processors a process may use are the
 * fewest of what the JVM reports, the cgroup CPU quota (v2 {@code cpu.max}, v1
 * {@code cpu.cfs_quota_us}/{@code cpu.cfs_period_us}), rounded up. The ranks on the node come from
 * the launcher ({@code RAILYARD_LOCAL_SIZE}), Hydra ({@code MPI_LOCALNRANKS}), Open MPI
 * ({@code OMPI_COMM_WORLD_LOCAL_SIZE}) or Slurm ({@code SLURM_NTASKS_PER_NODE}), and are taken
 * to be the whole job when none says.
 */
public final class IdlePlan {
    private static final List<String> LOCAL_SIZE_VARIABLES = List.of("RAILYARD_LOCAL_SIZE", "MPI_LOCALNRANKS",
            "OMPI_COMM_WORLD_LOCAL_SIZE", "SLURM_NTASKS_PER_NODE");

    private IdlePlan() {
    }

    /** Spins of an idle waiter when {@code ranks} ranks share {@code processors} processors. */
    public static long spins(int ranks, int processors) {
        if (ranks < processors) {
            return Config.IDLE_SPINS_DEFAULT;
        }
        return ranks == processors ? Config.IDLE_SPINS_FULL_DEFAULT : 0;
    }

    /** How a rank reaches its peers, as far as its settings tell before any connection opens. */
    public enum Reach {
        /** No relay in use: the plans above, unchanged. */
        DIRECT,
        /**
         * Every peer through a relay: relays are the only transport besides self
         * ({@code railyard.transports=relay}), or this rank listens for no connection
         * ({@code railyard.listen=false}), which sends every pair with it through the relays.
         */
        RELAYED,
        /**
         * Relays beside direct transports: a peer goes through one only when its direct connect
         * fails, so the direct peers' plan is kept ({@link #DIRECT}'s).
         */
        MIXED
    }

    /** The name of the relay transport, as {@code railyard.transports} names it. */
    public static final String RELAY = "relay";

    /**
     * The reach of a rank that offers {@code transports} (the names of the transports it started,
     * {@code self} ignored) and accepts connections if {@code listens}.
     */
    public static Reach reach(List<String> transports, boolean listens) {
        if (!transports.contains(RELAY)) {
            return Reach.DIRECT;
        }
        boolean onlyRelay = transports.stream().allMatch(t -> t.equals(RELAY) || t.equals("self"));
        return onlyRelay || !listens ? Reach.RELAYED : Reach.MIXED;
    }

    /**
     * Spins of an idle waiter of a rank of reach {@code reach}: {@link #spins(int, int)} unless every
     * peer is relayed, then {@link Config#IDLE_SPINS_RELAYED_DEFAULT} whatever the processors. A
     * relayed message needs a third process, the relay, to get a processor between the two ranks;
     * a waiter that polls for a round trip holds the one the relay needs, and its frame wakes it
     * from a sleep on the receiving connection instead ({@link #sleepsOnInput}).
     */
    public static long spins(Reach reach, int ranks, int processors) {
        return reach == Reach.RELAYED ? Config.IDLE_SPINS_RELAYED_DEFAULT : spins(ranks, processors);
    }

    /** Yields of an idle waiter of reach {@code reach}: none when every peer is relayed (a yield keeps the waiter runnable). */
    public static long yields(Reach reach, int ranks, int processors) {
        return reach == Reach.RELAYED ? 0 : yields(ranks, processors);
    }

    /** True if a waiter sleeps from its first park: on a crowded node, or when every peer is relayed. */
    public static boolean sleepFirst(Reach reach, int ranks, int processors) {
        return reach == Reach.RELAYED || sleepFirst(ranks, processors);
    }

    /**
     * True if a waiter of reach {@code reach} sleeps on the relay connection's input
     * ({@code Transport.inputBell}) rather than on the doorbell of shared rings: when every peer is
     * relayed, so every frame from a peer comes on that connection.
     */
    public static boolean sleepsOnInput(Reach reach) {
        return reach == Reach.RELAYED;
    }

    /** Ranks per processor from which a node counts as crowded for {@link #yields} and {@link #sleepFirst}. */
    public static final int CROWDED_SHARE = 8;

    /** Yields of an idle waiter after its spins: none on a crowded node, else {@link Config#IDLE_YIELDS_DEFAULT}. */
    public static long yields(int ranks, int processors) {
        return crowded(ranks, processors) ? 0 : Config.IDLE_YIELDS_DEFAULT;
    }

    /** True if an idle waiter sleeps on the doorbell from its first park: on a crowded node only. */
    public static boolean sleepFirst(int ranks, int processors) {
        return crowded(ranks, processors);
    }

    private static boolean crowded(int ranks, int processors) {
        return (long) ranks >= (long) CROWDED_SHARE * Math.max(1, processors);
    }

    /** What the environment says about the ranks on this node, else {@code jobSize}. */
    public static int ranksOnNode(Map<String, String> env, int jobSize) {
        for (String name : LOCAL_SIZE_VARIABLES) {
            String v = env.get(name);
            if (v != null) {
                try {
                    int n = Integer.parseInt(v.trim());
                    if (n > 0) {
                        return Math.min(n, jobSize);
                    }
                } catch (NumberFormatException e) {
                    // Slurm writes "2(x3)" when nodes differ: fall through to the next source
                }
            }
        }
        return jobSize;
    }

    /**
     * The processors this process may use: {@code reported} (the JVM's count) or fewer if the
     * cgroup found under {@code cgroupRoot} (normally {@code /sys/fs/cgroup}) sets a CPU quota.
     */
    public static int processors(Path cgroupRoot, int reported) {
        int quota = Math.min(quotaV2(cgroupRoot.resolve("cpu.max")),
                quotaV1(cgroupRoot.resolve("cpu/cpu.cfs_quota_us"), cgroupRoot.resolve("cpu/cpu.cfs_period_us")));
        return Math.max(1, Math.min(reported, quota));
    }

    /** The first answer of {@link #processors()} in this process; 0 before the first call. */
    private static volatile int firstCount;

    /**
     * This process's processors: the JVM's count and the cgroup quota of {@code /sys/fs/cgroup}.
     * The JVM's count follows the calling thread's binding, so once {@link CpuBinding} bound the
     * thread it is 1: see {@link #processorsBeforeBinding()}.
     */
    public static int processors() {
        int n = processors(Path.of("/sys/fs/cgroup"), Runtime.getRuntime().availableProcessors());
        if (firstCount == 0) {
            firstCount = n;
        }
        return n;
    }

    /**
     * This process's processors as {@link #processors()} first counted them in this process (the
     * engine counts before it binds its thread), or counted now if never yet: the count the
     * engine's idle plan was made from, for a plan made after the binding.
     */
    public static int processorsBeforeBinding() {
        int n = firstCount;
        return n > 0 ? n : processors();
    }

    /** {@code cpu.max}: "max PERIOD" or "QUOTA PERIOD" in microseconds; no file or no limit: unbounded. */
    private static int quotaV2(Path file) {
        String[] f = read(file).split("\\s+");
        if (f.length != 2 || f[0].equals("max")) {
            return Integer.MAX_VALUE;
        }
        return ratio(f[0], f[1]);
    }

    private static int quotaV1(Path quotaFile, Path periodFile) {
        String q = read(quotaFile);
        if (q.isEmpty() || q.startsWith("-")) {
            return Integer.MAX_VALUE;
        }
        return ratio(q, read(periodFile));
    }

    private static int ratio(String quota, String period) {
        try {
            long q = Long.parseLong(quota);
            long p = Long.parseLong(period);
            if (q <= 0 || p <= 0) {
                return Integer.MAX_VALUE;
            }
            return (int) Math.min(Integer.MAX_VALUE, (q + p - 1) / p);
        } catch (NumberFormatException e) {
            return Integer.MAX_VALUE;
        }
    }

    private static String read(Path file) {
        try {
            return Files.isReadable(file) ? Files.readString(file).trim() : "";
        } catch (IOException e) {
            return "";
        }
    }
}
