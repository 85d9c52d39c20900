package org.railyard.stack;

import org.railyard.wire.SegmentHeader;

/**
 * PositiveAck: the receiver of a flow acknowledges what it has, cumulatively: an acknowledgement
 * names the next sequence number it expects ({@link Session#rcvNext}, as ReliableFIFO above left
 * it). It acknowledges at once a segment that did not advance that number (a gap or a duplicate:
 * the sender learns of the loss from the repeated acknowledgement), and otherwise at the end of
 * each batch of received datagrams (and within a long batch every {@value #BURST} segments), so a
 * burst costs few acknowledgements and none waits for a timer.
 *
 * <p>At the sender, acknowledgements end here: the protocols below (Retransmit, DuplicateAck,
 * RTTEstimation) acted on them on their way up.
 *
 * <p>Needs: ReliableFIFO directly above (it keeps the in-order point) and sequence numbers on
 * data segments. Gives below and to the sender: a cumulative acknowledgement for every data
 * segment received, at most a batch late.
 */
public final class PositiveAck extends MicroProtocol {
    /** In-order segments after which an acknowledgement goes without waiting for the end of the batch. */
    static final int BURST = 16;
    private int unacknowledged;
    /** Acknowledgements sent, for tests and diagnostics. */
    public long acksSent;

    @Override
    protected void up(Segment s) {
        if (session.sender()) {
            s.release();
            return;
        }
        boolean inOrder = SegmentHeader.seq(s.mem, 0) == session.rcvNext;
        above.up(s);
        unacknowledged++;
        if (!inOrder || unacknowledged >= BURST) {
            acknowledge();
        }
    }

    @Override
    protected void onBatchEnd() {
        if (unacknowledged > 0) {
            acknowledge();
        }
    }

    private void acknowledge() {
        Segment a = session.pool.datagramSegment();
        SegmentHeader.ack(a.mem, 0, session.rcvNext);
        unacknowledged = 0;
        acksSent++;
        below.down(a);
    }

    @Override
    public String state() {
        return session.sender() ? "" : acksSent + " acks";
    }
}
