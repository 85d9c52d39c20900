package org.railyard.channel;

import java.lang.foreign.MemorySegment;
import org.railyard.wire.FrameHeader;
import org.railyard.wire.FrameType;

/** The goodbye a channel queues after everything else: the peer then reads the end of stream as orderly. */
final class ByeOutbound extends Outbound {
    private final int source;

    ByeOutbound(int source) {
        this.source = source;
    }

    @Override
    protected int nextFrame(FrameFields header, int maxPayload) {
        // acknowledged at once, so a peer that is closing learns early that nothing is left to resend
        header.set(FrameType.BYE, FrameHeader.FLAG_ACK_REQUEST, 0, source, 0, 0, 0, 0);
        return 0;
    }

    @Override
    protected boolean writePayload(MemorySegment seg, long offset, int length) {
        return true;
    }

    @Override
    protected void onWritten() {
    }
}
