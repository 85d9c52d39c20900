package org.railyard.stack;

import org.railyard.wire.SegmentHeader;

/**
 * SequencedSegment: numbers the data segments of a flow, 1, 2, 3, ..., in the order they go down
 * (writes {@link Session#sndNext}). A retransmission, made below, keeps its number.
 *
 * <p>Needs from below: nothing. Gives below and to the peer: a sequence number on every data
 * segment, which acknowledgement, retransmission and FIFO delivery work with.
 */
public final class SequencedSegment extends MicroProtocol {
    @Override
    protected void down(Segment s) {
        if (session.sender()) {
            SegmentHeader.seq(s.mem, 0, session.sndNext++);
        }
        below.down(s);
    }

    @Override
    public String state() {
        return session.sender() ? "next " + session.sndNext : "";
    }
}
