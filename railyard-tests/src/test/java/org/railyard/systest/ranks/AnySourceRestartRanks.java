package org.railyard.systest.ranks;

import java.io.IOException;
import java.util.concurrent.TimeUnit;
import org.railyard.Comm;
import org.railyard.Railyard;
import org.railyard.Status;

/**
 * Wildcard receives across a restart ({@code railyard run --restart 1 --relays 1}). Ranks 1..n-1
 * each send {@code args[0]} numbered values to rank 0; rank 0 takes them all with ANY_SOURCE
 * receives, in whatever order they come, and after each one sends rank 1 what it matched with a
 * running hash of the whole match order so far. In its first run rank 0 kills itself (SIGKILL)
 * after {@code args[1]} matches. Rank 1 checks that the chain it was sent is one consistent
 * order: every hash follows from the one before (a rank 0 started again that matched in another
 * order than its first run would break it at the join), every value came exactly once, each
 * sender's in its order; both print the final hash ({@code FINAL h}), and rank 1 {@code OK
 * anysource chain of N}.
 *
 * <p>With {@code args[2]} = C, rank 0 also checkpoints ({@link Railyard#checkpoint}) its count of
 * matches and its hash after C matches; started again, it goes on from there ({@code rank 0
 * resumes after C matches}) instead of from the start. The senders' values that arrived and were
 * not yet matched at that point are held in the checkpoint.
 */
public final class AnySourceRestartRanks {
    private static final int TAG_VALUE = 7;
    private static final int TAG_CHAIN = 9;

    private AnySourceRestartRanks() {
    }

    static long step(long h, long source, long value) {
        long x = h * 0x9E3779B97F4A7C15L + source * 1_000_003L + value;
        return x ^ (x >>> 29);
    }

    public static void main(String[] args) throws IOException, InterruptedException {
        int perSender = Integer.parseInt(args[0]);
        int killAfter = Integer.parseInt(args[1]);
        int checkpointAt = args.length > 2 ? Integer.parseInt(args[2]) : -1;
        try (Railyard ry = Railyard.init(args)) {
            Comm world = ry.world();
            int rank = world.rank();
            int n = world.size();
            int total = perSender * (n - 1);
            long[] one = new long[1];
            long[] link = new long[3];
            if (rank == 0) {
                long h = 0;
                int from = 0;
                byte[] saved = ry.restore().orElse(null);
                if (saved != null) {
                    java.nio.ByteBuffer b = java.nio.ByteBuffer.wrap(saved);
                    from = b.getInt();
                    h = b.getLong();
                    System.out.println("rank 0 resumes after " + from + " matches");
                }
                for (int i = from; i < total; i++) {
                    Status s = world.recv(one, 0, 1, Comm.ANY_SOURCE, TAG_VALUE);
                    h = step(h, s.source(), one[0]);
                    link[0] = s.source();
                    link[1] = one[0];
                    link[2] = h;
                    world.send(link, 0, 3, 1, TAG_CHAIN);
                    if (i + 1 == checkpointAt) {
                        ry.checkpoint(java.nio.ByteBuffer.allocate(12).putInt(i + 1).putLong(h).array());
                    }
                    if (i + 1 == killAfter && ry.incarnation() == 0) {
                        System.out.println("rank 0 kills itself after " + killAfter + " matches");
                        System.out.flush();
                        new ProcessBuilder("kill", "-KILL", Long.toString(ProcessHandle.current().pid())).start()
                                .waitFor(10, TimeUnit.SECONDS);
                        Runtime.getRuntime().halt(137);
                    }
                }
                System.out.println("FINAL " + Long.toHexString(h) + " incarnation " + ry.incarnation());
            } else {
                for (int v = 0; v < perSender; v++) {
                    one[0] = v;
                    world.send(one, 0, 1, 0, TAG_VALUE);
                }
                if (rank == 1) {
                    long h = 0;
                    long[] next = new long[n];
                    for (int i = 0; i < total; i++) {
                        world.recv(link, 0, 3, 0, TAG_CHAIN);
                        int src = (int) link[0];
                        RankSupport.require(src >= 1 && src < n, "match " + i + " names source " + src);
                        RankSupport.requireEquals(next[src], link[1], "value " + i + " of the chain, from rank " + src);
                        next[src]++;
                        h = step(h, src, link[1]);
                        RankSupport.requireEquals(h, link[2], "running hash after match " + i);
                    }
                    System.out.println("FINAL " + Long.toHexString(h));
                    System.out.println("OK anysource chain of " + total);
                }
            }
        }
    }
}
