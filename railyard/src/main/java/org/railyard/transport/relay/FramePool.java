package org.railyard.transport.relay;

import java.nio.ByteBuffer;
import java.util.ArrayDeque;
import org.railyard.wire.RelayFrame;

/**
 * The buffers a sending port's STORE frames are written into, used again: a frame's buffer is
 * taken when a link claims the frame and given back when the relay STOREs it ({@link RelayPort}),
 * so a stream of frames does not allocate (and zero) one per frame.
 *
 * <p>The buffers are direct, and each has {@link RelayFrame#HEADER} bytes in front of the frame:
 * the channel writes the frame at {@link #FRAME_OFFSET}, the port writes the STORE header in front
 * of it, and the socket takes header and frame in one write straight from this memory (a heap
 * array would be copied into a temporary direct buffer by the JDK on every write, and the header
 * written apart from it).
 *
 * <pre>
 *  0                 24                        24 + frame length        capacity
 *  +-----------------+-------------------------+-----------------------+
 *  | STORE header    | frame (the channel's)   | unused                |
 *  +-----------------+-------------------------+-----------------------+
 * </pre>
 *
 * <p>Frames come in power-of-two size classes from {@link #MIN_SIZE}; a buffer's capacity is its
 * class plus the header, and its frame's length travels beside it. At most {@link #KEEP_BYTES}
 * (the default relay window: a window's frames come back) and {@link #KEEP_BUFFERS} buffers are
 * kept per class; beyond that a returned buffer is left to the collector. Thread-safe: a link's
 * thread takes, whichever thread read the STORED gives back.
 */
final class FramePool {
    /** Smallest frame class. */
    static final int MIN_SIZE = 64;
    /** Where the frame starts in a buffer: after the STORE header. */
    static final int FRAME_OFFSET = RelayFrame.HEADER;
    /** Most frame bytes kept per class. */
    static final long KEEP_BYTES = 16L << 20;
    /** Most buffers kept per class. */
    static final int KEEP_BUFFERS = 256;

    /** Longest frame: its buffer's capacity must be a positive int. */
    static final int MAX_LENGTH = 1 << 30;

    private final ArrayDeque<ByteBuffer>[] free;

    @SuppressWarnings("unchecked")
    FramePool() {
        free = new ArrayDeque[32];
    }

    /**
     * A direct buffer for a frame of {@code length} bytes at {@link #FRAME_OFFSET}, position 0 and
     * limit its capacity (its contents are whatever was last written in it).
     */
    ByteBuffer take(int length) {
        if (length < 0 || length > MAX_LENGTH) {
            throw new IllegalArgumentException("frame length " + length + " is outside 0.." + MAX_LENGTH);
        }
        int c = sizeClass(length);
        synchronized (this) {
            ArrayDeque<ByteBuffer> q = free[c];
            ByteBuffer b = q == null ? null : q.pollLast();
            if (b != null) {
                return b.clear();
            }
        }
        return ByteBuffer.allocateDirect((1 << c) + FRAME_OFFSET);
    }

    /** Gives back a buffer {@link #take} returned; the caller keeps no reference to it. */
    void give(ByteBuffer b) {
        int size = b.capacity() - FRAME_OFFSET;
        int c = Integer.numberOfTrailingZeros(size);
        if (!b.isDirect() || size < MIN_SIZE || size != 1 << c) {
            return; // not one of this pool's
        }
        synchronized (this) {
            ArrayDeque<ByteBuffer> q = free[c];
            if (q == null) {
                q = free[c] = new ArrayDeque<>();
            }
            if (q.size() < KEEP_BUFFERS && (long) (q.size() + 1) * size <= KEEP_BYTES) {
                q.addLast(b);
            }
        }
    }

    /** The power of two of the frame class for a frame of {@code length} bytes. */
    static int sizeClass(int length) {
        int n = Math.max(length, MIN_SIZE);
        return 32 - Integer.numberOfLeadingZeros(n - 1);
    }
}
