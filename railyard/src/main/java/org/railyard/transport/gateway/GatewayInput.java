package org.railyard.transport.gateway;

import java.io.EOFException;
import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.nio.channels.ReadableByteChannel;
import org.railyard.wire.GatewayFrame;

/**
 * The byte stream a rank reads from its gateway, read without blocking and cut into <em>units</em>:
 * one frame, or a cut DATA frame together with the END or ABORT that follows it (the rank holds a
 * cut frame until its trailer, so both are handed over at once). A unit is handed over only when
 * it is whole in the buffer, in place; one that its consumer cannot take yet (an inbox is full)
 * stays where it is, and so does everything behind it, until the next {@link #pump}.
 *
 * <pre>
 *  buffer: [ consumed | unread units ... partial unit | free ]
 *          0          position                         limit   capacity
 * </pre>
 *
 * Not thread-safe: its owner (the session) lets one thread pump at a time.
 */
final class GatewayInput {
    /** What a unit becomes. */
    interface Consumer {
        /**
         * One whole unit: {@code h} at {@code off}; for a cut DATA frame also its trailer {@code t}
         * at {@code toff} (else null, -1). False if it cannot be taken now: it is offered again at
         * the next pump. An IOException closes the connection with its message.
         */
        boolean unit(MemorySegment seg, long off, GatewayFrame.Header h, long toff, GatewayFrame.Header t)
                throws IOException;
    }

    private final ByteBuffer buf;
    /** The same memory as {@link #buf}, positioned on its free tail for each read. */
    private final ByteBuffer fill;
    private final MemorySegment seg;
    private final int maxBody;
    /** True when the last pump stopped at a unit its consumer could not take. */
    private boolean stuck;

    /** A buffer for frames whose body is at most {@code maxBody} bytes. */
    GatewayInput(int maxBody) {
        this.maxBody = Math.max(maxBody, GatewayFrame.MAX_TEXT);
        // the largest unit is a cut frame and its ABORT; twice that, so a read always has room
        int unit = 2 * GatewayFrame.HEADER + this.maxBody + GatewayFrame.MAX_TEXT;
        this.buf = ByteBuffer.allocateDirect(2 * unit);
        this.fill = buf.duplicate();
        this.seg = MemorySegment.ofBuffer(buf);
        buf.limit(0);
    }

    /** The most {@link #prime} takes: more than a buffered stream of 64 KiB holds. */
    int primeLimit() {
        return buf.capacity() / 2;
    }

    /**
     * Takes {@code bytes} read before the stream switched to this reader (the handshake's
     * buffered stream read ahead), as the start of the stream.
     */
    void prime(byte[] bytes) {
        if (bytes.length > buf.capacity()) {
            throw new IllegalStateException(bytes.length + " bytes read ahead exceed the input buffer of " + buf.capacity());
        }
        buf.clear();
        buf.put(bytes);
        buf.flip();
    }

    /** True when the last pump left a unit its consumer could not take. */
    boolean stuck() {
        return stuck;
    }

    /**
     * Hands over the whole units in the buffer, then reads what the channel has (without blocking)
     * and hands over those, until the channel has nothing more or a unit cannot be taken.
     *
     * @return the units handed over
     * @throws EOFException when the stream ended (its message says whether inside a frame)
     * @throws IOException  a read failed, a header is foreign or malformed, or the consumer refused a unit
     */
    int pump(ReadableByteChannel ch, Consumer c) throws IOException {
        int n = 0;
        while (true) {
            int done = units(c);
            n += done;
            if (stuck) {
                return n;
            }
            if (buf.position() > 0 && buf.capacity() - buf.limit() < buf.capacity() / 2) {
                buf.compact().flip();
            }
            // the channel fills the free tail through a second view of the same memory
            fill.limit(fill.capacity()).position(buf.limit());
            int r = ch.read(fill);
            if (r > 0) {
                buf.limit(buf.limit() + r);
            }
            if (r < 0) {
                throw new EOFException(buf.hasRemaining() ? "connection closed inside a frame (" + buf.remaining()
                        + " bytes of it received)" : "connection closed");
            }
            if (r == 0) {
                return n;
            }
        }
    }

    /** The whole units from the buffer's position on, each handed over and consumed; stops at one refused. */
    private int units(Consumer c) throws IOException {
        stuck = false;
        int n = 0;
        while (true) {
            int pos = buf.position();
            int avail = buf.limit() - pos;
            if (avail < GatewayFrame.HEADER) {
                return n;
            }
            String bad = GatewayFrame.validate(seg, pos, maxBody);
            if (bad != null) {
                throw new IOException(bad);
            }
            GatewayFrame.Header h = GatewayFrame.header(seg, pos);
            int unit = GatewayFrame.HEADER + h.bodyLength();
            if (avail < unit) {
                return n;
            }
            GatewayFrame.Header t = null;
            long toff = -1;
            if (h.type() == GatewayFrame.DATA && h.has(GatewayFrame.FLAG_CUT)) {
                if (avail < unit + GatewayFrame.HEADER) {
                    return n;
                }
                toff = pos + unit;
                bad = GatewayFrame.validate(seg, toff, GatewayFrame.MAX_TEXT);
                if (bad != null) {
                    throw new IOException(bad);
                }
                t = GatewayFrame.header(seg, toff);
                unit += GatewayFrame.HEADER + t.bodyLength();
                if (avail < unit) {
                    return n;
                }
            }
            if (!c.unit(seg, pos, h, toff, t)) {
                stuck = true;
                return n;
            }
            buf.position(pos + unit);
            n++;
        }
    }
}
