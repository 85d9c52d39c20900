package org.railyard.engine;

import java.time.Duration;
import java.util.function.IntSupplier;
import java.util.function.LongFunction;

/**
 * The stall report ({@code railyard.stall.report}): a daemon thread that looks once a second
 * whether an application thread is waiting inside the library. When one was at every look for the
 * set duration, it prints the engine's report of what this process waits for to standard error,
 * once; it arms again after a look that finds nobody waiting. A wait that keeps ending and
 * starting again between two looks counts as one wait: the report says what a job that stopped
 * moving is stuck on, and a job that merely spends long in the library may also print one.
 */
final class StallWatch implements Runnable {
    private static final long LOOK_MILLIS = 1000;

    private final long boundMillis;
    private final IntSupplier waiters;
    private final LongFunction<String> report;
    private final Thread thread;

    /** Starts watching; {@code report} gets the seconds waited and is called from the watch thread. */
    StallWatch(Duration bound, IntSupplier waiters, LongFunction<String> report) {
        this.boundMillis = bound.toMillis();
        this.waiters = waiters;
        this.report = report;
        this.thread = Thread.ofPlatform().daemon().name("railyard-stall-watch").unstarted(this);
        thread.start();
    }

    @Override
    public void run() {
        long since = 0;
        boolean waiting = false;
        boolean reported = false;
        while (!Thread.currentThread().isInterrupted()) {
            try {
                // a look per second is the contract: the watch samples, it waits for no condition
                Thread.sleep(LOOK_MILLIS);
            } catch (InterruptedException e) {
                return;
            }
            long now = System.nanoTime() / 1_000_000;
            if (waiters.getAsInt() == 0) {
                waiting = false;
                reported = false;
            } else if (!waiting) {
                waiting = true;
                since = now;
            } else if (!reported && now - since >= boundMillis) {
                reported = true;
                String text = report.apply((now - since) / 1000);
                StringBuilder out = new StringBuilder();
                for (String line : text.split("\n")) {
                    out.append("railyard: stall: ").append(line).append('\n');
                }
                System.err.print(out);
                System.err.flush();
            }
        }
    }

    /** Ends the watch thread. */
    void stop() {
        thread.interrupt();
    }
}
