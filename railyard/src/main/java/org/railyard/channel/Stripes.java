package org.railyard.channel;

/** Splitting a message into stripes by weight; shared by the striping policies. */
final class Stripes {
    private Stripes() {
    }

    /** A rail whose share would be smaller than this gets none (a stripe costs an acknowledgement). */
    static final long MIN_STRIPE = 8 * 1024;

    /** Shares in proportion to the weights of {@code live[0..count)}. */
    static void byWeight(Rail[] live, int count, long bytes, long[] share) {
        double total = 0;
        for (int i = 0; i < count; i++) {
            total += live[i].weight;
        }
        int heaviest = 0;
        long assigned = 0;
        for (int i = 0; i < count; i++) {
            double w = live[i].weight;
            long s = total > 0 ? ((long) (bytes * (w / total))) & ~7L : 0;
            share[i] = s >= MIN_STRIPE ? s : 0;
            assigned += share[i];
            if (w > live[heaviest].weight) {
                heaviest = i;
            }
        }
        finish(count, bytes, share, assigned, heaviest);
    }

    /** Equal shares over {@code live[0..count)}. */
    static void evenly(int count, long bytes, long[] share) {
        long each = (bytes / count) & ~7L;
        long assigned = 0;
        for (int i = 0; i < count; i++) {
            share[i] = each >= MIN_STRIPE ? each : 0;
            assigned += share[i];
        }
        finish(count, bytes, share, assigned, 0);
    }

    /**
     * Gives what rounding left over to {@code heaviest} (whole multiples of 8) and the last few
     * bytes to the last stripe in message order, so every stripe but the last starts and ends on
     * a multiple of 8 (the engine's DATA frames keep elements whole that way).
     */
    private static void finish(int count, long bytes, long[] share, long assigned, int heaviest) {
        long rest = bytes - assigned;
        share[heaviest] += rest & ~7L;
        int last = -1;
        for (int i = 0; i < count; i++) {
            if (share[i] > 0) {
                last = i;
            }
        }
        share[last < 0 ? heaviest : last] += rest & 7L;
    }

    /** Mean weight of the rails, or 1 when there are none. */
    static double meanWeight(Rail[] live, int count) {
        if (count == 0) {
            return 1;
        }
        double sum = 0;
        for (int i = 0; i < count; i++) {
            sum += live[i].weight;
        }
        return sum / count;
    }

    /** Index of the heaviest rail (the lowest index among equals): where small messages go. */
    static int heaviest(Rail[] live, int count) {
        int best = 0;
        for (int i = 1; i < count; i++) {
            if (live[i].weight > live[best].weight) {
                best = i;
            }
        }
        return best;
    }

    /**
     * Seed 002 eq. 7.4 / 8.3 over the rails of one message: the total weight of those rails is kept
     * and redistributed in proportion to the bandwidth each stripe achieved (bytes / time, which is
     * eq. 7.1's BW_i with W_i/W_total * S = the stripe's bytes), blended with the old weights by
     * {@code alpha}. Weights never fall below {@code floor} times the mean, so a rail can come back.
     */
    static void redistribute(Rail[] used, long[] bytes, long[] nanos, int count, double alpha, double floor) {
        double total = 0;
        double bwSum = 0;
        for (int i = 0; i < count; i++) {
            total += used[i].weight;
            double bw = bytes[i] * 1e9 / nanos[i];
            used[i].measuredBandwidth = bw;
            bwSum += bw;
        }
        if (bwSum <= 0 || total <= 0) {
            return;
        }
        double min = floor * total / count;
        for (int i = 0; i < count; i++) {
            double target = total * (used[i].measuredBandwidth / bwSum);
            used[i].weight = Math.max(min, (1 - alpha) * used[i].weight + alpha * target);
        }
    }
}
