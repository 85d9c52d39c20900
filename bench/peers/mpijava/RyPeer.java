import java.lang.management.CompilationMXBean;
import java.lang.management.ManagementFactory;
import java.util.Arrays;
import java.util.Locale;
import mpi.MPI;
import mpi.Request;

/**
 * The Railyard benchmark suite written against the mpiJava 1.2 API (package {@code mpi}), so that
 * any implementation of that API (MPJ Express, and Railyard's own {@code mpi} facade) can be
 * measured with the same method and the same output as {@code org.railyard.bench.BenchRank} and the
 * C peer {@code bench/peers/c/ry_peer.c}. The method is described in {@code bench/README.md}.
 *
 * <p>Only mpiJava 1.2 calls are used: {@code MPI.Init}, {@code MPI.COMM_WORLD.Rank/Size/Send/Recv/
 * Isend/Irecv/Barrier/Allreduce/Abort}, {@code Request.Waitall}, {@code MPI.Finalize}. Timing uses
 * {@link System#nanoTime()}. No static mutable state, because MPJ Express's multicore device runs
 * every rank as a thread of one JVM.
 *
 * <pre>
 * java RyPeer [latency|bw|bibw|allreduce|all][,...] [--sizes SPEC] [--iters N] [--window W] [--transport NAME]
 * </pre>
 */
public class RyPeer {
    private static final long LARGE_LIMIT = 16 * 1024;
    private static final int TAG_DATA = 1;
    private static final int TAG_ACK = 2;
    private static final int TAG_PING = 3;

    private final int rank;
    private final int nprocs;
    private String transport = "mpijava";
    private long iterBase = -1;
    private int window = 64;
    private long[] sizes = parseSizes("1:4m");
    private boolean latency;
    private boolean bw;
    private boolean bibw;
    private boolean allreduce;
    private boolean jitWarmup = true;
    /** True during the JIT warm-up passes: nothing is reported. */
    private boolean quiet;

    private RyPeer(int rank, int nprocs) {
        this.rank = rank;
        this.nprocs = nprocs;
    }

    public static void main(String[] args) throws Exception {
        String[] rest = MPI.Init(args);
        RyPeer p = new RyPeer(MPI.COMM_WORLD.Rank(), MPI.COMM_WORLD.Size());
        String problem = p.parse(rest);
        if (problem != null) {
            if (p.rank == 0) {
                System.err.println("RyPeer: " + problem);
            }
            MPI.COMM_WORLD.Abort(2);
            return;
        }
        p.run();
        MPI.Finalize();
    }

    /** Reads the options; returns a message if they are wrong, else null. */
    private String parse(String[] args) {
        try {
            for (int i = 0; i < args.length; i++) {
                String a = args[i];
                switch (a) {
                    case "--sizes" -> sizes = parseSizes(args[++i]);
                    case "--iters" -> iterBase = positive(args[++i], "--iters");
                    case "--window" -> window = (int) positive(args[++i], "--window");
                    case "--transport" -> transport = args[++i];
                    case "--no-jit-warmup" -> jitWarmup = false;
                    default -> {
                        if (a.startsWith("-")) {
                            return "usage: RyPeer [latency|bw|bibw|allreduce|all] [--sizes SPEC] [--iters N] "
                                    + "[--window W] [--transport NAME] [--no-jit-warmup]";
                        }
                        for (String b : a.split(",")) {
                            switch (b.toLowerCase(Locale.ROOT)) {
                                case "latency" -> latency = true;
                                case "bw" -> bw = true;
                                case "bibw" -> bibw = true;
                                case "allreduce" -> allreduce = true;
                                case "all" -> latency = bw = bibw = allreduce = true;
                                default -> throw new IllegalArgumentException(
                                        "unknown benchmark '" + b + "'; expected latency, bw, bibw, allreduce or all");
                            }
                        }
                    }
                }
            }
        } catch (ArrayIndexOutOfBoundsException e) {
            return "an option is missing its value";
        } catch (IllegalArgumentException e) {
            return e.getMessage();
        }
        if (!(latency || bw || bibw || allreduce)) {
            latency = bw = bibw = allreduce = true;
        }
        if ((latency || bw || bibw) && nprocs < 2) {
            return "latency, bw and bibw need at least 2 processes";
        }
        return null;
    }

    private static long positive(String v, String what) {
        long n = Long.parseLong(v);
        if (n <= 0) {
            throw new IllegalArgumentException(what + ": expected a positive count");
        }
        return n;
    }

    /** Parses 8, 64k, 4m, 1g (powers of 1024). */
    private static long parseSize(String s) {
        String t = s.trim().toLowerCase(Locale.ROOT);
        if (t.endsWith("b")) {
            t = t.substring(0, t.length() - 1);
        }
        long mult = 1;
        if (t.endsWith("k")) {
            mult = 1L << 10;
        } else if (t.endsWith("m")) {
            mult = 1L << 20;
        } else if (t.endsWith("g")) {
            mult = 1L << 30;
        }
        if (mult != 1) {
            t = t.substring(0, t.length() - 1);
        }
        long v;
        try {
            v = Long.parseLong(t);
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("bad size '" + s + "': expected e.g. 8, 64k or 4m");
        }
        if (v < 0) {
            throw new IllegalArgumentException("bad size '" + s + "': negative");
        }
        return v * mult;
    }

    /** Comma-separated sizes and power-of-two ranges LO:HI. */
    private static long[] parseSizes(String spec) {
        long[] out = new long[0];
        for (String item : spec.split(",")) {
            int colon = item.indexOf(':');
            if (colon >= 0) {
                long lo = parseSize(item.substring(0, colon));
                long hi = parseSize(item.substring(colon + 1));
                if (lo <= 0 || hi < lo) {
                    throw new IllegalArgumentException("bad range '" + item + "': expected LO:HI with 0 < LO <= HI");
                }
                for (long s = lo; s <= hi; s *= 2) {
                    out = Arrays.copyOf(out, out.length + 1);
                    out[out.length - 1] = s;
                }
            } else {
                out = Arrays.copyOf(out, out.length + 1);
                out[out.length - 1] = parseSize(item);
            }
        }
        return out;
    }

    /** Timed iterations for a benchmark and size; warm-up is a tenth of it (at least one). */
    private long iterations(String bench, long size) {
        boolean windowed = bench.equals("bw") || bench.equals("bibw");
        long base = iterBase > 0 ? iterBase : bench.equals("latency") ? 10000 : bench.equals("allreduce") ? 1000 : 100;
        long n = size > LARGE_LIMIT ? (windowed ? base / 5 : base / 10) : base;
        return Math.max(1, n);
    }

    /** Untimed iterations before each size: a tenth of the timed count (at least one). */
    private long warmup(long iters) {
        return Math.max(1, iters / 10);
    }

    /** One size of one benchmark, as run() does it. */
    private interface Pass {
        void run() throws Exception;
    }

    /**
     * The JIT warm-up before each size of each benchmark (Railyard's BenchRank follows the same
     * rule, see org.railyard.bench.JitSettle): untimed, unreported passes of that size repeat until
     * no rank's JIT has finished a compilation for 300 ms, at least once and for at most 15 s; all
     * ranks agree after each pass with an allreduce.
     */
    private void settle(Pass pass) throws Exception {
        CompilationMXBean jit = ManagementFactory.getCompilationMXBean();
        boolean watch = jit != null && jit.isCompilationTimeMonitoringSupported();
        long start = System.nanoTime();
        long quietSince = start;
        long seen = watch ? jit.getTotalCompilationTime() : 0;
        int[] done = new int[1];
        int[] all = new int[1];
        quiet = true;
        try {
            do {
                pass.run();
                long now = System.nanoTime();
                long compiled = watch ? jit.getTotalCompilationTime() : seen;
                if (compiled != seen) {
                    seen = compiled;
                    quietSince = now;
                }
                done[0] = !watch || now - quietSince >= 300_000_000L || now - start >= 15_000_000_000L ? 1 : 0;
                MPI.COMM_WORLD.Allreduce(done, 0, all, 0, 1, MPI.INT, MPI.MIN);
            } while (all[0] == 0);
        } finally {
            quiet = false;
        }
    }

    private void run() throws Exception {
        long max = 8;
        for (long s : sizes) {
            max = Math.max(max, s);
        }
        if (max > Integer.MAX_VALUE - 8) {
            throw new IllegalArgumentException("sizes above 2 GiB are not supported");
        }
        byte[] sbuf = new byte[(int) max];
        byte[] rbuf = new byte[(int) max];
        byte[] ack = new byte[4];
        long most = Math.max(iterations("latency", 1), Math.max(iterations("bw", 1), iterations("allreduce", 1)));
        double[] samples = new double[(int) most];
        if (rank == 0) {
            System.out.println("benchmark\ttransport\tnp\tbytes\titerations\tmean_us\tp50_us\tp99_us\tmax_us\tMB_s");
            System.out.flush();
        }
        boolean pair = rank < 2;
        boolean[] selected = {latency, bw, bibw};
        for (int b = 0; b < selected.length; b++) {
            if (!selected[b]) {
                continue;
            }
            for (long s : sizes) {
                final int size = (int) s;
                final int which = b;
                Pass step = () -> {
                    if (!pair) {
                        MPI.COMM_WORLD.Barrier(); // the barrier ranks 0 and 1 take before each size
                    } else if (which == 0) {
                        latency(size, sbuf, rbuf, samples);
                    } else {
                        bandwidth(which == 2, size, sbuf, rbuf, ack, samples);
                    }
                };
                if (jitWarmup) {
                    settle(step);
                }
                step.run();
            }
        }
        if (allreduce) {
            double[] in = new double[(int) (max / 8)];
            double[] out = new double[in.length];
            for (long s : sizes) {
                if (s >= 8) {
                    final int size = (int) s;
                    Pass step = () -> allreduce(size, in, out, samples);
                    if (jitWarmup) {
                        settle(step);
                    }
                    step.run();
                }
            }
        }
    }

    /** Fills the first {@code size} bytes of {@code sbuf} with this rank's pattern, clears {@code rbuf}'s, and waits for every rank. */
    private void prepare(byte[] sbuf, byte[] rbuf, int size) throws Exception {
        fill(sbuf, size, rank);
        Arrays.fill(rbuf, 0, size, (byte) 0);
        MPI.COMM_WORLD.Barrier();
    }

    private void latency(int size, byte[] sbuf, byte[] rbuf, double[] samples) throws Exception {
        long iters = iterations("latency", size);
        long warm = warmup(iters);
        int peer = 1 - rank;
        prepare(sbuf, rbuf, size);
        double total = 0;
        for (long i = 0; i < warm + iters; i++) {
            long t0 = System.nanoTime();
            if (rank == 0) {
                MPI.COMM_WORLD.Send(sbuf, 0, size, MPI.BYTE, peer, TAG_PING);
                MPI.COMM_WORLD.Recv(rbuf, 0, size, MPI.BYTE, peer, TAG_PING);
            } else {
                MPI.COMM_WORLD.Recv(rbuf, 0, size, MPI.BYTE, peer, TAG_PING);
                MPI.COMM_WORLD.Send(sbuf, 0, size, MPI.BYTE, peer, TAG_PING);
            }
            double half = (System.nanoTime() - t0) / 2e3;
            if (i == 0) {
                check(rbuf, size, peer, "latency");
            }
            if (i >= warm) {
                samples[(int) (i - warm)] = half;
                total += half;
            }
        }
        reportMean("latency", size, iters, samples, total);
    }

    private void bandwidth(boolean both, int size, byte[] sbuf, byte[] rbuf, byte[] ack, double[] samples)
            throws Exception {
        String name = both ? "bibw" : "bw";
        long iters = iterations(name, size);
        long warm = warmup(iters);
        int peer = 1 - rank;
        int sends = both || rank == 0 ? window : 0;
        int recvs = both || rank == 1 ? window : 0;
        Request[] reqs = new Request[sends + recvs];
        prepare(sbuf, rbuf, size);
        long start = 0;
        for (long i = 0; i < warm + iters; i++) {
            long t0 = System.nanoTime();
            if (i == warm) {
                start = t0;
            }
            int n = 0;
            for (int w = 0; w < recvs; w++) {
                reqs[n++] = MPI.COMM_WORLD.Irecv(rbuf, 0, size, MPI.BYTE, peer, TAG_DATA);
            }
            for (int w = 0; w < sends; w++) {
                reqs[n++] = MPI.COMM_WORLD.Isend(sbuf, 0, size, MPI.BYTE, peer, TAG_DATA);
            }
            Request.Waitall(reqs);
            if (rank == 0) {
                MPI.COMM_WORLD.Recv(ack, 0, ack.length, MPI.BYTE, peer, TAG_ACK);
            } else {
                MPI.COMM_WORLD.Send(ack, 0, ack.length, MPI.BYTE, peer, TAG_ACK);
            }
            if (i == 0 && recvs > 0) {
                check(rbuf, size, peer, name);
            }
            if (i >= warm) {
                samples[(int) (i - warm)] = (System.nanoTime() - t0) / 1e3 / window;
            }
        }
        double elapsedUs = (System.nanoTime() - start) / 1e3;
        if (rank == 0) {
            double messages = (double) iters * window * (both ? 2 : 1);
            report(name, size, iters, samples, elapsedUs / ((double) iters * window), size * messages / elapsedUs);
        }
    }

    private void allreduce(int size, double[] in, double[] out, double[] samples) throws Exception {
        int count = size / 8;
        if (count < 1) {
            return;
        }
        long iters = iterations("allreduce", size);
        long warm = warmup(iters);
        for (int i = 0; i < count; i++) {
            in[i] = rank + 1 + i;
        }
        MPI.COMM_WORLD.Barrier();
        double total = 0;
        for (long i = 0; i < warm + iters; i++) {
            long t0 = System.nanoTime();
            MPI.COMM_WORLD.Allreduce(in, 0, out, 0, count, MPI.DOUBLE, MPI.SUM);
            double us = (System.nanoTime() - t0) / 1e3;
            if (i == 0) {
                double expect = nprocs * (nprocs + 1) / 2.0 + (double) nprocs * (count - 1);
                if (out[count - 1] != expect) {
                    System.err.println("RyPeer: rank " + rank + ": allreduce: got " + out[count - 1] + ", expected " + expect);
                    MPI.COMM_WORLD.Abort(3);
                }
            }
            if (i >= warm) {
                samples[(int) (i - warm)] = us;
                total += us;
            }
        }
        reportMean("allreduce", size, iters, samples, total);
    }

    /** Rank 0 reports a benchmark timed per iteration: {@code totalUs} over {@code iters}, {@code size} bytes moved in each. */
    private void reportMean(String name, int size, long iters, double[] samples, double totalUs) {
        if (rank == 0) {
            double mean = totalUs / iters;
            report(name, size, iters, samples, mean, mean > 0 ? size / mean : 0);
        }
    }

    private void report(String name, long bytes, long iters, double[] samples, double meanUs, double mbs) {
        if (quiet) {
            return; // a JIT warm-up pass
        }
        double[] s = Arrays.copyOf(samples, (int) iters);
        Arrays.sort(s);
        System.out.println(String.format(Locale.ROOT, "%s\t%s\t%d\t%d\t%d\t%.3f\t%.3f\t%.3f\t%.3f\t%.2f", name, transport,
                nprocs, bytes, iters, meanUs, percentile(s, 50), percentile(s, 99), s[s.length - 1], mbs));
        System.out.flush();
    }

    /** Nearest-rank percentile of sorted samples. */
    private static double percentile(double[] sorted, double p) {
        int k = (int) Math.ceil(p / 100.0 * sorted.length);
        return sorted[Math.min(sorted.length, Math.max(1, k)) - 1];
    }

    private static void fill(byte[] buf, int n, int seed) {
        for (int i = 0; i < n; i++) {
            buf[i] = (byte) (i * 31 + seed);
        }
    }

    private void check(byte[] buf, int n, int seed, String what) throws Exception {
        for (int i = 0; i < n; i++) {
            if (buf[i] != (byte) (i * 31 + seed)) {
                System.err.println("RyPeer: rank " + rank + ": " + what + ": wrong byte at " + i + " of " + n);
                MPI.COMM_WORLD.Abort(3);
            }
        }
    }
}
