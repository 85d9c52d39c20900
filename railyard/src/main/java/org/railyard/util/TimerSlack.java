package org.railyard.util;

import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.util.Locale;

/**
 * The calling thread's timer slack ({@code railyard.idle.timerslack}, Linux
 * {@code prctl(PR_SET_TIMERSLACK)} through {@link Linker#nativeLinker()}). A timed park of a
 * thread may overrun by its slack, 50 us by default, so that the kernel can batch wake-ups; a
 * waiter parks for 1 us, then 2, 4, ... up to {@code railyard.idle.maxpark}, and with the default
 * slack each of those parks lasted about 100 us on the development machine (a VM), which is the
 * delay before a waiter sees a message that came while it parked. The slack is a property of
 * the thread (and of threads it starts later); {@link BackoffIdle} sets it on each thread the
 * first time that thread parks, so an application thread that never waits is left alone.
 */
public final class TimerSlack {
    private static final int PR_SET_TIMERSLACK = 29;
    private static final int PR_GET_TIMERSLACK = 30;
    private static final MethodHandle PRCTL = prctl();

    private TimerSlack() {
    }

    private static MethodHandle prctl() {
        if (!System.getProperty("os.name", "").toLowerCase(Locale.ROOT).contains("linux")) {
            return null;
        }
        try {
            Linker linker = Linker.nativeLinker();
            return linker.defaultLookup().find("prctl").map(addr -> linker.downcallHandle(addr, FunctionDescriptor.of(
                    ValueLayout.JAVA_INT, ValueLayout.JAVA_INT, ValueLayout.JAVA_LONG, ValueLayout.JAVA_LONG,
                    ValueLayout.JAVA_LONG, ValueLayout.JAVA_LONG))).orElse(null);
        } catch (RuntimeException | LinkageError e) {
            return null; // native access not enabled, or no prctl: threads keep the system's slack
        }
    }

    /** True if the call is there (Linux, the symbol found, native access allowed); makes its handle. */
    public static boolean available() {
        return PRCTL != null;
    }

    /**
     * Sets the calling thread's timer slack to {@code railyard.idle.timerslack} nanoseconds;
     * false when the setting is 0 or the call is not available or refused (the slack stays).
     */
    public static boolean apply() {
        long nanos = configured();
        return nanos > 0 && set(nanos);
    }

    /**
     * {@code railyard.idle.timerslack} in nanoseconds (0: the system's). The engine reads it at
     * its start, so that a malformed or negative value fails the start and not a wait.
     *
     * @throws IllegalArgumentException naming the setting, when it is not a whole number of 0 or more
     */
    public static long configured() {
        long nanos = Config.number(Config.IDLE_TIMER_SLACK_PROP, Config.IDLE_TIMER_SLACK_DEFAULT);
        if (nanos < 0) {
            throw new IllegalArgumentException("setting " + Config.IDLE_TIMER_SLACK_PROP + " = " + nanos
                    + " is not a timer slack: give 0 (the system's) or more nanoseconds");
        }
        return nanos;
    }

    /** Sets the calling thread's timer slack; false if that cannot be done here. */
    public static boolean set(long nanos) {
        if (PRCTL == null || nanos <= 0) {
            return false;
        }
        try {
            return (int) PRCTL.invokeExact(PR_SET_TIMERSLACK, nanos, 0L, 0L, 0L) == 0;
        } catch (Throwable t) {
            return false;
        }
    }

    /** The calling thread's timer slack in nanoseconds, or -1 if it cannot be read here. */
    public static long current() {
        if (PRCTL == null) {
            return -1;
        }
        try {
            return (int) PRCTL.invokeExact(PR_GET_TIMERSLACK, 0L, 0L, 0L, 0L);
        } catch (Throwable t) {
            return -1;
        }
    }
}
