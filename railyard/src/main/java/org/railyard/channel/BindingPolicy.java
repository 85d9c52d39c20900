package org.railyard.channel;

/**
 * Binding (seed 002 sec. 4.1.2): one rail carries everything. Which rail depends on the pair of
 * processes ({@code (rank + peer) mod rails}, the same at both ends), so several processes of one
 * node that talk to several peers spread over the rails, each pair on its own. The least overhead.
 */
final class BindingPolicy implements RailPolicy {
    private final int pair;

    BindingPolicy(int rank, int peer) {
        this.pair = rank + peer;
    }

    @Override
    public String name() {
        return "binding";
    }

    @Override
    public int select(Rail[] live, int count, long bytes, int pattern, boolean bulk) {
        return pair % count;
    }
}
