package org.railyard.systest;

import org.junit.jupiter.api.Assumptions;

/**
 * The heaviest rows of the system tests' matrices (8 JVMs of a kind already covered at 4 ranks,
 * the same check over a second transport) run only when {@code RAILYARD_FULL_MATRIX=1}; the
 * README's test command runs every other row, so that CI stays within its time budget. They
 * show as skipped, with the reason, in the test report: nothing is left out silently.
 */
public final class FullMatrix {
    /** The environment variable that turns the heavy rows on. */
    public static final String ENV = "RAILYARD_FULL_MATRIX";

    private FullMatrix() {
    }

    /** Whether the heavy rows run. */
    public static boolean on() {
        String v = System.getenv(ENV);
        return v != null && (v.equals("1") || v.equalsIgnoreCase("true"));
    }

    /** Skips the calling test row, naming it, unless the full matrix was asked for. */
    public static void heavyRow(String row) {
        Assumptions.assumeTrue(on(), () -> row + ": a heavy row of the matrix, run with " + ENV + "=1");
    }
}
