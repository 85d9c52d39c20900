package org.railyard.bench;

/**
 * One line of benchmark results: one benchmark at one message size.
 *
 * @param benchmark   {@code latency}, {@code bw}, {@code bibw} or {@code allreduce}
 * @param transport   what carried the messages (a Railyard transport, an MPI BTL, an MPJ device)
 * @param np          processes in the job
 * @param bytes       message size
 * @param iterations  timed iterations (round trips, windows or operations)
 * @param meanUs      mean time in microseconds: per one-way message (latency), per message of a
 *                    window (bw, bibw) or per operation (allreduce)
 * @param p50Us       median of the per-iteration samples, same unit as {@code meanUs}
 * @param p99Us       99th percentile of the samples
 * @param maxUs       largest sample
 * @param mbPerS      throughput in 10^6 bytes per second (both directions for bibw)
 * @param allocPerMsg bytes allocated on the Java heap per message sent or received, the larger of
 *                    ranks 0 and 1 (latency with {@code --alloc} only), or per call of a
 *                    collective, the largest over the ranks (CollectiveBenchRank with
 *                    {@code --alloc}); NaN when not measured
 */
public record Row(String benchmark, String transport, int np, long bytes, long iterations, double meanUs,
                  double p50Us, double p99Us, double maxUs, double mbPerS, double allocPerMsg) {

    /** A row without an allocation measurement. */
    public Row(String benchmark, String transport, int np, long bytes, long iterations, double meanUs, double p50Us,
               double p99Us, double maxUs, double mbPerS) {
        this(benchmark, transport, np, bytes, iterations, meanUs, p50Us, p99Us, maxUs, mbPerS, Double.NaN);
    }

    /** True if the allocation column is filled. */
    public boolean hasAlloc() {
        return !Double.isNaN(allocPerMsg);
    }
}
