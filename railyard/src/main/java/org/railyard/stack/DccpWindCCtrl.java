package org.railyard.stack;

/**
 * DCCPWindCCtrl: window congestion control for an unreliable flow (CCID 2's rule): data segments go
 * down while fewer than {@link Session#cwnd} are in flight ({@link Session#pipe}, kept by DCCPAck),
 * and wait in a short queue otherwise. The queue holds one frame's worth of segments; the stack
 * asks for room before a frame goes down, so the Asynchronous protocol above keeps newer values
 * and drops older ones instead of letting a stale backlog build here.
 *
 * <p>An unreliable flow has no retransmission timer; if the window stays full for
 * {@link StackSettings#congestionTimeout} with no acknowledgement (every acknowledgement lost, or
 * the peer silent), this protocol raises {@link Signal#TIMEOUT}: DCCPAck then counts everything in
 * flight as lost and TCPCongAvoid restarts from a small window.
 *
 * <p>Needs below: TCPCongAvoid (the window) and DCCPAck (the pipe). Gives: at most a window of
 * segments in the network.
 */
public final class DccpWindCCtrl extends WindowGate {
    private int capacity;
    private long lastProgress;
    /** Congestion timeouts raised, for tests and diagnostics. */
    public long timeouts;

    @Override
    public String name() {
        return "DCCPWindCCtrl";
    }

    @Override
    protected void init() {
        capacity = Math.max(1, (session.pool.frameLimit() + session.pool.datagramPayload() - 1)
                / session.pool.datagramPayload());
        lastProgress = session.clock.nanos();
    }

    @Override
    protected boolean windowOpen() {
        return session.pipe < session.cwnd;
    }

    @Override
    protected int queueLimit() {
        return capacity;
    }

    @Override
    protected void onSignal(Signal signal, long arg) {
        if (!session.sender()) {
            return;
        }
        if (signal == Signal.ACKED || signal == Signal.LOSS || signal == Signal.TIMEOUT) {
            lastProgress = session.clock.nanos();
        }
        pump();
    }

    @Override
    protected void onTick(long now) {
        if (!session.sender()) {
            return;
        }
        if (session.pipe == 0) {
            lastProgress = now;
        } else if (now - lastProgress >= session.settings.congestionTimeout().toNanos()) {
            timeouts++;
            session.signal(Signal.TIMEOUT, session.sndUna);
        }
        pump();
    }

    @Override
    public String state() {
        return session.sender() ? queue.size() + " queued, " + timeouts + " timeouts" : "";
    }
}
