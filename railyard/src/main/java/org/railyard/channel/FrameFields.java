package org.railyard.channel;

/**
 * The header fields of the next frame of an {@link Outbound}, as it describes them to the channel
 * ({@link Outbound#nextFrame}): everything in {@link org.railyard.wire.FrameHeader} but the frame
 * length and the packet sequence number, which only the channel knows. The channel keeps one and
 * writes the header from it, so describing a frame allocates nothing.
 */
public final class FrameFields {
    byte type;
    byte flags;
    int context;
    int source;
    int tag;
    int messageLength;
    long cookie;
    long arg;

    FrameFields() {
    }

    /** Sets every field; see {@link org.railyard.wire.FrameHeader} for what each means per frame type. */
    public void set(byte frameType, byte frameFlags, int frameContext, int frameSource, int frameTag, int length,
                    long frameCookie, long frameArg) {
        type = frameType;
        flags = frameFlags;
        context = frameContext;
        source = frameSource;
        tag = frameTag;
        messageLength = length;
        cookie = frameCookie;
        arg = frameArg;
    }
}
