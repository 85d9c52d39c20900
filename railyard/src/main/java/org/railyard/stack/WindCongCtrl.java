package org.railyard.stack;

/**
 * WindCongCtrl: window congestion control for a reliable flow. Data segments wait in a queue
 * until fewer than {@code min(cwnd, window)} segments are in flight ({@link Session#sndMax} minus
 * {@link Session#sndUna}), then go down. The congestion window {@link Session#cwnd} is set by
 * TCPNewRenoCA; this protocol only enforces it, and sends more whenever a signal (an
 * acknowledgement, a loss, a timeout) may have opened it. Its queue holds
 * {@link StackSettings#window} segments: the stack refuses a frame that does not fit.
 *
 * <p>Needs below: Retransmit (which tracks what is in flight). Gives: at most a window of
 * segments in the network at once.
 */
public final class WindCongCtrl extends WindowGate {
    @Override
    protected boolean windowOpen() {
        return session.sndMax - session.sndUna < Math.min(session.cwnd, session.settings.window());
    }

    @Override
    protected int queueLimit() {
        return session.settings.window();
    }

    @Override
    protected void onSignal(Signal signal, long arg) {
        if (session.sender()) {
            pump();
        }
    }

    @Override
    protected void onTick(long now) {
        if (session.sender()) {
            pump();
        }
    }

    @Override
    public String state() {
        return session.sender() ? queue.size() + " queued, " + (session.sndMax - session.sndUna) + " in flight" : "";
    }
}
