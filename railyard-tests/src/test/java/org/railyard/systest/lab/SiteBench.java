package org.railyard.systest.lab;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.railyard.Comm;
import org.railyard.Op;
import org.railyard.Railyard;
import org.railyard.engine.coll.Collectives;
import org.railyard.engine.comm.CommState;
import org.railyard.types.Kind;
import org.railyard.types.Reduction;

/**
 * Rank program of bench/lab/sitebench.sh: site-aware against flat collectives in one job, in
 * alternating rounds. The world runs the site-aware algorithms (its members' sites come from
 * {@code railyard.site}); a duplicate of it is made to look as if all ran on one site
 * ({@code Collectives.assumeSites}), so it runs the flat algorithms that
 * {@code railyard.coll.sites=off} gives. Both are driven through the engine's collectives, the
 * calls {@link Comm}'s collectives make (the API does not hand out a communicator's state). Each
 * rank is its own node ({@code railyard.node} is set to its site and rank), as in a cluster of one
 * process per host.
 *
 * <pre>
 * SiteBench allreduce|bcast BYTES ROUNDS OPS_PER_ROUND [alternate|site-aware|flat|none]
 * </pre>
 *
 * alternate (the default): round r times OPS_PER_ROUND operations on one communicator
 * (site-aware when r is even), after a barrier on it; rank 0 prints each round's time per
 * operation (the slowest rank's) and at the end the medians and their ratio. site-aware, flat:
 * only ROUNDS x OPS_PER_ROUND untimed operations of that one, between two barriers of the world,
 * so that what crosses the WAN meanwhile can be counted; none: only the barriers. Arguments that
 * make no sense are refused with a message.
 */
public final class SiteBench {
    private SiteBench() {
    }

    public static void main(String[] args) {
        List<String> modes = List.of("alternate", "site-aware", "flat", "none");
        if (args.length < 4 || args.length > 5 || !(args[0].equals("allreduce") || args[0].equals("bcast"))
                || (args.length == 5 && !modes.contains(args[4]))) {
            System.err.println("usage: SiteBench allreduce|bcast BYTES ROUNDS OPS_PER_ROUND [" + String.join("|", modes) + "]");
            System.exit(2);
        }
        String mode = args.length == 5 ? args[4] : "alternate";
        String op = args[0];
        int bytes = Integer.parseInt(args[1]);
        int rounds = Integer.parseInt(args[2]);
        int ops = Integer.parseInt(args[3]);
        if (bytes < 8 || bytes % 8 != 0 || rounds < 2 || ops < 1) {
            System.err.println("SiteBench: BYTES must be a multiple of 8 (at least 8), ROUNDS at least 2, OPS at least 1");
            System.exit(2);
        }
        String site = System.getProperty("railyard.site", System.getenv().getOrDefault("RAILYARD_SITE", ""));
        if (site.isEmpty()) {
            System.err.println("SiteBench: no railyard.site (RAILYARD_SITE) for this rank");
            System.exit(2);
        }
        System.setProperty("railyard.node", "node-" + site + "-" + System.getenv("RAILYARD_RANK"));
        try (Railyard ry = Railyard.init(args)) {
            Comm world = ry.world();
            int p = world.size();
            Collectives coll = ry.engine().collectives();
            CommState aware = ry.engine().world();
            CommState flat = ry.engine().communicators().split(aware, 0, world.rank());
            String[] oneSite = new String[p];
            String[] nodes = new String[p];
            Arrays.fill(oneSite, "one");
            for (int r = 0; r < p; r++) {
                nodes[r] = "rank-" + r;
            }
            coll.assumeSites(flat, oneSite, nodes);
            int n = bytes / 8;
            long[] in = new long[n];
            long[] out = new long[n];
            Arrays.fill(in, world.rank() + 1);
            if (!mode.equals("alternate")) {
                world.barrier();
                if (!mode.equals("none")) {
                    CommState c = mode.equals("flat") ? flat : aware;
                    for (int i = 0; i < rounds * ops; i++) {
                        run(coll, op, c, in, out, n);
                    }
                }
                world.barrier();
                if (world.rank() == 0) {
                    System.out.println("DONE " + mode + " " + op + " " + bytes + " B x " + rounds * ops);
                }
                return;
            }
            // one untimed round of each: connections open, code is compiled
            for (CommState c : List.of(aware, flat)) {
                for (int i = 0; i < Math.max(3, ops); i++) {
                    run(coll, op, c, in, out, n);
                }
            }
            List<Double> awareTimes = new ArrayList<>();
            List<Double> flatTimes = new ArrayList<>();
            for (int r = 0; r < rounds; r++) {
                CommState c = r % 2 == 0 ? aware : flat;
                coll.barrier(c);
                long t0 = System.nanoTime();
                for (int i = 0; i < ops; i++) {
                    run(coll, op, c, in, out, n);
                }
                double ms = (System.nanoTime() - t0) / 1e6 / ops;
                // every rank's time: the slowest decides
                double slowest = world.allreduce(ms, Op.MAX);
                (r % 2 == 0 ? awareTimes : flatTimes).add(slowest);
                if (world.rank() == 0) {
                    System.out.printf("round %d %s %s %d B: %.3f ms/op%n", r, r % 2 == 0 ? "site-aware" : "flat", op, bytes,
                            slowest);
                }
            }
            if (op.equals("allreduce") && out[0] != (long) p * (p + 1) / 2) {
                throw new AssertionError("allreduce gave " + out[0] + ", expected " + (long) p * (p + 1) / 2);
            }
            if (world.rank() == 0) {
                double a = median(awareTimes);
                double f = median(flatTimes);
                System.out.printf("RESULT %s %d B, %d ranks, %d rounds of %d ops each way: site-aware %.3f ms, flat %.3f ms,"
                        + " flat/site-aware %.2fx%n", op, bytes, p, rounds / 2, ops, a, f, f / a);
            }
        }
    }

    private static void run(Collectives coll, String op, CommState c, long[] in, long[] out, int n) {
        if (op.equals("allreduce")) {
            coll.allreduce(c, in, 0, out, 0, n, Kind.LONG, Reduction.SUM);
        } else {
            coll.bcast(c, in, Kind.LONG, 0, n, 0);
        }
    }

    private static double median(List<Double> v) {
        double[] a = v.stream().mapToDouble(Double::doubleValue).sorted().toArray();
        return a.length % 2 == 1 ? a[a.length / 2] : (a[a.length / 2 - 1] + a[a.length / 2]) / 2;
    }
}
