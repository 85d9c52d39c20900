package org.railyard.channel;

import java.lang.foreign.MemorySegment;

/**
 * Something the engine wants carried to a peer as one or more frames: a message (eager, or the
 * request-to-send and later the data of a rendezvous), or a control answer. The channel asks for
 * one frame at a time, as its rails have room, and says when the last one is handed over. The
 * queue link lives in the object itself, so queueing allocates nothing.
 *
 * <p>Bulk data (rendezvous payload) may instead expose itself with {@link #bulkBytes()}: the
 * channel then asks for DATA frames by message offset ({@link #writeBulk}), in whatever order its
 * rails take them, which is what lets a message be striped over several rails. Each DATA frame
 * names its offset, so the receiver places it wherever it arrives from.
 *
 * <p>The engine marks each message with its communication pattern ({@link #pattern(int)}), which
 * the EPC policy reads: {@link #BLOCKING} point-to-point, {@link #NONBLOCKING} point-to-point,
 * or {@link #COLLECTIVE}.
 */
public abstract class Outbound {
    /** Pattern: a blocking point-to-point send (the default). */
    public static final int BLOCKING = 0;
    /** Pattern: a non-blocking point-to-point send. */
    public static final int NONBLOCKING = 1;
    /** Pattern: a send made by a collective operation. */
    public static final int COLLECTIVE = 2;

    Outbound nextOut;
    /** Set by the channel: the PSN of the last frame, once handed off. */
    long lastPsn;
    private int pattern = BLOCKING;

    /** Marks the communication pattern this message belongs to (the EPC communication marker). */
    public final void pattern(int p) {
        pattern = p;
    }

    /** The communication pattern ({@link #BLOCKING}, {@link #NONBLOCKING}, {@link #COLLECTIVE}). */
    public final int pattern() {
        return pattern;
    }

    /** Length (header included) of the next frame, given that a rail takes at most {@code maxFrame}. */
    protected abstract int nextFrameLength(int maxFrame);

    /**
     * Writes the next frame, header and payload, at {@code offset} in {@code seg}; exactly
     * {@code frameLength} bytes (the value {@link #nextFrameLength} just returned). The packet
     * sequence number is stamped by the channel afterwards. Returns true if that was the last frame.
     */
    protected abstract boolean writeFrame(MemorySegment seg, long offset, int frameLength);

    /**
     * Every frame has been handed to a rail (on a multi-rail channel, for a striped message: every
     * stripe has been acknowledged by the peer); the user's buffer may be reused.
     */
    protected abstract void onWritten();

    /**
     * True for a value of an iterative scheme (a VALUE frame, see {@code engine.ValueFlows}): the
     * channel writes it without a packet sequence number and keeps no copy for retransmission (the
     * stack floor may supersede or lose values), always on the first rail that is up, so a flow
     * keeps its order on a multi-rail channel. False by default.
     */
    protected boolean unsequenced() {
        return false;
    }

    /**
     * The payload bytes this outbound carries as offset-addressed DATA frames if its next frames are
     * bulk data the channel may split and spread, else -1 (the default: frames come in order from
     * {@link #writeFrame}).
     */
    protected long bulkBytes() {
        return -1;
    }

    /**
     * Writes one DATA frame of {@code frameLength} bytes at {@code offset} in {@code seg}, carrying
     * the payload bytes {@code [messageOffset, messageOffset + frameLength - header)}. Called only
     * when {@link #bulkBytes()} is not negative; each byte is asked for exactly once (more on a
     * retransmission, which the channel serves from its own copy).
     */
    protected void writeBulk(MemorySegment seg, long offset, int frameLength, long messageOffset) {
        throw new UnsupportedOperationException(getClass().getName() + " carries no bulk data");
    }
}
