package org.railyard.stack;

/**
 * TCPNewRenoCA: TCP NewReno congestion avoidance (RFC 6582) for a reliable flow; writes
 * {@link Session#cwnd} (in segments), which WindCongCtrl enforces.
 *
 * <ul>
 *   <li>Slow start below the threshold: +1 segment per segment acknowledged; congestion avoidance
 *       above it: +1 segment per window acknowledged.</li>
 *   <li>{@link Signal#FAST_RETRANSMIT} (three duplicate acknowledgements): threshold = half the
 *       data in flight (at least 2), window = threshold + 3, and fast recovery until everything
 *       sent before the loss is acknowledged; each further duplicate inflates the window by one.
 *       A <em>partial</em> acknowledgement during recovery (it covers some, not all, of that data)
 *       means the next segment was lost too: it is retransmitted at once
 *       ({@link Signal#RETRANSMIT}) and the window deflated by what was acknowledged. That is
 *       NewReno's difference from Reno: several losses in one window cost one recovery, not
 *       several timeouts.</li>
 *   <li>{@link Signal#TIMEOUT}: threshold = half the flight, window = 1, slow start again.</li>
 * </ul>
 *
 * <p>Needs: Retransmit (acknowledgements, timeouts, retransmission), DuplicateAck (fast
 * retransmit), WindCongCtrl (enforcement). Gives: a flow that shares a congested path fairly.
 */
public final class TcpNewRenoCa extends CongestionWindow {
    /** Initial window, segments (RFC 6928's ten). */
    static final double INITIAL_WINDOW = 10;
    private boolean recovery;
    private long recover;
    /** Fast recoveries entered, for tests and diagnostics. */
    public long recoveries;

    @Override
    public String name() {
        return "TCPNewRenoCA";
    }

    public TcpNewRenoCa() {
        super(INITIAL_WINDOW);
    }

    @Override
    protected void onSenderSignal(Signal signal, long arg) {
        double max = session.settings.window();
        switch (signal) {
            case ACKED -> {
                if (recovery) {
                    if (session.sndUna >= recover) {
                        recovery = false;
                        session.cwnd = ssthresh;
                    } else {
                        session.cwnd = Math.max(session.cwnd - arg + 1, 1);
                        session.signal(Signal.RETRANSMIT, session.sndUna);
                    }
                } else {
                    grow(arg);
                }
            }
            case DUP_ACK -> {
                if (recovery) {
                    session.cwnd = Math.min(session.cwnd + 1, max);
                }
            }
            case FAST_RETRANSMIT -> {
                if (!recovery) {
                    recoveries++;
                    ssthresh = Math.max((session.sndMax - session.sndUna) / 2.0, 2);
                    session.cwnd = ssthresh + 3;
                    recover = session.sndMax;
                    recovery = true;
                }
            }
            case TIMEOUT -> {
                ssthresh = Math.max((session.sndMax - session.sndUna) / 2.0, 2);
                session.cwnd = 1;
                recovery = false;
            }
            default -> { }
        }
    }

    /** True during fast recovery. */
    public boolean inRecovery() {
        return recovery;
    }

    @Override
    public String state() {
        return session.sender() ? super.state() + (recovery ? ", recovering" : "") : "";
    }
}
