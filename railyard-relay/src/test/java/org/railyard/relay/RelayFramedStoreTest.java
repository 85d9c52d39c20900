package org.railyard.relay;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.railyard.transport.relay.RelayClient;
import org.railyard.wire.RelayFrame;

/**
 * A rank's STOREs written from its frame buffers ({@link RelayClient#framed}: the header written
 * in place in front of the frame, header and frame in one write, several frames in one gathering
 * write) over a detached, non-blocking connection, as the rank's sending port writes them: every
 * byte arrives, at every size around the socket's and the relay's pieces, in order; after a relay
 * restart from its log the same buffers framed again are duplicates and nothing arrives twice.
 */
class RelayFramedStoreTest {
    private static final int[] EDGES = {0, 1, 23, 24, 25, 4095, 65_536, 65_537, 256 << 10, (256 << 10) + 24, 700_000};

    @TempDir
    Path dir;

    /** A frame buffer as a rank's pool gives it: the header's room in front, stale bytes behind the frame. */
    private static ByteBuffer buffer(Random random, byte[] message) {
        ByteBuffer b = ByteBuffer.allocateDirect(RelayFrame.HEADER + message.length + random.nextInt(64));
        while (b.hasRemaining()) {
            b.put((byte) random.nextInt()); // stale contents: only the frame's bytes may travel
        }
        b.clear().position(RelayFrame.HEADER);
        b.put(message).clear();
        return b;
    }

    /** Checked messages 1 to {@code count} from rank 0 (index 0 unused), message i of {@code size(i)} bytes. */
    private static byte[][] messages(Random random, int count, java.util.function.IntUnaryOperator size) {
        byte[][] m = new byte[count + 1][];
        for (int i = 1; i <= count; i++) {
            int n = size.applyAsInt(i);
            m[i] = Relays.message(random, 0, i, n, n);
        }
        return m;
    }

    /** The frame buffers of {@code messages[1..]} (index 0 unused, as in the messages). */
    private static ByteBuffer[] buffers(Random random, byte[][] messages) {
        ByteBuffer[] b = new ByteBuffer[messages.length];
        for (int i = 1; i < messages.length; i++) {
            b[i] = buffer(random, messages[i]);
        }
        return b;
    }

    private static RelayClient sender(RelayServer relay) throws Exception {
        RelayClient c = RelayClient.connect(relay.address(), "job-f", Relays.SECRET, 0, 2, false, Relays.BOUND, 0, true);
        c.detachInput(); // its STOREDs are not read here: the relay's counter says what it stored
        return c;
    }

    @Test
    void framedStoresOfEverySizeArriveWholeInOrderSingleAndGathered() throws Exception {
        Random random = new Random(2209);
        int count = 60;
        byte[][] messages = messages(random, count,
                i -> i <= EDGES.length ? Math.max(20, EDGES[i - 1]) : 20 + random.nextInt(400_000));
        ByteBuffer[] buffers = buffers(random, messages);
        List<String> lines = Relays.lines();
        try (RelayServer relay = Relays.start(null, RelayLog.Fsync.NEVER, 1L << 30, Long.MAX_VALUE, lines);
             RelayClient out = sender(relay);
             RelayClient in = Relays.rank(relay, "job-f", 1, 2, true)) {
            int seq = 1;
            while (seq <= count) {
                int n = Math.min(1 + random.nextInt(8), count - seq + 1);
                if (n == 1) {
                    out.store(1, seq, buffers[seq], messages[seq].length);
                } else {
                    ByteBuffer[] batch = new ByteBuffer[n];
                    for (int k = 0; k < n; k++) {
                        batch[k] = out.framed(1, seq + k, buffers[seq + k], messages[seq + k].length);
                    }
                    out.storeFramed(batch, n);
                    for (ByteBuffer b : batch) {
                        assertThat(b.hasRemaining()).as("a framed view written whole").isFalse();
                    }
                }
                seq += n;
            }
            for (int i = 1; i <= count; i++) {
                RelayClient.Incoming m = in.next(Relays.BOUND);
                assertThat(m.header().sequence()).isEqualTo(i);
                assertThat(m.body()).as("message %d of %d bytes", i, messages[i].length).isEqualTo(messages[i]);
                Relays.check(m);
                assertThat(buffers[i].position()).as("the buffer itself is not moved by the write").isZero();
            }
            Relays.awaitCounter(relay, "stored", count);
            assertThat(Relays.counter(relay.stats(), "malformed")).isZero();
        }
    }

    @Test
    void afterARelayRestartFromItsLogTheSameBuffersFramedAgainAreDuplicatesAndNothingArrivesTwice() throws Exception {
        Random random = new Random(9022);
        int count = 12;
        byte[][] messages = messages(random, count, i -> 20 + random.nextInt(300_000));
        ByteBuffer[] buffers = buffers(random, messages);
        Path log = dir.resolve("log");
        int first = 8;
        try (RelayServer relay = Relays.start(log, RelayLog.Fsync.ALWAYS, 1L << 30, Long.MAX_VALUE, Relays.lines());
             RelayClient out = sender(relay)) {
            ByteBuffer[] batch = new ByteBuffer[first];
            for (int i = 1; i <= first; i++) {
                batch[i - 1] = out.framed(1, i, buffers[i], messages[i].length);
            }
            out.storeFramed(batch, first);
            Relays.awaitCounter(relay, "stored", first);
        }
        try (RelayServer relay = Relays.start(log, RelayLog.Fsync.ALWAYS, 1L << 30, Long.MAX_VALUE, Relays.lines());
             RelayClient out = sender(relay);
             RelayClient in = Relays.rank(relay, "job-f", 1, 2, true)) {
            // a sending port that never saw the STOREDs writes every frame again, then the rest
            ByteBuffer[] batch = new ByteBuffer[count];
            for (int i = 1; i <= count; i++) {
                batch[i - 1] = out.framed(1, i, buffers[i], messages[i].length);
            }
            out.storeFramed(batch, count);
            for (int i = 1; i <= count; i++) {
                RelayClient.Incoming m = in.next(Relays.BOUND);
                assertThat(m.header().sequence()).isEqualTo(i);
                assertThat(m.body()).as("message %d after the restart", i).isEqualTo(messages[i]);
            }
            Relays.awaitCounter(relay, "duplicates", first);
            assertThatThrownBy(() -> in.next(Duration.ofMillis(500))).as("nothing delivered twice")
                    .isInstanceOf(java.net.SocketTimeoutException.class);
        }
    }
}
