package org.railyard.systest.ranks;

import java.time.Duration;
import org.railyard.Comm;
import org.railyard.Railyard;
import org.railyard.Request;
import org.railyard.Status;
import org.railyard.error.RailyardException;

/**
 * Two ranks whose path the test silences once both have printed {@code READY}: after one exchange,
 * each posts a receive of a message the other never sends, waits for it at most {@code args[0]}
 * seconds, and prints {@code RESULT <rank> FAILED <error class> <ms since READY> <message>},
 * {@code RESULT <rank> PENDING} if the bound expired, or {@code RESULT <rank> RECEIVED} (never
 * expected). Nothing is sent on the connection after the exchange, so only the transport's own
 * liveness check can end the wait.
 */
public final class SilentPathRanks {
    private SilentPathRanks() {
    }

    public static void main(String[] args) {
        Duration bound = Duration.ofSeconds(Long.parseLong(args[0]));
        try (Railyard ry = Railyard.init(args)) {
            Comm world = ry.world();
            int peer = 1 - ry.rank();
            int[] one = new int[1];
            if (ry.rank() == 0) {
                world.send(one, 0, 1, peer, 1);
                world.recv(one, 0, 1, peer, 2);
            } else {
                world.recv(one, 0, 1, peer, 1);
                world.send(one, 0, 1, peer, 2);
            }
            Request never = world.irecv(new int[1], 0, 1, peer, 99);
            System.out.println("READY");
            System.out.flush();
            long ready = System.nanoTime();
            String result;
            try {
                Status st = never.await(bound);
                result = st == null ? "PENDING after " + bound.toSeconds() + " s" : "RECEIVED";
            } catch (RailyardException e) {
                result = "FAILED " + e.errorClass() + " " + (System.nanoTime() - ready) / 1_000_000 + " " + e.getMessage();
            }
            System.out.println("RESULT " + ry.rank() + " " + result);
            System.out.flush();
        }
    }
}
