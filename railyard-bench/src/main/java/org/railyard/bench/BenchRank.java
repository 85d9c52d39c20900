package org.railyard.bench;

import static org.railyard.bench.RankMain.positive;
import static org.railyard.bench.RankMain.value;

import java.io.PrintStream;
import java.lang.management.ManagementFactory;
import java.util.Set;
import org.HdrHistogram.Histogram;
import org.railyard.Comm;
import org.railyard.Op;
import org.railyard.Railyard;
import org.railyard.Request;
import org.railyard.Status;

/**
 * The benchmark program each rank of a job runs (started by {@code railyard run} or by
 * {@link BenchCommand}). Rank 0 writes the results to standard output as TSV (see {@link Tsv}); the
 * method is described in {@code bench/README.md} and shared with the peer programs in
 * {@code bench/peers}.
 *
 * <pre>
 * railyard run -np 2 org.railyard.bench.BenchRank [latency|bw|bibw|allreduce|all][,...]
 *     [--sizes 1:4m] [--iters N] [--window 64] [--alloc] [--transport LABEL] [--no-jit-warmup]
 * </pre>
 *
 * <p>The point-to-point tests run between ranks 0 and 1 (other ranks only take part in the barrier
 * before each size); allreduce runs over every rank. Steady-state loops use {@code byte[]} buffers
 * allocated once and the blocking calls with a caller-provided {@link Status}, so that with
 * {@code --alloc} the bytes the library allocates per message can be measured.
 */
public final class BenchRank {
    static final int TAG_DATA = 1;
    static final int TAG_ACK = 2;
    static final int TAG_PING = 3;
    private static final long HIGHEST_NS = 3_600_000_000_000L;

    /** Options of one run; see the class comment for their meaning. */
    public record Options(Set<Benchmark> benchmarks, long[] sizes, long iterBase, int window, boolean alloc,
                          String transport, boolean jitWarmup) {

        /**
         * Parses the command-line arguments of {@link BenchRank}.
         *
         * @throws IllegalArgumentException with a message fit for the user on a bad argument
         */
        public static Options parse(String... args) {
            StringBuilder benches = new StringBuilder();
            long[] sizes = Sizes.parseList(Sizes.DEFAULT);
            long iters = -1;
            int window = Benchmark.DEFAULT_WINDOW;
            boolean alloc = false;
            boolean jit = true;
            String transport = null;
            for (int i = 0; i < args.length; i++) {
                String a = args[i];
                switch (a) {
                    case "--sizes" -> sizes = Sizes.parseList(value(args, ++i, a));
                    case "--iters" -> iters = positive(value(args, ++i, a), a);
                    case "--window" -> window = (int) Math.min(100_000, positive(value(args, ++i, a), a));
                    case "--alloc" -> alloc = true;
                    case "--transport" -> transport = value(args, ++i, a);
                    case "--no-jit-warmup" -> jit = false;
                    default -> {
                        if (a.startsWith("-")) {
                            throw new IllegalArgumentException("unknown option " + a + "; usage: BenchRank "
                                    + "[latency|bw|bibw|allreduce|all] [--sizes SPEC] [--iters N] [--window W] "
                                    + "[--alloc] [--transport LABEL] [--no-jit-warmup]");
                        }
                        benches.append(a).append(',');
                    }
                }
            }
            transport = RankMain.transportLabel(transport);
            return new Options(Benchmark.parseList(benches.toString()), sizes, iters, window, alloc, transport, jit);
        }

    }

    private final Comm comm;
    private final Options opt;
    private final PrintStream out;
    private final int rank;
    private final int np;
    private final Status status = new Status();
    private final Histogram hist = new Histogram(1, HIGHEST_NS, 3);

    /**
     * A benchmark runner over {@code comm}; rank 0 writes to {@code out}.
     */
    public BenchRank(Comm comm, Options opt, PrintStream out) {
        this.comm = comm;
        this.opt = opt;
        this.out = out;
        this.rank = comm.rank();
        this.np = comm.size();
    }

    /** Joins the job, runs the benchmarks, leaves. Exits with status 2 on a bad argument. */
    public static void main(String[] args) {
        Options opt = RankMain.options("BenchRank", args, Options::parse);
        try (Railyard ry = Railyard.init(args)) {
            Comm world = ry.world();
            if (opt.benchmarks().stream().anyMatch(Benchmark::pointToPoint) && world.size() < 2) {
                RankMain.refuse("BenchRank", "latency, bw and bibw need at least 2 processes (run with -np 2)");
            }
            new BenchRank(world, opt, System.out).run();
        }
    }

    /** Runs every selected benchmark over every size; collective over the communicator. */
    public void run() {
        long max = 8;
        for (long s : opt.sizes()) {
            max = Math.max(max, s);
        }
        byte[] sbuf = new byte[(int) max];
        byte[] rbuf = new byte[(int) max];
        if (rank == 0) {
            out.println(Tsv.header(opt.alloc()));
            out.flush();
        }
        for (Benchmark b : Benchmark.values()) {
            if (!opt.benchmarks().contains(b)) {
                continue;
            }
            for (long size : opt.sizes()) {
                if (!b.accepts(size)) {
                    continue;
                }
                if (opt.jitWarmup()) {
                    JitSettle.settle(comm, () -> measure(b, (int) size, sbuf, rbuf));
                }
                Row row = measure(b, (int) size, sbuf, rbuf);
                if (rank == 0 && row != null) {
                    out.println(Tsv.format(row, opt.alloc()));
                    out.flush();
                }
            }
        }
    }

    /** One measurement of {@code b} at {@code size}; null on ranks that only take the pair's barrier. */
    private Row measure(Benchmark b, int size, byte[] sbuf, byte[] rbuf) {
        return switch (b) {
            case LATENCY -> rank < 2 ? latency(size, sbuf, rbuf) : idle();
            case BW, BIBW -> rank < 2 ? bandwidth(b, size, sbuf, rbuf) : idle();
            case ALLREDUCE -> allreduce(size);
        };
    }

    /** What ranks above 1 do for each size of a point-to-point test: the barrier the pair takes. */
    private Row idle() {
        comm.barrier();
        return null;
    }

    private Row latency(int size, byte[] sbuf, byte[] rbuf) {
        long iters = Benchmark.LATENCY.iterations(size, opt.iterBase());
        long warm = Benchmark.warmup(iters);
        int peer = 1 - rank;
        Patterns.fill(sbuf, size, rank);
        java.util.Arrays.fill(rbuf, 0, size, (byte) 0);
        hist.reset();
        comm.barrier();
        long sum = 0;
        long allocStart = 0;
        for (long i = 0; i < warm + iters; i++) {
            if (i == warm && opt.alloc()) {
                allocStart = Alloc.total();
            }
            long t0 = System.nanoTime();
            if (rank == 0) {
                comm.send(sbuf, 0, size, peer, TAG_PING);
                comm.recv(rbuf, 0, size, peer, TAG_PING, status);
            } else {
                comm.recv(rbuf, 0, size, peer, TAG_PING, status);
                comm.send(sbuf, 0, size, peer, TAG_PING);
            }
            long dt = System.nanoTime() - t0;
            if (i == 0) {
                Patterns.check(rbuf, size, peer, "latency", status, rank);
            }
            if (i >= warm) {
                hist.recordValue(Math.min(Math.max(dt, 1), HIGHEST_NS));
                sum += dt;
            }
        }
        double alloc = Double.NaN;
        if (opt.alloc()) {
            long mine = Alloc.total() - allocStart;
            long[] other = new long[1];
            if (rank == 0) {
                comm.recv(other, 0, 1, peer, TAG_ACK);
            } else {
                comm.send(new long[] {mine}, 0, 1, peer, TAG_ACK);
            }
            alloc = Math.max(mine, other[0]) / (2.0 * iters);
        }
        double mean = sum / 2e3 / iters;
        return new Row("latency", opt.transport(), np, size, iters, mean, hist.getValueAtPercentile(50) / 2e3,
                hist.getValueAtPercentile(99) / 2e3, hist.getMaxValue() / 2e3, mean > 0 ? size / mean : 0, alloc);
    }

    private Row bandwidth(Benchmark b, int size, byte[] sbuf, byte[] rbuf) {
        long iters = b.iterations(size, opt.iterBase());
        long warm = Benchmark.warmup(iters);
        int window = opt.window();
        int peer = 1 - rank;
        boolean both = b == Benchmark.BIBW;
        int sends = both || rank == 0 ? window : 0;
        int recvs = both || rank == 1 ? window : 0;
        Request[] reqs = new Request[sends + recvs];
        byte[] ack = new byte[4];
        Patterns.fill(sbuf, size, rank);
        java.util.Arrays.fill(rbuf, 0, size, (byte) 0);
        hist.reset();
        comm.barrier();
        long start = 0;
        for (long i = 0; i < warm + iters; i++) {
            long t0 = System.nanoTime();
            if (i == warm) {
                start = t0;
            }
            int n = 0;
            for (int w = 0; w < recvs; w++) {
                reqs[n++] = comm.irecv(rbuf, 0, size, peer, TAG_DATA);
            }
            for (int w = 0; w < sends; w++) {
                reqs[n++] = comm.isend(sbuf, 0, size, peer, TAG_DATA);
            }
            for (Request r : reqs) {
                r.await();
            }
            if (rank == 0) {
                comm.recv(ack, 0, ack.length, peer, TAG_ACK, status);
            } else {
                comm.send(ack, 0, ack.length, peer, TAG_ACK);
            }
            if (i == 0 && recvs > 0) {
                Patterns.check(rbuf, size, peer, b.label(), reqs[0].status(), rank);
            }
            if (i >= warm) {
                hist.recordValue(Math.min(Math.max(System.nanoTime() - t0, 1), HIGHEST_NS));
            }
        }
        double elapsedUs = (System.nanoTime() - start) / 1e3;
        double perMsg = 1e3 * window;
        double messages = (double) iters * window * (both ? 2 : 1);
        return new Row(b.label(), opt.transport(), np, size, iters, elapsedUs / ((double) iters * window),
                hist.getValueAtPercentile(50) / perMsg, hist.getValueAtPercentile(99) / perMsg,
                hist.getMaxValue() / perMsg, elapsedUs > 0 ? size * messages / elapsedUs : 0);
    }

    private Row allreduce(int size) {
        int count = size / Double.BYTES;
        long iters = Benchmark.ALLREDUCE.iterations(size, opt.iterBase());
        long warm = Benchmark.warmup(iters);
        double[] in = new double[count];
        double[] res = new double[count];
        for (int i = 0; i < count; i++) {
            in[i] = rank + 1 + i;
        }
        hist.reset();
        comm.barrier();
        long sum = 0;
        for (long i = 0; i < warm + iters; i++) {
            long t0 = System.nanoTime();
            comm.allreduce(in, 0, res, 0, count, Op.SUM);
            long dt = System.nanoTime() - t0;
            if (i == 0) {
                double expect = np * (np + 1) / 2.0 + (double) np * (count - 1);
                if (res[count - 1] != expect) {
                    throw new IllegalStateException("allreduce at rank " + rank + ": got " + res[count - 1]
                            + ", expected " + expect);
                }
            }
            if (i >= warm) {
                hist.recordValue(Math.min(Math.max(dt, 1), HIGHEST_NS));
                sum += dt;
            }
        }
        double mean = sum / 1e3 / iters;
        return new Row("allreduce", opt.transport(), np, size, iters, mean, hist.getValueAtPercentile(50) / 1e3,
                hist.getValueAtPercentile(99) / 1e3, hist.getMaxValue() / 1e3, mean > 0 ? size / mean : 0);
    }

    /** The data written and checked: byte i of rank r's buffer is {@code i * 31 + r}. */
    static final class Patterns {
        private Patterns() {
        }

        static void fill(byte[] buf, int n, int seed) {
            for (int i = 0; i < n; i++) {
                buf[i] = (byte) (i * 31 + seed);
            }
        }

        static void check(byte[] buf, int n, int seed, String what, Status st, int rank) {
            if (st != null && st.bytes() != n) {
                throw new IllegalStateException(what + " at rank " + rank + ": received " + st.bytes()
                        + " bytes, expected " + n);
            }
            for (int i = 0; i < n; i++) {
                if (buf[i] != (byte) (i * 31 + seed)) {
                    throw new IllegalStateException(what + " at rank " + rank + ": wrong byte at " + i + " of " + n);
                }
            }
        }
    }

    /** Heap bytes allocated by every thread of this JVM so far. */
    static final class Alloc {
        private Alloc() {
        }

        static long total() {
            java.lang.management.ThreadMXBean mx = ManagementFactory.getThreadMXBean();
            if (!(mx instanceof com.sun.management.ThreadMXBean sun) || !sun.isThreadAllocatedMemorySupported()) {
                throw new UnsupportedOperationException("this JVM cannot measure allocated bytes per thread");
            }
            if (!sun.isThreadAllocatedMemoryEnabled()) {
                sun.setThreadAllocatedMemoryEnabled(true);
            }
            return sun.getTotalThreadAllocatedBytes();
        }
    }
}
