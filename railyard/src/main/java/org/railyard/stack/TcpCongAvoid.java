package org.railyard.stack;

/**
 * TCPCongAvoid: TCP's congestion avoidance for an unreliable flow (as CCID 2 uses it); writes
 * {@link Session#cwnd}, which DCCPWindCCtrl enforces. Slow start below the threshold (+1 per
 * segment acknowledged), then +1 per window acknowledged; on {@link Signal#LOSS} the window is
 * halved, at most once per window of data (losses of one burst count once); on {@link
 * Signal#TIMEOUT} it restarts from 1 segment.
 *
 * <p>Needs: DCCPAck (acknowledged and lost counts). Gives: an unreliable flow that backs off like a
 * TCP flow would, so it shares a congested path fairly.
 */
public final class TcpCongAvoid extends CongestionWindow {
    /** Initial window, segments (CCID 2 starts at 2 to 4). */
    static final double INITIAL_WINDOW = 4;
    private long recover;
    /** Window reductions, for tests and diagnostics. */
    public long reductions;

    @Override
    public String name() {
        return "TCPCongAvoid";
    }

    public TcpCongAvoid() {
        super(INITIAL_WINDOW);
    }

    @Override
    protected void onSenderSignal(Signal signal, long arg) {
        switch (signal) {
            case ACKED -> grow(arg);
            case LOSS -> {
                if (session.sndUna >= recover) {
                    reductions++;
                    ssthresh = Math.max(session.cwnd / 2, 2);
                    session.cwnd = ssthresh;
                    recover = session.sndMax;
                }
            }
            case TIMEOUT -> {
                reductions++;
                ssthresh = Math.max(session.cwnd / 2, 2);
                session.cwnd = 1;
                recover = session.sndMax;
            }
            default -> { }
        }
    }

}
