import java.io.BufferedInputStream;
import java.io.File;
import java.io.FileInputStream;
import java.io.InputStream;
import java.lang.management.CompilationMXBean;
import java.lang.management.ManagementFactory;
import java.util.Arrays;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.Locale;
import java.util.Set;
import javax.management.ObjectName;
import mpi.MPI;

/**
 * Railyard's collective benchmark ({@code org.railyard.bench.CollectiveBenchRank}) written against
 * the mpiJava 1.2 API (package {@code mpi}), so that any implementation of that API (MPJ Express,
 * and Railyard's own {@code mpi} facade) can be measured with the same method and the same output
 * as Railyard's own collectives and the C peer {@code bench/peers/c/ry_coll.c}. The method is
 * described in {@code bench/README.md}; keep the three in step.
 *
 * <p>Every rank times each call of the collective; rank 0 writes one TSV row per collective and
 * size with the mean over all ranks of their mean time, and rank 0's median, 99th percentile and
 * maximum (nearest rank over its samples). Sizes: allreduce and bcast move a vector of that many
 * bytes (allreduce sums doubles, so sizes under 8 bytes are skipped); allgather gathers that many
 * bytes from each rank; alltoall sends that many bytes to each rank; barrier runs once, at size 0.
 * bcast's root is rank 0. Before each size of each collective, untimed passes of it repeat
 * until the JIT has settled on every rank (see settle; {@code --no-jit-warmup} turns it off).
 *
 * <p>Only mpiJava 1.2 calls are used ({@code MPI.Init}, {@code MPI.COMM_WORLD.Rank/Size/Barrier/
 * Bcast/Allreduce/Allgather/Alltoall/Abort}, {@code MPI.Finalize}); timing uses
 * {@link System#nanoTime()}. Plain Java 8, and no static mutable state, because MPJ Express's
 * multicore device runs every rank as a thread of one JVM.
 *
 * <pre>
 * java RyCollPeer [allreduce|bcast|alltoall|allgather|barrier|all][,...] [--sizes SPEC] [--iters N]
 *     [--transport LABEL] [--no-jit-warmup] [--touch] [--serve FILE]
 * </pre>
 *
 * <p>With {@code --touch}, before each call after the first (untimed) the rank writes one byte (one
 * double for allreduce) in every 64 bytes of what the call sends, as a program does that computes
 * its data between calls (bench/peers/c/ry_coll.c and CollectiveBenchRank do the same).
 *
 * <p>With {@code --serve FILE} it measures no list: after its header every rank reads lines from
 * FILE, which the driver (bench/compare-coll.sh {@code --paired}) appends to, each
 * {@code COLLECTIVE BYTES} (one row; the JIT warm-up only the first time of a cell) or {@code quit}.
 * A rank waiting for a line looks at the file every 10 ms and gives up after 30 minutes, as
 * CollectiveBenchRank's CommandFile does.
 */
public class RyCollPeer {
    private static final String[] ORDER = {"barrier", "bcast", "allreduce", "allgather", "alltoall"};
    private static final long SMALL = 8 * 1024;
    private static final long MEDIUM = 64 * 1024;

    private final int rank;
    private final int np;
    private final Set<String> colls = new LinkedHashSet<String>();
    private long[] sizes = parseSizes("1:1m");
    private long iterBase = -1;
    private String transport = "mpijava";
    private boolean jitWarmup = true;
    private boolean touch;
    private File serve;

    private RyCollPeer(int rank, int np) {
        this.rank = rank;
        this.np = np;
    }

    public static void main(String[] args) throws Exception {
        String[] rest = MPI.Init(args); // MPJ Express puts its own arguments first and removes them here
        RyCollPeer p = new RyCollPeer(MPI.COMM_WORLD.Rank(), MPI.COMM_WORLD.Size());
        String problem = p.parse(rest);
        if (problem != null) {
            if (p.rank == 0) {
                System.err.println("RyCollPeer: " + problem);
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
                if (a.equals("--sizes")) {
                    sizes = parseSizes(args[++i]);
                } else if (a.equals("--iters")) {
                    iterBase = Long.parseLong(args[++i]);
                    if (iterBase <= 0) {
                        return "--iters: expected a positive count";
                    }
                } else if (a.equals("--transport")) {
                    transport = args[++i];
                } else if (a.equals("--no-jit-warmup")) {
                    jitWarmup = false;
                } else if (a.equals("--touch")) {
                    touch = true;
                } else if (a.equals("--serve")) {
                    serve = new File(args[++i]);
                } else if (a.startsWith("-")) {
                    return "unknown option " + a + "; usage: RyCollPeer [allreduce|bcast|alltoall|allgather|barrier|all][,...]"
                            + " [--sizes SPEC] [--iters N] [--transport LABEL] [--no-jit-warmup] [--touch] [--serve FILE]";
                } else {
                    for (String c : a.split(",")) {
                        String n = c.trim().toLowerCase(Locale.ROOT);
                        if (n.equals("all")) {
                            colls.addAll(Arrays.asList(ORDER));
                        } else if (Arrays.asList(ORDER).contains(n)) {
                            colls.add(n);
                        } else if (!n.isEmpty()) {
                            return "unknown collective '" + c + "'; one of " + Arrays.toString(ORDER) + " or all";
                        }
                    }
                }
            }
        } catch (ArrayIndexOutOfBoundsException e) {
            return "an option is missing its value";
        } catch (IllegalArgumentException e) {
            return e.getMessage();
        }
        if (colls.isEmpty()) {
            colls.addAll(Arrays.asList(ORDER));
        }
        return null;
    }

    /** Parses 8, 64k, 4m, 1g (powers of 1024; an optional trailing b or ib). */
    private static long parseSize(String s) {
        String t = s.trim().toLowerCase(Locale.ROOT);
        if (t.endsWith("ib")) {
            t = t.substring(0, t.length() - 2);
        } else if (t.endsWith("b")) {
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
            v = Long.parseLong(t.trim());
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("bad size '" + s + "': expected e.g. 8, 64k or 1m");
        }
        if (v < 0 || v > (1L << 30) / mult) {
            throw new IllegalArgumentException("bad size '" + s + "': must be between 0 and 1g");
        }
        return v * mult;
    }

    /** Comma-separated sizes and power-of-two ranges LO:HI, in the given order without repeats. */
    private static long[] parseSizes(String spec) {
        long[] out = new long[0];
        for (String item : spec.split(",")) {
            if (item.trim().isEmpty()) {
                continue;
            }
            int colon = item.indexOf(':');
            long lo = parseSize(colon < 0 ? item : item.substring(0, colon));
            long hi = colon < 0 ? lo : parseSize(item.substring(colon + 1));
            if (colon >= 0 && (lo <= 0 || hi < lo)) {
                throw new IllegalArgumentException("bad range '" + item + "': expected LO:HI with 0 < LO <= HI");
            }
            for (long s = lo; s <= hi; s = s == 0 ? 1 : s * 2) {
                boolean seen = false;
                for (long x : out) {
                    seen |= x == s;
                }
                if (!seen) {
                    out = Arrays.copyOf(out, out.length + 1);
                    out[out.length - 1] = s;
                }
            }
        }
        if (out.length == 0) {
            throw new IllegalArgumentException("empty size list: expected e.g. 1:1m or 8,1k,64k");
        }
        return out;
    }

    /** Timed calls at a size: the base (default 1000) up to 8 KiB, a fifth to 64 KiB, a twentieth beyond. */
    private long iterations(long size) {
        long base = iterBase > 0 ? iterBase : 1000;
        return Math.max(1, size <= SMALL ? base : size <= MEDIUM ? base / 5 : base / 20);
    }

    private void run() throws Exception {
        long max = 8;
        for (long s : sizes) {
            max = Math.max(max, s);
        }
        if (max * np > Integer.MAX_VALUE - 8) {
            throw new IllegalArgumentException("size times ranks above 2 GiB is not supported");
        }
        byte[] sbuf = new byte[(int) (max * np)];
        byte[] rbuf = new byte[(int) (max * np)];
        double[] din = new double[(int) (max / 8)];
        double[] dout = new double[din.length];
        double[] samples = new double[(int) iterations(0)];
        if (rank == 0) {
            System.out.println("benchmark\ttransport\tnp\tbytes\titerations\tmean_us\tp50_us\tp99_us\tmax_us\tMB_s");
            System.out.flush();
        }
        if (serve != null) {
            serve(max, sbuf, rbuf, din, dout, samples);
            return;
        }
        for (String c : ORDER) {
            if (!colls.contains(c)) {
                continue;
            }
            for (long size : c.equals("barrier") ? new long[] {0} : sizes) {
                if (c.equals("allreduce") && size < 8) {
                    continue;
                }
                if (jitWarmup) {
                    settle(c, (int) size, sbuf, rbuf, din, dout, samples);
                }
                measure(c, (int) size, sbuf, rbuf, din, dout, samples, true);
            }
        }
    }

    /** {@code --serve}: one cell a line of the command file until {@code quit}; every rank reads it on its own. */
    private void serve(long max, byte[] sbuf, byte[] rbuf, double[] din, double[] dout, double[] samples) throws Exception {
        Set<String> warmed = new HashSet<String>();
        InputStream in = new BufferedInputStream(new FileInputStream(serve));
        try {
            for (String line = nextCommand(in); !line.trim().equals("quit"); line = nextCommand(in)) {
                String[] f = line.trim().split("\\s+");
                String c = f[0].toLowerCase(Locale.ROOT);
                long size = -1;
                try {
                    size = f.length == 2 ? Long.parseLong(f[1]) : -1;
                } catch (NumberFormatException e) {
                    size = -1;
                }
                if (!Arrays.asList(ORDER).contains(c) || size < 0 || size > max || c.equals("allreduce") && size < 8) {
                    throw new IllegalArgumentException("--serve: cannot measure '" + line + "' from " + serve
                            + ": expected COLLECTIVE BYTES (one of " + Arrays.toString(ORDER) + ", bytes up to " + max
                            + " and at least 8 for allreduce) or quit");
                }
                if (jitWarmup && warmed.add(c + " " + size)) {
                    settle(c, (int) size, sbuf, rbuf, din, dout, samples);
                }
                measure(c, (int) size, sbuf, rbuf, din, dout, samples, true);
            }
        } finally {
            in.close();
        }
    }

    /** The next complete line of the command file, waited for (every 10 ms, for at most 30 minutes). */
    private String nextCommand(InputStream in) throws Exception {
        StringBuilder line = new StringBuilder();
        long deadline = System.nanoTime() + 30L * 60 * 1_000_000_000L;
        while (true) {
            int b = in.read(); // at the end of the file -1, and later what was appended since
            if (b == '\n') {
                return line.toString();
            }
            if (b >= 0) {
                line.append((char) b);
            } else if (System.nanoTime() - deadline > 0) {
                throw new IllegalStateException("--serve: no command in " + serve + " for 30 minutes (the driver is gone?)");
            } else {
                Thread.sleep(10);
            }
        }
    }

    /**
     * The JIT warm-up before each size of each collective (Railyard's CollectiveBenchRank
     * follows the same rule, see org.railyard.bench.JitSettle): untimed, unreported passes of that
     * size repeat until no rank's JIT has finished a compilation for 300 ms and none has one
     * under way or queued, at least once and for at most 15 s; all ranks agree after each pass with
     * an allreduce.
     */
    private void settle(String c, int size, byte[] sbuf, byte[] rbuf, double[] din, double[] dout, double[] samples)
            throws Exception {
        CompilationMXBean jit = ManagementFactory.getCompilationMXBean();
        boolean watch = jit != null && jit.isCompilationTimeMonitoringSupported();
        long start = System.nanoTime();
        long quietSince = start;
        long seen = watch ? jit.getTotalCompilationTime() : 0;
        int[] done = new int[1];
        int[] all = new int[1];
        do {
            measure(c, size, sbuf, rbuf, din, dout, samples, false);
            long now = System.nanoTime();
            long compiled = watch ? jit.getTotalCompilationTime() : seen;
            if (compiled != seen) {
                seen = compiled;
                quietSince = now;
            }
            boolean quiet = now - quietSince >= 300_000_000L && !compiling();
            done[0] = !watch || quiet || now - start >= 15_000_000_000L ? 1 : 0;
            MPI.COMM_WORLD.Allreduce(done, 0, all, 0, 1, MPI.INT, MPI.MIN);
        } while (all[0] == 0);
    }

    /**
     * True if this JVM's JIT has a compilation under way or queued, as the HotSpot diagnostic
     * command Compiler.queue lists them (headings end in a colon, an empty queue says "Empty",
     * every other line is a compilation); false when the JVM has no such command.
     */
    private static boolean compiling() {
        Object listing;
        try {
            listing = ManagementFactory.getPlatformMBeanServer().invoke(
                    new ObjectName("com.sun.management:type=DiagnosticCommand"), "compilerQueue", null, null);
        } catch (Exception e) {
            return false;
        }
        for (String line : String.valueOf(listing).split("\\R")) {
            String l = line.trim();
            if (!l.isEmpty() && !l.endsWith(":") && !l.equals("Empty")) {
                return true;
            }
        }
        return false;
    }

    /** One measurement of a collective at a size; rank 0 prints its row if {@code report}. */
    private void measure(String c, int size, byte[] sbuf, byte[] rbuf, double[] din, double[] dout, double[] samples,
                         boolean report) throws Exception {
        long iters = iterations(size);
        long warm = Math.max(1, iters / 10);
        int count = size / 8;
        for (int i = 0; i < count; i++) {
            din[i] = rank + 1 + i;
            dout[i] = 0;
        }
        for (int i = 0; i < size * np; i++) {
            sbuf[i] = (byte) (i * 31 + rank);
        }
        Arrays.fill(rbuf, 0, size * np, (byte) 0);
        Call call = call(c, size, sbuf, rbuf, din, dout, count);
        MPI.COMM_WORLD.Barrier();
        call.run(); // the first of the untimed calls: its result is checked
        if (!resultOk(c, size, rbuf, dout, count)) {
            System.err.println("RyCollPeer: " + c + " at rank " + rank + ", " + size + " B: wrong result");
            MPI.COMM_WORLD.Abort(3);
        }
        long sum = timed(call, touch ? touch(c, size, sbuf, din, count) : null, warm - 1, iters, samples);
        double[] mine = {sum / 1e3 / iters};
        double[] total = new double[1];
        MPI.COMM_WORLD.Allreduce(mine, 0, total, 0, 1, MPI.DOUBLE, MPI.SUM);
        double mean = total[0] / np;
        if (rank == 0 && report) {
            double[] s = Arrays.copyOf(samples, (int) iters);
            Arrays.sort(s);
            System.out.println(String.format(Locale.ROOT, "%s\t%s\t%d\t%d\t%d\t%.3f\t%.3f\t%.3f\t%.3f\t%.2f", c, transport, np,
                    size, iters, mean, percentile(s, 50), percentile(s, 99), s[s.length - 1], mean > 0 ? size / mean : 0));
            System.out.flush();
        }
    }

    /** One call of a collective. */
    private interface Call {
        void run() throws Exception;
    }

    /**
     * The timed loop, a method of its own and as small as it can be, so that the JIT compiles it
     * (and replaces it on the stack) in moments; inside the method that chose the collective and
     * checked its result, that whole method with every collective inlined was the unit of the
     * on-stack replacement, and its optimizing compilation ran beside the timed calls.
     */
    private static long timed(Call call, Touch touch, long warm, long iters, double[] samples) throws Exception {
        for (long i = 0; i < warm; i++) {
            if (touch != null) {
                touch.write(i);
            }
            call.run();
        }
        long sum = 0;
        for (int i = 0; i < iters; i++) {
            if (touch != null) {
                touch.write(warm + i);
            }
            long t0 = System.nanoTime();
            call.run();
            long dt = System.nanoTime() - t0;
            samples[i] = dt / 1e3;
            sum += dt;
        }
        return sum;
    }

    /** --touch: writes what the next call sends. */
    private interface Touch {
        void write(long i);
    }

    /** One byte (one double for allreduce) in every 64 bytes of what collective {@code c} sends; null if it sends nothing. */
    private Touch touch(String c, int size, final byte[] sbuf, final double[] din, final int count) {
        if (c.equals("allreduce")) {
            return new Touch() {
                public void write(long i) {
                    for (int k = 0; k < count; k += 8) {
                        din[k] = i;
                    }
                }
            };
        }
        if (!(c.equals("allgather") || c.equals("alltoall") || (c.equals("bcast") && rank == 0))) {
            return null;
        }
        final int n = c.equals("alltoall") ? size * np : size;
        return new Touch() {
            public void write(long i) {
                for (int k = 0; k < n; k += 64) {
                    sbuf[k] = (byte) i;
                }
            }
        };
    }

    /** One call of collective {@code c} at {@code size} on these buffers. */
    private Call call(String c, final int size, final byte[] sbuf, final byte[] rbuf, final double[] din,
                      final double[] dout, final int count) {
        if (c.equals("barrier")) {
            return new Call() {
                public void run() throws Exception {
                    MPI.COMM_WORLD.Barrier();
                }
            };
        } else if (c.equals("bcast")) {
            final byte[] buf = rank == 0 ? sbuf : rbuf;
            return new Call() {
                public void run() throws Exception {
                    MPI.COMM_WORLD.Bcast(buf, 0, size, MPI.BYTE, 0);
                }
            };
        } else if (c.equals("allreduce")) {
            return new Call() {
                public void run() throws Exception {
                    MPI.COMM_WORLD.Allreduce(din, 0, dout, 0, count, MPI.DOUBLE, MPI.SUM);
                }
            };
        } else if (c.equals("allgather")) {
            return new Call() {
                public void run() throws Exception {
                    MPI.COMM_WORLD.Allgather(sbuf, 0, size, MPI.BYTE, rbuf, 0, size, MPI.BYTE);
                }
            };
        }
        return new Call() {
            public void run() throws Exception {
                MPI.COMM_WORLD.Alltoall(sbuf, 0, size, MPI.BYTE, rbuf, 0, size, MPI.BYTE);
            }
        };
    }

    /** True if the first result of a collective at this size is what the senders wrote. */
    private boolean resultOk(String c, int size, byte[] rbuf, double[] dout, int count) {
        if (c.equals("bcast")) {
            return rank == 0 || size == 0 || rbuf[size - 1] == (byte) ((size - 1) * 31);
        } else if (c.equals("allreduce")) {
            return count == 0 || dout[count - 1] == np * (np + 1) / 2.0 + (double) np * (count - 1);
        } else if (c.equals("allgather")) {
            return size == 0 || rbuf[size * np - 1] == (byte) ((size - 1) * 31 + np - 1);
        } else if (c.equals("alltoall")) {
            return size == 0 || rbuf[size * np - 1] == (byte) ((rank * size + size - 1) * 31 + np - 1);
        }
        return true;
    }

    /** Nearest-rank percentile of sorted samples. */
    private static double percentile(double[] sorted, double p) {
        int k = (int) Math.ceil(p / 100.0 * sorted.length);
        return sorted[Math.min(sorted.length, Math.max(1, k)) - 1];
    }
}
