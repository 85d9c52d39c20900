package org.railyard.testkit;

import java.lang.management.ManagementFactory;
import java.util.Arrays;
import java.util.Locale;

/**
 * Heap allocation of a warm call, measured so that the result depends on the call and not on
 * what else the JVM did meanwhile: the calls are measured in several windows, each over every
 * thread of the JVM, and the least bytes per call of the windows is the figure.
 *
 * <p>Why the least: an allocation the call makes every time shows in every window (an object is
 * 16 bytes at least, so a per-call object puts every window at 16 B/call or more), while what
 * happens once (a pool growing to a new high-water mark because one rank ran ahead, a statistics
 * series doubling its arrays on the clock, a class initialised late) lands in one window and
 * leaves the others clean. A single window, as before, charged such one-offs to the call whenever
 * the scheduling put them there.
 */
public final class Allocation {
    /** Windows the rank programs measure at least: enough that a one-off lands in one of several. */
    public static final int MIN_WINDOWS = 5;
    /** Windows the rank programs measure at most while some rank's least is not yet under its goal. */
    public static final int MAX_WINDOWS = 15;

    private Allocation() {
    }

    /** A measured call; it may throw (the facade's calls declare checked exceptions). */
    @FunctionalInterface
    public interface Call {
        void run() throws Exception;
    }

    /** Bytes per call of each window, and the least of them. */
    public record Windows(double[] perCall) {
        public double least() {
            return Arrays.stream(perCall).min().orElseThrow();
        }

        /** "least (w1 w2 ...)", one decimal each. */
        @Override
        public String toString() {
            StringBuilder sb = new StringBuilder(String.format(Locale.ROOT, "%.1f (windows", least()));
            for (double w : perCall) {
                sb.append(String.format(Locale.ROOT, " %.1f", w));
            }
            return sb.append(')').toString();
        }
    }

    /**
     * Turns this rank's verdict into the job's: true only if every rank's is true (an allreduce
     * with a logical and), so that every rank measures the same number of windows.
     */
    @FunctionalInterface
    public interface Agreement {
        boolean all(boolean mine) throws Exception;
    }

    /**
     * {@link #perCall}, but measuring windows until the least is under {@code goal} on every rank
     * ({@code agree}), at least {@code minWindows} and at most {@code maxWindows} of them. On a
     * loaded machine a call may allocate in many windows while the compiler has not settled (code
     * not yet compiled allocates what compiled code keeps in registers) or while a lock is
     * contended (a queued waiter's node): such windows are followed by clean ones once the state is
     * reached. A call that allocates every time shows in every window and never reaches the goal,
     * so the result still says so after {@code maxWindows}.
     */
    public static Windows perCallUntil(int minWindows, int maxWindows, int calls, double goal, Call beforeEach,
            Agreement agree, Call call) throws Exception {
        if (minWindows < 2 || maxWindows < minWindows || calls < 1) {
            throw new IllegalArgumentException("at least 2 windows, no more than the most, of 1 call: " + minWindows
                    + " to " + maxWindows + " windows of " + calls);
        }
        double[] out = new double[maxWindows];
        double least = Double.MAX_VALUE;
        int w = 0;
        while (w < maxWindows) {
            beforeEach.run();
            long before = total();
            for (int i = 0; i < calls; i++) {
                call.run();
            }
            out[w] = (total() - before) / (double) calls;
            least = Math.min(least, out[w]);
            w++;
            if (w >= minWindows && agree.all(least < goal)) {
                break;
            }
        }
        return new Windows(Arrays.copyOf(out, w));
    }

    /** {@link #perCallUntil(int, int, int, double, Call, Agreement, Call)} over {@link #MIN_WINDOWS} to {@link #MAX_WINDOWS} windows. */
    public static Windows perCallUntil(int calls, double goal, Call beforeEach, Agreement agree, Call call)
            throws Exception {
        return perCallUntil(MIN_WINDOWS, MAX_WINDOWS, calls, goal, beforeEach, agree, call);
    }

    /** Heap bytes allocated so far by every thread of this JVM (ended threads included). */
    public static long total() {
        var mx = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
        if (!mx.isThreadAllocatedMemorySupported()) {
            throw new IllegalStateException("this JVM cannot count allocated bytes");
        }
        mx.setThreadAllocatedMemoryEnabled(true);
        return mx.getTotalThreadAllocatedBytes();
    }

    /**
     * Runs {@code call} {@code windows} times {@code calls} times and returns the heap bytes per call
     * of each window. {@code beforeEach} runs before each window, outside the measurement (a
     * barrier, so that every rank starts a window together).
     */
    public static Windows perCall(int windows, int calls, Call beforeEach, Call call) throws Exception {
        if (windows < 2 || calls < 1) {
            throw new IllegalArgumentException("at least 2 windows of 1 call: " + windows + " windows of " + calls);
        }
        double[] out = new double[windows];
        for (int w = 0; w < windows; w++) {
            beforeEach.run();
            long before = total();
            for (int i = 0; i < calls; i++) {
                call.run();
            }
            out[w] = (total() - before) / (double) calls;
        }
        return new Windows(out);
    }
}
