package org.railyard.engine.p2p;

import java.lang.foreign.MemorySegment;
import org.railyard.channel.VirtualChannel;
import org.railyard.types.Kind;

/**
 * The eager protocol: the whole message goes in one EAGER frame, and is complete once the frame
 * is in the link's memory. A blocking standard send goes straight into the rail's memory with no
 * request when nothing is queued ahead ({@link #sendNow}, the engine's one {@link DirectEager});
 * otherwise its request queues the frame. A receive copies the payload out of the frame, or out
 * of the copy kept aside when the message came first.
 */
final class Eager implements Protocol {
    /** The message of {@link #sendNow}, reused under the lock. */
    private final DirectEager direct = new DirectEager();

    /**
     * Offers a message of {@code bytes} (at most the eager limit) to {@code ch} to go at once: true
     * if it went, with no request; false if the channel has something queued ahead (or no room).
     */
    boolean sendNow(VirtualChannel ch, int ctx, int source, int tag, Object buf, Kind k, int off, long bytes) {
        boolean sent = ch.sendNow(direct.set(ctx, source, tag, buf, k, off, bytes));
        direct.clear();
        return sent;
    }

    @Override
    public void start(SendTransfer t, VirtualChannel ch) {
        t.go(SendTransfer.PHASE_EAGER, ch);
    }

    @Override
    public void matched(RecvTransfer t, VirtualChannel ch, MemorySegment seg, long at, long cookie, long readAddress) {
        t.deliver(seg, at, 0, t.messageBytes);
        t.finishIfComplete();
    }
}
