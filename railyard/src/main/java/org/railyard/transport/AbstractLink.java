package org.railyard.transport;

/**
 * What every link's life has in common: it is open from its construction until it breaks or is
 * closed, whichever comes first. The first failure is kept ({@link #failure()}); {@link #close()}
 * releases what the link holds once ({@link #release()}), however often and by whomever it is
 * called. Not thread safe, as links are not: the thread that drives the link calls all of it.
 */
public abstract class AbstractLink implements Link {
    private final Transport transport;
    private final int peer;
    private final String description;
    private boolean open = true;
    private String failure;

    protected AbstractLink(Transport transport, int peer, String description) {
        this.transport = transport;
        this.peer = peer;
        this.description = description;
    }

    @Override public final Transport transport() { return transport; }
    @Override public final int peer() { return peer; }
    @Override public final boolean isOpen() { return open; }
    @Override public final String failure() { return failure; }
    @Override public final String describe() { return description; }

    /** Breaks the link for {@code why}, unless it is closed already: the first failure is the one kept. */
    protected final void fail(String why) {
        if (open) {
            failure = why;
            close();
        }
    }

    @Override
    public final void close() {
        if (!open) {
            return;
        }
        open = false;
        release();
    }

    /** Releases the link's sockets, memory or registrations; called once, by the first {@link #close()}. */
    protected abstract void release();
}
