package org.railyard.engine.progress;

import java.io.Serial;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.concurrent.locks.ReentrantLock;

/**
 * The guard of all engine state, and the application's mark of presence (package documentation).
 * An outermost {@link #lock()} counts as an entry of the application into the library: it bumps
 * the {@linkplain #entries() entry mark} once the lock is held. Nested {@code lock()} calls of the
 * holder, and {@code tryLock()}, do not; the agent takes the lock only with {@code tryLock()}, so
 * its cycles never move the mark, even when the code it runs takes the lock again.
 */
public final class ProgressLock extends ReentrantLock {
    @Serial
    private static final long serialVersionUID = 1L;
    private static final VarHandle ENTRIES;

    static {
        try {
            ENTRIES = MethodHandles.lookup().findVarHandle(ProgressLock.class, "entries", long.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    /** Written only by the holder of this lock (plain increments, opaque stores); read by the agent. */
    private long entries;

    ProgressLock() {
    }

    /** Takes the lock; an outermost acquisition moves the entry mark. */
    @Override
    public void lock() {
        super.lock();
        if (getHoldCount() == 1) {
            mark();
        }
    }

    /** Moves the entry mark; call holding the lock (an application thread's duty cycle). */
    void mark() {
        ENTRIES.setOpaque(this, entries + 1);
    }

    /** The name of the thread holding the lock, or "nobody" (diagnostics). */
    public String holder() {
        Thread t = getOwner();
        return t == null ? "nobody" : t.getName();
    }

    /** The entry mark: it changes whenever the application came in since it was last read. */
    long entries() {
        return (long) ENTRIES.getOpaque(this);
    }
}
