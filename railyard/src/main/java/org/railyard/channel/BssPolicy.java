package org.railyard.channel;

/**
 * Batch-based striping and sorting, BSS (seed 002 sec. 8.2.1): of the first {@code nPaths} rails,
 * each striped message uses a batch of the {@code nBatch} best, in proportion to their weights;
 * their stripes are timed, the batch's total weight is redistributed among them by what each
 * achieved (eq. 8.3, history factor {@code alpha}), and the rails are sorted again, so paths that
 * turn out slow sink out of the batch and stop being used. All paths start with equal weights
 * (eq. 8.1).
 *
 * <p>What the sort compares differs from the paper. Eq. 8.3 keeps a batch's total weight, so a
 * weight says how good a path is only against the paths it shared batches with: two slow paths
 * measured together keep their starting weights, a fast path that one noisy stripe knocked down
 * sinks below them, and BSS then stripes over slow paths for as long as they keep those weights.
 * So the rails are sorted by the bandwidth measured on them (bytes per second of their stripes,
 * smoothed with factor {@link #SMOOTHING}), paths never measured first (try what you do not know),
 * and a rail that joins the batch gets the weight its bandwidth is worth next to the members that
 * stay. Within the batch the weights still follow eq. 8.3.
 */
final class BssPolicy implements RailPolicy {
    /** Weight of a new measurement in a rail's bandwidth estimate. */
    static final double SMOOTHING = 0.5;

    private final int nPaths;
    private final int nBatch;
    private final double alpha;
    private final int[] order = new int[VirtualChannel.MAX_RAILS];
    private final Rail[] batch = new Rail[VirtualChannel.MAX_RAILS];
    private final long[] batchShare = new long[VirtualChannel.MAX_RAILS];
    /** Per rail index: the smoothed bandwidth (0: never measured), and whether it was in the last batch. */
    private final double[] estimate = new double[VirtualChannel.MAX_RAILS];
    private final boolean[] inBatch = new boolean[VirtualChannel.MAX_RAILS];

    BssPolicy(int nPaths, int nBatch, double alpha) {
        if (nPaths < 1 || nBatch < 1 || nBatch > nPaths) {
            throw new IllegalArgumentException("BSS needs 1 <= n_batch <= n_paths, got (" + nPaths + "," + nBatch + ")");
        }
        if (!(alpha > 0 && alpha <= 1)) {
            throw new IllegalArgumentException("BSS needs 0 < alpha <= 1, got " + alpha);
        }
        this.nPaths = nPaths;
        this.nBatch = nBatch;
        this.alpha = alpha;
    }

    @Override
    public String name() {
        return "bss(" + nPaths + "," + nBatch + ") alpha " + RailPolicies.number(alpha);
    }

    /** Sorts the candidate rails (index below nPaths; all rails if none is) best first into {@link #order}; returns how many. */
    private int sort(Rail[] live, int count) {
        int n = 0;
        for (int i = 0; i < count; i++) {
            if (live[i].index < nPaths) {
                order[n++] = i;
            }
        }
        if (n == 0) {
            for (int i = 0; i < count; i++) {
                order[n++] = i;
            }
        }
        for (int i = 1; i < n; i++) {
            int x = order[i];
            int j = i - 1;
            while (j >= 0 && before(live[x], live[order[j]])) {
                order[j + 1] = order[j];
                j--;
            }
            order[j + 1] = x;
        }
        return n;
    }

    private boolean before(Rail a, Rail b) {
        double ea = estimate[a.index] == 0 ? Double.POSITIVE_INFINITY : estimate[a.index];
        double eb = estimate[b.index] == 0 ? Double.POSITIVE_INFINITY : estimate[b.index];
        if (ea != eb) {
            return ea > eb;
        }
        return a.index < b.index;
    }

    @Override
    public int select(Rail[] live, int count, long bytes, int pattern, boolean bulk) {
        sort(live, count);
        return order[0];
    }

    @Override
    public boolean stripes(int pattern) {
        return true;
    }

    @Override
    public boolean adaptive() {
        return true;
    }

    @Override
    public void plan(Rail[] live, int count, long bytes, long[] share) {
        int n = Math.min(nBatch, sort(live, count));
        double stayWeight = 0;
        double stayEstimate = 0;
        for (int i = 0; i < n; i++) {
            batch[i] = live[order[i]];
            if (inBatch[batch[i].index] && estimate[batch[i].index] > 0) {
                stayWeight += batch[i].weight;
                stayEstimate += estimate[batch[i].index];
            }
        }
        for (int i = 0; i < n; i++) {
            Rail r = batch[i];
            if (!inBatch[r.index] && estimate[r.index] > 0 && stayEstimate > 0) {
                r.weight = estimate[r.index] * (stayWeight / stayEstimate); // joins at what it is worth
            }
        }
        java.util.Arrays.fill(inBatch, false);
        for (int i = 0; i < n; i++) {
            inBatch[batch[i].index] = true;
        }
        Stripes.byWeight(batch, n, bytes, batchShare);
        for (int i = 0; i < count; i++) {
            share[i] = 0;
        }
        for (int i = 0; i < n; i++) {
            share[order[i]] = batchShare[i];
        }
    }

    @Override
    public void feedback(Rail[] used, long[] bytes, long[] nanos, int count) {
        Stripes.redistribute(used, bytes, nanos, count, alpha, 0);
        for (int i = 0; i < count; i++) {
            int k = used[i].index;
            double bw = used[i].measuredBandwidth;
            estimate[k] = estimate[k] == 0 ? bw : (1 - SMOOTHING) * estimate[k] + SMOOTHING * bw;
        }
    }

    /** What the sort puts first, for tests: rail indices best first. */
    int[] ranking(Rail[] live, int count) {
        int n = sort(live, count);
        int[] out = new int[n];
        for (int i = 0; i < n; i++) {
            out[i] = live[order[i]].index;
        }
        return out;
    }
}
