package org.railyard.engine.p2p;

import java.lang.foreign.MemorySegment;
import org.railyard.channel.FrameFields;
import org.railyard.channel.VirtualChannel;
import org.railyard.engine.request.Transfer;
import org.railyard.error.ErrorClass;
import org.railyard.wire.FrameHeader;
import org.railyard.wire.FrameType;

/**
 * A receive. Posted, it waits in the engine's list until a message matches; matched to a
 * rendezvous, it sends a CTS naming itself and collects the DATA frames that follow. A message
 * longer than the buffer is still drained to its end, then the receive fails with TRUNCATE.
 */
final class RecvTransfer extends Transfer {
    /** World rank of the matched sender, and its request id (for CTS). */
    int matchedSource;
    long senderCookie;
    long messageBytes;
    long received;
    boolean rendezvous;
    /** The payload was read from the sender's memory; the CTS tells the sender so ({@link FrameHeader#FLAG_READ_DONE}). */
    boolean readDone;
    VirtualChannel channel;
    /** This process's world rank, the source of the CTS. */
    private final int rank;
    /** The list of posted receives ({@link Matching}). */
    RecvTransfer nextMatch;
    RecvTransfer prevMatch;

    RecvTransfer(Owner owner, int rank) {
        super(owner);
        this.rank = rank;
    }

    @Override
    public String describe() {
        String from = peer == PointToPoint.ANY_SOURCE ? "any source" : "rank " + peer;
        String what = "receive from " + from + ", context " + context + ", tag "
                + (tag == PointToPoint.ANY_TAG ? "any" : "0x" + Integer.toHexString(tag)) + ", up to " + capacityBytes + " B";
        return messageBytes == 0 && !rendezvous ? what
                : what + ", matched rank " + matchedSource + (rendezvous ? " (rendezvous)" : "") + ", " + received + " of "
                + messageBytes + " B in";
    }

    /** True if a message of {@code ctx}, world rank {@code src} and {@code msgTag} matches this receive. */
    boolean matches(int ctx, int src, int msgTag) {
        return context == ctx && (peer == PointToPoint.ANY_SOURCE || peer == src) && (tag == PointToPoint.ANY_TAG || tag == msgTag);
    }

    /** Records the match; the status is written now, the data as it comes. */
    void matched(int sourceWorld, int msgTag, long msgBytes) {
        matchedSource = sourceWorld;
        messageBytes = msgBytes;
        statusSource = comm.localRank(sourceWorld);
        statusTag = msgTag;
        statusBytes = msgBytes;
        received = 0;
    }

    /** Copies a piece of the message at {@code msgOff}, dropping what does not fit. */
    void deliver(MemorySegment seg, long off, long msgOff, long len) {
        long fit = Math.max(0, Math.min(len, capacityBytes - msgOff));
        kind.copyIn(seg, off, buf, offset, msgOff, fit);
        received += len;
    }

    /** Completes once every byte is in; fails with TRUNCATE if the message was too long. */
    void finishIfComplete() {
        if (received < messageBytes) {
            return;
        }
        if (messageBytes > capacityBytes) {
            statusBytes = capacityBytes;
            fail(ErrorClass.TRUNCATE, "message of " + messageBytes + " bytes from rank " + statusSource + " tag " + statusTag
                    + " on " + comm.name() + " truncated: the receive buffer holds " + capacityBytes + " bytes");
            return;
        }
        complete();
    }

    /** The CTS naming this receive. */
    @Override
    protected int nextFrame(FrameFields header, int maxPayload) {
        header.set(FrameType.CTS, (byte) (readDone ? FrameHeader.FLAG_READ_DONE : 0), context, rank, statusTag,
                (int) messageBytes, senderCookie, id);
        return 0;
    }

    @Override
    protected boolean writePayload(MemorySegment seg, long off, int length) {
        return true;
    }

    @Override
    protected void onWritten() {
        if (messageBytes == 0 || readDone) {
            finishIfComplete();
        }
    }

    @Override
    public String toString() {
        return "receive from " + (peer == PointToPoint.ANY_SOURCE ? "any source" : "world rank " + peer)
                + " tag " + (tag == PointToPoint.ANY_TAG ? "any" : String.valueOf(tag)) + ", up to " + capacityBytes + " B";
    }
}
