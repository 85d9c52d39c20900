package org.railyard.testkit;

import java.util.function.IntUnaryOperator;

/**
 * Where the blocks of a v-collective (alltoallv, gatherv, ...) lie in a test's buffer: blocks of
 * the given counts laid one after another from a first element, with a gap of elements left after
 * each, in rank order or from the last rank's block back to the first's.
 *
 * @param counts the elements of each rank's block
 * @param displs where each rank's block starts
 * @param length the elements a buffer needs to hold the blocks (and the gap after the last laid)
 */
public record Blocks(int[] counts, int[] displs, int length) {
    /** The counts {@code count(r)} of the ranks r from 0 to {@code n - 1}. */
    public static int[] counts(int n, IntUnaryOperator count) {
        int[] c = new int[n];
        for (int r = 0; r < n; r++) {
            c[r] = count.applyAsInt(r);
        }
        return c;
    }

    /** Blocks of {@code counts} laid in rank order from element {@code first}, {@code gap} elements after each. */
    public static Blocks inOrder(int[] counts, int first, int gap) {
        return laid(counts, first, gap, false);
    }

    /** Blocks of {@code counts} laid from the last rank's to the first's, from element {@code first}, {@code gap} after each. */
    public static Blocks backwards(int[] counts, int first, int gap) {
        return laid(counts, first, gap, true);
    }

    private static Blocks laid(int[] counts, int first, int gap, boolean backwards) {
        int n = counts.length;
        int[] displs = new int[n];
        int at = first;
        for (int i = 0; i < n; i++) {
            int r = backwards ? n - 1 - i : i;
            displs[r] = at;
            at += counts[r] + gap;
        }
        return new Blocks(counts, displs, at);
    }
}
