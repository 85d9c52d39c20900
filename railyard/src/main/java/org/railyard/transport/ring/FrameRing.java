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
 * offset 0    producer position (i64, release-stored after each frame is published; read when a
 *             ring is wrapped over memory in use, never by the polling consumer)
 * offset 128  consumer position (i64, release-stored after each frame is consumed)
 * offset 192  the consumer's bell (i32, 1 while it may sleep on it; see Doorbell)
 * offset 196  the producer waits for room (i32, set to 1 when a claim finds the ring full; the
 *             consumer clears it when it frees room, and then rings the producer)
 * offset 256  data, {@code capacity} bytes (a power of two)
 *
 * record      +0 i32 n &gt; 0: a frame of n bytes follows at +8 | n &lt; 0: padding, skip -n bytes
 *                    to the end of the data | 0: nothing published here yet
 *             +4 i32 unused
 *             +8 the frame (its first int is its length, n), up to the next multiple of 8
 * </pre>
 *
 * Positions only grow; index = position &amp; (capacity - 1). The consumer polls the record word at
 * its own position, so a small frame costs it the one cache line that holds both the word and the
 * frame (a tail counter on a line of its own would cost a second transfer before the first).
 * Rules that make the word trustworthy: the producer writes the frame, then zero into the word
 * of the record after it (a plain store; the claim keeps room for those 8 bytes), and publishes
 * the word last with a release store; for a frame behind padding, the padding word is the one
 * published last. So the word at the consumer's position is either the zero written with the
 * record before it (or the zeroed memory of a fresh ring) or a published record, never bytes of
 * an earlier lap. The producer and consumer positions sit on separate cache lines (two apart,
 * against adjacent-line prefetch), and the producer keeps a cached copy of the consumer's
 * position so that it reads the shared one only when the ring looks full.
 */
public final class FrameRing {
    public static final int HEADER = 256;
    /** Bytes of a record before its frame: the record word and four unused bytes. */
    public static final int RECORD = 8;
    private static final long TAIL = 0;
    private static final long HEAD = 128;
    private static final long BELL = 192;
    private static final long ROOM_WANTED = 196;
    private static final VarHandle WORD = ValueLayout.JAVA_INT.varHandle();
    private static final VarHandle RECORD_WORD = ValueLayout.JAVA_INT.withOrder(ByteOrder.LITTLE_ENDIAN).varHandle();
    private static final VarHandle LONG = ValueLayout.JAVA_LONG.varHandle();
    private static final ValueLayout.OfInt INT = ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);
    private static final ValueLayout.OfLong ZERO_WORD = ValueLayout.JAVA_LONG;

    private final MemorySegment seg;
    private final long capacity;
    private final long mask;
    private final int maxFrame;

    // producer side
    private long tail;
    private long headCache;
    private long claimTail;
    /** Offset of the last claim's record word, its frame length, and of the padding before it (-1: none). */
    private long claimRecord;
    private int claimLength;
    private long claimPadding;
    private int claimSkip;
    // consumer side
    private long head;
    /** The record word of the frame {@link #peek} returned last. */
    private int recordLength;

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

    /**
     * Producer: reserves room for a frame; the offset in {@link #segment()} where its bytes go, or
     * -1 when full. The room includes the record word and the zero word after the record.
     */
    public long tryClaim(int frameLength) {
        long aligned = align(RECORD + frameLength);
        long index = tail & mask;
        long toEnd = capacity - index;
        long need = aligned <= toEnd ? aligned : toEnd + aligned;
        if (tail + need + RECORD - headCache > capacity) {
            headCache = (long) LONG.getAcquire(seg, HEAD);
            if (tail + need + RECORD - headCache > capacity) {
                // the consumer rings the producer's bell once it frees room (roomWanted); the
                // producer looks at the ring again after arming its bell, so room freed before it
                // sleeps is seen there
                WORD.setVolatile(seg, ROOM_WANTED, 1);
                return -1;
            }
        }
        claimPadding = -1;
        if (aligned > toEnd) {
            claimPadding = HEADER + index;
            claimSkip = (int) -toEnd;
            index = 0;
        }
        claimRecord = HEADER + index;
        claimLength = frameLength;
        claimTail = tail + need;
        return claimRecord + RECORD;
    }

    /** Producer: publishes the frame written into the last claim. */
    public void commit() {
        seg.set(ZERO_WORD, HEADER + (claimTail & mask), 0L);
        if (claimPadding < 0) {
            RECORD_WORD.setRelease(seg, claimRecord, claimLength);
        } else {
            seg.set(INT, claimRecord, claimLength);
            RECORD_WORD.setRelease(seg, claimPadding, claimSkip);
        }
        tail = claimTail;
        LONG.setRelease(seg, TAIL, tail);
    }

    /** Consumer: true if a frame (or padding) is waiting. */
    public boolean hasData() {
        return (int) RECORD_WORD.getAcquire(seg, HEADER + (head & mask)) != 0;
    }

    /**
     * Consumer: offset of the next frame in {@link #segment()}, skipping padding, or -1 if none. The
     * frame's first int is its length; call {@link #release} once done with it.
     */
    public long peek() {
        long index = head & mask;
        int word = (int) RECORD_WORD.getAcquire(seg, HEADER + index);
        if (word < 0 && index != 0 && -(long) word == capacity - index) {
            // padding, which runs exactly to the end of the data from anywhere but its start
            head += capacity - index;
            index = 0;
            word = (int) RECORD_WORD.getAcquire(seg, HEADER);
        }
        if (word == 0) {
            return -1;
        }
        if (word < 0 || index > capacity - RECORD - 8) {
            // corrupt: other padding, or a record with no room for a frame after it. Handed over at
            // the record word itself, with no length a frame could have, so that the caller finds
            // whatever length it reads there implausible
            recordLength = 0;
            return HEADER + index;
        }
        recordLength = word;
        return HEADER + index + RECORD;
    }

    /** Consumer: frees the frame returned by {@link #peek}, whose length is {@code frameLength}. */
    public void release(int frameLength) {
        head += align(RECORD + frameLength);
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

    /**
     * Consumer: true if {@code frameLength}, read at the offset {@link #peek} returned, can be a
     * frame: positive, at most the frame limit, the length its record announced, and contiguous
     * before the end of the data. A corrupt ring (a peer that wrote over it) must not send the
     * reader off the end of the memory or past what was published.
     */
    public boolean plausible(int frameLength) {
        return frameLength > 0 && frameLength == recordLength && frameLength <= maxFrame
                && RECORD + (long) frameLength <= capacity - (head & mask);
    }

    private static long align(int n) {
        return (n + 7L) & ~7L;
    }
}
