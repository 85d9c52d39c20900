package org.railyard.channel;

import java.lang.foreign.MemorySegment;

/**
 * Something the engine wants carried to a peer as one or more frames: a message (eager, or the
 * request-to-send and later the data of a rendezvous), a control answer, or a value of an
 * iterative scheme. The outbound describes each frame (its header fields and payload length,
 * {@link #nextFrame}) and writes its payload; the channel claims the room on a rail, writes the
 * header, stamps the packet sequence number and commits. No floor above the channel writes a
 * frame header. The queue link lives in the object itself, so queueing allocates nothing.
 *
 * <p>Bulk data (rendezvous payload) may instead expose itself with {@link #bulkBytes()}: the
 * channel then asks for DATA frames by message offset ({@link #writeBulk}), in whatever order its
 * rails take them, which is what lets a message be striped over several rails. Each DATA frame
 * names its offset (the header's {@code arg}), so the receiver places it wherever it arrives from.
 *
 * <p>A frame whose type is outside the packet sequence (VALUE, see {@code engine.ValueFlows}) is
 * written without a packet sequence number and no copy is kept for retransmission (the stack floor
 * may supersede or lose values); it always goes on the first rail that is up, so a flow keeps its
 * order on a multi-rail channel.
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

    /**
     * Describes the next frame: sets its header fields in {@code header} and returns its payload
     * length, at most {@code maxPayload} (what the rail takes). Asked again, before the frame is
     * written, it gives the same answer.
     */
    protected abstract int nextFrame(FrameFields header, int maxPayload);

    /**
     * Writes the payload of the frame {@link #nextFrame} just described: exactly {@code length}
     * bytes at {@code offset} in {@code seg} (after the header the channel wrote). Returns true if
     * that was the last frame.
     */
    protected abstract boolean writePayload(MemorySegment seg, long offset, int length);

    /**
     * Every frame has been handed to a rail (on a multi-rail channel, for a striped message: every
     * stripe has been acknowledged by the peer); the user's buffer may be reused.
     */
    protected abstract void onWritten();

    /**
     * The payload bytes this outbound carries as offset-addressed DATA frames if its next frames are
     * bulk data the channel may split and spread, else -1 (the default: frames come in order from
     * {@link #nextFrame}).
     */
    protected long bulkBytes() {
        return -1;
    }

    /**
     * The header fields shared by every DATA frame of the bulk data; the channel sets {@code arg}
     * to each frame's message offset. Called only when {@link #bulkBytes()} is not negative.
     */
    protected void bulkHeader(FrameFields header) {
        throw new UnsupportedOperationException(getClass().getName() + " carries no bulk data");
    }

    /**
     * Writes the payload of one DATA frame: the message bytes {@code [messageOffset, messageOffset +
     * length)} at {@code offset} in {@code seg}. Called only when {@link #bulkBytes()} is not
     * negative; each byte is asked for exactly once (more on a retransmission, which the channel
     * serves from its own copy).
     */
    protected void writeBulk(MemorySegment seg, long offset, int length, long messageOffset) {
        throw new UnsupportedOperationException(getClass().getName() + " carries no bulk data");
    }
}
