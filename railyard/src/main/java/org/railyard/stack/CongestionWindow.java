package org.railyard.stack;

import java.util.Locale;

/**
 * What TCP-style congestion avoidance protocols share: the congestion window {@link Session#cwnd}
 * (in segments) and its slow-start threshold, opened from an initial window, grown by slow start
 * (+1 segment per segment acknowledged) below the threshold and by congestion avoidance (+1 segment
 * per window acknowledged) above it, never beyond {@link StackSettings#window}. Subclasses decide
 * when and how far it closes.
 */
abstract class CongestionWindow extends MicroProtocol {
    private final double initialWindow;
    /** The slow-start threshold, segments. */
    protected double ssthresh;

    CongestionWindow(double initialWindow) {
        this.initialWindow = initialWindow;
    }

    @Override
    protected void init() {
        if (session.sender()) {
            session.cwnd = initialWindow;
            ssthresh = session.settings.window();
        }
    }

    /** Only the sending end has a window: the receiving end ignores every signal. */
    @Override
    protected final void onSignal(Signal signal, long arg) {
        if (session.sender()) {
            onSenderSignal(signal, arg);
        }
    }

    /** A signal at the sending end: opens or closes the window. */
    protected abstract void onSenderSignal(Signal signal, long arg);

    /** Opens the window for {@code acked} segments acknowledged. */
    protected final void grow(long acked) {
        double max = session.settings.window();
        session.cwnd = session.cwnd < ssthresh
                ? Math.min(session.cwnd + acked, max)
                : Math.min(session.cwnd + acked / session.cwnd, max);
    }

    /** The slow-start threshold, segments. */
    public double ssthresh() {
        return ssthresh;
    }

    @Override
    public String state() {
        return session.sender() ? String.format(Locale.ROOT, "cwnd %.1f, ssthresh %.1f", session.cwnd, ssthresh) : "";
    }
}
