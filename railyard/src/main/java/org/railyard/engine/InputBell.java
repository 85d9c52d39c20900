package org.railyard.engine;

import java.util.function.IntSupplier;
import org.railyard.channel.ChannelTable;
import org.railyard.engine.progress.Progress;

/**
 * The bell of a process whose every peer is relayed ({@link org.railyard.util.IdlePlan#sleepsOnInput}): waiters
 * sleep on the relay connection's input, which every peer's frame rings; a thread that did work
 * wakes sleepers on both it and the doorbell (a thread of this process may sleep on either).
 * Never "all ring": a frame to this process from itself rings the doorbell only, so a sleep
 * stays bounded by the waiter's interval.
 */
record InputBell(ChannelTable channels) implements Progress.Bell {
    @Override
    public boolean usable() {
        return channels.inputBellUsable();
    }

    @Override
    public boolean sleep(long nanos, IntSupplier lastLook) {
        return channels.sleepOnInput(nanos, lastLook);
    }

    @Override
    public void wakeSleepers() {
        channels.wakeInputSleepers();
        channels.wakeSleepers();
    }

    @Override
    public boolean allRing() {
        return false;
    }
}
