package org.railyard.channel;

import java.lang.foreign.MemorySegment;

/** The engine, as the channel floor sees it: where frames go up, and where failures are told. */
public interface FrameSink {
    /**
     * A frame from {@code from}'s peer, in order (by packet sequence number), valid only during the
     * call. The engine copies what it keeps.
     */
    void onFrame(VirtualChannel from, MemorySegment seg, long offset, int length);

    /**
     * The channel can carry nothing more: its peer failed, could not be reached, or said goodbye
     * ({@code orderly}). Everything queued on it is handed back through {@code pending}, so the
     * engine can fail those operations.
     */
    void onChannelDown(VirtualChannel channel, String why, boolean orderly);
}
