package org.railyard.bench;

import static org.railyard.bench.RankMain.value;

import java.io.PrintStream;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.Locale;
import java.util.Set;
import java.util.function.LongConsumer;
import org.HdrHistogram.Histogram;
import org.railyard.Comm;
import org.railyard.Datatype;
import org.railyard.Op;
import org.railyard.Railyard;

/**
 * The collective benchmark each rank of a job runs, in the manner of the OSU collective tests:
 * every rank times each call of the collective, and rank 0 writes one TSV row per collective and
 * size (format {@link Tsv}) with the mean over all ranks of their mean time, and rank 0's median,
 * 99th percentile and maximum.
 *
 * <pre>
 * railyard run -np 4 org.railyard.bench.CollectiveBenchRank [allreduce|bcast|alltoall|allgather|barrier|reduce|reduce_scatter_block|all][,...]
 *     [--sizes 1:1m] [--iters N] [--buffers heap|offheap] [--alloc] [--touch] [--transport LABEL] [--no-jit-warmup]
 *     [--serve FILE]
 * </pre>
 *
 * <p>Sizes follow OSU: allreduce and bcast move a vector of that many bytes (allreduce sums
 * doubles, so it starts at 8 bytes); allgather gathers that many bytes from each rank; alltoall
 * sends that many bytes to each rank; barrier runs once, at size 0. bcast's root is rank 0.
 * reduce (to rank 0) and reduce_scatter_block, measured only when named, sum a vector of doubles
 * of that many bytes like allreduce; reduce_scatter_block leaves a p-th of it (whole doubles) at
 * each rank.
 * Buffers are byte arrays (doubles for allreduce) allocated once; the first result of each size
 * is checked. With {@code --buffers offheap} they are native {@link MemorySegment}s instead (the
 * doubles of allreduce too, passed with {@link Datatype#DOUBLE}), 64-byte aligned, allocated once
 * per collective and size from a shared arena and freed after it; the transport column then ends
 * in {@code +offheap}.
 *
 * <p>With {@code --touch}, before each call after the first (untimed), every rank writes one byte
 * (one double for allreduce and the reductions) in every 64 bytes of what the call sends, as a
 * program does that computes its data between calls. The call then moves lines just written on
 * this rank's core; without it, a reader of a send buffer the benchmark never changes may still
 * hold its lines from the call before. bench/peers/c/ry_coll.c and RyCollPeer take the same option.
 *
 * <p>With {@code --serve FILE} the program measures no list: after its header it waits for lines
 * in FILE ({@link CommandFile}), each {@code COLLECTIVE BYTES} (one row, measured as above; the
 * JIT warm-up only the first time of a cell) or {@code quit}, with sizes up to the largest of
 * {@code --sizes}. bench/compare-coll.sh {@code --paired} keeps one such job of every implementation
 * alive and has them measure each cell in turn, seconds apart, so that a cell's implementations
 * meet the machine in the same state. ry_coll.c and RyCollPeer take the same option.
 *
 * <p>With {@code --alloc} each row also has the heap bytes allocated per call during the timed
 * calls, by every thread of a rank's JVM (the progress agent's too), the largest over the ranks.
 */
public final class CollectiveBenchRank {
    /** The collectives, by the names the TSV rows use. */
    static final Set<String> ALL = Set.of("barrier", "bcast", "allreduce", "allgather", "alltoall");
    /** Measured when named, not by {@code all} (the peer programs of bench/compare-coll.sh have only the five above). */
    static final Set<String> EXTRA = Set.of("reduce", "reduce_scatter_block");
    private static final String[] ORDER = {"barrier", "bcast", "allreduce", "allgather", "alltoall", "reduce",
        "reduce_scatter_block"};
    private static final long HIGHEST_NS = 3_600_000_000_000L;
    /** {@code --serve}: how long a rank waits for the next command before it gives up. */
    private static final Duration SERVE_IDLE = Duration.ofMinutes(30);
    private static final long SMALL = 8 * 1024;
    private static final long MEDIUM = 64 * 1024;
    /** Alignment of the off-heap buffers: a cache line. */
    private static final long ALIGN = 64;
    /** A double in a byte buffer as Railyard reads it with {@link Datatype#DOUBLE}: little endian on every host. */
    private static final ValueLayout.OfDouble DOUBLE_LE = ValueLayout.JAVA_DOUBLE.withOrder(ByteOrder.LITTLE_ENDIAN);

    /** Options of one run; {@code transport} is the TSV column (with {@code +offheap} for off-heap buffers). */
    record Options(Set<String> collectives, long[] sizes, long iterBase, boolean offHeap, String transport,
                   boolean jitWarmup, boolean alloc, boolean touch, Path serve) {
        static Options parse(String... args) {
            Set<String> colls = new LinkedHashSet<>();
            long[] sizes = Sizes.parseList("1:1m");
            long iters = -1;
            boolean offHeap = false;
            String transport = null;
            boolean jit = true;
            boolean alloc = false;
            boolean touch = false;
            Path serve = null;
            for (int i = 0; i < args.length; i++) {
                String a = args[i];
                switch (a) {
                    case "--sizes" -> sizes = Sizes.parseList(value(args, ++i, a));
                    case "--iters" -> iters = Long.parseLong(value(args, ++i, a));
                    case "--buffers" -> offHeap = offHeap(value(args, ++i, a));
                    case "--transport" -> transport = value(args, ++i, a);
                    case "--no-jit-warmup" -> jit = false;
                    case "--alloc" -> alloc = true;
                    case "--touch" -> touch = true;
                    case "--serve" -> serve = Path.of(value(args, ++i, a));
                    default -> {
                        if (a.startsWith("-")) {
                            throw new IllegalArgumentException("unknown option " + a + "; usage: CollectiveBenchRank "
                                    + "[allreduce|bcast|alltoall|allgather|barrier|reduce|reduce_scatter_block|all][,...] "
                                    + "[--sizes SPEC] [--iters N] "
                                    + "[--buffers heap|offheap] [--alloc] [--touch] [--transport LABEL] [--no-jit-warmup] [--serve FILE]");
                        }
                        for (String c : a.split(",")) {
                            String n = c.trim().toLowerCase(Locale.ROOT);
                            if (n.equals("all")) {
                                colls.addAll(ALL);
                            } else if (ALL.contains(n) || EXTRA.contains(n)) {
                                colls.add(n);
                            } else if (!n.isEmpty()) {
                                throw new IllegalArgumentException("unknown collective '" + c + "'; one of " + ALL + ", " + EXTRA
                                        + " or all");
                            }
                        }
                    }
                }
            }
            if (colls.isEmpty()) {
                colls.addAll(ALL);
            }
            transport = RankMain.transportLabel(transport);
            if (offHeap) {
                transport += "+offheap";
            }
            return new Options(colls, sizes, iters, offHeap, transport, jit, alloc, touch, serve);
        }

        private static boolean offHeap(String buffers) {
            return switch (buffers.toLowerCase(Locale.ROOT)) {
                case "heap" -> false;
                case "offheap" -> true;
                default -> throw new IllegalArgumentException("--buffers is heap or offheap, not '" + buffers + "'");
            };
        }

    }

    private final Comm comm;
    private final Options opt;
    private final PrintStream out;
    private final int rank;
    private final int np;
    private final Histogram hist = new Histogram(1, HIGHEST_NS, 3);

    CollectiveBenchRank(Comm comm, Options opt, PrintStream out) {
        this.comm = comm;
        this.opt = opt;
        this.out = out;
        this.rank = comm.rank();
        this.np = comm.size();
    }

    /** Joins the job, runs the benchmarks, leaves. Exits with status 2 on a bad argument. */
    public static void main(String[] args) {
        Options opt = RankMain.options("CollectiveBenchRank", args, Options::parse);
        try (Railyard ry = Railyard.init(args)) {
            new CollectiveBenchRank(ry.world(), opt, System.out).run();
        }
    }

    /** Timed iterations at a size: the base (default 1000) up to 8 KiB, a fifth to 64 KiB, a twentieth beyond. */
    private long iterations(long size) {
        long base = opt.iterBase() > 0 ? opt.iterBase() : 1000;
        return Math.max(1, size <= SMALL ? base : size <= MEDIUM ? base / 5 : base / 20);
    }

    // allreduce's vectors: double[], or MemorySegments holding doubles with --buffers offheap
    private Object din;
    private Object dout;

    void run() {
        long max = 8;
        for (long s : opt.sizes()) {
            max = Math.max(max, s);
        }
        byte[] sbuf = null;
        byte[] rbuf = null;
        if (!opt.offHeap()) {
            sbuf = new byte[(int) (max * np)];
            rbuf = new byte[(int) (max * np)];
            // allreduce's vectors too are allocated once: allocating them per pass of the JIT warm-up
            // made the garbage collector run during the timed calls of large sizes
            din = new double[(int) (max / Double.BYTES)];
            dout = new double[(int) (max / Double.BYTES)];
        }
        if (rank == 0) {
            out.println(Tsv.header(opt.alloc()));
            out.flush();
        }
        if (opt.serve() != null) {
            serve(max, sbuf, rbuf);
            return;
        }
        for (String c : ORDER) {
            if (!opt.collectives().contains(c)) {
                continue;
            }
            for (long size : c.equals("barrier") ? new long[] {0} : opt.sizes()) {
                if (measured(c, size)) {
                    cell(c, (int) size, sbuf, rbuf, opt.jitWarmup());
                }
            }
        }
    }

    /** Whether collective {@code c} has a row at {@code size}: the reductions need whole doubles. */
    private boolean measured(String c, long size) {
        return switch (c) {
            case "reduce_scatter_block" -> size >= (long) Double.BYTES * np;
            case "allreduce", "reduce" -> size >= Double.BYTES;
            default -> true;
        };
    }

    /**
     * {@code --serve}: one cell a line of the command file until {@code quit}. Every rank reads the
     * file on its own, so all of them take the same collective and size in the same order.
     */
    private void serve(long max, byte[] sbuf, byte[] rbuf) {
        Set<String> warmed = new HashSet<>();
        try (CommandFile commands = new CommandFile(opt.serve(), SERVE_IDLE)) {
            for (String line = commands.next(); !line.strip().equals("quit"); line = commands.next()) {
                String[] f = line.strip().split("\\s+");
                String c = f[0].toLowerCase(Locale.ROOT);
                long size;
                try {
                    size = f.length == 2 ? Long.parseLong(f[1]) : -1;
                } catch (NumberFormatException e) {
                    size = -1;
                }
                if (!ALL.contains(c) && !EXTRA.contains(c) || size < 0 || size > max || !measured(c, size)) {
                    throw new IllegalArgumentException("--serve: cannot measure '" + line + "' from " + opt.serve()
                            + ": expected COLLECTIVE BYTES (one of " + String.join(", ", ORDER) + "; bytes up to " + max
                            + " and at least 8 for the reductions) or quit");
                }
                cell(c, (int) size, sbuf, rbuf, opt.jitWarmup() && warmed.add(c + " " + size));
            }
        }
    }

    /** Measures collective {@code c} at {@code size} and prints its row, in the buffers {@code --buffers} asks for. */
    private void cell(String c, int size, byte[] sbuf, byte[] rbuf, boolean warmUp) {
        if (!opt.offHeap()) {
            measureAndPrint(c, size, sbuf, rbuf, warmUp);
            return;
        }
        // shared, not confined: the engine's progress agent may move the bytes of a collective
        try (Arena arena = Arena.ofShared()) {
            int count = size / Double.BYTES;
            din = arena.allocate((long) count * Double.BYTES, ALIGN);
            dout = arena.allocate((long) count * Double.BYTES, ALIGN);
            measureAndPrint(c, size, arena.allocate((long) size * np, ALIGN), arena.allocate((long) size * np, ALIGN),
                    warmUp);
        } finally {
            din = null;
            dout = null;
        }
    }

    private void measureAndPrint(String c, int size, Object sbuf, Object rbuf, boolean warmUp) {
        if (warmUp) {
            JitSettle.settle(comm, () -> measure(c, size, sbuf, rbuf));
        }
        Row row = measure(c, size, sbuf, rbuf);
        if (rank == 0) {
            out.println(Tsv.format(row, opt.alloc()));
            out.flush();
        }
    }

    private Row measure(String c, int size, Object sbuf, Object rbuf) {
        long iters = iterations(size);
        long warm = Math.max(1, iters / 10);
        fill(size, sbuf);
        Runnable call = call(c, size, sbuf, rbuf);
        hist.reset();
        comm.barrier();
        call.run(); // the first of the untimed calls: its result is checked
        check(c, size, rbuf);
        long allocStart = opt.alloc() ? BenchRank.Alloc.total() : 0;
        long sum = timed(call, opt.touch() ? touch(c, size, sbuf) : null, warm - 1, iters);
        double alloc = Double.NaN;
        if (opt.alloc()) {
            // the warm-up calls are in the loop too: per call over all of them
            long mineAlloc = BenchRank.Alloc.total() - allocStart;
            alloc = comm.allreduce(mineAlloc, Op.MAX) / (double) (warm - 1 + iters);
        }
        double mine = sum / 1e3 / iters;
        double mean = comm.allreduce(mine, Op.SUM) / np;
        return new Row(c, opt.transport(), np, size, iters, mean, hist.getValueAtPercentile(50) / 1e3,
                hist.getValueAtPercentile(99) / 1e3, hist.getMaxValue() / 1e3, mean > 0 ? size / mean : 0, alloc);
    }

    /**
     * The timed loop, a method of its own and as small as it can be: the JIT compiles it (and
     * replaces it on the stack) in moments. Inside the method that chose the collective, filled
     * the buffers and checked the result, the loop made that whole method, with every collective
     * inlined into it, the unit of an on-stack replacement, and the optimizing compiler then
     * worked on it for a second and more of processor time while the ranks took their timed calls.
     */
    private long timed(Runnable call, LongConsumer touch, long warm, long iters) {
        for (long i = 0; i < warm; i++) {
            if (touch != null) {
                touch.accept(i);
            }
            call.run();
        }
        long sum = 0;
        for (long i = 0; i < iters; i++) {
            if (touch != null) {
                touch.accept(warm + i);
            }
            long t0 = System.nanoTime();
            call.run();
            long dt = System.nanoTime() - t0;
            hist.recordValue(Math.min(Math.max(dt, 1), HIGHEST_NS));
            sum += dt;
        }
        return sum;
    }

    /**
     * {@code --touch}: writes one byte (one double for the reductions) in every 64 bytes of what
     * collective {@code c} sends at {@code size}; null if this rank sends nothing.
     */
    private LongConsumer touch(String c, int size, Object sbuf) {
        boolean reduction = c.equals("allreduce") || c.equals("reduce") || c.equals("reduce_scatter_block");
        if (reduction) {
            int count = size / Double.BYTES;
            if (din instanceof MemorySegment d) {
                return i -> {
                    for (int k = 0; k < count; k += 8) {
                        d.setAtIndex(DOUBLE_LE, k, i);
                    }
                };
            }
            double[] d = (double[]) din;
            return i -> {
                for (int k = 0; k < count; k += 8) {
                    d[k] = i;
                }
            };
        }
        if (!(c.equals("allgather") || c.equals("alltoall") || (c.equals("bcast") && rank == 0))) {
            return null;
        }
        long n = c.equals("alltoall") ? (long) size * np : size;
        if (sbuf instanceof MemorySegment s) {
            return i -> {
                for (long k = 0; k < n; k += 64) {
                    s.set(ValueLayout.JAVA_BYTE, k, (byte) i);
                }
            };
        }
        byte[] b = (byte[]) sbuf;
        return i -> {
            for (int k = 0; k < n; k += 64) {
                b[k] = (byte) i;
            }
        };
    }

    /** One call of collective {@code c} at {@code size} on these buffers. */
    private Runnable call(String c, int size, Object sbuf, Object rbuf) {
        int count = size / Double.BYTES;
        Object in = din;
        Object res = dout;
        // segments carry no type: say they hold doubles
        boolean typed = opt.offHeap();
        return switch (c) {
            case "barrier" -> comm::barrier;
            case "bcast" -> () -> comm.bcast(rank == 0 ? sbuf : rbuf, 0, size, 0);
            case "allreduce" -> typed ? () -> comm.allreduce(in, 0, res, 0, count, Datatype.DOUBLE, Op.SUM)
                    : () -> comm.allreduce(in, 0, res, 0, count, Op.SUM);
            case "allgather" -> () -> comm.allgather(sbuf, 0, size, rbuf, 0, size);
            case "reduce" -> typed ? () -> comm.reduce(in, 0, res, 0, count, Datatype.DOUBLE, Op.SUM, 0)
                    : () -> comm.reduce(in, 0, res, 0, count, Op.SUM, 0);
            case "reduce_scatter_block" -> typed
                    ? () -> comm.reduceScatterBlock(in, 0, res, 0, count / np, Datatype.DOUBLE, Op.SUM)
                    : () -> comm.reduceScatterBlock(in, 0, res, 0, count / np, Op.SUM);
            default -> () -> comm.alltoall(sbuf, 0, size, rbuf, 0, size);
        };
    }

    /** Fills the send buffers with values {@link #check} can recognize, and the result vector with NaN. */
    private void fill(int size, Object sbuf) {
        int count = size / Double.BYTES;
        if (sbuf instanceof MemorySegment s) {
            MemorySegment di = (MemorySegment) din;
            MemorySegment dou = (MemorySegment) dout;
            for (int i = 0; i < count; i++) {
                di.setAtIndex(DOUBLE_LE, i, rank + 1 + i);
                dou.setAtIndex(DOUBLE_LE, i, Double.NaN); // as below: an unreduced result must not pass the check
            }
            for (int i = 0; i < size * np; i++) {
                s.set(ValueLayout.JAVA_BYTE, i, (byte) (i * 31 + rank));
            }
        } else {
            double[] di = (double[]) din;
            double[] dou = (double[]) dout;
            byte[] sb = (byte[]) sbuf;
            for (int i = 0; i < count; i++) {
                di[i] = rank + 1 + i;
                dou[i] = Double.NaN; // a result left from an earlier size must not pass the check
            }
            for (int i = 0; i < size * np; i++) {
                sb[i] = (byte) (i * 31 + rank);
            }
        }
    }

    private void check(String c, int size, Object rbuf) {
        boolean ok = switch (c) {
            case "bcast" -> rank == 0 || size == 0 || byteAt(rbuf, size - 1) == (byte) ((size - 1) * 31);
            // only the root of a reduce has the result
            case "allreduce", "reduce" -> (c.equals("reduce") && rank != 0) || size < Double.BYTES
                    || doubleAt(dout, size / Double.BYTES - 1) == np * (np + 1) / 2.0 + (double) np * (size / Double.BYTES - 1);
            case "reduce_scatter_block" -> size / Double.BYTES / np == 0 || doubleAt(dout, size / Double.BYTES / np - 1)
                    == np * (np + 1) / 2.0 + (double) np * ((rank + 1) * (size / Double.BYTES / np) - 1);
            case "allgather" -> size == 0 || byteAt(rbuf, size * np - 1) == (byte) ((size - 1) * 31 + np - 1);
            case "alltoall" -> size == 0 || byteAt(rbuf, size * np - 1) == (byte) ((rank * size + size - 1) * 31 + np - 1);
            default -> true;
        };
        if (!ok) {
            throw new IllegalStateException(c + " at rank " + rank + ", " + size + " B: wrong result");
        }
    }

    private static byte byteAt(Object buf, int i) {
        return buf instanceof MemorySegment s ? s.get(ValueLayout.JAVA_BYTE, i) : ((byte[]) buf)[i];
    }

    private static double doubleAt(Object buf, int i) {
        return buf instanceof MemorySegment s ? s.getAtIndex(DOUBLE_LE, i) : ((double[]) buf)[i];
    }
}
