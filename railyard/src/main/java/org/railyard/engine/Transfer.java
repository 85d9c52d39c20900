package org.railyard.engine;

import org.railyard.channel.Outbound;
import org.railyard.engine.comm.CommState;
import org.railyard.error.ErrorClass;
import org.railyard.error.RailyardException;

/**
 * A point-to-point operation under way: the engine's request. Its fields are written only by the
 * thread driving progress (holding the progress lock); {@link #isDone()} may be read by any thread.
 * Blocking calls take transfers from a pool and give them back, so the steady state allocates none.
 */
public abstract class Transfer extends Outbound implements java.util.function.BooleanSupplier {
    static final int PENDING = 0;
    static final int DONE = 1;
    static final int FAILED = 2;
    static final int CANCELLED = 3;

    final Engine engine;
    long id;
    volatile int state;
    RailyardException error;

    /** {@link #isDone()}: a waiter hands the transfer itself as the condition it sleeps on. */
    @Override
    public boolean getAsBoolean() {
        return state != PENDING;
    }
    boolean pooled;

    Object buf;
    Kind kind;
    int offset;
    long capacityBytes;

    CommState comm;
    int context;
    /** World rank of the peer: destination of a send, source of a receive (or ANY_SOURCE). */
    int peer;
    int tag;

    int statusSource = -1;
    int statusTag = -1;
    long statusBytes;

    Transfer(Engine engine) {
        this.engine = engine;
    }

    /** An operation the engine's transfer table never holds (a collective schedule): completes without the engine. */
    protected Transfer() {
        this.engine = null;
    }

    /** Makes a finished operation pending again, without error (a pooled one reused). */
    protected final void restart() {
        error = null;
        state = PENDING;
    }

    void init(CommState comm, int context, Object buf, Kind kind, int offset, int count, int peer, int tag) {
        this.comm = comm;
        this.context = context;
        this.buf = buf;
        this.kind = kind;
        this.offset = offset;
        this.capacityBytes = (long) count * kind.size;
        this.peer = peer;
        this.tag = tag;
        this.state = PENDING;
        this.error = null;
        this.statusSource = -1;
        this.statusTag = -1;
        this.statusBytes = 0;
        this.nextMatch = null;
        this.prevMatch = null;
    }

    // intrusive list of posted receives
    Transfer nextMatch;
    Transfer prevMatch;

    /** True once complete, failed or cancelled. */
    public final boolean isDone() {
        return state != PENDING;
    }

    /** True once complete without failure or cancellation. */
    public final boolean succeeded() {
        return state == DONE;
    }

    public final boolean isCancelled() {
        return state == CANCELLED;
    }

    /** The failure, or null. */
    public final RailyardException error() {
        return error;
    }

    /** Writes the status of a completed transfer. */
    public final void fillStatus(StatusSink s) {
        s.setStatus(statusSource, statusTag, statusBytes, kind == null ? 1 : kind.size);
    }

    protected void complete() {
        state = DONE;
        if (engine != null) {
            engine.completed(this);
        }
    }

    protected void fail(ErrorClass c, String message) {
        if (state != PENDING) {
            return;
        }
        error = new RailyardException(c, message);
        state = FAILED;
        if (engine != null) {
            engine.completed(this);
        }
    }

    void clear() {
        buf = null;
        comm = null;
        error = null;
    }
}
