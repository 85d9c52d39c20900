package org.railyard.transport;

import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;

/**
 * A link of a transport that is neither reliable nor ordered (udp): what {@link Link} says, but each
 * claim / commit sends one datagram of at most {@link #maxFrame()} bytes, and {@link #poll} hands
 * over received datagrams, which may have been lost, duplicated or reordered on the way. Datagrams
 * are not frames: the stack floor above makes frames out of them, and nothing below it reads their
 * contents. {@link #poll} never validates a frame header.
 *
 * <p>Next to the datagrams lives the <em>control line</em>: the authenticated handshake socket,
 * kept open, carrying whole messages reliably and in order (P2PSAP's control channel). It tells
 * when the peer is gone (end of stream: the link closes with a reason) and carries the stack's
 * reconfiguration messages. A control message starts with its own length: a little-endian u16
 * counting the bytes after it (the layouts are in {@link org.railyard.wire.ControlMessage}); the
 * line splits its byte stream on these lengths. Like the link, it is driven by one thread at a time.
 */
public interface DatagramLink extends Link {
    /**
     * Sends the bytes between {@code datagram}'s position and limit as one datagram (a direct
     * buffer, so the kernel reads it in place); false if the kernel had no room for it (it is then
     * not sent: the caller counts it lost) or the link is closed. The buffer's position is moved.
     */
    boolean send(ByteBuffer datagram);

    /**
     * Reads one received datagram into {@code into} (a direct buffer with at least
     * {@link #maxFrame()} bytes from its position); returns its length, or 0 when none is waiting
     * (or the link is closed).
     */
    int receive(ByteBuffer into);

    /**
     * The frame limit the stack over this link gives the channel (frames are cut into datagrams
     * and put together again by the stack), agreed by both ends in the handshake.
     */
    int frameLimit();

    /** This end's connection token: datagrams carrying another are not for this connection. */
    int token();

    /** The peer's connection token, to put in every datagram sent. */
    int peerToken();

    /**
     * Bytes the peer's datagram socket can hold unread (its SO_RCVBUF as the kernel granted it,
     * from the handshake): a sender should not keep more than a fraction of it in flight, or the
     * peer's kernel drops what its process did not read in time.
     */
    int peerReceiveBuffer();

    /** True when the peer runs on this process's node. */
    boolean sameNode();

    /** True when the peer is on this process's site (setting railyard.site; equal when unset). */
    boolean sameSite();

    /**
     * Queues the control message of {@code length} bytes at {@code offset} in {@code message} and
     * starts writing it; false if the line is closed or holds too much unwritten output already.
     * The message is copied before this returns.
     */
    boolean sendControl(MemorySegment message, long offset, int length);

    /**
     * Hands each complete control message received to {@code handler} (offset and length of the
     * whole message, length field included; valid only during the call); returns how many. An end
     * of stream or a broken line closes the link with the reason (see {@link #failure()}).
     */
    int pollControl(FrameHandler handler);
}
