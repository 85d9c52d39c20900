package org.railyard.channel;

import java.lang.foreign.MemorySegment;

/**
 * Something the engine wants carried to a peer as one or more frames: a message (eager, or the
 * request-to-send and later the data of a rendezvous), or a control answer. The channel asks for
 * one frame at a time, as its rails have room, and says when the last one is handed over. The
 * queue link lives in the object itself, so queueing allocates nothing.
 */
public abstract class Outbound {
    Outbound nextOut;

    /** Length (header included) of the next frame, given that a rail takes at most {@code maxFrame}. */
    protected abstract int nextFrameLength(int maxFrame);

    /**
     * Writes the next frame, header and payload, at {@code offset} in {@code seg}; exactly
     * {@code frameLength} bytes (the value {@link #nextFrameLength} just returned). The packet
     * sequence number is stamped by the channel afterwards. Returns true if that was the last frame.
     */
    protected abstract boolean writeFrame(MemorySegment seg, long offset, int frameLength);

    /** Every frame has been handed to a rail; the user's buffer may be reused. */
    protected abstract void onWritten();
}
