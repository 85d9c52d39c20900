package org.railyard.engine.p2p;

import java.lang.foreign.MemorySegment;
import org.railyard.channel.VirtualChannel;

/**
 * One way of carrying a message from a send to the receive that matches it: {@link Eager},
 * {@link Rendezvous}, {@link CrossMemoryRead}. {@link PointToPoint} picks one per message and
 * peer by one rule, written in its {@code protocolFor}, and hands the message to it at the two
 * moments every protocol has: a send starts, and a receive matches what the protocol announced.
 * The frames that follow (CTS, DATA) belong to the protocol that sent the announcement.
 *
 * <p>The receiving side knows the protocol from the announcing frame: EAGER is {@link Eager}; an
 * RTS is {@link Rendezvous}, or {@link CrossMemoryRead} when it offers a read that this process
 * accepted. A message that arrives before its receive keeps its protocol in its
 * {@link Unexpected}. Called under the progress lock; nothing here allocates per message.
 */
interface Protocol {
    /** Sender: send {@code t} (registered, its channel {@code ch} up) takes its phase and queues its first frame on {@code ch}. */
    void start(SendTransfer t, VirtualChannel ch);

    /**
     * Receiver: receive {@code t} matched (its source, tag and message length recorded) the
     * message this protocol announced on {@code ch}. An eager message's payload lies in
     * {@code seg} at {@code at}; a rendezvous names the sender's transfer ({@code cookie}) and, for
     * a read, the payload's address in the sender ({@code readAddress}).
     */
    void matched(RecvTransfer t, VirtualChannel ch, MemorySegment seg, long at, long cookie, long readAddress);
}
