package org.railyard.channel;

/**
 * Batch-based striping and sorting, BSS (seed 002 sec. 8.2.1): of the first {@code nPaths} rails,
 * each striped message uses the {@code nBatch} heaviest, in proportion to their weights; their
 * stripes are timed, the batch's total weight is redistributed among them by what each achieved
 * (eq. 8.3, history factor {@code alpha}), and the rails are sorted again, so paths that turn out
 * slow sink out of the batch and stop being used. All paths start with equal weights (eq. 8.1).
 *
 * <p>One addition to the paper: eq. 8.3 keeps a batch's total weight, so two paths measured in one
 * batch can never be compared with two measured in another, and a batch of equally slow paths
 * would keep its place for ever. Rails whose weights are within {@link #TIE} of each other are
 * therefore ordered by the bandwidth last measured on them, paths never measured first (try what
 * you do not know). With that, BSS leaves a batch of slow paths after one message.
 */
final class BssPolicy implements RailPolicy {
    /** Relative difference under which two weights count as equal for sorting. */
    static final double TIE = 0.05;

    private final int nPaths;
    private final int nBatch;
    private final double alpha;
    private final int[] order = new int[VirtualChannel.MAX_RAILS];
    private final Rail[] batch = new Rail[VirtualChannel.MAX_RAILS];
    private final long[] batchShare = new long[VirtualChannel.MAX_RAILS];

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

    /** Sorts the candidate rails (index below nPaths; all rails if none is) heaviest first into {@link #order}; returns how many. */
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
        // insertion sort: at most MAX_RAILS entries, and the comparison is not transitive across ties
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

    private static boolean before(Rail a, Rail b) {
        double wa = a.weight;
        double wb = b.weight;
        if (Math.abs(wa - wb) > TIE * Math.max(wa, wb)) {
            return wa > wb;
        }
        double ba = a.measuredBandwidth == 0 ? Double.POSITIVE_INFINITY : a.measuredBandwidth;
        double bb = b.measuredBandwidth == 0 ? Double.POSITIVE_INFINITY : b.measuredBandwidth;
        if (ba != bb) {
            return ba > bb;
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
        for (int i = 0; i < n; i++) {
            batch[i] = live[order[i]];
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
    }

    /** What the sort puts first, for tests: rail indices heaviest first. */
    int[] ranking(Rail[] live, int count) {
        int n = sort(live, count);
        int[] out = new int[n];
        for (int i = 0; i < n; i++) {
            out[i] = live[order[i]].index;
        }
        return out;
    }
}
