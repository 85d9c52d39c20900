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
public final class WindCongCtrl extends MicroProtocol {
    private final SegmentQueue queue = new SegmentQueue();

    @Override
    protected boolean writable(int frameBytes) {
        if (!session.sender()) {
            return below.writable(frameBytes);
        }
        return queue.size() + segmentsFor(frameBytes) <= session.settings.window();
    }

    @Override
    protected void down(Segment s) {
        if (!session.sender()) {
            below.down(s);
            return;
        }
        queue.add(s);
        pump();
    }

    private void pump() {
        double limit = Math.min(session.cwnd, session.settings.window());
        while (!queue.isEmpty() && session.sndMax - session.sndUna < limit && below.writable(0)) {
            below.down(queue.poll());
        }
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
    protected boolean drained() {
        return queue.isEmpty();
    }

    @Override
    protected void onClose() {
        queue.clear();
    }

    @Override
    public String state() {
        return session.sender() ? queue.size() + " queued, " + (session.sndMax - session.sndUna) + " in flight" : "";
    }
}
