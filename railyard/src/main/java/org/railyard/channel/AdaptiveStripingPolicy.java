package org.railyard.channel;

/**
 * Adaptive striping (seed 002 sec. 7.1.2): weighted striping whose weights follow the paths'
 * measured bandwidth. Each striped message's stripes are timed from hand-off to acknowledgement;
 * the total weight of the rails it used is then redistributed in proportion to what each stripe
 * achieved, keeping {@code 1 - alpha} of the old weights (eq. 7.4; alpha 1 is eq. 7.3). At the
 * fixed point every stripe of a message finishes at the same time. Small messages go on the
 * heaviest rail. A rail that comes back gets the mean weight of the others and is measured again.
 */
final class AdaptiveStripingPolicy extends ByWeightPolicy {
    /** A weight never drops below this share of the mean, so a slow rail still carries a small stripe and is remeasured. */
    static final double FLOOR = 0.02;

    private final double alpha;

    AdaptiveStripingPolicy(double alpha) {
        if (!(alpha > 0 && alpha <= 1)) {
            throw new IllegalArgumentException("adaptive striping needs 0 < alpha <= 1, got " + alpha);
        }
        this.alpha = alpha;
    }

    @Override
    public String name() {
        return "adaptive(alpha " + RailPolicies.number(alpha) + ")";
    }

    @Override
    public boolean adaptive() {
        return true;
    }

    @Override
    public void feedback(Rail[] used, long[] bytes, long[] nanos, int count) {
        Stripes.redistribute(used, bytes, nanos, count, alpha, FLOOR);
    }
}
