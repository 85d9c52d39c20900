package org.railyard.channel;

import java.util.Arrays;

/**
 * Weighted striping (seed 002 sec. 4.1.2): stripes in proportion to fixed weights given per rail
 * index ({@code weighted:3,1}: rail 0 gets three parts, rail 1 one; the list repeats for more rails),
 * for rails whose bandwidths are known and differ. Small messages go on the heaviest rail.
 */
final class WeightedStripingPolicy extends ByWeightPolicy {
    private final double[] weights;

    WeightedStripingPolicy(double[] weights) {
        if (weights.length == 0) {
            throw new IllegalArgumentException("weighted striping needs at least one weight");
        }
        for (double w : weights) {
            if (!(w > 0)) {
                throw new IllegalArgumentException("weighted striping weights must be positive, got " + Arrays.toString(weights));
            }
        }
        this.weights = weights.clone();
    }

    @Override
    public String name() {
        StringBuilder sb = new StringBuilder("weighted(");
        for (int i = 0; i < weights.length; i++) {
            sb.append(i == 0 ? "" : ",").append(RailPolicies.number(weights[i]));
        }
        return sb.append(')').toString();
    }

    @Override
    public double freshWeight(Rail rail, Rail[] live, int count) {
        return weights[rail.index % weights.length];
    }
}
