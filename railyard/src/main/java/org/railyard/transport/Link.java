package org.railyard.transport;

import java.lang.foreign.MemorySegment;

/**
 * One open connection to one peer over one transport: a rail, in the channel floor's words. It
 * moves whole frames (a {@link org.railyard.wire.FrameHeader} and its payload), in order, and is
 * driven by one thread at a time (the progress agent, or a caller that holds the progress lock).
 *
 * <p>Sending is claim / write / commit, as in Aeron: {@link #tryClaim} reserves room for a frame
 * of a given length and returns the offset in {@link #claimSegment()} where the caller writes
 * it; {@link #commit} publishes it. Nothing is allocated and the payload is copied once, from the
 * user's buffer into the link's memory. A link that has no room returns {@link #BACK_PRESSURED},
 * and the caller tries again after the next {@link #flush}/{@link #poll}.
 *
 * <p>A link built over the handshake socket finds it still in blocking mode; the connector switches
 * it to non-blocking once the handshake's last message has crossed, before the link is used.
 *
 * <p>Receiving is {@link #poll}: complete frames are handed to a {@link FrameHandler} while they
 * sit in the link's memory; the handler copies what it needs before returning.
 */
public interface Link {
    /** Returned by {@link #tryClaim} when the link cannot take the frame now. */
    long BACK_PRESSURED = -1;
    /** Returned by {@link #tryClaim} when the link is closed or broken. */
    long CLOSED = -2;

    /** The transport this link belongs to. */
    Transport transport();

    /** The peer's world rank. */
    int peer();

    /** Largest frame (header included) this link carries. */
    int maxFrame();

    /** Reserves {@code frameLength} bytes; the offset in {@link #claimSegment()}, or a negative status. */
    long tryClaim(int frameLength);

    /** The memory the last successful claim lies in. */
    MemorySegment claimSegment();

    /** Publishes the frame written into the last claim. */
    void commit();

    /** Pushes buffered output toward the peer; returns a positive number if it moved anything. */
    int flush();

    /**
     * Delivers up to {@code limit} complete frames to {@code handler}; returns how many. Reports a
     * broken or misbehaving peer by closing itself (see {@link #failure()}), never by throwing.
     */
    int poll(FrameHandler handler, int limit);

    /** True until closed or broken. */
    boolean isOpen();

    /**
     * True while bytes written to this link still sit in the process (a TCP link's staging buffer
     * the kernel has not taken yet). An orderly close waits until this is false, or the peer would
     * see the stream end in the middle of a frame.
     */
    default boolean hasPendingOutput() {
        return false;
    }

    /**
     * True if, when this link breaks, the rail it carries can be linked again by another route (a
     * site's second gateway): the channel then keeps acknowledgements and retransmission even on
     * a single rail, so nothing in flight is lost, and either side may link the rail again (an
     * intermediary needs no tie-break). Both ends of a link must answer the same.
     */
    default boolean reroutes() {
        return false;
    }

    /**
     * True if this link keeps the socket its handshake ran on (a TCP link carries its frames on
     * it; a shared-memory link between two processes keeps it as the line that tells it of the
     * peer's death). False lets the handshake's ends close it once the handshake is over: nothing
     * of the link reads or writes it.
     */
    default boolean holdsHandshake() {
        return true;
    }

    /** Why the link closed: null while open or after an orderly close. */
    String failure();

    /** A short description for logs and {@code --print-choices}: transport, addresses. */
    String describe();

    /** Closes the link; idempotent. */
    void close();

    /** Receives frames from {@link #poll}. */
    @FunctionalInterface
    interface FrameHandler {
        /**
         * One complete frame at {@code offset} in {@code segment}, {@code length} bytes. Valid only
         * during the call. Returns false to stop delivering further frames for this poll (the
         * frame itself counts as consumed).
         */
        boolean onFrame(Link link, MemorySegment segment, long offset, int length);
    }
}
