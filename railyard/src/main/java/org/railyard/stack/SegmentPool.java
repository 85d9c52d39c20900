package org.railyard.stack;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import org.railyard.wire.SegmentHeader;

/**
 * The buffers of one stack, in two sizes: datagram segments and frame segments (a frame and a
 * header's room). Buffers are made on demand and kept when released, so a stack in steady state
 * allocates nothing. Driven by the stack's thread only. {@link #outstanding} counts buffers handed
 * out and not released: tests check it returns to 0 (no leak) once a stack is drained.
 */
public final class SegmentPool {
    private final int datagram;
    private final int frame;
    private Segment smallFree;
    private Segment bigFree;
    private int outstanding;
    private int made;

    /**
     * @param datagram bytes of a datagram segment, header included
     * @param frameLimit largest frame a frame segment holds (its header's room is added)
     */
    public SegmentPool(int datagram, int frameLimit) {
        if (datagram <= SegmentHeader.LENGTH) {
            throw new IllegalArgumentException("datagram of " + datagram + " bytes leaves no room after a "
                    + SegmentHeader.LENGTH + "-byte segment header");
        }
        this.datagram = datagram;
        this.frame = frameLimit + SegmentHeader.LENGTH;
    }

    /** Bytes of a datagram segment, header included. */
    public int datagram() {
        return datagram;
    }

    /** Largest payload of a datagram segment. */
    public int datagramPayload() {
        return datagram - SegmentHeader.LENGTH;
    }

    /** Largest frame a frame segment holds. */
    public int frameLimit() {
        return frame - SegmentHeader.LENGTH;
    }

    /** A datagram segment with one reference, header cleared, length = header only. */
    public Segment datagramSegment() {
        Segment s = smallFree;
        if (s != null) {
            smallFree = s.next;
        } else {
            s = new Segment(this, Arena.ofAuto().allocate(datagram, 8), false);
            made++;
        }
        return handOut(s);
    }

    /** A frame segment with one reference, header cleared, length = header only. */
    public Segment frameSegment() {
        Segment s = bigFree;
        if (s != null) {
            bigFree = s.next;
        } else {
            s = new Segment(this, MemorySegment.ofArray(new long[(frame + 7) / 8]).asSlice(0, frame), true);
            made++;
        }
        return handOut(s);
    }

    private Segment handOut(Segment s) {
        s.next = null;
        s.refs = 1;
        s.stamp = 0;
        s.length = SegmentHeader.LENGTH;
        SegmentHeader.clear(s.mem, 0);
        outstanding++;
        return s;
    }

    void recycle(Segment s) {
        outstanding--;
        if (s.frameSized) {
            s.next = bigFree;
            bigFree = s;
        } else {
            s.next = smallFree;
            smallFree = s;
        }
    }

    /** Buffers handed out and not yet released. */
    public int outstanding() {
        return outstanding;
    }

    /** Buffers made so far (steady state: no longer grows). */
    public int made() {
        return made;
    }
}
