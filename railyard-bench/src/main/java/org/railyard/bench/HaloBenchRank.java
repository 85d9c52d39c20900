package org.railyard.bench;

import static org.railyard.bench.RankMain.value;

import java.util.Arrays;
import java.util.SplittableRandom;
import org.railyard.Comm;
import org.railyard.Op;
import org.railyard.Railyard;
import org.railyard.Request;

/**
 * A BT/SP-like pattern for the site gateways' lossy-WAN measurement (issue 23, seed 003): compute
 * phases longer than TCP's idle restart (one retransmission timeout, at least Linux's
 * TCP_RTO_MIN) separated by halo exchanges in which every rank sends a face to each neighbour of a periodic two-dimensional grid at once.
 *
 * <pre>
 * railyard run -np 8 org.railyard.bench.HaloBenchRank [--steps N] [--compute MS] [--jitter MS]
 *     [--halo SIZES] [--transport LABEL]
 * </pre>
 *
 * <p>The grid is {@link Comm#dimsCreate}'s for the job's size (4 x 2 for 8 ranks), in rank order,
 * periodic both ways; with the ranks of a site contiguous in the rank order (the launcher's hosts
 * order) the long dimension crosses the site boundary, so with 2 sites x 4 ranks every rank has
 * one neighbour on the other site and half of each exchange crosses the WAN. A step is a compute
 * phase of {@code --compute} ms (default 250) plus a seeded random 0 to {@code --jitter} ms per
 * rank and step (default 0: the ranks leave their compute phases together), then one exchange per
 * size of {@code --halo} (default {@code 160k,26k}: the two message sizes of the seed's BT), each
 * a non-blocking send and receive of that many bytes with all four neighbours, awaited together.
 *
 * <p>The compute phase sleeps: what the pattern needs of it is that the network stays idle that
 * long; eight ranks spinning on a machine of two shared cores would measure the processors
 * instead. Each received face is checked (sender, step and exchange in its bytes).
 *
 * <p>Rank 0 prints one line: {@code halo} then the transport label, ranks, steps, compute ms,
 * the sizes, the completion time of all steps in seconds (the slowest rank's, from a barrier
 * before the first step to the end of the last), the sum of the exchange phases in seconds (the
 * slowest rank's sum) and the mean exchange phase in ms. Bad arguments: a message and exit 2.
 */
public final class HaloBenchRank {
    /** A face's first bytes: sender rank, step, exchange index (one byte each, enough to catch a mix-up). */
    private static final int STAMP = 3;

    record Options(int steps, long computeMs, long jitterMs, int[] halos, String transport) {
        static Options parse(String... args) {
            int steps = 30;
            long compute = 250;
            long jitter = 0;
            int[] halos = {160 * 1024, 26 * 1024};
            String transport = null;
            for (int i = 0; i < args.length; i++) {
                String a = args[i];
                switch (a) {
                    case "--steps" -> steps = positive(a, value(args, ++i, a));
                    case "--compute" -> compute = nonNegative(a, value(args, ++i, a));
                    case "--jitter" -> jitter = nonNegative(a, value(args, ++i, a));
                    case "--halo" -> halos = halos(value(args, ++i, a));
                    case "--transport" -> transport = value(args, ++i, a);
                    default -> throw new IllegalArgumentException("unknown argument " + a + "; usage: HaloBenchRank "
                            + "[--steps N] [--compute MS] [--jitter MS] [--halo SIZE,...] [--transport LABEL]");
                }
            }
            transport = RankMain.transportLabel(transport);
            return new Options(steps, compute, jitter, halos, transport);
        }

        private static int[] halos(String spec) {
            long[] sizes = Sizes.parseList(spec);
            int[] out = new int[sizes.length];
            for (int i = 0; i < sizes.length; i++) {
                if (sizes[i] < STAMP || sizes[i] > Integer.MAX_VALUE - 8) {
                    throw new IllegalArgumentException("--halo sizes are " + STAMP + " B to 2 GiB, not " + sizes[i]);
                }
                out[i] = (int) sizes[i];
            }
            if (out.length == 0) {
                throw new IllegalArgumentException("--halo needs at least one size");
            }
            return out;
        }

        private static int positive(String option, String v) {
            int n = Integer.parseInt(v);
            if (n < 1) {
                throw new IllegalArgumentException(option + " must be at least 1, not " + v);
            }
            return n;
        }

        private static long nonNegative(String option, String v) {
            long n = Long.parseLong(v);
            if (n < 0) {
                throw new IllegalArgumentException(option + " must not be negative, not " + v);
            }
            return n;
        }

    }

    private HaloBenchRank() {
    }

    public static void main(String[] args) {
        Options opt = RankMain.options("HaloBenchRank", args, Options::parse);
        try (Railyard ry = Railyard.init(args)) {
            Comm world = ry.world();
            if (world.size() < 4) {
                RankMain.refuse("HaloBenchRank", "needs at least 4 ranks (a grid of 2 x 2), not " + world.size());
            }
            run(world, opt);
        }
    }

    private static void run(Comm world, Options opt) {
        Comm grid = world.createCart(Comm.dimsCreate(world.size(), new int[2]), new boolean[] {true, true}, false);
        int me = grid.rank();
        // the four neighbours: {from, to} of a shift of +1 along each dimension
        int[] x = grid.cartShift(0, 1);
        int[] y = grid.cartShift(1, 1);
        int[] peers = {x[0], x[1], y[0], y[1]};
        int maxHalo = Arrays.stream(opt.halos()).max().orElseThrow();
        byte[][] out = new byte[peers.length][maxHalo];
        byte[][] in = new byte[peers.length][maxHalo];
        Request[] reqs = new Request[2 * peers.length];
        SplittableRandom jitter = new SplittableRandom(0x5eed_0000L + me);

        // one untimed exchange of each size: connections open, code is compiled
        exchange(grid, opt.halos(), peers, out, in, reqs, -1);
        grid.barrier();
        long start = System.nanoTime();
        long exchangeNs = 0;
        for (int step = 0; step < opt.steps(); step++) {
            long ms = opt.computeMs() + (opt.jitterMs() > 0 ? jitter.nextLong(opt.jitterMs() + 1) : 0);
            try {
                Thread.sleep(ms);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("HaloBenchRank interrupted in its compute phase", e);
            }
            long t0 = System.nanoTime();
            exchange(grid, opt.halos(), peers, out, in, reqs, step);
            exchangeNs += System.nanoTime() - t0;
        }
        double total = grid.allreduce((System.nanoTime() - start) / 1e9, Op.MAX);
        double exchanges = grid.allreduce(exchangeNs / 1e9, Op.MAX);
        if (me == 0) {
            StringBuilder sizes = new StringBuilder();
            for (int h : opt.halos()) {
                sizes.append(sizes.isEmpty() ? "" : ",").append(h);
            }
            System.out.printf("halo\t%s\t%d\t%d\t%d\t%s\t%.3f\t%.3f\t%.2f%n", opt.transport(), grid.size(), opt.steps(),
                    opt.computeMs(), sizes, total, exchanges, exchanges * 1e3 / opt.steps());
        }
    }

    /** One exchange per size with all neighbours; step -1 is the warm-up. Checks every face received. */
    private static void exchange(Comm grid, int[] halos, int[] peers, byte[][] out, byte[][] in, Request[] reqs, int step) {
        int me = grid.rank();
        for (int e = 0; e < halos.length; e++) {
            int n = halos[e];
            for (int k = 0; k < peers.length; k++) {
                // tag k: the direction as the receiver names it (what I send towards peers[k] it receives from its k ^ 1)
                reqs[k] = grid.irecv(in[k], 0, n, peers[k], k);
            }
            for (int k = 0; k < peers.length; k++) {
                out[k][0] = (byte) me;
                out[k][1] = (byte) step;
                out[k][2] = (byte) e;
                out[k][n - 1] = (byte) (me + e);
                reqs[peers.length + k] = grid.isend(out[k], 0, n, peers[k], k ^ 1);
            }
            Request.awaitAll(reqs);
            for (int k = 0; k < peers.length; k++) {
                if (in[k][0] != (byte) peers[k] || in[k][1] != (byte) step || in[k][2] != (byte) e
                        || in[k][n - 1] != (byte) (peers[k] + e)) {
                    throw new IllegalStateException("rank " + me + ": the face from rank " + peers[k] + " (direction " + k
                            + ", step " + step + ", exchange " + e + ") holds the wrong bytes");
                }
            }
        }
    }
}
