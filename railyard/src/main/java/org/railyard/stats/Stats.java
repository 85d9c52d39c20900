package org.railyard.stats;

import java.util.ArrayList;
import java.util.List;

/**
 * The stats side floor: counters every floor may write, read as snapshots by anyone (the
 * benchmarks, {@code --print-choices}). Today it holds the channel floor's per-rail statistics
 * ({@link RailStats}), grouped per engine ({@link StatsGroup}).
 *
 * <p>A program reads its own process's rails with {@code Stats.current().snapshot()}.
 */
public final class Stats {
    private Stats() {
    }

    /** Period of the throughput time series: the channel floor samples every rail this often. */
    public static final long SAMPLE_NANOS = 100_000_000L;

    private static final List<StatsGroup> GROUPS = new ArrayList<>();

    /**
     * A new group for the engine of world rank {@code rank}; it becomes {@link #current()}.
     * Times given to it are of the clock {@code System.nanoTime()} unless a test injects another.
     */
    public static synchronized StatsGroup open(int rank) {
        long offset = System.currentTimeMillis() * 1_000_000L - System.nanoTime();
        StatsGroup g = new StatsGroup(rank, offset);
        GROUPS.add(g);
        return g;
    }

    /** The group opened last (in a program: its engine's), or null if none was. */
    public static synchronized StatsGroup current() {
        return GROUPS.isEmpty() ? null : GROUPS.getLast();
    }

    /** The group opened last for {@code rank}, or null. */
    public static synchronized StatsGroup of(int rank) {
        for (int i = GROUPS.size() - 1; i >= 0; i--) {
            if (GROUPS.get(i).rank() == rank) {
                return GROUPS.get(i);
            }
        }
        return null;
    }

    /** Every group opened in this JVM, oldest first. */
    public static synchronized List<StatsGroup> groups() {
        return new ArrayList<>(GROUPS);
    }
}
