package org.railyard.systest.ranks;

import java.util.zip.CRC32;
import org.railyard.Comm;
import org.railyard.Op;
import org.railyard.Railyard;

/**
 * Traffic that outlives a relay restart: for {@code args[0]} rounds every rank sends one message
 * of a size that varies with the round (8 B to 300 KiB: eager and rendezvous) to the next rank and
 * receives one from the previous, checking every byte; rank 0 prints {@code ROUND n} every 50
 * rounds, so a test can kill the relay in the middle. At the end an allreduce of the checksums
 * of everything received is compared with the one computed from what was sent, and every rank
 * prints {@code OK relay-restart rank R}.
 */
public final class RelayRestartRanks {
    private RelayRestartRanks() {
    }

    private static int size(int round) {
        return round % 7 == 0 ? 300_000 : 8 + (round * 97) % 20_000;
    }

    public static void main(String[] args) {
        int rounds = Integer.parseInt(args[0]);
        try (Railyard ry = Railyard.init(args)) {
            Comm world = ry.world();
            int rank = world.rank();
            int n = world.size();
            int next = (rank + 1) % n;
            int prev = (rank + n - 1) % n;
            CRC32 got = new CRC32();
            byte[] in = new byte[300_000];
            for (int round = 0; round < rounds; round++) {
                int len = size(round);
                byte[] out = new byte[len];
                RankSupport.fillBytes(out, 0, len, rank, round);
                world.sendrecv(out, 0, len, next, round, in, 0, len, prev, round);
                RankSupport.verifyBytes(in, 0, len, prev, round, "round " + round + " from rank " + prev);
                got.update(in, 0, len);
                if (rank == 0 && round % 50 == 0) {
                    System.out.println("ROUND " + round);
                    System.out.flush();
                }
            }
            long[] sum = {got.getValue()};
            long[] total = new long[1];
            world.allreduce(sum, 0, total, 0, 1, Op.SUM);
            long expected = 0;
            for (int r = 0; r < n; r++) {
                CRC32 c = new CRC32();
                for (int round = 0; round < rounds; round++) {
                    byte[] b = new byte[size(round)];
                    RankSupport.fillBytes(b, 0, b.length, r, round);
                    c.update(b);
                }
                expected += c.getValue();
            }
            RankSupport.requireEquals(expected, total[0], "sum of the checksums of everything received");
            System.out.println("OK relay-restart rank " + rank);
        }
    }
}
