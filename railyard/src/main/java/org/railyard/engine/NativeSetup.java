package org.railyard.engine;

import java.util.List;
import java.util.Map;
import org.railyard.bootstrap.StartupTiming;
import org.railyard.channel.ChannelTable;
import org.railyard.util.Config;
import org.railyard.util.CpuBinding;
import org.railyard.util.Futex;
import org.railyard.util.TimerSlack;

/**
 * Makes the native call handles ({@code java.lang.foreign} downcalls) that a rank's init and first
 * waits use, on a thread of its own that init starts before it joins the job, so that linking them
 * overlaps the bootstrap's exchange with the launcher and the peers instead of following it. In a
 * fresh JVM the first downcall handle brings up the linker itself, and each handle is processor
 * work of its own (method handle forms, a generated stub).
 *
 * <p>Each step initialises a class whose static initialiser makes its handles and keeps any failure
 * as a reason string, never throwing: {@link CpuBinding} (only when {@code railyard.bind} will use
 * its calls), {@link Futex}, each transport's ({@link ChannelTable#prepareNative}), {@link TimerSlack}.
 * Init's own thread, reaching one of those classes while this thread still initialises it, waits
 * for that initialisation (the JVM's class initialisation lock: local processor work that waits on
 * no other process, so it is bounded by that work) and then finds the same handles, or the same
 * reason for their absence, as if it had made them itself: bindings, futex waits and the messages
 * of failures are the same either way. Steps run in the order init needs them. A step that throws
 * all the same (an {@link Error} of the JVM) is left alone: the class's own first use reports it.
 */
public final class NativeSetup {
    /** The set-up thread's name. */
    static final String THREAD = "railyard-native-setup";

    /** One step: its name (for {@code railyard.startup.timing}) and what it initialises. */
    record Step(String name, Runnable run) {
    }

    private NativeSetup() {
    }

    /** The steps for a rank whose environment is {@code env}, in the order init needs them. */
    static List<Step> steps(Map<String, String> env) {
        return List.of(
                new Step("cpu binding", () -> CpuBinding.prepare(env)),
                new Step("futex", Futex::available),
                new Step("transports", ChannelTable::prepareNative),
                new Step("timer slack", TimerSlack::available));
    }

    /**
     * Starts the set-up thread (a daemon: it never holds a process up) on the steps for this
     * process's environment, unless {@code railyard.native.setup} is false; returns it, or null.
     *
     * @throws IllegalArgumentException naming the setting, when it is not a boolean
     */
    public static Thread start() {
        return Config.bool(Config.NATIVE_SETUP_PROP, Config.NATIVE_SETUP_DEFAULT) ? start(steps(Config.env())) : null;
    }

    /** Starts a daemon thread that runs {@code steps} in order, each timed; returns it. */
    static Thread start(List<Step> steps) {
        Thread t = new Thread(() -> run(steps), THREAD);
        t.setDaemon(true);
        t.start();
        return t;
    }

    private static void run(List<Step> steps) {
        for (Step s : steps) {
            long t0 = System.nanoTime();
            try {
                s.run().run();
            } catch (RuntimeException | Error e) {
                // left to the class's own first use, which reports it where it is used
            }
            StartupTiming.step(s.name(), System.nanoTime() - t0);
        }
    }
}
