package org.railyard.bench;

import static org.railyard.bench.RankMain.positive;
import static org.railyard.bench.RankMain.value;

import java.io.PrintStream;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.EnumSet;
import java.util.Locale;
import java.util.Set;
import org.HdrHistogram.Histogram;
import org.railyard.Comm;
import org.railyard.Group;
import org.railyard.Op;
import org.railyard.Railyard;
import org.railyard.Window;

/**
 * The one-sided benchmark each rank runs ({@code railyard bench rma}, {@link RmaCommand}); the same
 * method as its MPI C twin {@code bench/peers/c/ry_rma.c}, which follows the OSU one-sided
 * micro-benchmarks. Keep the two in step (bench/README.md, "One-sided").
 *
 * <pre>
 * railyard run -np 2 org.railyard.bench.RmaBenchRank [BENCH|all][,...] [--sync flush,lock,fence,pscw]
 *     [--sizes 1:4m] [--iters N] [--op OP[:int|long|float|double]] [--transport LABEL] [--no-jit-warmup] [--alloc] [--heap]
 * </pre>
 *
 * <p>Ranks 0 and 1 take part (others only join the split that leaves them out). For each
 * benchmark, synchronisation mode and size a window of the bytes needed is made with
 * {@link Window#allocate} ({@code --heap}: {@link Window#create} over a byte array, put and get only), filled with the pattern {@code i * 31 + rank} and freed afterwards. Rank
 * 0 is the origin and rank 1 the target; in the fence and pscw modes of the latency tests each rank
 * is origin of every other epoch. {@link Mode} says what an iteration is in each mode,
 * {@link Bench} what it does. A latency sample is one iteration per operation in it (half an
 * iteration of two epochs); a bandwidth sample is one window of operations, per operation.
 * Iterations: {@link #iterations}. Checks after each measurement: the target of puts holds the
 * origin's pattern, the origin of gets read the target's, each int of an accumulate target equals
 * the accumulates it received ({@link AccOp#expected}), and every fetch-and-op or compare-and-swap result is the value the
 * origin expected; a mismatch fails the run. Rank 0 prints TSV ({@link Tsv}) with the benchmark
 * column {@code NAME-MODE}, as the C twin.
 */
public final class RmaBenchRank {
    private static final long HIGHEST_NS = 3_600_000_000_000L;
    /** Sizes above this are "large": fewer iterations, a smaller bandwidth window. */
    static final long LARGE = 8 * 1024;
    static final int WINDOW_SMALL = 64;
    static final int WINDOW_LARGE = 32;
    static final long DEFAULT_BASE = 10_000;

    /** The benchmarks, in the order they run. */
    enum Bench {
        PUT_LATENCY, GET_LATENCY, PUT_BW, GET_BW, ACC_LATENCY, FOP_LATENCY, CAS_LATENCY,
        /**
         * Railyard only, no C twin: rank 0 copies S bytes straight into rank 1's part of a window
         * from {@link Window#allocateShared} ({@code shared_copy-direct}), and the same copy
         * between two segments of its own ({@code local_copy-direct}), windows of 64 (32) copies
         * as put_bw: the shared window against memory speed.
         */
        SHARED_COPY;

        String label() {
            return name().toLowerCase(Locale.ROOT);
        }

        boolean bandwidth() {
            return this == PUT_BW || this == GET_BW || this == SHARED_COPY;
        }

        /** fetch-and-op and compare-and-swap act on one 8-byte integer, whatever the sizes. */
        boolean atomic() {
            return this == FOP_LATENCY || this == CAS_LATENCY;
        }

        /** Accumulate combines values of its {@link AccOp}'s type: sizes under one value are skipped. */
        boolean accepts(long bytes, AccOp acc) {
            return this != ACC_LATENCY || bytes >= acc.bytes();
        }
    }

    /**
     * Synchronisation modes. FLUSH: one shared lock around the loop, each iteration completed by a
     * flush. LOCK: each iteration its own exclusive lock/unlock epoch. FENCE and PSCW: rank 0's
     * operations in one epoch, rank 1's (to rank 0) in the next (latency), or rank 0 alone, one
     * epoch per window (bandwidth).
     */
    enum Mode {
        FLUSH, LOCK, FENCE, PSCW;

        String label() {
            return name().toLowerCase(Locale.ROOT);
        }

        boolean active() {
            return this == FENCE || this == PSCW;
        }
    }

    /**
     * The accumulate of acc_latency ({@code --op OP[:TYPE]}, as the C twin): {@code op} over values of
     * 1 of {@code type} from the origin into a target that starts at 0. The default, SUM of ints, is
     * the OSU method's; its row keeps the name {@code acc_latency}, any other is named
     * {@code acc_OP_TYPE_latency}.
     */
    record AccOp(String name, Op op, Type type) {
        static final AccOp DEFAULT = new AccOp("sum", Op.SUM, Type.INT);
        static final String NAMES = "sum, prod, max, min or bor, optionally :int (the default), :long, :float or :double";

        /** The value types, as the C twin's (int, int64_t, float, double). */
        enum Type {
            INT(Integer.BYTES, false), LONG(Long.BYTES, false), FLOAT(Float.BYTES, true), DOUBLE(Double.BYTES, true);

            final int bytes;
            final boolean real;

            Type(int bytes, boolean real) {
                this.bytes = bytes;
                this.real = real;
            }

            String label() {
                return name().toLowerCase(Locale.ROOT);
            }

            /** An array of {@code n} ones of this type, the origin's data. */
            Object ones(int n) {
                return switch (this) {
                    case INT -> filled(new int[n], a -> java.util.Arrays.fill(a, 1));
                    case LONG -> filled(new long[n], a -> java.util.Arrays.fill(a, 1L));
                    case FLOAT -> filled(new float[n], a -> java.util.Arrays.fill(a, 1f));
                    case DOUBLE -> filled(new double[n], a -> java.util.Arrays.fill(a, 1d));
                };
            }

            private static <A> A filled(A array, java.util.function.Consumer<A> fill) {
                fill.accept(array);
                return array;
            }

            /** Value {@code i} of a window of this type, as a double (a float counts exactly up to 2^24). */
            double at(MemorySegment mem, long i) {
                return switch (this) {
                    case INT -> mem.getAtIndex(ValueLayout.JAVA_INT, i);
                    case LONG -> mem.getAtIndex(ValueLayout.JAVA_LONG, i);
                    case FLOAT -> mem.getAtIndex(ValueLayout.JAVA_FLOAT, i);
                    case DOUBLE -> mem.getAtIndex(ValueLayout.JAVA_DOUBLE, i);
                };
            }
        }

        /** @throws IllegalArgumentException naming the operation or type it does not know, or a pair MPI refuses */
        static AccOp parse(String spec) {
            String[] p = spec.toLowerCase(Locale.ROOT).split(":", -1);
            Type type = Type.INT;
            if (p.length == 2) {
                type = java.util.Arrays.stream(Type.values()).filter(t -> t.label().equals(p[1])).findFirst()
                        .orElseThrow(() -> new IllegalArgumentException("--op: '" + spec + "' has an unknown type; expected " + NAMES));
            } else if (p.length > 2) {
                throw new IllegalArgumentException("--op: '" + spec + "' has an unknown type; expected " + NAMES);
            }
            Op op = switch (p[0]) {
                case "sum" -> Op.SUM;
                case "prod" -> Op.PROD;
                case "max" -> Op.MAX;
                case "min" -> Op.MIN;
                case "bor" -> Op.BOR;
                default -> throw new IllegalArgumentException("--op: unknown operation '" + p[0] + "'; expected " + NAMES);
            };
            if (type.real && op == Op.BOR) {
                throw new IllegalArgumentException("--op: bor takes no " + type.label() + "s (MPI_BOR is for integers)");
            }
            return new AccOp(p[0], op, type);
        }

        int bytes() {
            return type.bytes;
        }

        String label() {
            return equals(DEFAULT) ? "acc_latency" : "acc_" + name + "_" + type.label() + "_latency";
        }

        /** Each target value after {@code n >= 1} accumulates of 1 into 0. */
        long expected(long n) {
            return switch (name) {
                case "sum" -> n;
                case "prod", "min" -> 0;
                default -> 1; // max, bor
            };
        }
    }

    /** Options of one run. */
    record Options(Set<Bench> benches, Set<Mode> modes, long[] sizes, long iterBase, String transport,
                   boolean jitWarmup, boolean alloc, boolean heap, AccOp acc) {
        static final String USAGE = "usage: RmaBenchRank [put_latency|get_latency|put_bw|get_bw|acc_latency|"
                + "fop_latency|cas_latency|all][,...] [--sync flush,lock,fence,pscw] [--sizes SPEC] [--iters N] "
                + "[--op OP[:int|long|float|double]] [--transport LABEL] [--no-jit-warmup] [--alloc] [--heap]";

        /** @throws IllegalArgumentException with a message fit for the user on a bad argument */
        static Options parse(String... args) {
            EnumSet<Bench> benches = EnumSet.noneOf(Bench.class);
            EnumSet<Mode> modes = EnumSet.noneOf(Mode.class);
            long[] sizes = Sizes.parseList(Sizes.DEFAULT);
            long iters = DEFAULT_BASE;
            String transport = null;
            boolean jit = true;
            boolean alloc = false;
            boolean heap = false;
            AccOp acc = AccOp.DEFAULT;
            for (int i = 0; i < args.length; i++) {
                String a = args[i];
                switch (a) {
                    case "--sizes" -> sizes = Sizes.parseList(value(args, ++i, a));
                    case "--iters" -> iters = positive(value(args, ++i, a), a);
                    case "--sync" -> modes.addAll(names(Mode.class, value(args, ++i, a), "--sync"));
                    case "--transport" -> transport = value(args, ++i, a);
                    case "--no-jit-warmup" -> jit = false;
                    case "--alloc" -> alloc = true;
                    case "--heap" -> heap = true;
                    case "--op" -> acc = AccOp.parse(value(args, ++i, a));
                    default -> {
                        if (a.startsWith("-")) {
                            throw new IllegalArgumentException("unknown option " + a + "; " + USAGE);
                        }
                        benches.addAll(names(Bench.class, a, "benchmark"));
                    }
                }
            }
            transport = RankMain.transportLabel(transport);
            Set<Bench> chosen = benches.isEmpty() ? EnumSet.allOf(Bench.class) : benches;
            if (heap) {
                Set<Bench> byteOnly = EnumSet.of(Bench.PUT_LATENCY, Bench.GET_LATENCY, Bench.PUT_BW, Bench.GET_BW);
                if (benches.isEmpty()) {
                    chosen = byteOnly;
                } else if (!byteOnly.containsAll(chosen)) {
                    throw new IllegalArgumentException("--heap windows are byte arrays: it takes put_latency, "
                            + "get_latency, put_bw and get_bw only, not " + chosen);
                }
            }
            return new Options(chosen, modes.isEmpty() ? EnumSet.allOf(Mode.class) : modes, sizes, iters, transport,
                    jit, alloc, heap, acc);
        }

        private static <E extends Enum<E>> EnumSet<E> names(Class<E> type, String list, String what) {
            EnumSet<E> out = EnumSet.noneOf(type);
            for (String item : list.split(",")) {
                String n = item.trim().toUpperCase(Locale.ROOT);
                if (n.isEmpty()) {
                    continue;
                }
                if (n.equals("ALL")) {
                    out.addAll(EnumSet.allOf(type));
                    continue;
                }
                try {
                    out.add(Enum.valueOf(type, n));
                } catch (IllegalArgumentException e) {
                    StringBuilder known = new StringBuilder();
                    for (E c : type.getEnumConstants()) {
                        known.append(c.name().toLowerCase(Locale.ROOT)).append(", ");
                    }
                    throw new IllegalArgumentException("unknown " + what + " '" + item.trim() + "': expected " + known
                            + "or all");
                }
            }
            return out;
        }
    }

    /** Operations per iteration, timed iterations and warm-up of one measurement. */
    record Counts(int ops, long iters, long warmup) {
    }

    /**
     * Latency: {@code base} (10000) timed iterations and a hundredth of it as warm-up up to 8 KiB, a
     * tenth and a thousandth above. Bandwidth: windows of 64 operations (32 above 8 KiB), a
     * hundredth of {@code base} timed windows (3/1000 of it above 8 KiB) and a tenth of that as
     * warm-up. Every count at least 1.
     */
    static Counts iterations(Bench b, long bytes, long base) {
        boolean large = bytes > LARGE;
        if (b.bandwidth()) {
            long iters = Math.max(1, large ? base * 3 / 1000 : base / 100);
            return new Counts(large ? WINDOW_LARGE : WINDOW_SMALL, iters, Math.max(1, iters / 10));
        }
        long iters = Math.max(1, large ? base / 10 : base);
        return new Counts(1, iters, Math.max(1, large ? base / 1000 : base / 100));
    }

    private final Comm pair;
    private final Options opt;
    private final PrintStream out;
    private final int rank;
    private final int np;
    private final int peer;
    private final Group peerGroup;
    private final Histogram hist = new Histogram(1, HIGHEST_NS, 3);
    // origin data and expectations, made once at the largest size: pattern of this rank and of the peer
    private final byte[] mine;
    private final byte[] theirs;
    private final byte[] rbuf;
    private final Object accOnes;
    private final long[] one = {1};
    private final long[] swap = new long[1];
    private final long[] compare = new long[1];
    private final long[] fetched = new long[1];

    /** A runner over {@code pair} (exactly ranks 0 and 1 of the job); rank 0 writes to {@code out}; {@code np} is the job's size. */
    RmaBenchRank(Comm pair, int np, Options opt, PrintStream out) {
        this.pair = pair;
        this.opt = opt;
        this.out = out;
        this.rank = pair.rank();
        this.np = np;
        this.peer = 1 - rank;
        this.peerGroup = pair.group().incl(peer);
        long max = 8;
        long largest = 8;
        for (long s : opt.sizes()) {
            max = Math.max(max, s * (s > LARGE ? WINDOW_LARGE : WINDOW_SMALL));
            largest = Math.max(largest, s);
        }
        if (max > Integer.MAX_VALUE - 8) {
            throw new IllegalArgumentException("--sizes: a bandwidth window of " + max + " bytes does not fit a Java array");
        }
        mine = pattern((int) max, rank);
        theirs = pattern((int) max, peer);
        rbuf = new byte[(int) max];
        accOnes = opt.acc().type().ones((int) largest / opt.acc().bytes());
    }

    static byte[] pattern(int n, int seed) {
        byte[] b = new byte[n];
        for (int i = 0; i < n; i++) {
            b[i] = (byte) (i * 31 + seed);
        }
        return b;
    }

    /** Joins the job, runs the benchmarks on ranks 0 and 1, leaves. Exits with status 2 on a bad argument. */
    public static void main(String[] args) {
        Options opt = RankMain.options("RmaBenchRank", args, Options::parse);
        try (Railyard ry = Railyard.init(args)) {
            Comm world = ry.world();
            if (world.size() < 2) {
                RankMain.refuse("RmaBenchRank", "one-sided benchmarks need 2 processes (run with -np 2)");
            }
            Comm pair = world.split(world.rank() < 2 ? 0 : Comm.UNDEFINED, world.rank());
            if (world.rank() == 0) {
                System.out.println(Tsv.header(opt.alloc()));
                System.out.flush();
            }
            if (pair != null) {
                new RmaBenchRank(pair, world.size(), opt, System.out).run();
            }
            world.barrier();
        }
    }

    /** Every selected benchmark, mode and size, in the C twin's order. */
    void run() {
        for (Bench b : opt.benches()) {
            if (b == Bench.SHARED_COPY) {
                for (long size : opt.sizes()) {
                    if (opt.jitWarmup()) {
                        JitSettle.settle(pair, () -> copies((int) size));
                    }
                    Row[] rows = copies((int) size);
                    if (rank == 0) {
                        out.println(Tsv.format(rows[0], opt.alloc()));
                        out.println(Tsv.format(rows[1], opt.alloc()));
                        out.flush();
                    }
                }
                continue;
            }
            for (Mode m : opt.modes()) {
                for (long size : opt.sizes()) {
                    if (!b.accepts(size, opt.acc())) {
                        continue;
                    }
                    int n = b.atomic() ? Long.BYTES : (int) size;
                    if (opt.jitWarmup()) {
                        JitSettle.settle(pair, () -> measure(b, m, n));
                    }
                    Row row = measure(b, m, n);
                    if (rank == 0) {
                        out.println(Tsv.format(row, opt.alloc()));
                        out.flush();
                    }
                    if (b.atomic()) {
                        break;
                    }
                }
            }
        }
    }

    /** One measurement; every rank of the pair returns the row, rank 0's is printed. */
    Row measure(Bench b, Mode m, int size) {
        Counts c = iterations(b, size, opt.iterBase());
        int bytes = size * c.ops();
        try (Window win = opt.heap() ? Window.create(pair, new byte[bytes], 1) : Window.allocate(pair, bytes, 1)) {
            MemorySegment mem = opt.heap() ? MemorySegment.ofArray((byte[]) win.buffer()) : win.memory();
            win.lock(Window.LOCK_EXCLUSIVE, rank);
            if (b == Bench.ACC_LATENCY || b.atomic()) {
                mem.fill((byte) 0);
            } else {
                MemorySegment.copy(mine, 0, mem, ValueLayout.JAVA_BYTE, 0, bytes);
            }
            win.unlock(rank);
            java.util.Arrays.fill(rbuf, 0, bytes, (byte) 0);
            hist.reset();
            Run r = new Run(win, b, m, size, c);
            pair.barrier();
            double elapsedUs = r.timed();
            check(r, mem);
            double per = c.ops() * (m.active() && !b.bandwidth() ? 2.0 : 1.0);
            double ops = c.iters() * per;
            double mean = elapsedUs / ops;
            double mbs = b.bandwidth() ? (double) size * c.iters() * c.ops() / elapsedUs : mean > 0 ? size / mean : 0;
            double unit = per * 1e3;
            return new Row(label(b) + "-" + m.label(), opt.transport(), np, size, c.iters(), mean,
                    hist.getValueAtPercentile(50) / unit, hist.getValueAtPercentile(99) / unit,
                    hist.getMaxValue() / unit, mbs, opt.alloc() ? r.allocated / (c.iters() * (double) c.ops()) : Double.NaN);
        }
    }

    /** The benchmark's name in the rows: acc_latency's is its operation's ({@link AccOp#label}). */
    private String label(Bench b) {
        return b == Bench.ACC_LATENCY ? opt.acc().label() : b.label();
    }

    /**
     * {@link Bench#SHARED_COPY} at one size: rank 0's rows {@code shared_copy-direct} and
     * {@code local_copy-direct} (rank 1's are not printed); rank 1 then checks its part holds the
     * copied pattern.
     */
    Row[] copies(int size) {
        Counts c = iterations(Bench.PUT_BW, size, opt.iterBase());
        try (Window win = Window.allocateShared(pair, rank == 1 ? size : 0, 1);
             java.lang.foreign.Arena arena = java.lang.foreign.Arena.ofConfined()) {
            MemorySegment src = arena.allocate(size, 64);
            MemorySegment.copy(mine, 0, src, ValueLayout.JAVA_BYTE, 0, size);
            MemorySegment local = arena.allocate(size, 64);
            Row[] rows = new Row[2];
            win.lockAll();
            if (rank == 0) {
                MemorySegment remote = win.sharedQuery(1);
                rows[0] = copyLoop("shared_copy-direct", src, remote, size, c);
                rows[1] = copyLoop("local_copy-direct", src, local, size, c);
            }
            win.sync();
            pair.barrier();
            win.sync();
            if (rank == 1) {
                long at = win.memory().mismatch(MemorySegment.ofArray(theirs).asSlice(0, size));
                if (at >= 0) {
                    throw new IllegalStateException("shared_copy at rank 1, " + size + " bytes: byte " + at
                            + " of the shared window is not what rank 0 stored");
                }
            }
            win.unlockAll();
            return rows;
        }
    }

    private Row copyLoop(String name, MemorySegment src, MemorySegment dst, int size, Counts c) {
        hist.reset();
        long start = 0;
        for (long i = 0; i < c.warmup() + c.iters(); i++) {
            long t0 = System.nanoTime();
            if (i == c.warmup()) {
                start = t0;
            }
            for (int j = 0; j < c.ops(); j++) {
                MemorySegment.copy(src, 0, dst, 0, size);
            }
            if (i >= c.warmup()) {
                hist.recordValue(Math.min(Math.max(System.nanoTime() - t0, 1), HIGHEST_NS));
            }
        }
        double elapsedUs = (System.nanoTime() - start) / 1e3;
        double unit = c.ops() * 1e3;
        return new Row(name, opt.transport(), np, size, c.iters(), elapsedUs / ((double) c.iters() * c.ops()),
                hist.getValueAtPercentile(50) / unit, hist.getValueAtPercentile(99) / unit, hist.getMaxValue() / unit,
                (double) size * c.iters() * c.ops() / elapsedUs);
    }

    /** The state of one measurement and its timed loop. */
    private final class Run {
        final Window win;
        final Bench b;
        final Mode m;
        final int size;
        final Counts c;
        /** fetch-and-op, compare-and-swap: the value the next operation will find at the target. */
        long next;
        /** With --alloc: heap bytes this JVM allocated during the timed iterations. */
        long allocated;

        Run(Window win, Bench b, Mode m, int size, Counts c) {
            this.win = win;
            this.b = b;
            this.m = m;
            this.size = size;
            this.c = c;
        }

        /** The timed loop; returns the microseconds from the first timed iteration to the last's end. */
        double timed() {
            int target = 1;
            if (m == Mode.FLUSH && rank == 0) {
                win.lock(Window.LOCK_SHARED, target);
            }
            if (m == Mode.FENCE) {
                win.fence(Window.MODE_NOPRECEDE);
            }
            long start = 0;
            long allocStart = 0;
            long total = c.warmup() + c.iters();
            for (long i = 0; i < total; i++) {
                if (i == c.warmup() && opt.alloc()) {
                    allocStart = BenchRank.Alloc.total();
                }
                long t0 = System.nanoTime();
                if (i == c.warmup()) {
                    start = t0;
                }
                if (!m.active()) {
                    if (rank == 0) {
                        if (m == Mode.LOCK) {
                            win.lock(Window.LOCK_EXCLUSIVE, target);
                        }
                        issue(target);
                        if (m == Mode.LOCK) {
                            win.unlock(target);
                        } else {
                            win.flush(target);
                        }
                        after();
                    }
                } else {
                    epoch(0);
                    if (!b.bandwidth()) {
                        epoch(1);
                    }
                }
                if (i >= c.warmup() && rank == 0) {
                    hist.recordValue(Math.min(Math.max(System.nanoTime() - t0, 1), HIGHEST_NS));
                }
            }
            double elapsedUs = (System.nanoTime() - start) / 1e3;
            if (opt.alloc()) {
                allocated = BenchRank.Alloc.total() - allocStart;
            }
            if (m == Mode.FLUSH && rank == 0) {
                win.unlock(target);
            }
            if (m == Mode.FENCE) {
                win.fence(Window.MODE_NOSUCCEED);
            }
            pair.barrier();
            return elapsedUs;
        }

        /** One active-target epoch whose origin is {@code origin}. */
        private void epoch(int origin) {
            if (m == Mode.FENCE) {
                if (rank == origin) {
                    issue(peer);
                }
                win.fence(0);
                if (rank == origin) {
                    after();
                }
            } else if (rank == origin) {
                win.start(peerGroup, 0);
                issue(peer);
                win.complete();
                after();
            } else {
                win.post(peerGroup, 0);
                win.waitFor();
            }
        }

        /** The operations of one iteration to {@code to}, not completed. */
        private void issue(int to) {
            switch (b) {
                case PUT_LATENCY, PUT_BW -> {
                    for (int j = 0; j < c.ops(); j++) {
                        win.put(mine, j * size, size, to, (long) j * size);
                    }
                }
                case GET_LATENCY, GET_BW -> {
                    for (int j = 0; j < c.ops(); j++) {
                        win.get(rbuf, j * size, size, to, (long) j * size);
                    }
                }
                case ACC_LATENCY -> {
                    AccOp acc = opt.acc();
                    win.accumulate(accOnes, 0, size / acc.bytes(), to, 0, acc.op());
                }
                case FOP_LATENCY -> win.fetchAndOp(one, 0, fetched, 0, to, 0, Op.SUM);
                case CAS_LATENCY -> {
                    compare[0] = next;
                    swap[0] = next + 1;
                    win.compareAndSwap(swap, 0, compare, 0, fetched, 0, to, 0);
                }
            }
        }

        /** After an iteration's completion: an atomic fetched the value expected. */
        private void after() {
            if (b.atomic()) {
                if (fetched[0] != next) {
                    throw new IllegalStateException(b.label() + "-" + m.label() + " at rank " + rank + ": fetched "
                            + fetched[0] + ", expected " + next);
                }
                next++;
            }
        }
    }

    /** The checks of the class comment, each rank on what it holds, under a lock of its own window. */
    private void check(Run r, MemorySegment mem) {
        boolean both = r.m.active() && !r.b.bandwidth();
        boolean wasOrigin = rank == 0 || both;
        boolean wasTarget = rank == 1 || both;
        int n = r.size * r.c.ops();
        long total = r.c.warmup() + r.c.iters();
        String what = label(r.b) + "-" + r.m.label() + " at rank " + rank + ", " + r.size + " bytes: ";
        r.win.lock(Window.LOCK_EXCLUSIVE, rank);
        try {
            switch (r.b) {
                case PUT_LATENCY, PUT_BW -> {
                    long at = wasTarget ? mem.asSlice(0, n).mismatch(MemorySegment.ofArray(theirs).asSlice(0, n)) : -1;
                    if (at >= 0) {
                        throw new IllegalStateException(what + "window byte " + at + " is not what the origin put");
                    }
                }
                case GET_LATENCY, GET_BW -> {
                    int at = wasOrigin ? java.util.Arrays.mismatch(rbuf, 0, n, theirs, 0, n) : -1;
                    if (at >= 0) {
                        throw new IllegalStateException(what + "byte " + at + " read is not the target's");
                    }
                }
                case ACC_LATENCY -> {
                    AccOp acc = opt.acc();
                    long want = acc.expected(total);
                    for (int i = 0; wasTarget && i < r.size / acc.bytes(); i++) {
                        double v = acc.type().at(mem, i);
                        if (v != want) {
                            throw new IllegalStateException(what + "value " + i + " is " + v + ", expected " + want);
                        }
                    }
                }
                case FOP_LATENCY, CAS_LATENCY -> {
                    long v = mem.get(ValueLayout.JAVA_LONG, 0);
                    if (wasTarget && v != total) {
                        throw new IllegalStateException(what + "the counter is " + v + ", expected " + total);
                    }
                }
            }
        } finally {
            r.win.unlock(rank);
        }
    }
}
