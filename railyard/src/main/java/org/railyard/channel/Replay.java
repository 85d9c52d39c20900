package org.railyard.channel;

import java.io.IOException;
import java.time.Duration;
import org.railyard.transport.ReplayLog;

/**
 * What the channel floor offers a checkpoint of the started transport that keeps every frame
 * outside this process (the relay transport in replay mode; see {@link ReplayLog}), so that the
 * engine reaches it through this floor and never names a transport type.
 */
public final class Replay {
    private final ReplayLog log;

    Replay(ReplayLog log) {
        this.log = log;
    }

    /** Per peer, the last sequence number handed to the channel: the replay position (progress lock held). */
    public long[] consumed() {
        return log.consumed();
    }

    /** Per peer, the last sequence number given to a frame sent (progress lock held). */
    public long[] sent() {
        return log.sent();
    }

    /** Waits until every frame sent is stored outside this process; an IOException naming the store after {@code bound}. */
    public void awaitStored(Duration bound) throws IOException {
        log.awaitStored(bound);
    }

    /** The checkpoint holding {@code consumed} is stored: the frames up to it may be freed. */
    public void release(long[] consumed) {
        log.release(consumed);
    }
}
