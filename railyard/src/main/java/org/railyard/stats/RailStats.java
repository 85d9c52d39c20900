package org.railyard.stats;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * What one rail of one virtual channel has done: bytes and frames each way, retransmissions,
 * duplicates dropped, its weight, its state changes with timestamps, and a throughput time series
 * (cumulative counters sampled every {@link Stats#SAMPLE_NANOS}).
 *
 * <p>Threads: the counters are written by the progress agent only (or a caller holding the progress
 * lock), without synchronisation, so counting costs a plain add on the hot path. Other threads never
 * read them directly: {@link #sample} (called by the writer) copies them into the series under this
 * object's monitor, and {@link #snapshot} reads only what was copied, so a snapshot is consistent and
 * at most one sample period old. State changes are recorded under the monitor as they happen.
 *
 * <p>Times are nanoseconds of the channel's clock (System.nanoTime in production, an injected clock in
 * tests); snapshots also give wall-clock milliseconds, so series of two processes line up.
 */
public final class RailStats {
    /** Samples kept per rail: one hour at 10 per second; older samples are overwritten. */
    public static final int MAX_SAMPLES = 36_000;

    private final StatsGroup group;
    private final int peer;
    private final int rail;

    private long bytesSent;
    private long framesSent;
    private long bytesReceived;
    private long framesReceived;
    private long retransmittedFrames;
    private long retransmittedBytes;
    private long duplicates;
    private long reordered;
    private double weight;

    private String link = "";
    private String state = "NEW";
    private final List<Event> events = new ArrayList<>();
    private long[] sampleNanos = new long[64];
    private long[] sampleSent = new long[64];
    private long[] sampleReceived = new long[64];
    private double[] sampleWeight = new double[64];
    private int sampleStart;
    private int sampleCount;
    /** Counters as of the last sample (frames sent, received, retransmitted frames, bytes, duplicates). */
    private final long[] sampled = new long[6];

    RailStats(StatsGroup group, int peer, int rail) {
        this.group = group;
        this.peer = peer;
        this.rail = rail;
    }

    /** A frame of {@code bytes} (header included) handed to the rail. */
    public void sent(int bytes) {
        bytesSent += bytes;
        framesSent++;
    }

    /** A frame of {@code bytes} received on the rail (duplicates included). */
    public void received(int bytes) {
        bytesReceived += bytes;
        framesReceived++;
    }

    /** A frame sent again on this rail after the rail that first carried it died. */
    public void retransmitted(int bytes) {
        retransmittedFrames++;
        retransmittedBytes += bytes;
    }

    /** A frame received that had been delivered or buffered already (dropped). */
    public void duplicate() {
        duplicates++;
    }

    /** A frame received ahead of its turn, held (copied) until the frames before it arrived. */
    public void reordered() {
        reordered++;
    }

    public void weight(double w) {
        weight = w;
    }

    public long bytesSent() {
        return bytesSent;
    }

    public long framesSent() {
        return framesSent;
    }

    public long bytesReceived() {
        return bytesReceived;
    }

    public long framesReceived() {
        return framesReceived;
    }

    public long retransmittedFrames() {
        return retransmittedFrames;
    }

    public double weight() {
        return weight;
    }

    public int peer() {
        return peer;
    }

    public int rail() {
        return rail;
    }

    /** Records a state change (UP, DOWN, ...) at {@code nanos} with its reason, and which link now carries the rail. */
    public synchronized void state(long nanos, String newState, String why, String linkDescription) {
        state = newState;
        if (linkDescription != null) {
            link = linkDescription;
        }
        events.add(new Event(nanos, group.wallMillis(nanos), newState, why));
    }

    /** Copies the counters into the time series; called by the writer every sample period. */
    public synchronized void sample(long nanos) {
        if (sampleCount == sampleNanos.length && sampleCount < MAX_SAMPLES) {
            int n = Math.min(MAX_SAMPLES, sampleCount * 2);
            sampleNanos = unwrap(sampleNanos, n);
            sampleSent = unwrap(sampleSent, n);
            sampleReceived = unwrap(sampleReceived, n);
            double[] w = new double[n];
            for (int i = 0; i < sampleCount; i++) {
                w[i] = sampleWeight[(sampleStart + i) % sampleWeight.length];
            }
            sampleWeight = w;
            sampleStart = 0;
        }
        int cap = sampleNanos.length;
        int at = (sampleStart + sampleCount) % cap;
        if (sampleCount == cap) {
            sampleStart = (sampleStart + 1) % cap;
        } else {
            sampleCount++;
        }
        sampleNanos[at] = nanos;
        sampleSent[at] = bytesSent;
        sampleReceived[at] = bytesReceived;
        sampleWeight[at] = weight;
        sampled[0] = framesSent;
        sampled[1] = framesReceived;
        sampled[2] = retransmittedFrames;
        sampled[3] = retransmittedBytes;
        sampled[4] = duplicates;
        sampled[5] = reordered;
    }

    private long[] unwrap(long[] a, int n) {
        long[] b = new long[n];
        for (int i = 0; i < sampleCount; i++) {
            b[i] = a[(sampleStart + i) % a.length];
        }
        return b;
    }

    /** What was sampled last, the events so far, and the whole series. */
    public synchronized Snapshot snapshot() {
        int n = sampleCount;
        double[] wall = new double[n];
        long[] sent = new long[n];
        long[] recv = new long[n];
        double[] w = new double[n];
        for (int i = 0; i < n; i++) {
            int k = (sampleStart + i) % sampleNanos.length;
            wall[i] = group.wallMillis(sampleNanos[k]);
            sent[i] = sampleSent[k];
            recv[i] = sampleReceived[k];
            w[i] = sampleWeight[k];
        }
        long[] last = sampled;
        return new Snapshot(group.rank(), peer, rail, link, state, n == 0 ? 0 : w[n - 1], n == 0 ? 0 : sent[n - 1],
                n == 0 ? 0 : recv[n - 1], last[0], last[1], last[2], last[3], last[4], last[5], List.copyOf(events), wall, sent, recv, w);
    }

    /** A state change of a rail. */
    public record Event(long nanos, double wallMillis, String state, String why) {
    }

    /**
     * A rail as of its last sample.
     *
     * @param wallMillis   sample times, wall-clock milliseconds since the epoch
     * @param sentSeries   cumulative bytes sent at each sample time
     * @param receivedSeries cumulative bytes received at each sample time
     * @param reordered    frames received on this rail ahead of their turn (held until their turn)
     */
    public record Snapshot(int rank, int peer, int rail, String link, String state, double weight, long bytesSent,
                           long bytesReceived, long framesSent, long framesReceived, long retransmittedFrames,
                           long retransmittedBytes, long duplicates, long reordered, List<Event> events, double[] wallMillis,
                           long[] sentSeries, long[] receivedSeries, double[] weightSeries) {

        /** One line for logs and {@code --print-choices}. */
        public String describe() {
            StringBuilder sb = new StringBuilder();
            sb.append("rank ").append(rank).append(" -> rank ").append(peer).append(" rail ").append(rail)
                    .append(" (").append(link).append("): ").append(state)
                    .append(String.format(", weight %.3f, sent %s in %d frames, received %s in %d frames", weight,
                            human(bytesSent), framesSent, human(bytesReceived), framesReceived));
            if (retransmittedFrames > 0 || duplicates > 0) {
                sb.append(", retransmitted ").append(retransmittedFrames).append(" frames (").append(human(retransmittedBytes))
                        .append("), ").append(duplicates).append(" duplicates dropped");
            }
            if (reordered > 0) {
                sb.append(", ").append(reordered).append(" frames held out of order");
            }
            if (!events.isEmpty()) {
                double t0 = events.getFirst().wallMillis();
                sb.append("; states:");
                for (Event e : events) {
                    sb.append(String.format(" %s@%.3fs", e.state(), (e.wallMillis() - t0) / 1000));
                    if (e.why() != null && !e.why().isEmpty()) {
                        sb.append(" (").append(e.why()).append(')');
                    }
                }
            }
            return sb.toString();
        }

        @Override
        public boolean equals(Object o) {
            return o instanceof Snapshot s && s.rank == rank && s.peer == peer && s.rail == rail
                    && Arrays.equals(s.wallMillis, wallMillis) && s.events.equals(events);
        }

        @Override
        public int hashCode() {
            return (rank * 31 + peer) * 31 + rail;
        }

        @Override
        public String toString() {
            return describe();
        }
    }

    static String human(long bytes) {
        if (bytes >= 10L << 20) {
            return (bytes >> 20) + " MiB";
        }
        if (bytes >= 10L << 10) {
            return (bytes >> 10) + " KiB";
        }
        return bytes + " B";
    }
}
