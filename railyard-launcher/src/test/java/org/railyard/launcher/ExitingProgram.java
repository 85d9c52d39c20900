package org.railyard.launcher;

/** Calls each of the exits {@link ExitCalls} rewrites; loaded through a {@link RankLoader} by {@link RankLoaderTest}. */
public final class ExitingProgram {
    private ExitingProgram() {
    }

    public static void systemExit(int status) {
        System.exit(status);
    }

    public static void runtimeExit(int status) {
        Runtime.getRuntime().exit(status);
    }

    public static void halt(int status) {
        Runtime.getRuntime().halt(status);
    }

    /** A static field, to tell two loaders' copies apart. */
    public static int counter;

    public static int bump() {
        return ++counter;
    }
}
