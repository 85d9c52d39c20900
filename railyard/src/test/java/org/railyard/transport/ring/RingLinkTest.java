package org.railyard.transport.ring;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.net.InetSocketAddress;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.railyard.testkit.Await;
import org.railyard.transport.Link;
import org.railyard.wire.FrameHeader;
import org.railyard.wire.FrameType;

/**
 * Two {@link RingLink}s over one pair of rings, as shm lays them out (one writes the ring the other
 * reads): frames cross in place, a malformed or corrupt frame closes the reading link with its
 * reason, a closed link refuses claims, and the lifeline socket tells when the peer is gone.
 */
class RingLinkTest {
    private static final long RING = 4096;
    private static final int FRAME = 1024;

    private final Arena arena = Arena.ofShared();
    private final MemorySegment memory = arena.allocate(2 * FrameRing.bytesFor(RING), 4096);
    private final long each = FrameRing.bytesFor(RING);
    private final AtomicInteger closedA = new AtomicInteger();

    @AfterEach
    void free() {
        arena.close();
    }

    private RingLink link(boolean first, SocketChannel lifeline, Runnable onClose) throws IOException {
        FrameRing a = new FrameRing(memory.asSlice(0, each), RING, FRAME);
        FrameRing b = new FrameRing(memory.asSlice(each, each), RING, FRAME);
        return new RingLink(null, first ? 1 : 0, first ? a : b, first ? b : a, lifeline, onClose,
                "test ring", null);
    }

    /** Writes an EAGER frame of {@code payload} bytes valued {@code fill} through {@code link}. */
    private static void send(Link link, int payload, byte fill) {
        int len = FrameHeader.LENGTH + payload;
        long off = link.tryClaim(len);
        assertThat(off).as("claim").isGreaterThanOrEqualTo(0);
        MemorySegment seg = link.claimSegment();
        FrameHeader.write(seg, off, len, FrameType.EAGER, (byte) 0, 3, 0, 7, payload, 0, 0);
        seg.asSlice(off + FrameHeader.LENGTH, payload).fill(fill);
        link.commit();
    }

    private record Got(int length, int tag, byte first, byte last) { }

    private static List<Got> drain(Link link) {
        List<Got> got = new ArrayList<>();
        link.poll((l, seg, off, len) -> {
            got.add(new Got(len, FrameHeader.tag(seg, off), seg.get(ValueLayout.JAVA_BYTE, off + FrameHeader.LENGTH),
                    seg.get(ValueLayout.JAVA_BYTE, off + len - 1)));
            return true;
        }, 100);
        return got;
    }

    @Test
    void framesCrossInBothDirectionsInOrderAndInPlace() throws IOException {
        RingLink a = link(true, null, closedA::incrementAndGet);
        RingLink b = link(false, null, null);
        for (int i = 0; i < 50; i++) {
            send(a, 100 + i * 13, (byte) i);
            List<Got> got = drain(b);
            assertThat(got).containsExactly(new Got(FrameHeader.LENGTH + 100 + i * 13, 7, (byte) i, (byte) i));
        }
        send(b, 8, (byte) 42);
        send(b, 16, (byte) 43);
        assertThat(drain(a)).extracting(Got::first).containsExactly((byte) 42, (byte) 43);
        assertThat(a.maxFrame()).isEqualTo(FRAME);
        assertThat(a.isOpen()).isTrue();
    }

    @Test
    void aFrameWithoutTheMagicClosesTheReaderWithTheReason() throws IOException {
        RingLink a = link(true, null, null);
        RingLink b = link(false, null, null);
        long off = a.tryClaim(64);
        MemorySegment seg = a.claimSegment();
        FrameHeader.write(seg, off, 64, FrameType.EAGER, (byte) 0, 0, 0, 0, 16, 0, 0);
        seg.set(ValueLayout.JAVA_BYTE, off + FrameHeader.MAGIC_OFFSET, (byte) 'X');
        a.commit();
        assertThat(drain(b)).isEmpty();
        assertThat(b.isOpen()).isFalse();
        assertThat(b.failure()).contains("foreign frame");
        assertThat(b.tryClaim(64)).as("a closed link refuses claims").isEqualTo(Link.CLOSED);
        assertThat(drain(b)).as("and polls nothing").isEmpty();
    }

    @Test
    void aLengthTheRingCannotHoldClosesTheReader() throws IOException {
        RingLink a = link(true, null, null);
        RingLink b = link(false, null, null);
        long off = a.tryClaim(64);
        a.claimSegment().set(ValueLayout.JAVA_INT_UNALIGNED, off, FRAME + 8);
        a.commit();
        assertThat(drain(b)).isEmpty();
        assertThat(b.failure()).isEqualTo("corrupt shared-memory ring: frame length " + (FRAME + 8));
    }

    @Test
    void closeRunsTheCleanUpOnce() throws IOException {
        RingLink a = link(true, null, closedA::incrementAndGet);
        a.close();
        a.close();
        assertThat(closedA).hasValue(1);
        assertThat(a.isOpen()).isFalse();
        assertThat(a.failure()).as("closed, not failed").isNull();
    }

    @Test
    void theLinkFailsOnceThePeersLifelineCloses() throws Exception {
        try (ServerSocketChannel server = ServerSocketChannel.open().bind(new InetSocketAddress("127.0.0.1", 0));
             SocketChannel mine = SocketChannel.open(server.getLocalAddress());
             SocketChannel peers = server.accept()) {
            mine.configureBlocking(false);
            RingLink a = link(true, mine, null);
            RingLink b = link(false, null, null);
            send(b, 8, (byte) 1);
            peers.close();
            // what the peer wrote before it went is still delivered
            assertThat(drain(a)).hasSize(1);
            Await.awaitUntil(() -> {
                if (!a.isOpen()) {
                    return true;
                }
                drain(a);
                return false;
            }, Duration.ofSeconds(10), "the link closed after its peer's lifeline");
            assertThat(a.failure()).contains("peer closed its end");
        }
    }
}
