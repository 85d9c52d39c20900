package org.railyard.channel;

import java.lang.foreign.MemorySegment;

/**
 * Copies of the sequenced frames a multi-rail channel has sent and the peer has not yet
 * acknowledged, kept so that the frames a dying rail carried can be sent again on the others.
 * Frames enter in packet-sequence order (every sequenced frame of the channel enters, so the
 * entries are consecutive PSNs) and leave in that order when the peer's cumulative acknowledgement
 * passes them: a FIFO of bytes in one ring, with a FIFO of entries beside it.
 *
 * <p>Bounded by its byte capacity: when a frame does not fit, the channel stops sending until
 * acknowledgements free room (back-pressure). A frame is stored contiguously; one that would wrap
 * around the end of the ring starts again at its beginning, and the skipped tail counts as used.
 * The ring starts small and doubles up to the bound as the traffic needs it, so a process with
 * many peers does not hold the bound for each of them.
 */
final class RetransmitBuffer {
    /** Size of a new ring. */
    static final long INITIAL = 1L << 20;

    private MemorySegment store;
    private long capacity;
    private final long bound;
    /** Absolute byte positions: where the oldest kept frame starts, and where the next goes. */
    private long headPos;
    private long tailPos;
    private long firstPsn;
    private int count;
    private int entryHead;
    private long[] pos = new long[1024];
    private int[] len = new int[1024];
    private int[] rail = new int[1024];

    RetransmitBuffer(long capacity) {
        if (capacity < 64 * 1024 || capacity > Integer.MAX_VALUE) {
            throw new IllegalArgumentException("retransmit buffer of " + capacity + " bytes: must be between 64 KiB and 2 GiB");
        }
        this.bound = capacity;
        this.capacity = Math.min(INITIAL, capacity);
        this.store = MemorySegment.ofArray(new byte[(int) this.capacity]);
    }

    /** The bound the ring may grow to. */
    long capacity() {
        return bound;
    }

    /** Where a frame of {@code n} bytes would start, wrapping as needed. */
    private long placement(int n) {
        long idx = tailPos % capacity;
        return idx + n > capacity ? tailPos + (capacity - idx) : tailPos;
    }

    /** True if a frame of {@code n} bytes fits now (growing the ring if the bound allows). */
    boolean hasRoom(int n) {
        if (placement(n) + n - headPos <= capacity) {
            return true;
        }
        while (capacity < bound && placement(n) + n - headPos > capacity) {
            grow(Math.min(bound, capacity * 2));
        }
        return placement(n) + n - headPos <= capacity;
    }

    /** Moves the kept frames into a ring of {@code n} bytes, each contiguous again, in order. */
    private void grow(long n) {
        MemorySegment bigger = MemorySegment.ofArray(new byte[(int) n]);
        MemorySegment old = store;
        long oldCapacity = capacity;
        store = bigger;
        capacity = n;
        tailPos = headPos;
        for (int i = 0; i < count; i++) {
            int k = (entryHead + i) & (pos.length - 1);
            long p = placement(len[k]);
            MemorySegment.copy(old, pos[k] % oldCapacity, store, p % capacity, len[k]);
            pos[k] = p;
            tailPos = p + len[k];
        }
        if (count > 0) {
            headPos = pos[entryHead];
        }
    }

    boolean isEmpty() {
        return count == 0;
    }

    int frames() {
        return count;
    }

    long bytes() {
        return tailPos - headPos;
    }

    /** Keeps a copy of the frame with sequence number {@code psn} (the next one), sent on rail {@code railIndex}. */
    void add(long psn, int railIndex, MemorySegment src, long off, int n) {
        if (!hasRoom(n)) {
            throw new IllegalStateException("retransmit buffer: no room for a frame of " + n + " bytes (check hasRoom first)");
        }
        if (count == 0) {
            firstPsn = psn;
        } else if (psn != firstPsn + count) {
            throw new IllegalStateException("retransmit buffer: frame " + psn + " after " + (firstPsn + count - 1));
        }
        if (count == pos.length) {
            grow();
        }
        long p = placement(n);
        MemorySegment.copy(src, off, store, p % capacity, n);
        int k = (entryHead + count) & (pos.length - 1);
        pos[k] = p;
        len[k] = n;
        rail[k] = railIndex;
        count++;
        tailPos = p + n;
    }

    private void grow() {
        int n = pos.length * 2;
        pos = Rings.unwrapped(pos, entryHead, count, n);
        len = Rings.unwrapped(len, entryHead, count, n);
        rail = Rings.unwrapped(rail, entryHead, count, n);
        entryHead = 0;
    }

    /** Drops every frame below {@code nextExpectedPsn} (the peer has delivered them). */
    void release(long nextExpectedPsn) {
        while (count > 0 && firstPsn < nextExpectedPsn) {
            entryHead = (entryHead + 1) & (pos.length - 1);
            firstPsn++;
            count--;
        }
        headPos = count == 0 ? tailPos : pos[entryHead];
    }

    boolean contains(long psn) {
        return psn >= firstPsn && psn < firstPsn + count;
    }

    private int slot(long psn) {
        return (int) ((entryHead + (psn - firstPsn)) & (pos.length - 1));
    }

    MemorySegment segment() {
        return store;
    }

    long offset(long psn) {
        return pos[slot(psn)] % capacity;
    }

    int length(long psn) {
        return len[slot(psn)];
    }

    int rail(long psn) {
        return rail[slot(psn)];
    }

    void rail(long psn, int railIndex) {
        rail[slot(psn)] = railIndex;
    }

    /** Appends to {@code out} the PSN of every kept frame last sent on rail {@code railIndex}, in order. */
    void collect(int railIndex, LongQueue out) {
        for (int i = 0; i < count; i++) {
            if (rail[(entryHead + i) & (pos.length - 1)] == railIndex) {
                out.add(firstPsn + i);
            }
        }
    }
}
