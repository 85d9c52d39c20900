package org.railyard.stack;

import org.railyard.wire.SegmentHeader;

/**
 * DuplicateAck: fast retransmit. At the sender, an acknowledgement that repeats the previous one
 * while data is outstanding means a segment after the acknowledged point arrived and the one at it
 * did not; each raises {@link Signal#DUP_ACK}, and the third in a row raises
 * {@link Signal#FAST_RETRANSMIT} for the missing segment, long before the retransmission timer.
 *
 * <p>Needs: cumulative acknowledgements sent at once for out-of-order segments (PositiveAck), and
 * Retransmit below it (which resends on the signal). Gives: loss recovery within about one
 * round trip instead of one timeout.
 */
public final class DuplicateAck extends MicroProtocol {
    private long lastAck = 1;
    private int duplicates;
    /** Fast retransmits raised, for tests and diagnostics. */
    public long fastRetransmits;

    @Override
    protected void up(Segment s) {
        if (session.sender()) {
            long ack = SegmentHeader.ack(s.mem, 0);
            if (ack > lastAck) {
                lastAck = ack;
                duplicates = 0;
            } else if (ack == lastAck && session.sndMax > ack) {
                duplicates++;
                session.signal(Signal.DUP_ACK, ack);
                if (duplicates == 3) {
                    fastRetransmits++;
                    session.signal(Signal.FAST_RETRANSMIT, ack);
                }
            }
        }
        above.up(s);
    }

    @Override
    public String state() {
        return session.sender() ? fastRetransmits + " fast retransmits" : "";
    }
}
