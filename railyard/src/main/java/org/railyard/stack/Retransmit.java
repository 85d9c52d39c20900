package org.railyard.stack;

import org.railyard.wire.SegmentHeader;

/**
 * Retransmit: keeps every data segment sent until it is acknowledged, and sends one again when the
 * retransmission timer ({@link Session#rtoNanos}, from RTTEstimation) expires for the oldest
 * unacknowledged one, backing off exponentially, or at once when a {@link Signal#FAST_RETRANSMIT}
 * or {@link Signal#RETRANSMIT} names it. Writes {@link Session#sndUna} and {@link Session#sndMax}
 * and raises {@link Signal#ACKED} (then {@link Signal#WINDOW}) when a cumulative acknowledgement
 * advances, {@link Signal#TIMEOUT} when the timer fires.
 *
 * <p>After a timeout, until everything that was in flight then is acknowledged, each
 * acknowledgement that advances but leaves data outstanding resends the next unacknowledged segment
 * at once (as TCP resends the rest of a window after a timeout): losses are usually several per
 * window, and this repairs them one per round trip instead of one per timeout.
 *
 * <p>A timeout can be spurious (the acknowledgements were only late: a descheduled peer, a busy
 * machine). With RTTEstimation below, an acknowledgement after a timeout whose timestamp echo is
 * older than the retransmission answers the original segment, not the retransmission (the Eifel
 * test, RFC 3522): the timeout was spurious, so the backoff is undone and no more is resent.
 *
 * <p>Its buffer holds {@link StackSettings#window} segments: the stack refuses a frame that would
 * not fit ({@link #writable}), so a flow without congestion control is still flow controlled.
 *
 * <p>Needs from below: nothing. Needs from the peer: cumulative acknowledgements (PositiveAck).
 * Gives above: every segment eventually delivered while the peer lives.
 */
public final class Retransmit extends MicroProtocol {
    private Segment[] ring;
    private int held;
    private long deadline;
    private int backoff;
    /** After a timeout: one past the highest sequence number in flight then; 0 when not recovering. */
    private long recoverUpTo;
    /** Clock of the last timeout retransmission, microseconds as RTTEstimation stamps (0: none). */
    private int retransmittedAt;
    /** Timeouts found spurious, for tests and diagnostics. */
    public long spurious;
    /** Timer expiries, for tests and diagnostics. */
    public long timeouts;

    @Override
    protected void init() {
        ring = new Segment[session.settings.window()];
    }

    @Override
    protected boolean writable(int frameBytes) {
        if (!session.sender()) {
            return below.writable(frameBytes);
        }
        return held + segmentsFor(frameBytes) <= ring.length && below.writable(frameBytes);
    }

    @Override
    protected void down(Segment s) {
        if (!session.sender()) {
            below.down(s);
            return;
        }
        long seq = SegmentHeader.seq(s.mem, 0);
        int i = (int) (seq % ring.length);
        if (ring[i] != null) {
            throw new IllegalStateException("retransmit buffer full: segment " + seq + " would replace "
                    + SegmentHeader.seq(ring[i].mem, 0) + " (a frame was sent without asking for room)");
        }
        ring[i] = s.retain();
        if (held++ == 0) {
            deadline = session.clock.nanos() + timeout();
        }
        if (seq >= session.sndMax) {
            session.sndMax = seq + 1;
        }
        below.down(s);
    }

    @Override
    protected void up(Segment s) {
        if (session.sender()) {
            long ack = SegmentHeader.ack(s.mem, 0);
            int echo = SegmentHeader.timestampEcho(s.mem, 0);
            if (recoverUpTo != 0 && echo != 0 && retransmittedAt != 0 && echo - retransmittedAt < 0) {
                spurious++;
                recoverUpTo = 0;
                retransmittedAt = 0;
                backoff = 0;
            }
            if (ack > session.sndUna && ack <= session.sndMax) {
                long acked = ack - session.sndUna;
                for (long q = session.sndUna; q < ack; q++) {
                    int i = (int) (q % ring.length);
                    ring[i].release();
                    ring[i] = null;
                }
                held -= (int) acked;
                session.sndUna = ack;
                backoff = 0;
                deadline = session.clock.nanos() + timeout();
                session.signal(Signal.ACKED, acked);
                if (recoverUpTo > ack) {
                    resend(ack);
                } else {
                    recoverUpTo = 0;
                    retransmittedAt = 0;
                }
                session.signal(Signal.WINDOW, 0);
            }
        }
        above.up(s);
    }

    private long timeout() {
        long t = session.rtoNanos << Math.min(backoff, 16);
        return Math.min(t, session.settings.rtoMax().toNanos());
    }

    @Override
    protected void onTick(long now) {
        if (held > 0 && now - deadline >= 0) {
            timeouts++;
            recoverUpTo = session.sndMax;
            retransmittedAt = (int) (now / 1000) | 1;
            resend(session.sndUna);
            backoff++;
            deadline = now + timeout();
            session.signal(Signal.TIMEOUT, session.sndUna);
            session.signal(Signal.WINDOW, 0);
        }
    }

    @Override
    protected void onSignal(Signal signal, long arg) {
        if (signal == Signal.FAST_RETRANSMIT || signal == Signal.RETRANSMIT) {
            resend(arg);
            deadline = session.clock.nanos() + timeout();
        }
    }

    private void resend(long seq) {
        if (seq < session.sndUna || seq >= session.sndMax) {
            return;
        }
        Segment s = ring[(int) (seq % ring.length)];
        if (s != null) {
            session.retransmitted++;
            below.down(s.retain());
        }
    }

    @Override
    protected boolean drained() {
        return held == 0;
    }

    @Override
    protected void onClose() {
        Segment.releaseAll(ring);
        held = 0;
    }

    @Override
    public String state() {
        return session.sender() ? held + " unacknowledged, " + timeouts + " timeouts (" + spurious + " spurious)" : "";
    }
}
