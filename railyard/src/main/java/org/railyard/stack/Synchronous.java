package org.railyard.stack;

/**
 * Synchronous: the scheme protocol of synchronous iterations (and of every message-passing flow):
 * each frame handed down is carried, none may replace another. When the layers below have no room,
 * the stack refuses the frame ({@link #writable} is false) and the channel keeps it queued, so the
 * sender waits instead of losing anything.
 *
 * <p>Needs from below: whatever the context needs for delivery (over an unreliable transport the
 * reliability protocols: sequence, acknowledgement, retransmission, FIFO order). Gives above: every
 * frame it was given, in order, back-pressure rather than loss.
 */
public final class Synchronous extends MicroProtocol {
}
