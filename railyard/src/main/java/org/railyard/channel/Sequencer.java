package org.railyard.channel;

import java.lang.foreign.MemorySegment;
import org.railyard.wire.FrameHeader;
import org.railyard.wire.FrameType;

/**
 * The order of one channel's frames: the packet sequence number (PSN) stamped on each sequenced
 * frame sent, the expected sequence number (ESN) of the next frame to deliver, the frames of a
 * multi-rail channel that came ahead of their turn, and the completion filter (a striped message
 * completes on the sender once the peer acknowledged every packet of it).
 *
 * <p>Receiving: a frame whose PSN is the ESN goes up at once, followed by every frame held back
 * that it unblocks. A frame ahead of its turn is copied aside ({@link ReorderBuffer}), except
 * rendezvous data, which names its offset and its receive and so goes up at once, leaving only a
 * mark. A frame with a PSN already delivered or held is a duplicate. Nothing here knows rails or
 * acknowledgements; the channel reports what the peer acknowledged ({@link #acknowledged}).
 *
 * <p>Driven only by the thread that drives its channel.
 */
final class Sequencer {
    /** {@link #early}: the frame was copied aside until its turn. */
    static final int HELD = 0;
    /** {@link #early}: rendezvous data that goes up now; only its PSN is marked. */
    static final int DELIVER_EARLY = 1;
    /** {@link #early}: a PSN delivered or held already. */
    static final int DUPLICATE = 2;
    /** {@link #early}: a PSN the peer cannot have sent (beyond its retransmit buffer). */
    static final int IMPOSSIBLE = 3;

    /** Where frames go up in order. */
    interface Delivery {
        /** Delivers one frame; false once the channel can take no more (it went down). */
        boolean deliverInOrder(MemorySegment seg, long offset, int length, byte type);
    }

    private final long aheadBound;
    private long nextPsn;
    private long expectedPsn;
    private long ackedPsn;
    private ReorderBuffer reorder;
    private final OutboundQueue awaiting = new OutboundQueue();
    /** Frames that arrived ahead of their turn and were held back (for tests and diagnostics). */
    long reordered;

    /** @param aheadBound how many packets beyond the ESN the peer can have in flight at most */
    Sequencer(long aheadBound) {
        this.aheadBound = aheadBound;
    }

    /** From now on frames may arrive out of order (the channel has several rails). */
    void expectReordering() {
        if (reorder == null) {
            reorder = new ReorderBuffer();
        }
    }

    /** The PSN for the next sequenced frame sent; each call takes one. */
    long stamp() {
        return nextPsn++;
    }

    /** The PSN the next sequenced frame will get (one above the last stamped). */
    long nextPsn() {
        return nextPsn;
    }

    /** The expected sequence number: the PSN of the next frame to deliver. */
    long expected() {
        return expectedPsn;
    }

    /** The peer acknowledged every packet below this PSN. */
    long acked() {
        return ackedPsn;
    }

    /** A rank started from a checkpoint: the sequence numbers continue from where they were. */
    void resume(long next, long expected, long acked) {
        nextPsn = next;
        expectedPsn = expected;
        ackedPsn = acked;
    }

    /** True if {@code psn} is the next frame to deliver. */
    boolean inTurn(long psn) {
        return psn == expectedPsn;
    }

    /**
     * The frame with the expected PSN arrived: delivers it, then every held frame it unblocks, while
     * {@code up} takes them.
     */
    void deliverInTurn(MemorySegment seg, long offset, int length, byte type, Delivery up) {
        expectedPsn++;
        if (!up.deliverInOrder(seg, offset, length, type) || reorder == null) {
            return;
        }
        while (reorder.count() > 0) {
            int slot = reorder.slot(expectedPsn);
            if (slot < 0) {
                return;
            }
            MemorySegment f = reorder.frame(slot);
            expectedPsn++;
            boolean more = f == null || up.deliverInOrder(f, 0, reorder.length(slot), FrameHeader.type(f, 0));
            reorder.free(slot);
            if (!more) {
                return;
            }
        }
    }

    /**
     * A frame with a PSN other than the expected one, on a channel that expects reordering: one of
     * {@link #HELD}, {@link #DELIVER_EARLY} (the caller hands it up now), {@link #DUPLICATE},
     * {@link #IMPOSSIBLE}.
     */
    int early(long psn, byte type, MemorySegment seg, long offset, int length) {
        if (psn < expectedPsn) {
            return DUPLICATE;
        }
        if (psn >= expectedPsn + aheadBound) {
            return IMPOSSIBLE;
        }
        if (type == FrameType.DATA) {
            // rendezvous data names its offset and the receive it belongs to, which the receiver set
            // up before it answered CTS: it goes up now, uncopied; its PSN is only marked, so the
            // sequence still advances over it and a second copy is still a duplicate
            return reorder.markDelivered(psn, expectedPsn) ? DELIVER_EARLY : DUPLICATE;
        }
        if (reorder.put(psn, expectedPsn, seg, offset, length)) {
            reordered++;
            return HELD;
        }
        return DUPLICATE;
    }

    /** A message whose last packet is {@code o.lastPsn} completes once the peer acknowledged it. */
    void completeWhenAcknowledged(Outbound o) {
        awaiting.add(o);
        completeAcknowledged();
    }

    /** True if a message waits for the peer's acknowledgement. */
    boolean awaiting() {
        return !awaiting.isEmpty();
    }

    /**
     * The peer acknowledged every packet below {@code next}; completes the messages that covers.
     * Returns true if that moved the acknowledged mark.
     */
    boolean acknowledged(long next) {
        if (next <= ackedPsn) {
            return false;
        }
        ackedPsn = next;
        completeAcknowledged();
        return true;
    }

    private void completeAcknowledged() {
        while (!awaiting.isEmpty() && awaiting.head().lastPsn < ackedPsn) {
            awaiting.pop().onWritten();
        }
    }

    /** The channel is down: forgets held frames and messages waiting for acknowledgement. */
    void clear() {
        awaiting.clear();
        if (reorder != null) {
            reorder.clear();
        }
    }
}
