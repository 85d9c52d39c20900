package org.railyard.launcher;

import java.util.function.IntConsumer;

/**
 * What {@code System.exit}, {@code Runtime.exit} and {@code Runtime.halt} become in a rank that
 * runs as a thread ({@code railyard run --threads}). JDK 25 has no security manager, so a call to
 * {@code System.exit} cannot be refused once made; instead the rank's class loader
 * ({@link RankLoader}) rewrites each such call site in the classes it defines ({@link ExitCalls})
 * into a call to this class's static methods, which report the status to the launcher and unwind
 * the calling thread by throwing this error.
 *
 * <p>Each rank's loader defines its own copy of this class from the job's class path, so
 * {@link #hook} is per rank; the launcher sets it by reflection ({@code setHook}) before the
 * rank's main runs and recognises the error by its class name, not its class.
 *
 * <p>What this cannot catch: a call made through reflection or a method handle, a call from a
 * class of the JDK on the rank's behalf, and a program that catches {@code Throwable} around its
 * own exit call and carries on (the status is reported all the same, and the launcher treats the
 * rank as ended).
 */
public final class RankExit extends Error {
    private static final long serialVersionUID = 1L;

    private static volatile IntConsumer hook;

    private final int status;

    private RankExit(int status) {
        super("rank called exit(" + status + ")", null, false, false);
        this.status = status;
    }

    /** The status given to the exit call. */
    public int status() {
        return status;
    }

    /** Where this rank's exit calls are reported (the launcher's, set once before main). */
    public static void setHook(IntConsumer h) {
        hook = h;
    }

    /** Replaces {@code System.exit(status)}. */
    public static void exit(int status) {
        IntConsumer h = hook;
        if (h != null) {
            h.accept(status);
        }
        throw new RankExit(status);
    }

    /** Replaces {@code runtime.exit(status)}. */
    public static void runtimeExit(Runtime runtime, int status) {
        exit(status);
    }

    /** Replaces {@code runtime.halt(status)}: a rank cannot halt the JVM that holds the others either. */
    public static void runtimeHalt(Runtime runtime, int status) {
        exit(status);
    }
}
