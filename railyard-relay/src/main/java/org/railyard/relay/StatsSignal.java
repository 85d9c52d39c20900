package org.railyard.relay;

import java.util.function.Consumer;
import sun.misc.Signal;
import sun.misc.SignalHandler;

/**
 * Prints counters when the process gets SIGUSR2 ({@code kill -USR2 PID}): the relay daemon's and
 * the launcher's embedded relays'. Uses {@code sun.misc.Signal}, the JDK's only way to catch a
 * signal (module jdk.unsupported); where the signal cannot be caught, {@link #install} says so and
 * {@code railyard relay --stats HOST:PORT} remains the way to ask.
 */
public final class StatsSignal implements AutoCloseable {
    /** The signal, without its SIG prefix. */
    public static final String NAME = "USR2";

    private final Signal signal;
    private final SignalHandler previous;

    private StatsSignal(Signal signal, SignalHandler previous) {
        this.signal = signal;
        this.previous = previous;
    }

    /**
     * Runs {@code print} (on a thread of its own) at each SIGUSR2 until closed.
     *
     * @param say where to say that the signal cannot be caught here
     * @return the installed handler, or null if it could not be installed
     */
    public static StatsSignal install(Runnable print, Consumer<String> say) {
        try {
            Signal s = new Signal(NAME);
            SignalHandler previous = Signal.handle(s, sig -> Thread.ofVirtual().name("relay-stats").start(print));
            return new StatsSignal(s, previous);
        } catch (IllegalArgumentException | UnsupportedOperationException e) {
            say.accept("relay counters on SIG" + NAME + " unavailable here (" + e.getMessage() + "); use railyard relay"
                    + " --stats HOST:PORT");
            return null;
        }
    }

    @Override
    public void close() {
        try {
            Signal.handle(signal, previous);
        } catch (IllegalArgumentException ignored) {
            // nothing to restore
        }
    }
}
