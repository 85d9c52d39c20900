package org.railyard.bootstrap;

import java.time.Instant;
import org.railyard.util.Config;

/**
 * The start-up stages of one rank, printed when {@code railyard.startup.timing} is on: from the
 * launch to the process start, to {@code Railyard.init} being called, to the bootstrap being
 * done (the job joined: rank, size, secret) and to init being done (transports started, address
 * card published and fenced). One line on stderr, in milliseconds from the launch:
 * <pre>railyard startup: rank R of N (BOOTSTRAP) ms from launch: process P, init called I, bootstrap B, init done D; cpu C</pre>
 * where C is the processor time the process has used by then, in ms: equal C with unequal D
 * means the rank waited for processors (or for its peers), not that it had more to do.
 * The launch is {@value #LAUNCH_ENV} (epoch microseconds) when the environment has it
 * ({@code railyard run} sets it to its own start unless it inherited one; a benchmark exports it
 * before starting srun or mpiexec), else the process's own start. Clocks of one host only: on
 * several hosts the stages are as good as their clocks' agreement.
 *
 * <p>A second line splits init further, in milliseconds from the call of init: the floors below
 * note their stages with {@link #mark} (the binding to a processor, the transports started, the
 * address cards fenced, the channels opened) and the native set-up its steps with {@link #step},
 * each with its own duration (steps not done by the end of init are missing):
 * <pre>railyard startup stages: rank R: bootstrap T, binding T, ..., init done T; native cpu binding T ms, ...</pre>
 * The marks are kept only while timing is on; otherwise {@link #mark} and {@link #step} do nothing.
 */
public final class StartupTiming {
    /** Epoch microseconds of the launch, inherited by every rank. */
    public static final String LAUNCH_ENV = "RAILYARD_LAUNCH_US";

    /** The timing of the init under way in this copy of the library (one per class loader), or null. */
    private static volatile StartupTiming current;

    private final long initCalledUs;
    private long bootstrapUs;
    private final StringBuilder marks = new StringBuilder();
    private final StringBuilder steps = new StringBuilder();

    private StartupTiming(long initCalledUs) {
        this.initCalledUs = initCalledUs;
    }

    /** Starts timing at the call of init; null when the setting is off. */
    public static StartupTiming begin() {
        StartupTiming t = Config.bool(Config.STARTUP_TIMING_PROP, Config.STARTUP_TIMING_DEFAULT)
                ? new StartupTiming(nowUs()) : null;
        current = t;
        return t;
    }

    /** Notes that init reached {@code stage} (ms from the call of init), when timing is on. */
    public static void mark(String stage) {
        StartupTiming t = current;
        if (t != null) {
            long us = nowUs();
            synchronized (t.marks) {
                t.marks.append(t.marks.isEmpty() ? "" : ", ").append(stage).append(' ').append(ms(us - t.initCalledUs));
            }
        }
    }

    /** Notes that a step of set-up on another thread took {@code nanos}, when timing is on. */
    public static void step(String step, long nanos) {
        StartupTiming t = current;
        if (t != null) {
            synchronized (t.marks) {
                t.steps.append(t.steps.isEmpty() ? "" : ", ").append(step).append(' ').append(ms(nanos / 1000))
                        .append(" ms");
            }
        }
    }

    /** Notes that the bootstrap is done. */
    public void bootstrapDone() {
        bootstrapUs = nowUs();
    }

    /** Notes that init is done and prints the line. */
    public void initDone(Bootstrap b) {
        long doneUs = nowUs();
        long processUs = ProcessHandle.current().info().startInstant().map(StartupTiming::micros).orElse(initCalledUs);
        long launchUs = launch(Config.getenv(LAUNCH_ENV), processUs);
        long cpuMs = ProcessHandle.current().info().totalCpuDuration().map(java.time.Duration::toMillis).orElse(-1L);
        System.err.println(line(b.rank(), b.size(), b.name(), launchUs, processUs, initCalledUs, bootstrapUs, doneUs)
                + "; cpu " + cpuMs);
        System.err.println(stages(b.rank(), doneUs));
        current = null;
        System.err.flush();
    }

    /** The second line: init's stages and the native set-up's steps so far, init being done at {@code doneUs}. */
    String stages(int rank, long doneUs) {
        synchronized (marks) {
            return "railyard startup stages: rank " + rank + ": bootstrap " + ms(bootstrapUs - initCalledUs)
                    + (marks.isEmpty() ? "" : ", " + marks) + ", init done " + ms(doneUs - initCalledUs)
                    + (steps.isEmpty() ? "" : "; " + steps);
        }
    }

    /** The launch time in {@code text} (epoch microseconds), or {@code fallback} when absent or not a number. */
    static long launch(String text, long fallback) {
        if (text == null || text.isBlank()) {
            return fallback;
        }
        try {
            return Long.parseLong(text.trim());
        } catch (NumberFormatException e) {
            return fallback;
        }
    }

    static String line(int rank, int size, String bootstrap, long launchUs, long processUs, long initUs, long bootUs,
                       long doneUs) {
        return "railyard startup: rank " + rank + " of " + size + " (" + bootstrap + ") ms from launch: process "
                + ms(processUs - launchUs) + ", init called " + ms(initUs - launchUs) + ", bootstrap "
                + ms(bootUs - launchUs) + ", init done " + ms(doneUs - launchUs);
    }

    private static String ms(long us) {
        return String.format(java.util.Locale.ROOT, "%.1f", us / 1000.0);
    }

    /** Epoch microseconds now. */
    public static long nowUs() {
        return micros(Instant.now());
    }

    private static long micros(Instant t) {
        return t.getEpochSecond() * 1_000_000L + t.getNano() / 1000;
    }
}
