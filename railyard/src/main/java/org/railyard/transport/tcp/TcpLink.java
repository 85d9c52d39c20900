package org.railyard.transport.tcp;

import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import org.railyard.transport.AbstractLink;
import org.railyard.transport.Transport;
import org.railyard.wire.FrameHeader;

/**
 * A TCP connection carrying frames. Output is staged in a direct buffer (frames are claimed and
 * written there, then flushed to the socket without blocking); input is read in bulk into another
 * direct buffer, and every complete frame in it is handed over in place. Both buffers hold several
 * frames, so small messages share system calls and large ones move in large writes.
 */
public final class TcpLink extends AbstractLink {
    private final SocketChannel ch;
    private final int maxFrame;
    private final ByteBuffer out;
    private final MemorySegment outSeg;
    private final ByteBuffer in;
    private final MemorySegment inSeg;
    private int claimEnd;

    TcpLink(Transport transport, int peer, SocketChannel ch, int maxFrame) throws IOException {
        super(transport, peer, "tcp " + ch.getLocalAddress() + " -> " + ch.getRemoteAddress() + ", frames up to "
                + (maxFrame >> 10) + " KiB");
        this.ch = ch;
        this.maxFrame = maxFrame;
        out = ByteBuffer.allocateDirect(4 * maxFrame);
        outSeg = MemorySegment.ofBuffer(out);
        out.limit(0);
        in = ByteBuffer.allocateDirect(4 * maxFrame);
        inSeg = MemorySegment.ofBuffer(in);
        in.limit(0);
    }

    @Override public int maxFrame() { return maxFrame; }

    // Output buffer: bytes [position, limit) are waiting to be written; claims go at limit.
    @Override
    public long tryClaim(int frameLength) {
        if (!isOpen()) {
            return CLOSED;
        }
        if (out.capacity() - out.limit() < frameLength) {
            flush();
            if (out.position() > 0) {
                out.compact().flip();
            }
            if (out.capacity() - out.limit() < frameLength) {
                return BACK_PRESSURED;
            }
        }
        claimEnd = out.limit() + frameLength;
        return out.limit();
    }

    @Override public MemorySegment claimSegment() { return outSeg; }

    @Override
    public void commit() {
        out.limit(claimEnd);
    }

    @Override
    public int flush() {
        if (!isOpen() || !out.hasRemaining()) {
            return 0;
        }
        try {
            int n = ch.write(out);
            if (!out.hasRemaining()) {
                out.position(0).limit(0);
            }
            return n;
        } catch (IOException e) {
            fail("write failed: " + e.getMessage());
            return 0;
        }
    }

    // Input buffer: bytes [position, limit) are received and not yet consumed.
    @Override
    public int poll(FrameHandler handler, int limit) {
        if (!isOpen()) {
            return 0;
        }
        int n = deliver(handler, limit);
        if (n > 0) {
            return n;
        }
        if (in.capacity() - in.limit() < maxFrame) {
            in.compact().flip();
        }
        int r = readInto(ch, in, "read failed");
        if (r == READ_FAILED) {
            return 0;
        }
        if (r < 0) {
            fail(in.hasRemaining() ? "connection closed in the middle of a frame" : "connection closed by peer");
            return 0;
        }
        return r == 0 ? 0 : deliver(handler, limit);
    }

    private int deliver(FrameHandler handler, int limit) {
        int n = 0;
        while (n < limit && in.remaining() >= FrameHeader.LENGTH) {
            int pos = in.position();
            String bad = FrameHeader.validate(inSeg, pos, maxFrame);
            if (bad != null) {
                fail(bad);
                return n;
            }
            int len = FrameHeader.frameLength(inSeg, pos);
            if (in.remaining() < len) {
                break;
            }
            n++;
            boolean more = handler.onFrame(this, inSeg, pos, len);
            in.position(pos + len);
            if (!more || !isOpen()) {
                break;
            }
        }
        return n;
    }

    @Override public boolean hasPendingOutput() { return isOpen() && out.hasRemaining(); }

    @Override
    protected void release() {
        try {
            ch.close();
        } catch (IOException ignored) {
            // already broken
        }
    }
}
