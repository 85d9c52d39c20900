package org.railyard.stats;

import java.util.ArrayList;
import java.util.List;

/**
 * The rail statistics of one process's channel floor (one per engine; tests run several engines in
 * one JVM, each with its group). Rails are added as channels create them and never removed, so a
 * rail that died and came back keeps one history.
 */
public final class StatsGroup {
    private final int rank;
    private final long wallOffsetNanos;
    private final List<RailStats> rails = new ArrayList<>();

    StatsGroup(int rank, long wallOffsetNanos) {
        this.rank = rank;
        this.wallOffsetNanos = wallOffsetNanos;
    }

    public int rank() {
        return rank;
    }

    /** The statistics of rail {@code rail} to {@code peer}, created on first call. */
    public synchronized RailStats rail(int peer, int rail) {
        for (RailStats r : rails) {
            if (r.peer() == peer && r.rail() == rail) {
                return r;
            }
        }
        RailStats r = new RailStats(this, peer, rail);
        rails.add(r);
        return r;
    }

    /** Every rail, as of its last sample. */
    public List<RailStats.Snapshot> snapshot() {
        List<RailStats> copy;
        synchronized (this) {
            copy = new ArrayList<>(rails);
        }
        List<RailStats.Snapshot> out = new ArrayList<>(copy.size());
        for (RailStats r : copy) {
            out.add(r.snapshot());
        }
        return out;
    }

    /** Wall-clock milliseconds of a time on the channel clock. */
    double wallMillis(long nanos) {
        return (nanos + wallOffsetNanos) / 1e6;
    }
}
