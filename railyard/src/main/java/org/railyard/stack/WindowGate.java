package org.railyard.stack;

/**
 * What the two window congestion controls share: at the sender, data segments wait in a queue and
 * go down, oldest first, while the window has room ({@link #windowOpen()}); the queue takes a frame
 * only if all its segments fit ({@link #queueLimit()}), and it is retried whenever a signal or a
 * tick may have opened the window. At the receiver everything passes through. A subclass says when
 * the window is open and how long the queue is; it may watch signals and ticks first, then calls
 * {@link #pump()}.
 */
abstract class WindowGate extends MicroProtocol {
    protected final SegmentQueue queue = new SegmentQueue();

    /** True while one more segment may go into the network. */
    protected abstract boolean windowOpen();

    /** How many segments the queue holds at most. */
    protected abstract int queueLimit();

    @Override
    protected boolean writable(int frameBytes) {
        if (!session.sender()) {
            return below.writable(frameBytes);
        }
        return queue.size() + segmentsFor(frameBytes) <= queueLimit();
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

    /** Sends queued segments down while the window is open and the layer below takes them. */
    protected final void pump() {
        while (!queue.isEmpty() && windowOpen() && below.writable(0)) {
            below.down(queue.poll());
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
}
