package org.railyard.stack;

import org.railyard.wire.SegmentHeader;

/**
 * DCCPAck: acknowledgements for an unreliable flow, in the manner of DCCP's ack vectors (RFC 4340,
 * 11.4; CCID 2, RFC 4341). Nothing is retransmitted; acknowledgements exist so the sender knows
 * what the network delivered and lost, and congestion control can react.
 *
 * <p>Sender: numbers every data segment as it goes down ({@link Session#sndNext}) and counts it in
 * flight ({@link Session#pipe}, {@link Session#sndMax}). An acknowledgement names the highest
 * sequence number received and, in a 64-bit vector, which of the 64 before it were received. Each
 * segment in flight that the vector shows received is acknowledged; one that is not, while three
 * later segments were received (DCCP's NUMDUPACK), is lost. Both leave the pipe; the oldest segment
 * still undecided is {@link Session#sndUna}. Raises {@link Signal#ACKED} (count), {@link
 * Signal#LOSS} (count) and {@link Signal#WINDOW}. On {@link Signal#TIMEOUT} (from DCCPWindCCtrl)
 * everything in flight is counted lost.
 *
 * <p>Receiver: keeps the highest number seen and the vector, and acknowledges every second data
 * segment and at the end of each batch.
 *
 * <p>Needs from below: nothing. Gives: loss and delivery information without retransmission.
 */
public final class DccpAck extends MicroProtocol {
    private static final byte SENT = 1;
    private static final byte ACKED = 2;
    private static final byte LOST = 3;

    private byte[] status;
    private long highest;
    private long vector;
    private int unacknowledged;
    /** Counters for tests and diagnostics. */
    public long acked, lost, acksSent;

    @Override
    public String name() {
        return "DCCPAck";
    }

    @Override
    protected void init() {
        status = new byte[4 * session.settings.window()];
    }

    @Override
    protected void down(Segment s) {
        if (!session.sender()) {
            below.down(s);
            return;
        }
        long seq = session.sndNext++;
        int i = (int) (seq % status.length);
        if (status[i] == SENT) {
            // wrapped around a segment never decided: it is long gone
            status[i] = LOST;
            session.pipe--;
            lost++;
        }
        status[i] = SENT;
        session.pipe++;
        session.sndMax = seq + 1;
        SegmentHeader.seq(s.mem, 0, seq);
        below.down(s);
    }

    @Override
    protected void up(Segment s) {
        if (session.sender()) {
            onAck(SegmentHeader.ack(s.mem, 0), SegmentHeader.ackVector(s.mem, 0));
            s.release();
            return;
        }
        long seq = SegmentHeader.seq(s.mem, 0);
        if (seq > highest) {
            // bit i stands for highest - 1 - i: the old bits move up by the shift, the old highest
            // joins them (Java shifts a long by the count mod 64, so 64 and more are spelled out)
            long shift = seq - highest;
            if (highest == 0 || shift > 64) {
                vector = 0;
            } else {
                vector = (shift == 64 ? 0 : vector << shift) | (1L << (shift - 1));
            }
            highest = seq;
        } else if (seq < highest && highest - 1 - seq < 64) {
            vector |= 1L << (highest - 1 - seq);
        }
        above.up(s);
        if (++unacknowledged >= 2) {
            acknowledge();
        }
    }

    @Override
    protected void onBatchEnd() {
        if (!session.sender() && unacknowledged > 0) {
            acknowledge();
        }
    }

    private void acknowledge() {
        unacknowledged = 0;
        acksSent++;
        Segment a = session.pool.datagramSegment();
        SegmentHeader.ack(a.mem, 0, highest);
        SegmentHeader.ackVector(a.mem, 0, vector);
        below.down(a);
    }

    private void onAck(long ack, long vec) {
        if (ack >= session.sndMax || ack < session.sndUna) {
            return;
        }
        int newlyAcked = 0;
        int newlyLost = 0;
        for (long q = session.sndUna; q <= ack; q++) {
            int i = (int) (q % status.length);
            if (status[i] != SENT) {
                continue;
            }
            boolean received = q == ack || (ack - 1 - q < 64 && (vec & (1L << (ack - 1 - q))) != 0);
            if (received) {
                status[i] = ACKED;
                newlyAcked++;
            } else if (q + 3 <= ack) {
                status[i] = LOST;
                newlyLost++;
            }
        }
        session.pipe -= newlyAcked + newlyLost;
        acked += newlyAcked;
        lost += newlyLost;
        advance();
        if (newlyAcked > 0) {
            session.signal(Signal.ACKED, newlyAcked);
        }
        if (newlyLost > 0) {
            session.signal(Signal.LOSS, newlyLost);
        }
        session.signal(Signal.WINDOW, 0);
    }

    private void advance() {
        while (session.sndUna < session.sndMax && status[(int) (session.sndUna % status.length)] != SENT) {
            session.sndUna++;
        }
    }

    @Override
    protected void onSignal(Signal signal, long arg) {
        if (signal == Signal.TIMEOUT && session.sender()) {
            for (long q = session.sndUna; q < session.sndMax; q++) {
                int i = (int) (q % status.length);
                if (status[i] == SENT) {
                    status[i] = LOST;
                    lost++;
                }
            }
            session.pipe = 0;
            session.sndUna = session.sndMax;
        }
    }

    @Override
    public String state() {
        return session.sender() ? "pipe " + session.pipe + ", acked " + acked + ", lost " + lost
                : "highest " + highest + ", " + acksSent + " acks";
    }
}
