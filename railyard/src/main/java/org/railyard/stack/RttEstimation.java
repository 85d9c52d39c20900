package org.railyard.stack;

import org.railyard.wire.SegmentHeader;

/**
 * RTTEstimation: measures the flow's round-trip time and sets the retransmission timeout
 * ({@link Session#rtoNanos}, {@link Session#srttNanos}), as RFC 6298 does: smoothed RTT and RTT
 * variation with gains 1/8 and 1/4, timeout = SRTT + 4 RTTVAR, kept within
 * [{@link StackSettings#rtoMin}, {@link StackSettings#rtoMax}].
 *
 * <p>Samples come from timestamps (RFC 7323's idea): the sender stamps each data segment with its
 * clock, including retransmissions; the receiver keeps the stamp of the latest data segment
 * ({@link Session#tsRecent}) and echoes it in its acknowledgements, so each acknowledgement gives a
 * sample that cannot be confused between an original and its retransmission (Karn's problem).
 *
 * <p>Needs from below: nothing. Gives above: a timeout that follows the path, for Retransmit.
 */
public final class RttEstimation extends MicroProtocol {
    private long rttvar;
    /** Samples taken, for tests and diagnostics. */
    public long samples;

    @Override
    public String name() {
        return "RTTEstimation";
    }

    private int micros() {
        // never 0: an echo of 0 means "no timestamp"
        return (int) (session.clock.nanos() / 1000) | 1;
    }

    @Override
    protected void down(Segment s) {
        if (session.sender()) {
            SegmentHeader.timestamp(s.mem, 0, micros());
        } else {
            SegmentHeader.timestampEcho(s.mem, 0, session.tsRecent);
        }
        below.down(s);
    }

    @Override
    protected void up(Segment s) {
        if (!session.sender()) {
            session.tsRecent = SegmentHeader.timestamp(s.mem, 0);
        } else {
            int echo = SegmentHeader.timestampEcho(s.mem, 0);
            if (echo != 0) {
                long sample = ((micros() - echo) & 0xffffffffL) * 1000;
                if (sample < 60_000_000_000L) {
                    sample(sample);
                }
            }
        }
        above.up(s);
    }

    /** Folds one round-trip sample (nanoseconds) into the estimate. */
    void sample(long rtt) {
        samples++;
        if (session.srttNanos == 0) {
            session.srttNanos = Math.max(rtt, 1);
            rttvar = rtt / 2;
        } else {
            rttvar = (3 * rttvar + Math.abs(session.srttNanos - rtt)) / 4;
            session.srttNanos = Math.max((7 * session.srttNanos + rtt) / 8, 1);
        }
        long rto = session.srttNanos + 4 * rttvar;
        session.rtoNanos = Math.clamp(rto, session.settings.rtoMin().toNanos(), session.settings.rtoMax().toNanos());
    }

    @Override
    public String state() {
        return session.sender() ? String.format(java.util.Locale.ROOT, "srtt %.0f us, rto %.1f ms",
                session.srttNanos / 1e3, session.rtoNanos / 1e6) : "";
    }
}
