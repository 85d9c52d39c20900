package org.railyard.channel;

/**
 * What the weight-driven striping policies share: large data is striped in proportion to the rails'
 * weights ({@link RailPolicy#plan}'s default), and a message that goes whole takes the heaviest rail,
 * the best path known (seed 002 sec. 10.2.3: below the striping threshold, the primary path).
 */
abstract class ByWeightPolicy implements RailPolicy {
    @Override
    public int select(Rail[] live, int count, long bytes, int pattern, boolean bulk) {
        return Stripes.heaviest(live, count);
    }

    @Override
    public boolean stripes(int pattern) {
        return true;
    }
}
