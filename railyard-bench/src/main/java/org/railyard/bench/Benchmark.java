package org.railyard.bench;

import java.util.EnumSet;
import java.util.Locale;
import java.util.Set;

/**
 * The benchmarks of the suite and the iteration counts they use. The same rules are implemented by
 * the peer programs in {@code bench/peers} (C and mpiJava) so that their numbers compare; see
 * {@code bench/README.md}.
 */
public enum Benchmark {
    /** Ping-pong between ranks 0 and 1; one sample is half a round trip. */
    LATENCY("latency", 10_000, 10),
    /** Rank 0 sends a window of non-blocking sends, rank 1 receives them and acknowledges; one sample is a window. */
    BW("bw", 100, 5),
    /** Both ranks send a window to each other at once, then rank 1 acknowledges; one sample is a window. */
    BIBW("bibw", 100, 5),
    /** Sum of doubles over all ranks, result everywhere; one sample is one operation (sizes under 8 bytes are skipped). */
    ALLREDUCE("allreduce", 1_000, 10);

    /** Messages above this many bytes are "large" and run fewer iterations. */
    public static final long LARGE = 16 * 1024;

    /** Messages in flight per window in {@link #BW} and {@link #BIBW}. */
    public static final int DEFAULT_WINDOW = 64;

    private final String label;
    private final long defaultBase;
    private final long largeDivisor;

    Benchmark(String label, long defaultBase, long largeDivisor) {
        this.label = label;
        this.defaultBase = defaultBase;
        this.largeDivisor = largeDivisor;
    }

    /** The name used on the command line and in the first TSV column. */
    public String label() {
        return label;
    }

    /** True for the tests that run between ranks 0 and 1 only. */
    public boolean pointToPoint() {
        return this != ALLREDUCE;
    }

    /** True if the benchmark measures throughput (its natural plot is MB/s), false for time per operation. */
    public boolean bandwidth() {
        return this == BW || this == BIBW;
    }

    /**
     * Timed iterations for a message size: {@code base} (or the benchmark's default when {@code base <= 0})
     * for sizes up to {@link #LARGE}, else that divided by 10 (latency, allreduce) or 5 (bw, bibw); at least 1.
     */
    public long iterations(long bytes, long base) {
        long b = base > 0 ? base : defaultBase;
        long n = bytes > LARGE ? b / largeDivisor : b;
        return Math.max(1, n);
    }

    /** Untimed iterations before the timed ones: a tenth of the timed count, at least 1. */
    public static long warmup(long iterations) {
        return Math.max(1, iterations / 10);
    }

    /** True if this benchmark runs at that size (allreduce needs at least one double). */
    public boolean accepts(long bytes) {
        return this != ALLREDUCE || bytes >= Double.BYTES;
    }

    /** The benchmark named {@code label} (case-insensitive). */
    public static Benchmark of(String label) {
        String l = label.trim().toLowerCase(Locale.ROOT);
        for (Benchmark b : values()) {
            if (b.label.equals(l)) {
                return b;
            }
        }
        throw new IllegalArgumentException("unknown benchmark '" + label + "': expected latency, bw, bibw, allreduce or all");
    }

    /** Parses a comma-separated list of names, {@code all} meaning every benchmark; empty means all. */
    public static Set<Benchmark> parseList(String spec) {
        EnumSet<Benchmark> out = EnumSet.noneOf(Benchmark.class);
        if (spec == null || spec.isBlank()) {
            return EnumSet.allOf(Benchmark.class);
        }
        for (String item : spec.split(",")) {
            if (item.isBlank()) {
                continue;
            }
            if (item.trim().equalsIgnoreCase("all")) {
                out.addAll(EnumSet.allOf(Benchmark.class));
            } else {
                out.add(of(item));
            }
        }
        return out.isEmpty() ? EnumSet.allOf(Benchmark.class) : out;
    }
}
