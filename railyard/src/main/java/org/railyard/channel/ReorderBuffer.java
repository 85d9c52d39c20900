package org.railyard.channel;

import java.lang.foreign.MemorySegment;
import java.util.ArrayDeque;

/**
 * Frames of a multi-rail channel that arrived ahead of their turn (a higher packet sequence number
 * than the next expected), copied out of the link until the frames before them arrive (seed 002
 * sec. 4.2.2: the out-of-order queue), or only marked when they were delivered at once (rendezvous
 * data, see {@link VirtualChannel}). Slots are indexed by PSN modulo a power-of-two capacity that
 * grows to cover the distance from the next expected PSN to the highest buffered one; that distance
 * is bounded by the peer's retransmit buffer, since nothing the peer still holds for retransmission
 * has been delivered here. Copies use pooled arrays in power-of-two size classes.
 */
final class ReorderBuffer {
    private long[] psnAt = new long[64];
    private MemorySegment[] frame = new MemorySegment[64];
    private int[] length = new int[64];
    private int count;
    @SuppressWarnings("unchecked")
    private final ArrayDeque<MemorySegment>[] pool = new ArrayDeque[32];

    ReorderBuffer() {
        java.util.Arrays.fill(psnAt, -1);
    }

    int count() {
        return count;
    }

    /**
     * Copies the frame with sequence number {@code psn} (above {@code expected}); false if a frame
     * with that PSN is buffered already (a duplicate, dropped).
     */
    boolean put(long psn, long expected, MemorySegment seg, long off, int len) {
        if (psn - expected >= psnAt.length) {
            grow(psn - expected + 1, expected);
        }
        int k = (int) (psn & (psnAt.length - 1));
        if (psnAt[k] == psn) {
            return false;
        }
        MemorySegment copy = take(len);
        MemorySegment.copy(seg, off, copy, 0, len);
        psnAt[k] = psn;
        frame[k] = copy;
        length[k] = len;
        count++;
        return true;
    }

    /**
     * Marks {@code psn} (above {@code expected}) as delivered ahead of its turn: no copy, only the
     * mark, which {@link #frame} shows as null. False if that PSN is marked or buffered already.
     */
    boolean markDelivered(long psn, long expected) {
        if (psn - expected >= psnAt.length) {
            grow(psn - expected + 1, expected);
        }
        int k = (int) (psn & (psnAt.length - 1));
        if (psnAt[k] == psn) {
            return false;
        }
        psnAt[k] = psn;
        frame[k] = null;
        length[k] = 0;
        count++;
        return true;
    }

    /** The slot holding {@code psn}, or -1. */
    int slot(long psn) {
        if (count == 0) {
            return -1;
        }
        int k = (int) (psn & (psnAt.length - 1));
        return psnAt[k] == psn ? k : -1;
    }

    /** The copied frame of a slot, or null if its frame was delivered ahead of its turn. */
    MemorySegment frame(int slot) {
        return frame[slot];
    }

    int length(int slot) {
        return length[slot];
    }

    /** Empties a slot once its frame has been delivered. */
    void free(int slot) {
        if (frame[slot] != null) {
            give(frame[slot]);
        }
        frame[slot] = null;
        psnAt[slot] = -1;
        count--;
    }

    void clear() {
        for (int k = 0; k < psnAt.length; k++) {
            if (psnAt[k] >= 0) {
                free(k);
            }
        }
    }

    private void grow(long span, long expected) {
        int n = psnAt.length;
        while (n < span) {
            n *= 2;
        }
        long[] p2 = new long[n];
        java.util.Arrays.fill(p2, -1);
        MemorySegment[] f2 = new MemorySegment[n];
        int[] l2 = new int[n];
        for (int k = 0; k < psnAt.length; k++) {
            if (psnAt[k] >= expected) {
                int j = (int) (psnAt[k] & (n - 1));
                p2[j] = psnAt[k];
                f2[j] = frame[k];
                l2[j] = length[k];
            }
        }
        psnAt = p2;
        frame = f2;
        length = l2;
    }

    private MemorySegment take(int len) {
        int cls = 32 - Integer.numberOfLeadingZeros(Math.max(len, 256) - 1);
        ArrayDeque<MemorySegment> q = pool[cls];
        MemorySegment s = q == null ? null : q.poll();
        return s != null ? s : MemorySegment.ofArray(new byte[1 << cls]);
    }

    private void give(MemorySegment s) {
        int cls = 31 - Integer.numberOfLeadingZeros((int) s.byteSize());
        if (pool[cls] == null) {
            pool[cls] = new ArrayDeque<>();
        }
        pool[cls].add(s);
    }
}
