package org.railyard.bench;

import java.util.function.Function;

/**
 * How the main of a benchmark rank refuses to start: a bad argument, or a job too small for the
 * benchmark, ends the process with status 2 and one line on standard error that names the program.
 */
final class RankMain {
    private RankMain() {
    }

    /** The options {@code parse} makes of {@code args}; its {@link IllegalArgumentException} refuses the start. */
    static <T> T options(String program, String[] args, Function<String[], T> parse) {
        try {
            return parse.apply(args);
        } catch (IllegalArgumentException e) {
            refuse(program, e.getMessage());
            throw new AssertionError("unreachable: the process has exited");
        }
    }

    /** Prints {@code PROGRAM: MESSAGE} on standard error and exits with status 2. */
    static void refuse(String program, String message) {
        System.err.println(program + ": " + message);
        System.exit(2);
    }
}
