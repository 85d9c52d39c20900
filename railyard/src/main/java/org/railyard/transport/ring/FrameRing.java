package org.railyard.transport.ring;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;

/**
 * A single-producer single-consumer ring of frames in a {@link MemorySegment}: shared memory between
 * two processes (a mapped file) or plain memory within one. Frames are stored whole and contiguous
 * (8-byte aligned), so a reader hands each to the engine in place; a frame that would straddle the
 * end is preceded by a padding record and written at the start instead.
 *
 * <pre>
 * offset 0    producer position (i64, release-stored after each frame is written)
 * offset 128  consumer position (i64, release-stored after each frame is consumed)
 * offset 192  the consumer's bell (i32, 1 while it may sleep on it; see Doorbell)
 * offset 196  the producer waits for room (i32, set to 1 when a claim finds the ring full; the
 *             consumer clears it when it frees room, and then rings the producer)
 * offset 200  the producer closed its end (i32, 1 once its link closed; read by the consumer of
 *             a link that has no liveness socket, see RingLink)
 * offset 256  data, {@code capacity} bytes (a power of two)
 * record      a frame (its first int is its positive length), or an int -n: skip n bytes
 * </pre>
 *
 * Positions only grow; index = position &amp; (capacity - 1). The producer and consumer sit on
 * separate cache lines (two apart, against adjacent-line prefetch), and each keeps a cached copy of
 * the other's position so that it reads the shared one only when it must.
 */
public final class FrameRing {
    public static final int HEADER = 256;
    private static final long TAIL = 0;
    private static final long HEAD = 128;
    private static final long BELL = 192;
    private static final long ROOM_WANTED = 196;
    private static final long CLOSED = 200;
    private static final VarHandle WORD = ValueLayout.JAVA_INT.varHandle();
    private static final VarHandle LONG = ValueLayout.JAVA_LONG.varHandle();
    private static final ValueLayout.OfInt INT = ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);

    private final MemorySegment seg;
    private final long capacity;
    private final long mask;
    private final int maxFrame;

    // producer side
    private long tail;
    private long headCache;
    private long claimTail;
    // consumer side
    private long head;
    private long tailCache;

    /** Bytes of memory a ring of {@code capacity} data bytes needs. */
    public static long bytesFor(long capacity) {
        return HEADER + capacity;
    }

    /**
     * Wraps a ring laid out at the start of {@code seg} (zeroed memory is an empty ring); refuses
     * memory whose positions no ring can have.
     *
     * @param maxFrame largest frame accepted; at most a quarter of the capacity
     */
    public FrameRing(MemorySegment seg, long capacity, int maxFrame) {
        if (Long.bitCount(capacity) != 1 || capacity < 1024) {
            throw new IllegalArgumentException("ring capacity " + capacity + " is not a power of two >= 1024");
        }
        if (maxFrame > capacity / 4 || maxFrame < 64) {
            throw new IllegalArgumentException("frame size " + maxFrame + " must be in [64, capacity/4 = " + capacity / 4 + "]");
        }
        this.seg = seg;
        this.capacity = capacity;
        this.mask = capacity - 1;
        this.maxFrame = maxFrame;
        this.tail = (long) LONG.getAcquire(seg, TAIL);
        this.head = (long) LONG.getAcquire(seg, HEAD);
        if (((tail | head) & 7) != 0 || tail - head < 0 || tail - head > capacity) {
            throw new IllegalArgumentException("not a frame ring: positions " + head + " (consumer) and " + tail
                    + " (producer) are not multiples of 8 at most " + capacity + " apart");
        }
        this.headCache = head;
        this.tailCache = tail;
    }

    public MemorySegment segment() {
        return seg;
    }

    public int maxFrame() {
        return maxFrame;
    }

    /** The consumer's bell word ({@link Doorbell}): 4 bytes in the header. */
    public MemorySegment bell() {
        return seg.asSlice(BELL, 4);
    }

    /** Producer: reserves room for a frame; the offset in {@link #segment()}, or -1 when full. */
    public long tryClaim(int frameLength) {
        long aligned = align(frameLength);
        long index = tail & mask;
        long toEnd = capacity - index;
        long need = aligned <= toEnd ? aligned : toEnd + aligned;
        if (tail + need - headCache > capacity) {
            headCache = (long) LONG.getAcquire(seg, HEAD);
            if (tail + need - headCache > capacity) {
                // the consumer rings the producer's bell once it frees room (roomWanted); the
                // producer looks at the ring again after arming its bell, so room freed before it
                // sleeps is seen there
                WORD.setVolatile(seg, ROOM_WANTED, 1);
                return -1;
            }
        }
        if (aligned > toEnd) {
            seg.set(INT, HEADER + index, (int) -toEnd);
            index = 0;
        }
        claimTail = tail + need;
        return HEADER + index;
    }

    /** Producer: publishes the frame written into the last claim. */
    public void commit() {
        tail = claimTail;
        LONG.setRelease(seg, TAIL, tail);
    }

    /** Consumer: true if a frame (or padding) is waiting. */
    public boolean hasData() {
        if (head != tailCache) {
            return true;
        }
        tailCache = (long) LONG.getAcquire(seg, TAIL);
        return head != tailCache;
    }

    /**
     * Consumer: offset of the next frame in {@link #segment()}, skipping padding, or -1 if none. The
     * frame's first int is its length; call {@link #release} once done with it.
     */
    public long peek() {
        while (hasData()) {
            long index = head & mask;
            long off = HEADER + index;
            int len = seg.get(INT, off);
            if (len < 0) {
                // padding runs exactly to the end of the data and is followed by a published frame;
                // any other is corrupt, and is returned so that the caller finds its length implausible
                long skip = -(long) len;
                if (skip != capacity - index || skip >= tailCache - head) {
                    return off;
                }
                head += skip;
                continue;
            }
            return off;
        }
        return -1;
    }

    /** Consumer: frees the frame returned by {@link #peek}, whose length is {@code frameLength}. */
    public void release(int frameLength) {
        head += align(frameLength);
        LONG.setRelease(seg, HEAD, head);
    }

    /**
     * Consumer, after {@link #release}: true (once) if the producer found the ring full since the
     * last call, so the room just freed is worth ringing it for; false otherwise, and the producer
     * that sleeps waits for a frame of its own rather than for this ring. The full fence orders the
     * release before the read of the flag, against the producer's flag store before its own look.
     */
    public boolean roomWanted() {
        VarHandle.fullFence();
        return (int) WORD.getVolatile(seg, ROOM_WANTED) != 0 && WORD.compareAndSet(seg, ROOM_WANTED, 1, 0);
    }

    /** Producer: its end of the link is closed; written once, last, by the link's release. */
    public void markClosed() {
        WORD.setRelease(seg, CLOSED, 1);
    }

    /** Consumer: true once the producer closed its end ({@link #markClosed}). */
    public boolean closedByProducer() {
        return (int) WORD.getAcquire(seg, CLOSED) != 0;
    }

    /**
     * Consumer: true if {@code frameLength}, read at the offset {@link #peek} returned, can be a
     * frame: positive, at most the frame limit, published whole, and contiguous before the end of
     * the data. A corrupt ring (a peer that wrote over it) must not send the reader off the end of
     * the memory or past what was published.
     */
    public boolean plausible(int frameLength) {
        return frameLength > 0 && frameLength <= maxFrame && frameLength <= tailCache - head
                && frameLength <= capacity - (head & mask);
    }

    private static long align(int n) {
        return (n + 7L) & ~7L;
    }
}
