package org.railyard.bench;

import java.util.Arrays;
import org.HdrHistogram.Histogram;
import org.railyard.Comm;
import org.railyard.Railyard;
import org.railyard.util.Config;

/**
 * How long a waiting rank takes to notice a message that comes late: what an unbalanced iterative
 * program pays at each exchange. Ranks pair up (0 with 1, 2 with 3, ...); in each round the odd
 * rank of a pair computes for the given time (a loop on the clock, standing for the work of an
 * iteration), then sends its clock reading, and the even rank, which had been waiting since the
 * round began, records how long after that reading the receive returned; an answer ends the
 * round. The clock is {@link System#nanoTime}, which processes of one Linux machine share
 * (CLOCK_MONOTONIC), so run all ranks on one node. Rank 0 writes one TSV row ({@link Tsv}) per
 * lateness with its own waits: the benchmark column says {@code wake-<late>us}.
 *
 * <pre>
 * railyard run -np 4 org.railyard.bench.WakeBenchRank [--late-us 200,2000] [--rounds 400]
 * </pre>
 */
public final class WakeBenchRank {
    private WakeBenchRank() {
    }

    public static void main(String[] args) {
        long[] late = {200, 2000};
        int rounds = 400;
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
                case "--late-us" -> late = Arrays.stream(value(args, ++i).split(",")).mapToLong(Long::parseLong).toArray();
                case "--rounds" -> rounds = Integer.parseInt(value(args, ++i));
                default -> throw new IllegalArgumentException("unknown option " + args[i]
                        + "; usage: WakeBenchRank [--late-us US,...] [--rounds N]");
            }
        }
        try (Railyard ry = Railyard.init(args)) {
            if (ry.size() % 2 != 0) {
                throw new IllegalArgumentException("run with an even number of ranks, got " + ry.size());
            }
            Comm world = ry.world();
            int rank = ry.rank();
            int partner = rank ^ 1;
            long[] stamp = new long[1];
            byte[] ack = new byte[1];
            String transport = Config.string(Config.TRANSPORTS_PROP, "any").replace(',', '+')
                    + (Config.bool(Config.DOORBELL_PROP, Config.DOORBELL_DEFAULT) ? "" : "+nobell");
            if (rank == 0) {
                System.out.println(Tsv.header(false));
            }
            for (long us : late) {
                Histogram h = new Histogram(3_600_000_000_000L, 3);
                world.barrier();
                for (int r = -rounds / 10; r < rounds; r++) {
                    if ((rank & 1) == 1) {
                        long end = System.nanoTime() + us * 1000;
                        while (System.nanoTime() < end) {
                            Thread.onSpinWait();
                        }
                        stamp[0] = System.nanoTime();
                        world.send(stamp, 0, 1, partner, 1);
                        world.recv(ack, 0, 1, partner, 2);
                    } else {
                        world.recv(stamp, 0, 1, partner, 1);
                        long waited = System.nanoTime() - stamp[0];
                        world.send(ack, 0, 1, partner, 2);
                        if (r >= 0) {
                            h.recordValue(Math.max(0, waited));
                        }
                    }
                }
                if (rank == 0) {
                    System.out.println(Tsv.format(new Row("wake-" + us + "us", transport, ry.size(), 8, h.getTotalCount(),
                            h.getMean() / 1000.0, h.getValueAtPercentile(50) / 1000.0, h.getValueAtPercentile(99) / 1000.0,
                            h.getMaxValue() / 1000.0, 0)));
                }
            }
            world.barrier();
        }
    }

    private static String value(String[] args, int i) {
        if (i >= args.length) {
            throw new IllegalArgumentException("option " + args[i - 1] + " needs a value");
        }
        return args[i];
    }
}
