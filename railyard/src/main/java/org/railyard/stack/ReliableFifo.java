package org.railyard.stack;

import org.railyard.wire.SegmentHeader;

/**
 * ReliableFIFO: delivers a flow's data segments up exactly once, in sequence order (writes
 * {@link Session#rcvNext}). A segment that comes early waits in a reorder buffer of
 * {@link StackSettings#window} places until the ones before it are in; a duplicate, or a segment
 * beyond the buffer, is dropped (the sender's window never sends that far ahead, and a dropped
 * segment is sent again).
 *
 * <p>Needs from below: sequence numbers (SequencedSegment) and, for every segment, eventually a
 * copy that arrives (PositiveAck with Retransmit); loss, duplication and reordering are tolerated.
 * Gives above: each segment once, in order, with no gap.
 */
public final class ReliableFifo extends MicroProtocol {
    private Segment[] buffer;
    private int held;

    @Override
    public String name() {
        return "ReliableFIFO";
    }

    @Override
    protected void init() {
        buffer = new Segment[session.settings.window()];
    }

    @Override
    protected void up(Segment s) {
        if (session.sender()) {
            above.up(s);
            return;
        }
        long seq = SegmentHeader.seq(s.mem, 0);
        long next = session.rcvNext;
        if (seq < next || seq - next >= buffer.length) {
            // a duplicate (its acknowledgement was lost) or too far ahead (a window the sender may not have)
            session.dropped++;
            s.release();
            return;
        }
        if (seq > next) {
            int i = (int) (seq % buffer.length);
            if (buffer[i] != null) {
                session.dropped++;
                s.release();
            } else {
                buffer[i] = s;
                held++;
            }
            return;
        }
        session.rcvNext = next + 1;
        above.up(s);
        while (held > 0) {
            int i = (int) (session.rcvNext % buffer.length);
            Segment b = buffer[i];
            if (b == null) {
                break;
            }
            buffer[i] = null;
            held--;
            session.rcvNext++;
            above.up(b);
        }
    }

    @Override
    protected void onClose() {
        Segment.releaseAll(buffer);
        held = 0;
    }

    @Override
    public String state() {
        return session.sender() ? "" : "next " + session.rcvNext + ", " + held + " early";
    }
}
