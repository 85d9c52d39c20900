package org.railyard.transport.relay;

import java.util.ArrayDeque;

/**
 * The arrays a sending port's frames are written into, used again: a frame's array is taken when
 * a link claims the frame and given back when the relay STOREs it ({@link RelayPort}), so a
 * stream of frames does not allocate (and zero) an array per frame. Arrays come in power-of-two
 * sizes from {@link #MIN_SIZE}; an array is longer than its frame, whose length travels beside it.
 * At most {@link #KEEP_BYTES} are kept per size and {@link #KEEP_ARRAYS} arrays; beyond that a
 * returned array is left to the collector. Thread-safe: a link's thread takes, whichever thread
 * read the STORED gives back.
 */
final class FramePool {
    /** Smallest array handed out. */
    static final int MIN_SIZE = 64;
    /** Most bytes kept per size. */
    static final long KEEP_BYTES = 4L << 20;
    /** Most arrays kept per size. */
    static final int KEEP_ARRAYS = 64;

    /** Longest frame: its array's size must be a positive int. */
    static final int MAX_LENGTH = 1 << 30;

    private final ArrayDeque<byte[]>[] free;

    @SuppressWarnings("unchecked")
    FramePool() {
        free = new ArrayDeque[32];
    }

    /** An array of at least {@code length} bytes (its contents are whatever was last written in it). */
    byte[] take(int length) {
        if (length < 0 || length > MAX_LENGTH) {
            throw new IllegalArgumentException("frame length " + length + " is outside 0.." + MAX_LENGTH);
        }
        int c = sizeClass(length);
        synchronized (this) {
            ArrayDeque<byte[]> q = free[c];
            byte[] a = q == null ? null : q.pollLast();
            if (a != null) {
                return a;
            }
        }
        return new byte[1 << c];
    }

    /** Gives back an array {@link #take} returned; the caller keeps no reference to it. */
    void give(byte[] a) {
        int c = Integer.numberOfTrailingZeros(a.length);
        if (a.length != 1 << c || a.length < MIN_SIZE) {
            return; // not one of this pool's
        }
        synchronized (this) {
            ArrayDeque<byte[]> q = free[c];
            if (q == null) {
                q = free[c] = new ArrayDeque<>();
            }
            if (q.size() < KEEP_ARRAYS && (long) (q.size() + 1) * a.length <= KEEP_BYTES) {
                q.addLast(a);
            }
        }
    }

    /** The power of two of the array for a frame of {@code length} bytes. */
    static int sizeClass(int length) {
        int n = Math.max(length, MIN_SIZE);
        return 32 - Integer.numberOfLeadingZeros(n - 1);
    }
}
