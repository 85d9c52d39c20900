package org.railyard.stack;

import java.lang.foreign.MemorySegment;
import org.railyard.wire.SegmentHeader;

/**
 * A buffer moving through a stack: a {@link SegmentHeader} followed by a payload. Below Resize a
 * segment is one datagram (header and a fragment of a frame); above it, a whole frame sits in the
 * payload and the header is unused.
 *
 * <p>Ownership (as Netty's reference counts): a pooled segment is created with one reference,
 * owned by whoever holds it; passing it down or up hands that reference over. A protocol that
 * keeps a segment it also passes on (Retransmit keeps what it sends) takes a reference of its own
 * with {@link #retain} and gives it back with {@link #release}; the last release returns the
 * buffer to its pool. A <em>borrowed</em> segment (a frame the channel wrote into the stack's claim
 * buffer) has no pool: it is valid only during the call that hands it over, and whoever needs it
 * later copies it.
 */
public final class Segment {
    final SegmentPool pool;
    final MemorySegment mem;
    /** A frame segment (else a datagram segment), for the pool to file it back. */
    final boolean frameSized;
    int length;
    int refs;
    /** Queue link, used by the one holder that queues the segment. */
    Segment next;
    /** Scratch for the holder (a time, a key). */
    long stamp;
    /** A buffer view of a datagram segment's memory, made once (the transport reads and writes through it). */
    private java.nio.ByteBuffer buffer;

    Segment(SegmentPool pool, MemorySegment mem, boolean frameSized) {
        this.pool = pool;
        this.mem = mem;
        this.frameSized = frameSized;
    }

    /** A borrowed segment over {@code mem} (not pooled, never released). */
    public static Segment borrowed(MemorySegment mem) {
        return new Segment(null, mem, true);
    }

    /** The buffer; the header at offset 0, the payload at {@link SegmentHeader#LENGTH}. */
    public MemorySegment memory() {
        return mem;
    }

    /** The memory as a buffer positioned at 0, limited to {@code limit} bytes (made once, reused). */
    java.nio.ByteBuffer buffer(int limit) {
        if (buffer == null) {
            buffer = mem.asByteBuffer();
        }
        return buffer.clear().limit(limit);
    }

    /** Bytes in use, header included. */
    public int length() {
        return length;
    }

    public void length(int bytes) {
        if (bytes < SegmentHeader.LENGTH || bytes > mem.byteSize()) {
            throw new IllegalArgumentException("segment length " + bytes + " outside [" + SegmentHeader.LENGTH + ", "
                    + mem.byteSize() + "]");
        }
        length = bytes;
    }

    /** Bytes of payload. */
    public int payloadLength() {
        return length - SegmentHeader.LENGTH;
    }

    /** Largest payload this buffer holds. */
    public int payloadCapacity() {
        return (int) mem.byteSize() - SegmentHeader.LENGTH;
    }

    /** Takes one more reference; returns this. */
    public Segment retain() {
        if (pool != null) {
            if (refs <= 0) {
                throw new IllegalStateException("retain of a released segment");
            }
            refs++;
        }
        return this;
    }

    /** Gives one reference back; the last one returns the buffer to its pool. */
    public void release() {
        if (pool == null) {
            return;
        }
        if (refs <= 0) {
            throw new IllegalStateException("release of a released segment");
        }
        if (--refs == 0) {
            pool.recycle(this);
        }
    }

    /** Releases the segment in every non-null slot of {@code slots} and empties the slot. */
    static void releaseAll(Segment[] slots) {
        for (int i = 0; i < slots.length; i++) {
            if (slots[i] != null) {
                slots[i].release();
                slots[i] = null;
            }
        }
    }

    /** True while someone holds a reference (always for a borrowed segment). */
    public boolean live() {
        return pool == null || refs > 0;
    }
}
