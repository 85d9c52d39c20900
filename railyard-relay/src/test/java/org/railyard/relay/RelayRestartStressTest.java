package org.railyard.relay;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.SocketTimeoutException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.Random;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIfEnvironmentVariable;
import org.junit.jupiter.api.io.TempDir;
import org.railyard.testkit.Await;
import org.railyard.transport.relay.RelayClient;
import org.railyard.wire.RelayFrame;

/**
 * The check of the log: 10^5 messages of random sizes from three senders to one receiver,
 * through a relay process that is SIGKILLed and started again on its log twice during the run.
 * Senders send again what the relay had not acknowledged; the receiver drops what it already has
 * by sequence number. Every message arrives, checksums equal, in per-source order, and none is
 * consumed twice.
 *
 * <p>The stress runs only with {@code RAILYARD_RELAY_STRESS=1}. In one fresh-clone CI run of
 * 2026-11-27 a sender read STORED 7437 while it expected 7438: the test's own bookkeeping, not the
 * relay (see {@link Outbox}); {@link #aStoreWhoseWriteFailsIsSentAgainUnderItsOwnSequence} shows it
 * without a kill, in the default run.
 */
class RelayRestartStressTest {
    private static final int SENDERS = 3;
    private static final int PER_SENDER = 33_334;
    private static final int RECEIVER = SENDERS;
    private static final int WINDOW = 256;
    private static final Duration RUN_BOUND = Duration.ofMinutes(8);

    @TempDir
    Path dir;

    private volatile InetSocketAddress relay;

    /**
     * The failure of 2026-11-27 without a kill: a STORE whose write fails (here: on a closed connection)
     * is sent again on the next connection under its own sequence, and every STORED after is the one
     * the sender waits for, none twice.
     */
    @Test
    void aStoreWhoseWriteFailsIsSentAgainUnderItsOwnSequence() throws Exception {
        try (RelayServer server = Relays.start(null, RelayLog.Fsync.NEVER, 1L << 30, Long.MAX_VALUE, Relays.lines())) {
            Outbox box = new Outbox(0, 4);
            RelayClient first = Relays.rank(server, "job-o", 0, SENDERS + 1, false);
            box.fill(first, 10); // 1..4
            for (int i = 0; i < 2; i++) {
                box.stored(first.next(Relays.BOUND)); // 1, 2
            }
            first.close();
            assertThatThrownBy(() -> box.fill(first, 10)).isInstanceOf(IOException.class); // 5 filed, its write fails
            try (RelayClient second = Relays.rank(server, "job-o", 0, SENDERS + 1, false)) {
                box.sendAgain(second); // 3, 4, 5
                while (box.firstUnacked <= 10) {
                    box.fill(second, 10);
                    box.stored(second.next(Relays.BOUND));
                }
                assertThatThrownBy(() -> second.next(java.time.Duration.ofMillis(300)))
                        .isInstanceOf(SocketTimeoutException.class); // no STORED twice
            }
            assertThat(box.next).isEqualTo(11);
        }
    }

    @Test
    @EnabledIfEnvironmentVariable(named = "RAILYARD_RELAY_STRESS", matches = "1")
    void tenToTheFiveMessagesThroughARelayKilledTwice() throws Exception {
        int port;
        try (ServerSocket probe = new ServerSocket(0)) {
            port = probe.getLocalPort();
        }
        Path log = dir.resolve("log");
        RelayProcessTest.Relay r = RelayProcessTest.start(log, port, "never");
        relay = r.address();
        long deadline = System.nanoTime() + RUN_BOUND.toNanos();
        AtomicLong consumed = new AtomicLong();
        AtomicLong duplicates = new AtomicLong();
        try (ExecutorService pool = Executors.newVirtualThreadPerTaskExecutor()) {
            Future<?> receiving = pool.submit(() -> {
                receive(consumed, duplicates, deadline);
                return null;
            });
            Future<?>[] sending = new Future<?>[SENDERS];
            for (int s = 0; s < SENDERS; s++) {
                int src = s;
                sending[s] = pool.submit(() -> {
                    send(src, deadline);
                    return null;
                });
            }
            long total = (long) SENDERS * PER_SENDER;
            for (int kill = 1; kill <= 2; kill++) {
                long mark = total * kill / 3;
                RelayProcessTest.Relay running = r;
                Await.awaitUntil(() -> {
                    if (receiving.isDone()) {
                        throw diagnosis(running, receiving);
                    }
                    for (Future<?> f : sending) {
                        if (f.isDone()) {
                            f.get(); // throws if the sender failed: its exception says why
                        }
                    }
                    return consumed.get() >= mark;
                }, RUN_BOUND, "the receiver consumes " + mark + " messages");
                r.process().destroyForcibly(); // SIGKILL
                assertThat(r.process().waitFor(Relays.BOUND.toSeconds(), TimeUnit.SECONDS)).isTrue();
                r = RelayProcessTest.start(log, port, "never");
                RelayProcessTest.await(r.lines(), "to be delivered again");
            }
            try {
                receiving.get(RUN_BOUND.toSeconds(), TimeUnit.SECONDS);
            } catch (java.util.concurrent.ExecutionException e) {
                throw diagnosis(r, receiving);
            }
            for (Future<?> f : sending) {
                f.get(RUN_BOUND.toSeconds(), TimeUnit.SECONDS);
            }
            assertThat(consumed.get()).isEqualTo(total);
        } finally {
            r.process().destroy();
            r.process().waitFor(Relays.BOUND.toSeconds(), TimeUnit.SECONDS);
        }
    }

    /** The receiver's failure, with what the relay counted and said. */
    private AssertionError diagnosis(RelayProcessTest.Relay r, Future<?> receiving) throws Exception {
        java.util.List<String> said = new java.util.ArrayList<>();
        r.lines().drainTo(said);
        Throwable cause;
        try {
            receiving.get();
            cause = null;
        } catch (java.util.concurrent.ExecutionException e) {
            cause = e.getCause();
        }
        return new AssertionError("receiver failed; relay stats:\n" + RelayClient.stats(relay, Relays.BOUND)
                + "relay said:\n" + String.join("\n", said), cause);
    }

    /** Connects, retrying while the relay is down (bounded by {@code deadline}). */
    private RelayClient connect(int rank, boolean receive, long deadline) throws Exception {
        long pause = 10;
        while (true) {
            try {
                return RelayClient.connect(relay, "job-s", Relays.SECRET, rank, SENDERS + 1, receive, Relays.BOUND);
            } catch (IOException e) {
                if (System.nanoTime() > deadline) {
                    throw e;
                }
                TimeUnit.MILLISECONDS.sleep(pause); // backoff while the relay restarts
                pause = Math.min(pause * 2, 200);
            }
        }
    }

    /** Closes {@code c} if there is one; returns null, for the caller's variable. */
    private static RelayClient drop(RelayClient c) throws IOException {
        if (c != null) {
            c.close();
        }
        return null;
    }

    /** Sends in windows; after a broken connection, sends again every message not yet STORED. */
    private void send(int src, long deadline) throws Exception {
        Outbox box = new Outbox(src, WINDOW);
        RelayClient c = null;
        try {
            while (box.firstUnacked <= PER_SENDER) {
                try {
                    if (c == null) {
                        c = connect(src, false, deadline);
                        box.sendAgain(c);
                    }
                    box.fill(c, PER_SENDER);
                    box.stored(c.next(Relays.BOUND));
                } catch (IOException e) {
                    // the relay went away (killed) or kept this sender back too long: connect again, send again
                    assertThat(System.nanoTime()).as("sender %d gets through in time (%s)", src, e).isLessThan(deadline);
                    c = drop(c);
                }
            }
        } finally {
            drop(c);
        }
    }

    /**
     * A sender's messages the relay has not yet STORED: sequences {@code firstUnacked .. next - 1}, in order.
     * A message is filed here, and {@code next} advanced, before its STORE is written: a write that fails
     * (the relay killed) leaves it to be sent again on the next connection, under its own sequence. (The
     * version of 2026-11-27 advanced {@code next} only after a successful write, so a failed write left the
     * message filed as {@code next} and then filed {@code next} a second time: the relay, which acknowledges
     * a repeated STORE, answered STORED twice for it, and the sender read STORED 7437 expecting 7438.)
     */
    static final class Outbox {
        private final int src;
        private final int window;
        private final Random random;
        private final ArrayDeque<byte[]> unacked = new ArrayDeque<>();
        long firstUnacked = 1;
        long next = 1;

        Outbox(int src, int window) {
            this.src = src;
            this.window = window;
            this.random = new Random(100 + src);
        }

        /** On a new connection: sends again, in order, every message not yet STORED. */
        void sendAgain(RelayClient c) throws IOException {
            long seq = firstUnacked;
            for (byte[] m : unacked) {
                c.store(RECEIVER, seq, seq % 7 == 0, m, 0, m.length);
                seq++;
            }
        }

        /** Sends new messages up to {@code last} while fewer than a window are unacknowledged. */
        void fill(RelayClient c, long last) throws IOException {
            while (next <= last && unacked.size() < window) {
                long seq = next;
                byte[] m = Relays.message(random, src, seq, 1000);
                unacked.addLast(m);
                next++; // before the write: if it fails, m is sent again as seq on the next connection
                c.store(RECEIVER, seq, seq % 7 == 0, m, 0, m.length);
            }
        }

        /** Takes the relay's answer, which must be STORED of the oldest unacknowledged message. */
        void stored(RelayClient.Incoming in) {
            assertThat(in.header().type()).isEqualTo(RelayFrame.STORED);
            assertThat(in.header().sequence()).isEqualTo(firstUnacked);
            unacked.pollFirst();
            firstUnacked++;
        }
    }

    /**
     * Takes every message once, in order per source; acknowledges every 100 per source, and all it
     * has after each reconnection; reconnects after a break.
     */
    private void receive(AtomicLong consumed, AtomicLong duplicates, long deadline) throws Exception {
        long[] have = new long[SENDERS];
        long total = (long) SENDERS * PER_SENDER;
        RelayClient c = null;
        try {
            while (consumed.get() < total) {
                try {
                    if (c == null) {
                        c = connect(RECEIVER, true, deadline);
                        // as a rank's receiving port does: a relay that restarted may have lost the last
                        // acknowledgements, and one recovered full would otherwise never be freed
                        for (int src = 0; src < SENDERS; src++) {
                            if (have[src] > 0) {
                                c.delivered(src, have[src]);
                            }
                        }
                    }
                    RelayClient.Incoming m = c.next(Relays.BOUND);
                    assertThat(m.header().type()).isEqualTo(RelayFrame.DELIVER);
                    int src = m.header().source();
                    long seq = m.header().sequence();
                    if (seq <= have[src]) {
                        duplicates.incrementAndGet();
                        continue;
                    }
                    assertThat(seq).as("message from rank %d after %d", src, have[src]).isEqualTo(have[src] + 1);
                    Relays.check(m);
                    assertThat(m.header().has(RelayFrame.FLAG_CONTROL)).isEqualTo(seq % 7 == 0);
                    have[src] = seq;
                    consumed.incrementAndGet();
                    if (seq % 100 == 0 || seq == PER_SENDER) {
                        c.delivered(src, seq);
                    }
                } catch (SocketTimeoutException e) {
                    throw new AssertionError("no message for " + Relays.BOUND + " with " + consumed.get() + " of " + total
                            + " consumed", e);
                } catch (IOException e) {
                    assertThat(System.nanoTime()).as("the receiver gets through in time (%s)", e).isLessThan(deadline);
                    c = drop(c);
                }
            }
        } finally {
            drop(c);
        }
    }
}
