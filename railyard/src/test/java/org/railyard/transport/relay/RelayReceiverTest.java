package org.railyard.transport.relay;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.railyard.testkit.Await;
import org.railyard.util.Config;
import org.railyard.wire.RelayFrame;

/**
 * The rank's polled relay input over a real loopback connection: frames cut anywhere (inside the
 * header, inside the body) arrive whole and in order through {@link RelayReceiver#poll}; a frame
 * larger than the buffer grows it; the bytes the handshake read ahead come first; nobody polling,
 * the reader thread takes them, waits for a poll that holds the read lock instead of selecting
 * again, and runs its tick when due; an ERROR, a foreign frame and a stream cut mid-frame end it
 * naming why.
 */
class RelayReceiverTest {
    private static final Duration BOUND = Duration.ofSeconds(20);

    private record Got(int source, long sequence, byte[] frame) { }

    private final List<Got> got = new ArrayList<>();
    private RelayLoopback connection;
    private SocketChannel relaySide;
    private SocketChannel rankSide;

    private final RelayPort.Handler handler = new RelayPort.Handler() {
        @Override
        public void delivered(int source, long sequence, byte[] frame) {
            synchronized (got) {
                got.add(new Got(source, sequence, frame));
            }
        }

        @Override public void stored() { }
        @Override public void presence(RelayPort port, int rank, long absentMillis) { }
        @Override public void failed(RelayPort port, String why) { }
        @Override public void say(String line) { }
    };

    @BeforeEach
    void connect() throws IOException {
        connection = RelayLoopback.open();
        rankSide = connection.rankSide();
        relaySide = connection.relaySide();
    }

    @AfterEach
    void close() throws IOException {
        connection.close();
    }

    private static byte[] frame(byte type, int source, long sequence, byte[] body) {
        byte[] f = new byte[RelayFrame.HEADER + body.length];
        RelayFrame.writeHeader(MemorySegment.ofArray(f), 0, f.length, type, (byte) 0, source, 1, sequence);
        System.arraycopy(body, 0, f, RelayFrame.HEADER, body.length);
        return f;
    }

    private static byte[] body(Random random, int size) {
        byte[] b = new byte[size];
        random.nextBytes(b);
        return b;
    }

    /**
     * {@code frames} random bodies from {@code seed}, mostly small (under {@code smallMax} bytes); every
     * {@code largeEvery}-th one is 10 000 to 10 000 + {@code largeSpread} bytes, past the 4 KiB the
     * receiver's buffer starts with.
     */
    private static List<byte[]> bodies(long seed, int frames, int largeEvery, int largeSpread, int smallMax) {
        Random random = new Random(seed);
        List<byte[]> bodies = new ArrayList<>();
        for (int i = 0; i < frames; i++) {
            bodies.add(body(random, i % largeEvery == 0 ? 10_000 + random.nextInt(largeSpread) : random.nextInt(smallMax)));
        }
        return bodies;
    }

    /** {@code g} is frame {@code i} as {@link #writeDelivers} wrote it: from source i % 3, sequence i / 3 + 1, body i. */
    private static void assertWritten(Got g, int i, List<byte[]> sent) {
        assertThat(g.source()).as("frame %d", i).isEqualTo(i % 3);
        assertThat(g.sequence()).as("frame %d", i).isEqualTo(i / 3 + 1);
        assertThat(g.frame()).as("frame %d", i).isEqualTo(sent.get(i));
    }

    private int count() {
        synchronized (got) {
            return got.size();
        }
    }

    /** Writes {@code bytes} in pieces of 1 to {@code maxPiece} bytes, each its own write. */
    private void writeInPieces(byte[] bytes, Random random, int maxPiece) throws IOException {
        int off = 0;
        while (off < bytes.length) {
            int n = Math.min(bytes.length - off, 1 + random.nextInt(maxPiece));
            connection.write(ByteBuffer.wrap(bytes, off, n));
            off += n;
        }
    }

    /** A thread writing {@code bodies} as DELIVERs from sources 0, 1, 2 in turn, each cut in random pieces. */
    private Thread writeDelivers(List<byte[]> bodies, long seed) {
        return Thread.ofPlatform().start(() -> {
            try {
                Random pieces = new Random(seed);
                for (int i = 0; i < bodies.size(); i++) {
                    writeInPieces(frame(RelayFrame.DELIVER, i % 3, i / 3 + 1, bodies.get(i)), pieces, 40);
                }
            } catch (IOException e) {
                throw new RuntimeException(e);
            }
        });
    }

    @Test
    void framesCutAnywhereArriveWholeAndInOrderThroughPolls() throws Exception {
        RelayReceiver r = new RelayReceiver(rankSide, new byte[0], 4096, handler);
        int frames = 300;
        List<byte[]> sent = bodies(22, frames, 37, 30_000, 300);
        Thread writer = writeDelivers(sent, 7);
        Await.awaitUntil(() -> {
            r.poll();
            return count() == frames || r.broken() != null;
        }, BOUND, () -> count() + " of " + frames + " frames polled");
        writer.join();
        assertThat(r.broken()).isNull();
        for (int i = 0; i < frames; i++) {
            assertWritten(got.get(i), i, sent);
        }
    }

    @Test
    void aPollsDirectTakesTheDeliversItWantsFromTheBufferAndTheSinkGetsTheRest() throws Exception {
        RelayReceiver r = new RelayReceiver(rankSide, new byte[0], 4096, handler);
        int frames = 300;
        List<byte[]> sent = bodies(23, frames, 41, 20_000, 200);
        List<Got> direct = new ArrayList<>();
        int[] nested = {0};
        RelayReceiver.Direct takeSourceOne = (h, segment, offset, length) -> {
            if (h.source() != 1) {
                return false; // declined: copied for the sink
            }
            nested[0] += r.poll(); // a poll from inside reads nothing (the buffer is mid-parse)
            direct.add(new Got(h.source(), h.sequence(), segment.asSlice(offset, length).toArray(java.lang.foreign.ValueLayout.JAVA_BYTE)));
            return true;
        };
        Thread writer = writeDelivers(sent, 8);
        Await.awaitUntil(() -> {
            r.poll(takeSourceOne);
            return count() + direct.size() == frames || r.broken() != null;
        }, BOUND, () -> count() + direct.size() + " of " + frames + " frames polled");
        writer.join();
        assertThat(r.broken()).isNull();
        assertThat(nested[0]).isZero();
        assertThat(direct).hasSize(frames / 3);
        assertThat(got).hasSize(frames - frames / 3);
        int d = 0;
        int s = 0;
        for (int i = 0; i < frames; i++) {
            assertWritten(i % 3 == 1 ? direct.get(d++) : got.get(s++), i, sent);
        }
    }

    @Test
    void bytesTheHandshakeReadAheadComeFirst() throws Exception {
        byte[] a = frame(RelayFrame.DELIVER, 0, 1, "first".getBytes(StandardCharsets.US_ASCII));
        byte[] b = frame(RelayFrame.DELIVER, 0, 2, "second".getBytes(StandardCharsets.US_ASCII));
        byte[] ahead = Arrays.copyOf(a, a.length + 10); // a whole frame and the start of the next
        System.arraycopy(b, 0, ahead, a.length, 10);
        RelayReceiver r = new RelayReceiver(rankSide, ahead, 4096, handler);
        relaySide.write(ByteBuffer.wrap(b, 10, b.length - 10));
        Await.awaitUntil(() -> {
            r.poll();
            return count() == 2;
        }, BOUND, "both frames");
        assertThat(new String(got.get(0).frame(), StandardCharsets.US_ASCII)).isEqualTo("first");
        assertThat(new String(got.get(1).frame(), StandardCharsets.US_ASCII)).isEqualTo("second");
    }

    @Test
    void theReaderThreadTakesWhatNobodyPolls() throws Exception {
        RelayReceiver r = new RelayReceiver(rankSide, new byte[0], 4096, handler);
        Thread reader = Thread.ofPlatform().start(r::serve);
        try {
            for (int i = 1; i <= 50; i++) {
                relaySide.write(ByteBuffer.wrap(frame(RelayFrame.DELIVER, 2, i, new byte[100])));
            }
            Await.awaitUntil(() -> count() == 50, BOUND, () -> count() + " of 50 frames read without a poll");
            // a thread polling meanwhile shares the reading: nothing is lost or doubled
            for (int i = 51; i <= 100; i++) {
                relaySide.write(ByteBuffer.wrap(frame(RelayFrame.DELIVER, 2, i, new byte[100])));
                r.poll();
            }
            Await.awaitUntil(() -> count() == 100, BOUND, () -> count() + " of 100 frames");
            for (int i = 0; i < 100; i++) {
                assertThat(got.get(i).sequence()).isEqualTo(i + 1);
            }
        } finally {
            r.close();
            reader.join(BOUND.toMillis());
        }
        assertThat(reader.isAlive()).as("the reader ends once closed").isFalse();
    }

    @Test
    void aPollHeldUpWhileReadingIsNotSelectedAgainstInALoop() throws Exception {
        java.util.concurrent.CountDownLatch release = new java.util.concurrent.CountDownLatch(1);
        java.util.concurrent.atomic.AtomicLong ticks = new java.util.concurrent.atomic.AtomicLong();
        long[] tickTimes = new long[8];
        RelayReceiver r = new RelayReceiver(rankSide, new byte[0], 4096, (h, body) -> {
            handler.delivered(h.source(), h.sequence(), body);
            if (h.sequence() == 1) {
                try { // the poll that read it loses its core here, holding the read lock
                    if (!release.await(BOUND.toMillis(), java.util.concurrent.TimeUnit.MILLISECONDS)) {
                        throw new IOException("the test never let the poll go on");
                    }
                } catch (InterruptedException e) {
                    throw new IOException(e);
                }
            }
        }, () -> {
            long n = ticks.getAndIncrement();
            if (n < tickTimes.length) {
                tickTimes[(int) n] = System.nanoTime();
            }
            return Long.MAX_VALUE;
        });
        relaySide.write(ByteBuffer.wrap(frame(RelayFrame.DELIVER, 2, 1, new byte[10])));
        Thread poller = Thread.ofPlatform().start(() -> {
            while (count() == 0) {
                r.poll();
            }
        });
        Await.awaitUntil(() -> count() == 1, BOUND, "the first frame polled");
        relaySide.write(ByteBuffer.wrap(frame(RelayFrame.DELIVER, 2, 2, new byte[10]))); // readable, nobody reads
        Thread reader = Thread.ofPlatform().start(r::serve);
        try {
            // past the handover the reader finds the socket readable and the lock held, again and
            // again: its looks (one tick each) must be a handover apart, not a select loop's
            Await.awaitUntil(() -> ticks.get() >= tickTimes.length, BOUND, () -> ticks.get() + " looks of the reader");
            long spanMicros = (tickTimes[tickTimes.length - 1] - tickTimes[2]) / 1000;
            long handovers = (tickTimes.length - 3) * RelayReceiver.HANDOVER_NANOS / 1000;
            assertThat(spanMicros).as("microseconds between the reader's 3rd and 8th look while the poll held the lock")
                    .isGreaterThanOrEqualTo(handovers / 2);
            release.countDown();
            Await.awaitUntil(() -> count() == 2, BOUND, () -> count() + " of 2 frames");
            assertThat(got.get(1).sequence()).isEqualTo(2);
        } finally {
            release.countDown();
            r.close();
            poller.join(BOUND.toMillis());
            reader.join(BOUND.toMillis());
        }
        assertThat(reader.isAlive()).as("the reader ends once closed").isFalse();
    }

    @Test
    void theReaderThreadsWaitOnTheSocketEndsWhenItsTickIsDue() throws Exception {
        // nobody polls and nothing comes: the reader waits on the socket, for at most the tick's due time
        int wanted = 10;
        long dueNanos = java.util.concurrent.TimeUnit.MILLISECONDS.toNanos(10);
        java.util.concurrent.atomic.AtomicInteger ticks = new java.util.concurrent.atomic.AtomicInteger();
        RelayReceiver r = new RelayReceiver(rankSide, new byte[0], 4096, RelayReceiver.deliveries(handler), () -> {
            ticks.incrementAndGet();
            return dueNanos;
        });
        Thread reader = Thread.ofPlatform().start(r::serve);
        long start = System.nanoTime();
        try {
            Await.awaitUntil(() -> ticks.get() >= wanted, BOUND, () -> ticks.get() + " of " + wanted + " ticks");
        } finally {
            r.close();
            reader.join(BOUND.toMillis());
        }
        long tookMillis = (System.nanoTime() - start) / 1_000_000;
        // a wait that ignored the due time would last the select's 100 ms each time
        assertThat(tookMillis).as("%d ticks due every 10 ms", wanted).isLessThan(wanted * 100L);
    }

    @Test
    void wakeEndsTheReaderThreadsWaitOnTheSocketForWorkBecomeDue() throws Exception {
        java.util.concurrent.atomic.AtomicBoolean due = new java.util.concurrent.atomic.AtomicBoolean();
        java.util.concurrent.CountDownLatch done = new java.util.concurrent.CountDownLatch(1);
        java.util.concurrent.atomic.AtomicInteger ticks = new java.util.concurrent.atomic.AtomicInteger();
        RelayReceiver r = new RelayReceiver(rankSide, new byte[0], 4096, RelayReceiver.deliveries(handler), () -> {
            ticks.incrementAndGet();
            if (due.get()) {
                done.countDown();
            }
            return Long.MAX_VALUE; // nothing due: the reader waits the select's longest
        });
        Thread reader = Thread.ofPlatform().start(r::serve);
        try {
            // its first look comes before its first park, the third once it waits on the socket
            Await.awaitUntil(() -> ticks.get() >= 3, BOUND, "the reader waiting on the socket");
            due.set(true);
            long woke = System.nanoTime();
            r.wake();
            assertThat(done.await(BOUND.toMillis(), java.util.concurrent.TimeUnit.MILLISECONDS)).isTrue();
            // without the wake the reader would look again only after its select's 100 ms
            assertThat((System.nanoTime() - woke) / 1_000_000).as("ms from wake to the tick").isLessThan(100);
        } finally {
            r.close();
            reader.join(BOUND.toMillis());
        }
    }

    @Test
    void anErrorFromTheRelayEndsItWithTheRelaysReason() throws Exception {
        RelayReceiver r = new RelayReceiver(rankSide, new byte[0], 4096, handler);
        Thread reader = Thread.ofPlatform().start(r::serve);
        relaySide.write(ByteBuffer.wrap(frame(RelayFrame.ERROR, -1, 0, "sequence gap".getBytes(StandardCharsets.UTF_8))));
        reader.join(BOUND.toMillis());
        assertThat(reader.isAlive()).isFalse();
        assertThat(r.broken()).isEqualTo("relay refused: sequence gap");
    }

    @Test
    void aFrameOtherThanDeliverIsRefusedNamingIt() throws Exception {
        RelayReceiver r = new RelayReceiver(rankSide, new byte[0], 4096, handler);
        relaySide.write(ByteBuffer.wrap(frame(RelayFrame.STORED, 0, 1, new byte[0])));
        Await.awaitUntil(() -> {
            r.poll();
            return r.broken() != null;
        }, BOUND, "the STORED refused");
        assertThat(r.broken()).isEqualTo("relay sent STORED on a receiving connection");
    }

    /**
     * A sending connection's input (STOREDs and PRESENCE answers), read the same way: each frame
     * reaches the sink once, in order, whether a sending thread's poll or the reader thread took
     * it; a frame the sink refuses ends the connection with the sink's reason.
     */
    @Test
    void aSendingConnectionsAcknowledgementsReachItsSinkOnceInOrder() throws Exception {
        List<long[]> acks = new ArrayList<>();
        RelayReceiver r = new RelayReceiver(rankSide, new byte[0], 4096, (h, body) -> {
            if (h.type() == RelayFrame.DELIVER) {
                throw new IOException("relay sent DELIVER on a sending connection");
            }
            assertThat(body).isEmpty();
            synchronized (acks) {
                acks.add(new long[] {h.type(), h.destination(), h.sequence()});
            }
        });
        Random random = new Random(3);
        byte[] stream = new byte[0];
        for (int i = 1; i <= 400; i++) {
            byte type = i % 50 == 0 ? RelayFrame.PRESENCE : RelayFrame.STORED;
            byte[] f = frame(type, type == RelayFrame.PRESENCE ? -1 : 0, i, new byte[0]); // as the relay sends them
            stream = Arrays.copyOf(stream, stream.length + f.length);
            System.arraycopy(f, 0, stream, stream.length - f.length, f.length);
        }
        byte[] all = stream;
        Random polls = new Random(4);
        Thread reader = Thread.ofPlatform().start(r::serve);
        try {
            Thread writer = Thread.ofPlatform().start(() -> {
                try {
                    writeInPieces(all, random, 60);
                } catch (IOException e) {
                    throw new RuntimeException(e);
                }
            });
            Await.awaitUntil(() -> {
                if (polls.nextBoolean()) {
                    r.poll(); // sometimes the sending thread looks, sometimes the reader thread takes them
                }
                synchronized (acks) {
                    return acks.size() == 400 || r.broken() != null;
                }
            }, BOUND, () -> acks.size() + " of 400 acknowledgements");
            writer.join();
            assertThat(r.broken()).isNull();
            for (int i = 1; i <= 400; i++) {
                long[] a = acks.get(i - 1);
                assertThat(a[0]).as("frame %d", i).isEqualTo(i % 50 == 0 ? RelayFrame.PRESENCE : RelayFrame.STORED);
                assertThat(a[2]).as("frame %d", i).isEqualTo(i);
            }
            relaySide.write(ByteBuffer.wrap(frame(RelayFrame.DELIVER, 0, 1, new byte[3])));
            Await.awaitUntil(() -> r.broken() != null, BOUND, "the DELIVER refused");
            assertThat(r.broken()).isEqualTo("relay sent DELIVER on a sending connection");
        } finally {
            r.close();
            reader.join(BOUND.toMillis());
        }
        assertThat(reader.isAlive()).isFalse();
    }

    @Test
    void aStreamCutInsideAFrameSaysSo() throws Exception {
        RelayReceiver r = new RelayReceiver(rankSide, new byte[0], 4096, handler);
        byte[] f = frame(RelayFrame.DELIVER, 0, 1, new byte[1000]);
        relaySide.write(ByteBuffer.wrap(f, 0, 500));
        relaySide.close();
        Await.awaitUntil(() -> {
            r.poll();
            return r.broken() != null;
        }, BOUND, "the cut seen");
        assertThat(r.broken()).isEqualTo("relay closed the connection in the middle of a frame");
        assertThat(count()).isZero();
    }

    @Test
    void socketBufferSettingIsCheckedNamingIt() {
        assertThat(RelayTransport.sockbuf(0)).isZero();
        assertThat(RelayTransport.sockbuf(4L << 20)).isEqualTo(4 << 20);
        assertThatThrownBy(() -> RelayTransport.sockbuf(-1)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining(Config.RELAY_SOCKBUF_PROP).hasMessageContaining("-1");
        assertThatThrownBy(() -> RelayTransport.sockbuf(RelayTransport.SOCKBUF_MAX + 1))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining(Config.RELAY_SOCKBUF_PROP);
        assertThatThrownBy(() -> Config.parseBytes(Config.RELAY_SOCKBUF_PROP, "four megabytes"))
                .hasMessageContaining(Config.RELAY_SOCKBUF_PROP);
    }
}
