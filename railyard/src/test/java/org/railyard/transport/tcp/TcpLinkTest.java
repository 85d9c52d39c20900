package org.railyard.transport.tcp;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.railyard.fuzz.Fuzz;
import org.railyard.testkit.Await;
import org.railyard.wire.FrameHeader;
import org.railyard.wire.FrameType;

/**
 * {@link TcpLink} reading from a real socket whose peer writes frames in pieces: a frame is handed
 * over only once all its bytes are in, in order and intact however the stream is cut, and a stream
 * that breaks off or carries a foreign header closes the link with the reason.
 */
class TcpLinkTest {
    private static final int MAX_FRAME = 4096;
    private static final Duration BOUND = Duration.ofSeconds(10);

    private final List<AutoCloseable> open = new ArrayList<>();

    @AfterEach
    void closeAll() throws Exception {
        for (AutoCloseable c : open) {
            c.close();
        }
    }

    /** A link reading the accepted end of a loopback connection; the other end is returned in {@code writer[0]}. */
    private TcpLink link(SocketChannel[] writer) throws IOException {
        ServerSocketChannel server = ServerSocketChannel.open().bind(new InetSocketAddress("127.0.0.1", 0));
        open.add(server);
        writer[0] = SocketChannel.open(server.getLocalAddress());
        open.add(writer[0]);
        SocketChannel accepted = server.accept();
        open.add(accepted);
        accepted.configureBlocking(false);
        TcpLink link = new TcpLink(null, 1, accepted, MAX_FRAME);
        open.add(link::close);
        return link;
    }

    private static byte[] frame(int payload, int tag) {
        int len = FrameHeader.LENGTH + payload;
        byte[] b = new byte[len];
        MemorySegment s = MemorySegment.ofArray(b);
        FrameHeader.write(s, 0, len, FrameType.EAGER, (byte) 0, 1, 0, tag, payload, 0, 0);
        for (int i = 0; i < payload; i++) {
            b[FrameHeader.LENGTH + i] = (byte) (tag + i);
        }
        return b;
    }

    private static void write(SocketChannel ch, byte[] b, int from, int to) throws IOException {
        ByteBuffer buf = ByteBuffer.wrap(b, from, to - from);
        while (buf.hasRemaining()) {
            ch.write(buf);
        }
    }

    /** Polls once; adds each frame delivered (checked whole against the tag it carries) to {@code tags}. */
    private static void pollInto(TcpLink link, List<Integer> tags) {
        link.poll((l, seg, off, len) -> {
            int tag = FrameHeader.tag(seg, off);
            assertThat(FrameHeader.frameLength(seg, off)).isEqualTo(len);
            for (int i = FrameHeader.LENGTH; i < len; i++) {
                assertThat(seg.get(ValueLayout.JAVA_BYTE, off + i)).as("byte " + i + " of frame " + tag)
                        .isEqualTo((byte) (tag + i - FrameHeader.LENGTH));
            }
            tags.add(tag);
            return true;
        }, 64);
    }

    /** Polls until {@code tags} holds {@code n} frames or the link closes, at most {@link #BOUND}. */
    private static void pollUntil(TcpLink link, List<Integer> tags, int n) {
        Await.within(BOUND, () -> {
            if (tags.size() >= n || !link.isOpen()) {
                return true;
            }
            pollInto(link, tags);
            return false;
        });
    }

    @Test
    void aFrameWrittenByteByByteIsHandedOverOnlyWhenWhole() throws IOException {
        SocketChannel[] w = new SocketChannel[1];
        TcpLink link = link(w);
        byte[] f = frame(100, 9);
        List<Integer> tags = new ArrayList<>();
        for (int i = 0; i < f.length - 1; i++) {
            write(w[0], f, i, i + 1);
            pollInto(link, tags);
            assertThat(tags).as("after " + (i + 1) + " of " + f.length + " bytes").isEmpty();
        }
        write(w[0], f, f.length - 1, f.length);
        pollUntil(link, tags, 1);
        assertThat(tags).containsExactly(9);
        assertThat(link.isOpen()).isTrue();
    }

    @Test
    void aWriteEndingInsideTheNextHeaderDeliversTheFirstFrameAndKeepsTheRest() throws IOException {
        SocketChannel[] w = new SocketChannel[1];
        TcpLink link = link(w);
        byte[] a = frame(40, 1);
        byte[] b = frame(300, 2);
        byte[] both = new byte[a.length + b.length];
        System.arraycopy(a, 0, both, 0, a.length);
        System.arraycopy(b, 0, both, a.length, b.length);
        int cut = a.length + 20;
        write(w[0], both, 0, cut);
        List<Integer> tags = new ArrayList<>();
        pollUntil(link, tags, 1);
        assertThat(tags).containsExactly(1);
        write(w[0], both, cut, both.length);
        pollUntil(link, tags, 2);
        assertThat(tags).containsExactly(1, 2);
    }

    @Test
    void framesOfManySizesCutAtRandomArriveInOrderAndIntact() throws IOException {
        SocketChannel[] w = new SocketChannel[1];
        TcpLink link = link(w);
        Random random = new Random(3);
        ByteBuffer stream = ByteBuffer.allocate(1 << 20);
        int frames = 0;
        while (stream.remaining() > MAX_FRAME && frames < 600) {
            stream.put(frame(random.nextInt(MAX_FRAME - FrameHeader.LENGTH + 1), frames++));
        }
        byte[] all = java.util.Arrays.copyOf(stream.array(), stream.position());
        List<Integer> tags = new ArrayList<>();
        w[0].configureBlocking(false);
        for (int at = 0; at < all.length; ) {
            int n = Math.min(all.length - at, 1 + random.nextInt(3 * MAX_FRAME));
            ByteBuffer piece = ByteBuffer.wrap(all, at, n);
            while (piece.hasRemaining()) {
                // the socket's buffers are bounded: read while they are full
                if (w[0].write(piece) == 0) {
                    pollInto(link, tags);
                }
            }
            at += n;
            pollInto(link, tags);
        }
        pollUntil(link, tags, frames);
        assertThat(tags).hasSize(frames);
        for (int i = 0; i < frames; i++) {
            assertThat(tags.get(i)).isEqualTo(i);
        }
    }

    @Test
    void aPeerThatStopsInsideAFrameClosesTheLinkSayingSo() throws IOException {
        SocketChannel[] w = new SocketChannel[1];
        TcpLink link = link(w);
        byte[] f = frame(100, 5);
        write(w[0], f, 0, 70);
        w[0].close();
        List<Integer> tags = new ArrayList<>();
        pollUntil(link, tags, 1);
        assertThat(tags).isEmpty();
        assertThat(link.isOpen()).isFalse();
        assertThat(link.failure()).isEqualTo("connection closed in the middle of a frame");
    }

    @Test
    void aForeignHeaderClosesTheLinkNamingIt() throws IOException {
        SocketChannel[] w = new SocketChannel[1];
        TcpLink link = link(w);
        byte[] f = frame(16, 5);
        f[FrameHeader.MAGIC_OFFSET] = 'G';
        write(w[0], f, 0, f.length);
        List<Integer> tags = new ArrayList<>();
        pollUntil(link, tags, 1);
        assertThat(tags).isEmpty();
        assertThat(link.failure()).startsWith("foreign frame: magic");
    }

    /**
     * Arbitrary bytes on the stream, then the end of it: the link hands over only whole, sound
     * frames, and closes with a reason; it never throws (corpus {@code fuzz/frame-header}, a smaller
     * budget since each input is a connection).
     */
    @Test
    void arbitraryBytesOnTheStreamEndInSoundFramesAndAReason() {
        Fuzz fuzz = Fuzz.neverThrowing("frame-header", input -> {
            SocketChannel[] w = new SocketChannel[1];
            TcpLink link = link(w);
            write(w[0], input, 0, input.length);
            w[0].close();
            Await.within(BOUND, () -> {
                if (!link.isOpen()) {
                    return true;
                }
                link.poll((l, seg, off, len) -> {
                    assertThat(FrameHeader.validate(seg, off, MAX_FRAME)).isNull();
                    assertThat(off + len).isLessThanOrEqualTo(seg.byteSize());
                    return true;
                }, 64);
                return false;
            });
            assertThat(link.isOpen()).as("closed at the end of the stream").isFalse();
            assertThat(link.failure()).isNotBlank();
            closeAll();
            open.clear();
        }).budget(8, 300).allocationBase(16L << 20); // a connection per input: sockets, selectors, class loading
        assertThat(fuzz.run()).isEqualTo(300 + fuzz.corpus().size());
    }
}
