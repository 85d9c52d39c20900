package org.railyard.relay;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.DataInputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.railyard.transport.relay.RelayClient;
import org.railyard.wire.RelayFrame;

/**
 * Cut-through forwarding (a message longer than the relay forwards whole is written on to its
 * receiver while it is still being read): ranks over real loopback sockets, some of them by hand so
 * that a frame can be cut where the test chooses.
 */
class RelayPassageTest {
    private static final int LONG = 1 << 20;
    private static final int SENT_FIRST = 256 << 10;

    @TempDir
    Path dir;

    /** A STORE's header and the first {@code upTo} bytes of its body, written by hand. */
    private static void storePart(OutputStream out, int destination, long sequence, byte[] body, int upTo)
            throws Exception {
        byte[] header = new byte[RelayFrame.HEADER];
        RelayFrame.writeHeader(java.lang.foreign.MemorySegment.ofArray(header), 0, RelayFrame.HEADER + body.length,
                RelayFrame.STORE, (byte) 0, 0, destination, sequence);
        out.write(header);
        out.write(body, 0, upTo);
        out.flush();
    }

    private static RelayFrame.Header readStored(DataInputStream in) throws Exception {
        RelayFrame.Header h = RelayFrame.readHeader(in, new byte[RelayFrame.HEADER], 1 << 16);
        assertThat(h.type()).isEqualTo(RelayFrame.STORED);
        return h;
    }

    @Test
    void aReceiverThatLeavesInTheMiddleOfAForwardedMessageGetsItWholeOnceInOrderWhenItComesBack() throws Exception {
        List<String> lines = Relays.lines();
        Random r = new Random(22);
        byte[] first = Relays.message(r, 0, 1, LONG, LONG);
        byte[] second = Relays.message(r, 0, 2, 1000, 1000);
        byte[] third = Relays.message(r, 0, 3, 200_000, 200_000);
        try (RelayServer relay = Relays.start(null, RelayLog.Fsync.NEVER, 1L << 30, Long.MAX_VALUE, lines)) {
            Relays.Raw receiver = Relays.handshakeByHand(relay, "job-p", 1, 2, Relays.SECRET, true);
            Relays.Raw sender = Relays.handshakeByHand(relay, "job-p", 0, 2, Relays.SECRET);
            assertThat(receiver.answer().type()).isEqualTo(RelayFrame.WELCOME);
            assertThat(sender.answer().type()).isEqualTo(RelayFrame.WELCOME);
            try (Socket s = sender.socket()) {
                storePart(s.getOutputStream(), 1, 1, first, SENT_FIRST);
                try (Socket in = receiver.socket()) {
                    DataInputStream din = new DataInputStream(in.getInputStream());
                    RelayFrame.Header h = RelayFrame.readHeader(din, new byte[RelayFrame.HEADER], 1 << 24);
                    // the DELIVER began while a quarter of the message had been sent: it was not stored whole first
                    assertThat(h.type()).isEqualTo(RelayFrame.DELIVER);
                    assertThat(h.sequence()).isEqualTo(1);
                    assertThat(h.bodyLength()).isEqualTo(LONG);
                    byte[] part = new byte[100 << 10];
                    din.readFully(part);
                    assertThat(part).isEqualTo(Arrays.copyOf(first, part.length));
                } // the receiver leaves with most of the message unread
                s.getOutputStream().write(first, SENT_FIRST, LONG - SENT_FIRST);
                RelayFrame.write(new java.io.DataOutputStream(s.getOutputStream()), new byte[RelayFrame.HEADER],
                        RelayFrame.STORE, (byte) 0, 0, 1, 2, second, 0, second.length);
                RelayFrame.write(new java.io.DataOutputStream(s.getOutputStream()), new byte[RelayFrame.HEADER],
                        RelayFrame.STORE, (byte) 0, 0, 1, 3, third, 0, third.length);
                DataInputStream acks = new DataInputStream(s.getInputStream());
                long stored = 0;
                while (stored < 3) {
                    stored = readStored(acks).sequence();
                }
            }
            try (RelayClient back = Relays.rank(relay, "job-p", 1, 2, true)) {
                byte[][] expected = {first, second, third};
                for (int seq = 1; seq <= 3; seq++) {
                    RelayClient.Incoming m = back.next(Relays.BOUND);
                    assertThat(m.header().type()).isEqualTo(RelayFrame.DELIVER);
                    assertThat(m.header().sequence()).as("order after coming back").isEqualTo(seq);
                    assertThat(m.body()).isEqualTo(expected[seq - 1]);
                }
                assertThatThrownBy(() -> back.next(Duration.ofMillis(500)))
                        .as("each message once").isInstanceOf(java.net.SocketTimeoutException.class);
            }
            assertThat(Relays.counter(relay.stats(), "stored")).isEqualTo(3);
        }
    }

    @Test
    void aSenderCutInTheMiddleOfAForwardedMessageClosesTheReceiverWhichGetsItWholeWhenItIsSentAgain() throws Exception {
        List<String> lines = Relays.lines();
        byte[] message = Relays.message(new Random(5), 0, 1, LONG, LONG);
        try (RelayServer relay = Relays.start(null, RelayLog.Fsync.NEVER, 1L << 30, Long.MAX_VALUE, lines)) {
            Relays.Raw receiver = Relays.handshakeByHand(relay, "job-c", 1, 2, Relays.SECRET, true);
            try (Socket in = receiver.socket()) {
                Relays.Raw sender = Relays.handshakeByHand(relay, "job-c", 0, 2, Relays.SECRET);
                try (Socket s = sender.socket()) {
                    storePart(s.getOutputStream(), 1, 1, message, SENT_FIRST);
                    DataInputStream din = new DataInputStream(in.getInputStream());
                    RelayFrame.Header h = RelayFrame.readHeader(din, new byte[RelayFrame.HEADER], 1 << 24);
                    assertThat(h.type()).isEqualTo(RelayFrame.DELIVER);
                } // the sender dies inside its frame
                // the receiver holds part of a DELIVER that can never end: the relay closes it
                assertThat(drain(in)).isLessThan(LONG);
            }
            // the receiver is closed before the sender's reader says why it ended
            org.railyard.testkit.Await.awaitUntil(() -> List.copyOf(lines).stream()
                    .anyMatch(l -> l.contains("job job-c rank 0") && l.contains("truncated STORE frame")),
                    Relays.BOUND, "the relay names the sender's cut frame");
            assertThat(Relays.counter(relay.stats(), "stored")).isZero();
            try (RelayClient again = Relays.rank(relay, "job-c", 0, 2, false);
                 RelayClient back = Relays.rank(relay, "job-c", 1, 2, true)) {
                again.store(1, 1, false, message, 0, message.length);
                Relays.awaitStored(again, 1, 1, 1);
                RelayClient.Incoming m = back.next(Relays.BOUND);
                assertThat(m.header().sequence()).isEqualTo(1);
                assertThat(m.body()).isEqualTo(message);
            }
        }
    }

    @Test
    void aSenderThatStallsInsideABodyIsClosedWithinTheBoundWhetherItsMessagePassesOrIsReadWhole() throws Exception {
        List<String> lines = Relays.lines();
        try (RelayServer relay = Relays.start(null, RelayLog.Fsync.NEVER, 1L << 30, Long.MAX_VALUE, lines);
             Socket in = Relays.handshakeByHand(relay, "job-s", 1, 2, Relays.SECRET, true).socket()) {
            stallsWithin(relay, Relays.message(new Random(6), 0, 1, LONG, LONG), SENT_FIRST); // passing on
            assertThat(drain(in)).as("the receiver, left with part of a DELIVER, is closed").isLessThan(LONG);
            stallsWithin(relay, Relays.message(new Random(7), 0, 1, 100, 100), 40); // read whole before storing
            assertThat(List.copyOf(lines).stream().filter(l -> l.contains("job job-s rank 0") && l.contains("stalled in the middle of a frame")))
                    .hasSize(2);
            assertThat(Relays.counter(relay.stats(), "stored")).isZero();
        }
    }

    /** A sender of the first {@code upTo} bytes of {@code body}'s STORE, then nothing: the relay closes it within its bound. */
    private static void stallsWithin(RelayServer relay, byte[] body, int upTo) throws Exception {
        try (Socket s = Relays.handshakeByHand(relay, "job-s", 0, 2, Relays.SECRET).socket()) {
            storePart(s.getOutputStream(), 1, 1, body, upTo);
            long start = System.nanoTime();
            assertThat(s.getInputStream().read()).as("the stalled sender is closed").isEqualTo(-1);
            long waited = java.util.concurrent.TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
            assertThat(waited).isBetween(2_500L, 13_000L); // the relay's bound in these tests is 3 s
        }
    }

    /** Reads until the relay closes the connection; returns the bytes read. */
    private static long drain(Socket in) throws java.io.IOException {
        byte[] sink = new byte[1 << 16];
        long got = 0;
        for (int n; (n = in.getInputStream().read(sink)) >= 0; ) {
            got += n;
        }
        return got;
    }

    @Test
    void forwardedMessagesFromSeveralSendersKeepOneOrderForDeliveryReplayAndTheLog() throws Exception {
        int senders = 3;
        int perSender = 25;
        int size = senders + 1;
        int receiver = senders;
        List<Long> order = new ArrayList<>(); // source * 1000 + sequence, as first delivered
        Path log = dir.resolve("log");
        try (RelayServer relay = Relays.start(log, RelayLog.Fsync.NEVER, 1L << 30, Long.MAX_VALUE, Relays.lines());
             ExecutorService pool = Executors.newVirtualThreadPerTaskExecutor()) {
            try (RelayClient in = Relays.rank(relay, "job-o", receiver, size, true)) {
                List<Future<?>> sent = new ArrayList<>();
                for (int s = 0; s < senders; s++) {
                    int src = s;
                    sent.add(pool.submit(() -> {
                        try (RelayClient out = Relays.rank(relay, "job-o", src, size, false)) {
                            Random r = new Random(src);
                            for (long seq = 1; seq <= perSender; seq++) {
                                byte[] m = Relays.message(r, src, seq, 20, 300_000); // most longer than forwarded whole
                                out.store(receiver, seq, false, m, 0, m.length);
                            }
                            Relays.awaitStored(out, receiver, 1, perSender);
                        }
                        return null;
                    }));
                }
                long[] next = new long[senders];
                for (int i = 0; i < senders * perSender; i++) {
                    RelayClient.Incoming m = in.next(Relays.BOUND);
                    Relays.check(m);
                    int src = m.header().source();
                    assertThat(m.header().sequence()).as("order of rank %d", src).isEqualTo(++next[src]);
                    order.add(src * 1000L + m.header().sequence());
                }
                for (Future<?> f : sent) {
                    f.get(Relays.BOUND.toSeconds(), TimeUnit.SECONDS);
                }
            }
            assertThat(replayOrder(relay, "job-o", receiver, size, senders * perSender))
                    .as("a new receiver connection's order").isEqualTo(order);
        }
        try (RelayServer relay = Relays.start(log, RelayLog.Fsync.NEVER, 1L << 30, Long.MAX_VALUE, Relays.lines())) {
            assertThat(replayOrder(relay, "job-o", receiver, size, senders * perSender))
                    .as("the order after a restart from the log").isEqualTo(order);
        }
    }

    @Test
    void aRelayProcessKilledInTheMiddleOfAPassingMessageLosesNothingItStored() throws Exception {
        Random r = new Random(9);
        byte[][] messages = new byte[5][];
        for (int i = 1; i <= 4; i++) {
            messages[i] = Relays.message(r, 0, i, 200_000, 400_000);
        }
        RelayProcessTest.Relay first = RelayProcessTest.start(dir.resolve("log"), 0, "always");
        try (RelayClient in = RelayClient.connect(first.address(), "job-k", Relays.SECRET, 1, 2, true, Relays.BOUND)) {
            Relays.Raw sender = Relays.handshakeByHand(first.address(), "job-k", 0, 2, Relays.SECRET, false);
            try (Socket s = sender.socket()) {
                assertThat(sender.answer().type()).isEqualTo(RelayFrame.WELCOME);
                java.io.DataOutputStream out = new java.io.DataOutputStream(s.getOutputStream());
                DataInputStream acks = new DataInputStream(s.getInputStream());
                for (int i = 1; i <= 3; i++) {
                    RelayFrame.write(out, new byte[RelayFrame.HEADER], RelayFrame.STORE, (byte) 0, 0, 1, i, messages[i], 0,
                            messages[i].length);
                    out.flush();
                    assertThat(readStored(acks).sequence()).isEqualTo(i);
                    assertThat(in.next(Relays.BOUND).body()).isEqualTo(messages[i]);
                }
                storePart(out, 1, 4, messages[4], 100_000); // passing on when the relay is killed
                first.process().destroyForcibly(); // SIGKILL
                assertThat(first.process().waitFor(Relays.BOUND.toSeconds(), TimeUnit.SECONDS)).isTrue();
                assertThatThrownBy(() -> in.next(Relays.BOUND)).as("the cut DELIVER is not handed out")
                        .isInstanceOf(java.io.IOException.class);
            }
        } finally {
            first.process().destroyForcibly();
        }
        RelayProcessTest.Relay second = RelayProcessTest.start(dir.resolve("log"), 0, "always");
        try (RelayClient in = RelayClient.connect(second.address(), "job-k", Relays.SECRET, 1, 2, true, Relays.BOUND);
             RelayClient again = RelayClient.connect(second.address(), "job-k", Relays.SECRET, 0, 2, false, Relays.BOUND)) {
            for (int i = 1; i <= 3; i++) { // stored and not acknowledged: delivered again, in order
                RelayClient.Incoming m = in.next(Relays.BOUND);
                assertThat(m.header().sequence()).isEqualTo(i);
                assertThat(m.body()).isEqualTo(messages[i]);
            }
            again.store(1, 4, false, messages[4], 0, messages[4].length); // never STORED: the sender sends it again
            Relays.awaitStored(again, 1, 4, 4);
            RelayClient.Incoming m = in.next(Relays.BOUND);
            assertThat(m.header().sequence()).isEqualTo(4);
            assertThat(m.body()).isEqualTo(messages[4]);
            assertThatThrownBy(() -> in.next(Duration.ofMillis(500))).isInstanceOf(java.net.SocketTimeoutException.class);
        } finally {
            second.process().destroy();
            assertThat(second.process().waitFor(Relays.BOUND.toSeconds(), TimeUnit.SECONDS)).isTrue();
        }
    }

    private static List<Long> replayOrder(RelayServer relay, String job, int rank, int size, int count) throws Exception {
        List<Long> order = new ArrayList<>();
        try (RelayClient in = Relays.rank(relay, job, rank, size, true)) {
            for (int i = 0; i < count; i++) {
                RelayClient.Incoming m = in.next(Relays.BOUND);
                Relays.check(m);
                order.add(m.header().source() * 1000L + m.header().sequence());
            }
        }
        return order;
    }
}
