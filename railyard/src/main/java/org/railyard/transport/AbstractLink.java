package org.railyard.transport;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.ReadableByteChannel;

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

    /** What {@link #readInto} returns when the read failed, and with it the link. */
    protected static final int READ_FAILED = Integer.MIN_VALUE;

    /**
     * Reads what {@code ch} has into the free room of {@code in} after the bytes it holds, keeping
     * it in read mode (bytes [position, limit) received and not yet consumed). Returns the bytes
     * read, -1 at the end of the stream, or {@link #READ_FAILED} once an I/O error failed the link
     * (why: {@code what} and the error's message).
     */
    protected final int readInto(ReadableByteChannel ch, ByteBuffer in, String what) {
        int pos = in.position();
        in.position(in.limit()).limit(in.capacity());
        int r;
        try {
            r = ch.read(in);
        } catch (IOException e) {
            in.flip().position(pos);
            fail(what + ": " + e.getMessage());
            return READ_FAILED;
        }
        in.flip().position(pos);
        return r;
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
