package org.railyard.transport;

import java.io.IOException;
import java.time.Duration;

/**
 * A transport that keeps, outside this process, every frame sent to it in the order it was
 * delivered (the relay transport in replay mode), so that a rank started again from a checkpoint
 * can be given again what came after it. What a checkpoint asks of it.
 */
public interface ReplayLog {
    /** Per peer, the last sequence number handed to the channel: the replay position (progress lock held). */
    long[] consumed();

    /** Per peer, the last sequence number given to a frame sent (progress lock held). */
    long[] sent();

    /** Waits until every frame sent is stored outside this process; an IOException naming the store after {@code bound}. */
    void awaitStored(Duration bound) throws IOException;

    /** The checkpoint holding {@code consumed} is stored: the frames up to it may be freed. */
    void release(long[] consumed);
}
