package org.railyard.channel;

/**
 * Even striping (seed 002 sec. 4.1.2): large rendezvous data is cut into equal stripes, one per rail
 * that is up; the right choice for rails of equal bandwidth. Small messages go on the first rail.
 */
final class EvenStripingPolicy implements RailPolicy {
    @Override
    public String name() {
        return "even";
    }

    @Override
    public int select(Rail[] live, int count, long bytes, int pattern, boolean bulk) {
        return 0;
    }

    @Override
    public boolean stripes(int pattern) {
        return true;
    }

    @Override
    public void plan(Rail[] live, int count, long bytes, long[] share) {
        Stripes.evenly(count, bytes, share);
    }
}
