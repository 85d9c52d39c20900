package org.railyard.systest.ranks;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.railyard.Comm;
import org.railyard.Railyard;
import org.railyard.Request;
import org.railyard.error.RailyardException;
import org.railyard.testkit.Await;
import org.railyard.transport.relay.RelayClient;
import org.railyard.transport.relay.RelayTransport;
import org.railyard.util.Config;

/**
 * The relay frees what a checkpoint covers ({@code railyard run -np 2 --relays 1 --restart 1}).
 * Rank 1 sends {@code 2 x HALF} messages of 4 KiB (message i filled with i) to rank 0, the
 * second half once rank 0 says go. Rank 0 takes the first half, reads the relay's
 * {@code held_bytes}, checkpoints (its running sum) and waits until the relay holds less than a
 * quarter of that ({@code relay held B before the checkpoint, A after}); then says go. In its
 * first run it kills itself after {@code HALF + HALF / 2} messages; started again, it goes on
 * from the checkpoint (the relay gives it the second half again, from the start of it), checks
 * every message, and sends rank 1 its sum, which rank 1 compares with its own
 * ({@code OK checkpoint gc}). Before all that, rank 1 tries a checkpoint with a receive posted,
 * which is refused ({@code refused: ...}). Rank 0 also prints the relay's log size and compactions
 * around the checkpoint ({@code relay log B bytes and C compactions before the checkpoint, A and D
 * after}; 0 bytes for a relay without a log).
 */
public final class CheckpointGcRanks {
    private static final int TAG = 5;
    private static final int WORDS = 512; // 4 KiB of longs

    private CheckpointGcRanks() {
    }

    /** The relay's {@code held_bytes} counter. */
    private static long heldBytes(InetSocketAddress relay) throws IOException {
        return counter(relay, "held_bytes");
    }

    /** One of the relay's counters ({@code railyard relay --stats}). */
    private static long counter(InetSocketAddress relay, String name) throws IOException {
        for (String line : RelayClient.stats(relay, Duration.ofSeconds(10)).split("\n")) {
            if (line.startsWith(name + " ")) {
                return Long.parseLong(line.substring(name.length() + 1).trim());
            }
        }
        throw new IOException("relay stats without " + name);
    }

    /** Receives message {@code i} from rank 1 and checks every word of it. */
    private static void take(Comm world, long[] buf, int i, long[] sum) {
        world.recv(buf, 0, WORDS, 1, TAG);
        for (long w : buf) {
            RankSupport.requireEquals(i, w, "every word of message " + i);
        }
        sum[0] += i;
    }

    public static void main(String[] args) throws IOException, InterruptedException {
        int half = Integer.parseInt(args[0]);
        int total = 2 * half;
        try (Railyard ry = Railyard.init(args)) {
            Comm world = ry.world();
            long[] buf = new long[WORDS];
            long[] sum = new long[1];
            if (world.rank() == 1) {
                // a checkpoint with a receive in flight is refused, naming it
                long[] early = new long[1];
                Request pending = world.irecv(early, 0, 1, 0, TAG + 3);
                try {
                    ry.checkpoint(new byte[1]);
                    throw new IllegalStateException("a checkpoint with a receive posted was taken");
                } catch (RailyardException e) {
                    System.out.println("refused: " + e.getMessage());
                }
                pending.await();
                long mine = 0;
                for (int i = 0; i < total; i++) {
                    if (i == half) {
                        world.recv(sum, 0, 1, 0, TAG + 2); // the second half goes after rank 0's checkpoint
                    }
                    java.util.Arrays.fill(buf, i);
                    world.send(buf, 0, WORDS, 0, TAG);
                    mine += i;
                }
                world.recv(sum, 0, 1, 0, TAG + 1);
                RankSupport.requireEquals(mine, sum[0], "rank 0's sum");
                System.out.println("OK checkpoint gc");
                return;
            }
            InetSocketAddress at = RelayTransport.relays(Config.string(Config.RELAYS_PROP, "")).getFirst();
            InetSocketAddress relay = new InetSocketAddress(at.getHostString(), at.getPort());
            byte[] saved = ry.restore().orElse(null);
            if (saved != null) {
                ByteBuffer b = ByteBuffer.wrap(saved);
                RankSupport.requireEquals(half, b.getInt(), "messages counted in the checkpoint");
                sum[0] = b.getLong();
                System.out.println("rank 0 resumes after " + half + " messages");
            } else {
                world.send(sum, 0, 1, 1, TAG + 3);
                for (int i = 0; i < half; i++) {
                    take(world, buf, i, sum);
                }
                long before = heldBytes(relay);
                long logBefore = counter(relay, "log_bytes");
                long compactionsBefore = counter(relay, "compactions");
                ry.checkpoint(ByteBuffer.allocate(12).putInt(half).putLong(sum[0]).array());
                long[] after = {before};
                Await.awaitUntil(() -> (after[0] = heldBytes(relay)) < before / 4, Duration.ofSeconds(30),
                        () -> "the relay still holds " + after[0] + " bytes after the checkpoint, " + before + " before");
                System.out.println("relay held " + before + " before the checkpoint, " + after[0] + " after");
                // the relay compacts its log in the same step that forgets what the checkpoint covers
                System.out.println("relay log " + logBefore + " bytes and " + compactionsBefore
                        + " compactions before the checkpoint, " + counter(relay, "log_bytes") + " and "
                        + counter(relay, "compactions") + " after");
            }
            // a rank resumed from the checkpoint goes on from here: its second "go" is dropped at the relay
            world.send(sum, 0, 1, 1, TAG + 2);
            for (int i = half; i < total; i++) {
                take(world, buf, i, sum);
                if (i + 1 == half + half / 2 && ry.incarnation() == 0) {
                    System.out.println("rank 0 kills itself after " + (i + 1) + " messages");
                    System.out.flush();
                    new ProcessBuilder("kill", "-KILL", Long.toString(ProcessHandle.current().pid())).start()
                            .waitFor(10, TimeUnit.SECONDS);
                    Runtime.getRuntime().halt(137);
                }
            }
            world.send(sum, 0, 1, 1, TAG + 1);
        }
    }
}
