package org.railyard.bench;

import java.util.function.Function;
import org.railyard.util.Config;

/**
 * How the main of a benchmark rank reads its arguments and refuses to start: a bad argument, or a
 * job too small for the benchmark, ends the process with status 2 and one line on standard error
 * that names the program.
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

    /** The value of {@code option}, {@code args[i]}; an {@link IllegalArgumentException} if the arguments end first. */
    static String value(String[] args, int i, String option) {
        if (i >= args.length) {
            throw new IllegalArgumentException(option + " needs a value");
        }
        return args[i];
    }

    /** {@code v}, the value of {@code option}, as a positive whole number; an {@link IllegalArgumentException} if it is not one. */
    static long positive(String v, String option) {
        try {
            long n = Long.parseLong(v.trim());
            if (n > 0) {
                return n;
            }
        } catch (NumberFormatException e) {
            // reported below
        }
        throw new IllegalArgumentException(option + ": expected a positive whole number, got '" + v + "'");
    }

    /**
     * The transport column of the results: {@code given} (the rank's {@code --transport}) when not
     * null, else the transports the job may use ({@code RAILYARD_TRANSPORTS}) without white space,
     * or {@code auto} when that is unset.
     */
    static String transportLabel(String given) {
        if (given != null) {
            return given;
        }
        String t = Config.string(Config.TRANSPORTS_PROP, Config.TRANSPORTS_DEFAULT);
        return t.isBlank() ? "auto" : t.replaceAll("\\s+", "");
    }

    /** Prints {@code PROGRAM: MESSAGE} on standard error and exits with status 2. */
    static void refuse(String program, String message) {
        System.err.println(program + ": " + message);
        System.exit(2);
    }
}
