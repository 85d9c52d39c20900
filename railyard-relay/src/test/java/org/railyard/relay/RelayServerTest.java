package org.railyard.relay;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.DataInputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.railyard.transport.relay.RelayClient;
import org.railyard.wire.RelayFrame;

/** A relay server in this JVM, ranks over real loopback sockets. */
class RelayServerTest {

    @Test
    void severalSendersOneReceiverEveryMessageOnceInOrderPerSource() throws Exception {
        List<String> lines = Relays.lines();
        int senders = 3;
        int perSender = 400;
        int size = senders + 1;
        int receiver = senders;
        try (RelayServer relay = Relays.start(null, RelayLog.Fsync.NEVER, 1L << 30, Long.MAX_VALUE, lines);
             RelayClient in = Relays.rank(relay, "job-a", receiver, size, true);
             ExecutorService pool = Executors.newVirtualThreadPerTaskExecutor()) {
            List<Future<?>> sent = new ArrayList<>();
            for (int s = 0; s < senders; s++) {
                int src = s;
                sent.add(pool.submit(() -> {
                    try (RelayClient out = Relays.rank(relay, "job-a", src, size, false)) {
                        Future<?> acks = pool.submit(() -> {
                            Relays.awaitStored(out, receiver, 1, perSender);
                            return null;
                        });
                        Random r = new Random(src);
                        for (long seq = 1; seq <= perSender; seq++) {
                            byte[] m = Relays.message(r, src, seq, 40_000);
                            out.store(receiver, seq, seq % 5 == 0, m, 0, m.length);
                        }
                        acks.get(Relays.BOUND.toSeconds(), TimeUnit.SECONDS);
                    }
                    return null;
                }));
            }
            long[] next = new long[senders];
            for (int i = 0; i < senders * perSender; i++) {
                RelayClient.Incoming m = in.next(Relays.BOUND);
                assertThat(m.header().type()).isEqualTo(RelayFrame.DELIVER);
                int src = m.header().source();
                assertThat(m.header().sequence()).as("order of rank %d", src).isEqualTo(++next[src]);
                assertThat(m.header().has(RelayFrame.FLAG_CONTROL)).isEqualTo(m.header().sequence() % 5 == 0);
                Relays.check(m);
                if (m.header().sequence() % 50 == 0) {
                    in.delivered(src, m.header().sequence());
                }
            }
            for (Future<?> f : sent) {
                f.get(Relays.BOUND.toSeconds(), TimeUnit.SECONDS);
            }
            Relays.awaitCounter(relay, "acknowledged", senders * perSender);
            String stats = relay.stats();
            assertThat(Relays.counter(stats, "stored")).isEqualTo(senders * perSender);
            assertThat(Relays.counter(stats, "delivered")).isEqualTo(senders * perSender);
            assertThat(Relays.counter(stats, "acknowledged")).isEqualTo(senders * perSender);
            assertThat(Relays.counter(stats, "held_messages")).isZero();
            assertThat(lines).anyMatch(l -> l.equals("job job-a: 4 ranks"));
            assertThat(lines).anyMatch(l -> l.startsWith("job job-a rank 3 (") && l.endsWith("connected, receiving here"));
        }
    }

    @Test
    void twoJobsAreIsolatedAndAWrongSecretIsRefusedWhileTheRelayServes() throws Exception {
        List<String> lines = Relays.lines();
        try (RelayServer relay = Relays.start(null, RelayLog.Fsync.NEVER, 1L << 30, Long.MAX_VALUE, lines);
             RelayClient a1 = Relays.rank(relay, "job-a", 1, 2, true);
             RelayClient b1 = Relays.rank(relay, "job-b", 1, 2, true)) {
            byte[] wrong = "not the secret".getBytes(StandardCharsets.US_ASCII);
            assertThat(Relays.strangerProof(relay, "job-a", 0, 2, wrong)).isEqualTo("wrong job secret for job job-a");
            // a rank with the wrong secret finds out first, from the relay's proof
            assertThatThrownBy(() -> RelayClient.connect(relay.address(), "job-a", wrong, 0, 2, false, Relays.BOUND))
                    .isInstanceOf(IOException.class).hasMessageContaining("could not prove it serves job job-a");
            try (RelayClient a0 = Relays.rank(relay, "job-a", 0, 2, false);
                 RelayClient b0 = Relays.rank(relay, "job-b", 0, 2, false)) {
                a0.store(1, 1, false, new byte[] {'a'}, 0, 1);
                b0.store(1, 1, false, new byte[] {'b'}, 0, 1);
                Relays.awaitStored(a0, 1, 1, 1);
                Relays.awaitStored(b0, 1, 1, 1);
            }
            assertThat(a1.next(Relays.BOUND).body()).containsExactly('a');
            assertThat(b1.next(Relays.BOUND).body()).containsExactly('b');
            assertThat(Relays.counter(relay.stats(), "refused")).isEqualTo(1);
            assertThat(lines).anyMatch(l -> l.contains("refused job job-a rank 0") && l.contains("wrong job secret"));
        }
    }

    @Test
    void aMessageSentAgainWithOtherBytesThanTheOneHeldIsRefusedNamingIt() throws Exception {
        List<String> lines = Relays.lines();
        try (RelayServer relay = Relays.start(null, RelayLog.Fsync.NEVER, 1L << 30, Long.MAX_VALUE, lines);
             RelayClient first = Relays.rank(relay, "job-d", 0, 2, false)) {
            first.store(1, 1, false, new byte[] {7, 7}, 0, 2);
            Relays.awaitStored(first, 1, 1, 1);
            // the same rank, started again, repeats message 1 byte for byte: acknowledged, kept once
            try (RelayClient again = Relays.rank(relay, "job-d", 0, 2, false)) {
                again.store(1, 1, false, new byte[] {7, 7}, 0, 2);
                Relays.awaitStored(again, 1, 1, 1);
            }
            // and once with other bytes under that number: its run took another course
            try (RelayClient diverged = Relays.rank(relay, "job-d", 0, 2, false)) {
                diverged.store(1, 1, false, new byte[] {7, 8}, 0, 2);
                assertThatThrownBy(() -> diverged.next(Relays.BOUND))
                        .hasMessageContaining("message 1 from rank 0 to rank 1 of job job-d differs from the one stored");
            }
            try (RelayClient receiver = Relays.rank(relay, "job-d", 1, 2, true)) {
                assertThat(receiver.next(Relays.BOUND).body()).containsExactly(7, 7);
            }
            assertThat(Relays.counter(relay.stats(), "duplicates")).isEqualTo(2);
        }
    }

    @Test
    void aMalformedFrameClosesThatConnectionOnly() throws Exception {
        List<String> lines = Relays.lines();
        try (RelayServer relay = Relays.start(null, RelayLog.Fsync.NEVER, 1L << 30, Long.MAX_VALUE, lines);
             RelayClient receiver = Relays.rank(relay, "job-m", 1, 2, true);
             RelayClient good = Relays.rank(relay, "job-m", 0, 2, false)) {
            // a stranger's bytes before any handshake
            try (Socket s = new Socket(relay.address().getAddress(), relay.address().getPort())) {
                OutputStream o = s.getOutputStream();
                o.write("GET / HTTP/1.1\r\nHost: relay\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
                o.flush();
                DataInputStream in = new DataInputStream(s.getInputStream());
                RelayFrame.Header h = RelayFrame.readHeader(in, new byte[RelayFrame.HEADER], 1 << 16);
                assertThat(h.type()).isEqualTo(RelayFrame.ERROR);
                assertThat(new String(RelayFrame.readBody(in, h), StandardCharsets.UTF_8)).contains("foreign frame");
                assertThat(in.read()).isEqualTo(-1);
            }
            // a proven rank that sends a frame against the format: sequence numbers count from 1
            try (RelayClient bad = Relays.rank(relay, "job-m", 0, 2, false)) {
                bad.store(1, 0, false, new byte[4], 0, 4);
                assertThatThrownBy(() -> bad.next(Relays.BOUND)).hasMessageContaining("sequence 0 (counts from 1)");
            }
            // a frame cut short: the stream closes in the middle of its body
            try (Socket s = new Socket(relay.address().getAddress(), relay.address().getPort())) {
                byte[] header = new byte[RelayFrame.HEADER];
                RelayFrame.writeHeader(java.lang.foreign.MemorySegment.ofArray(header), 0, RelayFrame.HEADER + 100,
                        RelayFrame.HELLO, (byte) 0, 0, -1, 0);
                s.getOutputStream().write(header);
                s.getOutputStream().write(new byte[10]);
                s.shutdownOutput();
                assertThat(s.getInputStream().read()).isEqualTo(-1);
            }
            good.store(1, 1, false, new byte[] {42}, 0, 1);
            Relays.awaitStored(good, 1, 1, 1);
            assertThat(receiver.next(Relays.BOUND).body()).containsExactly(42);
            String stats = relay.stats();
            assertThat(Relays.counter(stats, "malformed")).isEqualTo(3);
            assertThat(lines).anyMatch(l -> l.contains("truncated HELLO frame"));
        }
    }

    @Test
    void aRankThatStallsInTheMiddleOfAFrameIsClosedWithinTheBoundAndSilenceIsNot() throws Exception {
        List<String> lines = Relays.lines();
        try (RelayServer relay = Relays.start(null, RelayLog.Fsync.NEVER, 1L << 30, Long.MAX_VALUE, lines)) {
            Relays.Raw raw = Relays.handshakeByHand(relay, "job-z", 0, 2, Relays.SECRET);
            try (Socket s = raw.socket()) {
                assertThat(raw.answer().type()).isEqualTo(RelayFrame.WELCOME);
                byte[] header = new byte[RelayFrame.HEADER];
                RelayFrame.writeHeader(java.lang.foreign.MemorySegment.ofArray(header), 0, RelayFrame.HEADER + 50,
                        RelayFrame.STORE, (byte) 0, 0, 1, 1);
                s.getOutputStream().write(header, 0, 10); // a third of a header, then nothing
                long start = System.nanoTime();
                assertThat(s.getInputStream().read()).as("closed by the relay").isEqualTo(-1);
                long waited = java.util.concurrent.TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
                assertThat(waited).isBetween(2_500L, 13_000L); // the relay's bound in these tests is 3 s
            }
            assertThat(lines).anyMatch(l -> l.contains("job job-z rank 0") && l.contains("stalled in the middle of a frame"));
            // a connection that never sends its HELLO is closed within the same bound, and counted as refused
            try (Socket mute = new Socket(relay.address().getAddress(), relay.address().getPort())) {
                mute.setSoTimeout((int) Relays.BOUND.toMillis());
                long start = System.nanoTime();
                assertThat(mute.getInputStream().read()).as("closed by the relay").isEqualTo(-1);
                long waited = java.util.concurrent.TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
                assertThat(waited).isBetween(2_500L, 13_000L);
            }
            assertThat(lines).anyMatch(l -> l.contains("no complete handshake for 3000 ms"));
            assertThat(Relays.counter(relay.stats(), "refused")).isEqualTo(1);
            // a rank that says nothing at all after its handshake keeps its connection
            try (RelayClient quiet = Relays.rank(relay, "job-z", 1, 2, true)) {
                assertThatThrownBy(() -> quiet.next(java.time.Duration.ofMillis(3_500)))
                        .isInstanceOf(java.net.SocketTimeoutException.class);
                try (RelayClient s0 = Relays.rank(relay, "job-z", 0, 2, false)) {
                    s0.store(1, 1, false, new byte[] {1}, 0, 1);
                    Relays.awaitStored(s0, 1, 1, 1);
                }
                assertThat(quiet.next(Relays.BOUND).body()).containsExactly(1);
            }
        }
    }

    @Test
    void aFullRelayHoldsSendersBackAndLosesNothing() throws Exception {
        List<String> lines = Relays.lines();
        int count = 40;
        int size = 16 << 10;
        long max = 64 << 10;
        try (RelayServer relay = Relays.start(null, RelayLog.Fsync.NEVER, max, Long.MAX_VALUE, lines);
             RelayClient sender = Relays.rank(relay, "job-f", 0, 2, false);
             ExecutorService pool = Executors.newVirtualThreadPerTaskExecutor()) {
            Future<?> sending = pool.submit(() -> {
                Random r = new Random(7);
                for (long seq = 1; seq <= count; seq++) {
                    byte[] m = Relays.message(r, 0, seq, size);
                    sender.store(1, seq, false, m, 0, m.length);
                }
                return null;
            });
            // the relay takes what fits, then stops reading the sender
            Relays.awaitStored(sender, 1, 1, 3);
            Relays.awaitCounter(relay, "held_back", 1);
            String full = relay.stats();
            assertThat(Relays.counter(full, "held_bytes")).isLessThanOrEqualTo(max);
            assertThat(Relays.counter(full, "stored")).isLessThan(count);
            assertThat(lines).anyMatch(l -> l.startsWith("relay full: ") && l.contains("senders are held back"));
            Future<?> acks = pool.submit(() -> {
                Relays.awaitStored(sender, 1, 4, count);
                return null;
            });
            try (RelayClient receiver = Relays.rank(relay, "job-f", 1, 2, true)) {
                Relays.receiveAll(receiver, 0, count);
            }
            sending.get(Relays.BOUND.toSeconds(), TimeUnit.SECONDS);
            acks.get(Relays.BOUND.toSeconds(), TimeUnit.SECONDS);
            assertThat(Relays.counter(relay.stats(), "stored")).isEqualTo(count);
            assertThat(lines).anyMatch(l -> l.startsWith("relay has room again"));
        }
    }

    /**
     * A rank's sending connection whose input was handed to a non-blocking reader (as every relay
     * connection of a rank is) writes to a full relay for longer than its connect timeout without
     * failing: the relay holds it back by not reading, and its writes wait as a blocking socket's
     * would, until receivers consume and the relay reads again.
     */
    @Test
    void aDetachedSendingConnectionHeldBackByAFullRelayWaitsBeyondItsTimeout() throws Exception {
        List<String> lines = Relays.lines();
        int count = 60;
        int size = 16 << 10;
        long max = 64 << 10;
        java.time.Duration timeout = java.time.Duration.ofMillis(300);
        RelayServer.Settings small = new RelayServer.Settings(new java.net.InetSocketAddress("127.0.0.1", 0), null,
                RelayLog.Fsync.NEVER, max, 1 << 24, java.time.Duration.ofSeconds(3), Long.MAX_VALUE, 16 << 10);
        try (RelayServer relay = RelayServer.start(small, lines::add);
             RelayClient sender = RelayClient.connect(relay.address(), "job-d", Relays.SECRET, 0, 2, false, timeout,
                     16 << 10, true);
             ExecutorService pool = Executors.newVirtualThreadPerTaskExecutor()) {
            sender.detachInput(); // its STOREDs are left unread: 24 bytes each, the kernel keeps them
            Future<?> sending = pool.submit(() -> {
                Random r = new Random(9);
                for (long seq = 1; seq <= count; seq++) {
                    byte[] m = Relays.message(r, 0, seq, size, size);
                    sender.store(1, seq, false, m, 0, m.length);
                }
                return null;
            });
            Relays.awaitCounter(relay, "held_back", 1);
            long heldAt = System.nanoTime();
            // the time bound itself is what is checked: the sender's writes outlive three of its timeouts
            org.railyard.testkit.Await.awaitUntil(() -> sending.isDone()
                            || System.nanoTime() - heldAt > 3 * timeout.toNanos(), Relays.BOUND,
                    () -> "three timeouts of the sender to pass");
            assertThat(sending.isDone()).as("the sender, held back by the full relay, still writing").isFalse();
            try (RelayClient receiver = Relays.rank(relay, "job-d", 1, 2, true)) {
                Relays.receiveAll(receiver, 0, count);
            }
            sending.get(Relays.BOUND.toSeconds(), TimeUnit.SECONDS); // no write failed
            assertThat(Relays.counter(relay.stats(), "stored")).isEqualTo(count);
        }
    }

    @Test
    void aNewReceiverConnectionGetsWhatTheOldOneDidNotAcknowledgeInArrivalOrder() throws Exception {
        try (RelayServer relay = Relays.start(null, RelayLog.Fsync.NEVER, 1L << 30, Long.MAX_VALUE, Relays.lines());
             RelayClient s0 = Relays.rank(relay, "job-r", 0, 3, false);
             RelayClient s1 = Relays.rank(relay, "job-r", 1, 3, false)) {
            // arrival order: 0:1, 1:1, 0:2, 1:2
            s0.store(2, 1, false, new byte[] {1}, 0, 1);
            Relays.awaitStored(s0, 2, 1, 1);
            s1.store(2, 1, true, new byte[] {2}, 0, 1);
            Relays.awaitStored(s1, 2, 1, 1);
            s0.store(2, 2, false, new byte[] {3}, 0, 1);
            Relays.awaitStored(s0, 2, 2, 2);
            s1.store(2, 2, false, new byte[] {4}, 0, 1);
            Relays.awaitStored(s1, 2, 2, 2);
            try (RelayClient first = Relays.rank(relay, "job-r", 2, 3, true)) {
                for (int b = 1; b <= 4; b++) {
                    assertThat(first.next(Relays.BOUND).body()).containsExactly(b);
                }
                first.delivered(1, 1); // consumed 1:1 only
                s0.store(2, 2, false, new byte[] {3}, 0, 1); // a sender that sends again: acknowledged, not kept twice
                Relays.awaitStored(s0, 2, 2, 2);
            }
            try (RelayClient second = Relays.rank(relay, "job-r", 2, 3, true)) {
                assertThat(second.next(Relays.BOUND).body()).containsExactly(1);
                assertThat(second.next(Relays.BOUND).body()).containsExactly(3);
                assertThat(second.next(Relays.BOUND).body()).containsExactly(4);
                assertThatThrownBy(() -> second.next(java.time.Duration.ofMillis(300)))
                        .isInstanceOf(java.net.SocketTimeoutException.class);
            }
            assertThat(Relays.counter(relay.stats(), "duplicates")).isEqualTo(1);
        }
    }

    @Test
    void statsAnswerWithoutAJob() throws Exception {
        try (RelayServer relay = Relays.start(null, RelayLog.Fsync.NEVER, 12345, Long.MAX_VALUE, Relays.lines())) {
            String stats = RelayClient.stats(relay.address(), Relays.BOUND);
            assertThat(Relays.counter(stats, "max_bytes")).isEqualTo(12345);
            assertThat(Relays.counter(stats, "jobs")).isZero();
        }
    }

    @Test
    void aReceiverThatTakesNothingIsClosedWithinTheBoundAndItsSenderGoesOn() throws Exception {
        List<String> lines = Relays.lines();
        int messages = 600; // 600 x 60 KB: more than the kernel buffers of a connection that is not read
        // closed in reverse order: the sender's socket first, which ends a write that waits
        try (ExecutorService pool = Executors.newVirtualThreadPerTaskExecutor();
             RelayServer relay = Relays.start(null, RelayLog.Fsync.NEVER, 1L << 30, Long.MAX_VALUE, lines);
             RelayClient frozen = Relays.rank(relay, "job-f", 1, 2, true);
             RelayClient out = Relays.rank(relay, "job-f", 0, 2, false)) {
            Future<?> sending = pool.submit(() -> {
                Random r = new Random(7);
                for (long seq = 1; seq <= messages; seq++) {
                    byte[] m = Relays.message(r, 0, seq, 60_000);
                    out.store(1, seq, false, m, 0, m.length); // waits while the relay does not read
                }
                return null;
            });
            // every STORED comes although rank 1 reads nothing: the relay closed its connection
            Relays.awaitStored(out, 1, 1, messages);
            sending.get(Relays.BOUND.toSeconds(), TimeUnit.SECONDS);
            assertThat(lines).anyMatch(l -> l.startsWith("relay: closed job job-f rank 1 (")
                    && l.endsWith("a frame written to it was not taken within 3000 ms"));
            try (RelayClient back = Relays.rank(relay, "job-f", 1, 2, true)) {
                for (long seq = 1; seq <= messages; seq++) {
                    RelayClient.Incoming m = back.next(Relays.BOUND);
                    assertThat(m.header().sequence()).as("order after coming back").isEqualTo(seq);
                    Relays.check(m);
                }
            }
        }
    }
}
