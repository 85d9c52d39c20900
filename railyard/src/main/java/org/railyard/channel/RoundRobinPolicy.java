package org.railyard.channel;

/**
 * Round robin and window round robin (seed 002 sec. 4.1.2): whole messages go to the rails in turn,
 * {@code window} consecutive messages per rail before moving on ({@code window} 1 is plain round
 * robin); envelopes and rendezvous data take turns separately. A larger window keeps consecutive messages on one rail, so rails of different latency
 * cause fewer messages out of order. Never stripes.
 */
final class RoundRobinPolicy implements RailPolicy {
    private final int window;
    /** Per kind (envelopes, bulk data): the rail in turn and how many messages it took. */
    private final int[] next = new int[2];
    private final int[] used = new int[2];

    RoundRobinPolicy(int window) {
        if (window < 1) {
            throw new IllegalArgumentException("window round robin needs a window of at least 1, got " + window);
        }
        this.window = window;
    }

    @Override
    public String name() {
        return window == 1 ? "rr" : "wrr(" + window + ")";
    }

    @Override
    public int select(Rail[] live, int count, long bytes, int pattern, boolean bulk) {
        int k = bulk ? 1 : 0;
        if (used[k] >= window) {
            used[k] = 0;
            next[k]++;
        }
        used[k]++;
        return Math.floorMod(next[k], count);
    }
}
