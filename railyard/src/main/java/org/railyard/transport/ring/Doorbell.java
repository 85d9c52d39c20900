package org.railyard.transport.ring;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.VarHandle;
import java.util.Arrays;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.IntSupplier;
import org.railyard.transport.Bell;
import org.railyard.transport.TransportEnv;
import org.railyard.util.Futex;

/**
 * Lets a process that waits for frames sleep until a peer on its node writes one, instead of
 * sleeping for a guessed interval. With more ranks than processors a waiter has to leave the
 * processor to the rank it waits for; a timed park then wakes too late (the frame came long ago)
 * or too often (nothing came). Each ring of shared memory has a bell word beside it, owned by the
 * ring's reader: the reader arms it (1) before sleeping on it, and the writer, after publishing a
 * frame or freeing room, disarms an armed word (0) and wakes the futex.
 *
 * <p>The order makes a lost wake-up impossible: the reader writes 1 and then looks at every ring
 * once more; the writer publishes and then reads the word, each with a full fence between, so
 * either the reader's last look finds the frame or the writer finds the word armed. Frames from
 * transports without a bell (tcp, udp) do not ring: the engine then bounds the sleep by the timed
 * park's interval, and sleeps longer only when every channel is on shared memory. Work another
 * thread of the process does rings too ({@link #wakeSleepers}), and so does the connector when it
 * finishes a connection.
 *
 * <p>One per process (per {@link TransportEnv}, shared by the transports whose links are rings:
 * shm and self); the word list changes as links open and close. The layers above see it as the
 * transport SPI's {@link Bell}.
 */
public final class Doorbell implements Bell {
    private static final VarHandle INT = ValueLayout.JAVA_INT.varHandle();
    private static final ThreadLocal<Futex.Waiter> WAITERS = ThreadLocal.withInitial(Futex.Waiter::new);

    private volatile MemorySegment[] words = new MemorySegment[0];
    private final boolean enabled;
    private long sleeps;
    private long wakes;
    private volatile int quiet;
    private final AtomicInteger sleepers = new AtomicInteger();

    /** A doorbell; it never sleeps when {@code enabled} is false or futexes are not available. */
    public Doorbell(boolean enabled) {
        this.enabled = enabled && Futex.available();
    }

    /** The doorbell of the process {@code env} belongs to, made by the first ring transport to ask. */
    public static Doorbell of(TransportEnv env) {
        return env.shared(Doorbell.class, () -> new Doorbell(env.bells()));
    }

    /** True if waiters sleep on the words (futexes available, not switched off, at least one word). */
    @Override
    public boolean usable() {
        return usable(words);
    }

    private boolean usable(MemorySegment[] w) {
        return enabled && w.length > 0 && w.length <= Futex.MAX_WORDS;
    }

    /** True if futexes work here and the setting allows them. */
    @Override
    public boolean enabled() {
        return enabled;
    }

    /** Adds the bell word of a ring this process reads (4 bytes of native memory, 4-byte aligned). */
    public synchronized void add(MemorySegment word) {
        MemorySegment[] w = Arrays.copyOf(words, words.length + 1);
        w[w.length - 1] = word;
        words = w;
    }

    /** Removes a word given to {@link #add} (its link closed). */
    public synchronized void remove(MemorySegment word) {
        MemorySegment[] w = words;
        for (int i = 0; i < w.length; i++) {
            if (w[i] == word) {
                MemorySegment[] n = new MemorySegment[w.length - 1];
                System.arraycopy(w, 0, n, 0, i);
                System.arraycopy(w, i + 1, n, i, w.length - i - 1);
                words = n;
                return;
            }
        }
    }

    /**
     * Writer side: after publishing a frame into the ring whose bell is {@code word}, or freeing
     * room in the ring its owner writes, wakes the owner if it sleeps.
     */
    public static void ring(MemorySegment word) {
        VarHandle.fullFence();
        if ((int) INT.getVolatile(word, 0L) != 0 && INT.compareAndSet(word, 0L, 1, 0)) {
            Futex.wakeAll(word);
        }
    }

    /**
     * Wakes the threads of this process sleeping on the bell, if any (one thread's progress may
     * have ended another's wait, the connector may have finished a link). Cheap when nobody sleeps.
     */
    @Override
    public void wakeSleepers() {
        if (sleepers.get() == 0) {
            return;
        }
        for (MemorySegment w : words) {
            try {
                ring(w);
            } catch (IllegalStateException closed) {
                // its link closed meanwhile: nobody sleeps on it
            }
        }
    }

    /**
     * Sleeps at most {@code nanos} or until a peer rings. Arms every word, then calls
     * {@code lastLook} (one more duty cycle, which returns the work it did): only if that found
     * nothing does the thread sleep. Falls back to nothing (returns false at once) when not
     * {@link #usable()}: the caller then parks as before.
     *
     * @return true if it slept or found work; false if the caller must park instead
     */
    @Override
    public boolean sleep(long nanos, IntSupplier lastLook) {
        MemorySegment[] w = words;
        // a virtual thread parks without holding its carrier; a futex would hold it
        if (!usable(w) || Thread.currentThread().isVirtual()) {
            return false;
        }
        Futex.Waiter waiter = WAITERS.get();
        waiter.clear();
        if (!arm(w)) {
            // a link closed meanwhile: look again rather than sleep on its memory
            disarm();
            return true;
        }
        try {
            for (MemorySegment word : w) {
                waiter.add(word, 1);
            }
            VarHandle.fullFence();
            if (lastLook.getAsInt() > 0) {
                return true;
            }
            Futex.Outcome o = waiter.sleep(nanos);
            synchronized (this) {
                sleeps++;
                if (o == Futex.Outcome.WOKEN || o == Futex.Outcome.CHANGED) {
                    wakes++;
                }
            }
            if (o == Futex.Outcome.TIMED_OUT) {
                quiet++;
            }
            return true;
        } finally {
            disarm();
        }
    }

    /**
     * Counts this thread among the sleepers and sets every word of {@code w} to 1. Arming and
     * {@link #disarm} take the doorbell's lock, so a thread that arms after the last sleeper left
     * finds the words disarmed and sets them again, and the last one to leave never clears a word
     * under a thread that armed it and sleeps on it. (Were each sleeper to clear the words as it
     * left, a sleeper whose bound ran out would clear them under another still asleep: the next
     * frame would find its word 0 and wake nobody, and that sleeper would oversleep its bound.)
     *
     * @return false if a word's link closed meanwhile (the thread is counted all the same)
     */
    private synchronized boolean arm(MemorySegment[] w) {
        sleepers.incrementAndGet();
        for (MemorySegment word : w) {
            if (!set(word, 1)) {
                return false;
            }
        }
        return true;
    }

    /** Uncounts this thread; the last sleeper to leave sets every word back to 0. */
    private synchronized void disarm() {
        if (sleepers.decrementAndGet() == 0) {
            for (MemorySegment word : words) {
                set(word, 0);
            }
        }
    }

    /**
     * How many sleeps ran their full time (nothing rang): a link that checks its peer's liveness
     * every so many empty polls checks at once when this changed, since long sleeps make polls rare.
     */
    public int quiet() {
        return quiet;
    }

    /** Writes a word of a link that may have closed (its memory released): false if it had. */
    private static boolean set(MemorySegment word, int value) {
        try {
            INT.setVolatile(word, 0L, value);
            return true;
        } catch (IllegalStateException closed) {
            return false;
        }
    }

    @Override
    public synchronized long wakes() {
        return wakes;
    }

    /** Sleeps so far, and how many of them a peer ended before their time: for tests and stats. */
    public synchronized long[] counts() {
        return new long[] {sleeps, wakes};
    }
}
