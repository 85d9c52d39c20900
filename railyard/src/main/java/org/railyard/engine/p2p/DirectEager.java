package org.railyard.engine.p2p;

import java.lang.foreign.MemorySegment;
import org.railyard.channel.FrameFields;
import org.railyard.channel.Outbound;
import org.railyard.types.Kind;
import org.railyard.wire.FrameType;

/**
 * A small message offered to a channel to go at once ({@code VirtualChannel.sendNow}): one EAGER
 * frame, and no request, since the call returns with the payload in the rail's memory. The
 * {@link Eager} protocol keeps one, filled and used under the progress lock, so the latency path
 * allocates nothing.
 */
final class DirectEager extends Outbound {
    private int context;
    private int source;
    private int tag;
    private Object buf;
    private Kind kind;
    private int offset;
    private long bytes;

    /** Describes the message; returns this. */
    DirectEager set(int ctx, int sourceWorld, int msgTag, Object buffer, Kind k, int off, long length) {
        context = ctx;
        source = sourceWorld;
        tag = msgTag;
        buf = buffer;
        kind = k;
        offset = off;
        bytes = length;
        return this;
    }

    /** Forgets the user's buffer once the offer was taken or refused. */
    void clear() {
        buf = null;
    }

    @Override
    protected int nextFrame(FrameFields header, int maxPayload) {
        header.set(FrameType.EAGER, (byte) 0, context, source, tag, (int) bytes, 0, 0);
        return (int) bytes;
    }

    @Override
    protected boolean writePayload(MemorySegment seg, long offset, int length) {
        kind.copyOut(buf, this.offset, 0, seg, offset, bytes);
        return true;
    }

    @Override
    protected void onWritten() {
    }
}
