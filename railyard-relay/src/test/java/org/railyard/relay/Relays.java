package org.railyard.relay;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.zip.CRC32;
import org.railyard.testkit.Await;
import org.railyard.transport.relay.RelayClient;
import org.railyard.wire.RelayFrame;

/** What the relay tests share: starting relays, ranks that send and receive checked messages. */
final class Relays {
    static final Duration BOUND = Duration.ofSeconds(20);
    static final byte[] SECRET = "the job secret, 32 bytes long...".getBytes(StandardCharsets.US_ASCII);

    private Relays() {
    }

    /** A relay on a free loopback port; its notices collected in {@code lines}. */
    static RelayServer start(Path log, RelayLog.Fsync fsync, long maxBytes, long compactMin, List<String> lines)
            throws IOException {
        return RelayServer.start(new RelayServer.Settings(new InetSocketAddress("127.0.0.1", 0), log, fsync, maxBytes,
                1 << 24, Duration.ofSeconds(3), compactMin), lines::add);
    }

    static List<String> lines() {
        // a relay's threads add while a test's wait streams over it: a synchronized list's stream is not
        // (one CI run ended in a ConcurrentModificationException there)
        return new CopyOnWriteArrayList<>();
    }

    static RelayClient rank(RelayServer relay, String job, int rank, int size, boolean receive) throws IOException {
        return RelayClient.connect(relay.address(), job, SECRET, rank, size, receive, BOUND);
    }

    /**
     * A message that checks itself: 8 bytes of CRC32 over the rest, then the source, the sequence
     * and random bytes (the sizes vary with {@code random}).
     */
    static byte[] message(Random random, int source, long sequence, int maxSize) {
        return message(random, source, sequence, 20, maxSize);
    }

    /** As above, of {@code minSize} (at least 20) to {@code maxSize} bytes. */
    static byte[] message(Random random, int source, long sequence, int minSize, int maxSize) {
        int size = minSize + random.nextInt(maxSize - minSize + 1);
        byte[] b = new byte[size];
        random.nextBytes(b);
        ByteBuffer.wrap(b).putInt(8, source).putLong(12, sequence);
        CRC32 crc = new CRC32();
        crc.update(b, 8, size - 8);
        ByteBuffer.wrap(b).putLong(0, crc.getValue());
        return b;
    }

    /** Checks a delivered message: its checksum, and that it names the source and sequence it came with. */
    static void check(RelayClient.Incoming in) {
        byte[] b = in.body();
        CRC32 crc = new CRC32();
        crc.update(b, 8, b.length - 8);
        ByteBuffer bb = ByteBuffer.wrap(b);
        assertThat(bb.getLong(0)).as("checksum of message %d from rank %d", in.header().sequence(), in.header().source())
                .isEqualTo(crc.getValue());
        assertThat(bb.getInt(8)).isEqualTo(in.header().source());
        assertThat(bb.getLong(12)).isEqualTo(in.header().sequence());
    }

    /** Receives messages 1 to {@code count} from {@code source}, checking each, and acknowledges each. */
    static void receiveAll(RelayClient receiver, int source, long count) throws IOException {
        for (long seq = 1; seq <= count; seq++) {
            RelayClient.Incoming m = receiver.next(BOUND);
            assertThat(m.header().source()).isEqualTo(source);
            assertThat(m.header().sequence()).isEqualTo(seq);
            check(m);
            receiver.delivered(source, seq);
        }
    }

    /** Reads until {@code n} STORED acknowledgements came, checking they come in sequence order. */
    static void awaitStored(RelayClient c, int destination, long from, long to) throws IOException {
        for (long seq = from; seq <= to; seq++) {
            RelayClient.Incoming in = c.next(BOUND);
            assertThat(in.header().type()).isEqualTo(RelayFrame.STORED);
            assertThat(in.header().destination()).isEqualTo(destination);
            assertThat(in.header().sequence()).isEqualTo(seq);
        }
    }

    /** Waits, bounded, until the relay's counter {@code name} reaches {@code value}. */
    static void awaitCounter(RelayServer relay, String name, long value) {
        Await.awaitUntil(() -> counter(relay.stats(), name) >= value, BOUND, "relay counter " + name + " reaches " + value);
    }

    /**
     * A handshake by hand, as {@code rank} of {@code job} with {@code secret}: it goes on even when
     * the relay's proof does not match (where a {@link RelayClient} would stop), so the relay's own
     * check is what answers. Returns the open socket and the relay's answer (WELCOME or ERROR).
     */
    record Raw(java.net.Socket socket, RelayFrame.Header answer, String text) { }

    static Raw handshakeByHand(RelayServer relay, String job, int rank, int size, byte[] secret) throws IOException {
        return handshakeByHand(relay, job, rank, size, secret, false);
    }

    /** As above; {@code receive}: the connection is the rank's receiver connection (FLAG_RECEIVE). */
    static Raw handshakeByHand(RelayServer relay, String job, int rank, int size, byte[] secret, boolean receive)
            throws IOException {
        return handshakeByHand(relay.address(), job, rank, size, secret, receive);
    }

    /** As above, with the relay at {@code relay} (a relay process). */
    static Raw handshakeByHand(InetSocketAddress relay, String job, int rank, int size, byte[] secret, boolean receive)
            throws IOException {
        java.net.Socket s = new java.net.Socket(relay.getAddress(), relay.getPort());
        s.setSoTimeout((int) BOUND.toMillis());
        java.io.DataOutputStream out = new java.io.DataOutputStream(s.getOutputStream());
        java.io.DataInputStream in = new java.io.DataInputStream(s.getInputStream());
        byte[] scratch = new byte[RelayFrame.HEADER];
        byte[] nonceC = new byte[RelayFrame.NONCE_BYTES];
        byte[] hello = RelayFrame.helloBody(size, nonceC, job);
        RelayFrame.write(out, scratch, RelayFrame.HELLO, receive ? RelayFrame.FLAG_RECEIVE : 0, rank, -1, 0, hello, 0,
                hello.length);
        RelayFrame.Header h = RelayFrame.readHeader(in, scratch, 1 << 16);
        byte[] body = RelayFrame.readBody(in, h);
        assertThat(h.type()).isEqualTo(RelayFrame.CHALLENGE);
        byte[] nonceR = RelayFrame.slice(body, RelayFrame.CHALLENGE_NONCE_OFFSET, RelayFrame.NONCE_BYTES);
        byte[] verifier = org.railyard.bootstrap.JobKeys.relayVerifier(job, secret);
        boolean fresh = h.has(RelayFrame.FLAG_NEW_JOB);
        byte[] proof = RelayFrame.proofBody(org.railyard.bootstrap.JobKeys.relayProof(verifier, "C", rank, nonceR, nonceC),
                fresh ? verifier : null);
        RelayFrame.write(out, scratch, RelayFrame.PROOF, fresh ? RelayFrame.FLAG_NEW_JOB : 0, rank, -1, 0, proof, 0,
                proof.length);
        h = RelayFrame.readHeader(in, scratch, 1 << 16);
        return new Raw(s, h, new String(RelayFrame.readBody(in, h), StandardCharsets.UTF_8));
    }

    /** A stranger with the wrong secret: the relay's ERROR text, after which it closed the connection. */
    static String strangerProof(RelayServer relay, String job, int rank, int size, byte[] secret) throws IOException {
        Raw raw = handshakeByHand(relay, job, rank, size, secret);
        try (java.net.Socket s = raw.socket()) {
            assertThat(raw.answer().type()).isEqualTo(RelayFrame.ERROR);
            assertThat(s.getInputStream().read()).as("closed after the ERROR").isEqualTo(-1);
            return raw.text();
        }
    }

    /** The value of counter {@code name} in a relay's stats text. */
    static long counter(String stats, String name) {
        for (String line : stats.split("\n")) {
            String[] kv = line.split(" ");
            if (kv[0].equals(name)) {
                return Long.parseLong(kv[1]);
            }
        }
        throw new AssertionError("no counter " + name + " in " + stats);
    }
}
