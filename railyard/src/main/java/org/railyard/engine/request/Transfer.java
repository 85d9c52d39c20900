package org.railyard.engine.request;

import org.railyard.types.Kind;

import java.lang.foreign.MemorySegment;
import org.railyard.channel.FrameFields;
import org.railyard.channel.Outbound;
import org.railyard.engine.comm.CommState;
import org.railyard.error.ErrorClass;
import org.railyard.error.RailyardException;

/**
 * An operation under way: the engine's request, a point-to-point send or receive
 * ({@code engine.p2p}) or a collective schedule. Its fields are written only by the thread driving
 * progress (holding the progress lock); {@link #isDone()} may be read by any thread. Blocking
 * calls take transfers from a pool and give them back, so the steady state allocates none.
 *
 * <p>The fields are public for the engine's component packages; no engine package is API.
 */
public abstract class Transfer extends Outbound implements java.util.function.BooleanSupplier {
    public static final int PENDING = 0;
    public static final int DONE = 1;
    public static final int FAILED = 2;
    public static final int CANCELLED = 3;

    /** Told when a transfer completes or fails (it then stops being addressable by id). */
    public interface Owner {
        void completed(Transfer t);
    }

    private final Owner owner;
    /** The id that crosses the wire in RTS, CTS and DATA frames (see {@code p2p.TransferTable}). */
    public long id;
    public volatile int state;
    public RailyardException error;

    public Object buf;
    public Kind kind;
    public int offset;
    public long capacityBytes;

    public CommState comm;
    public int context;
    /** World rank of the peer: destination of a send, source of a receive (or ANY_SOURCE). */
    public int peer;
    public int tag;

    public int statusSource = -1;
    public int statusTag = -1;
    public long statusBytes;

    /** A transfer of {@code owner}: a point-to-point one of the engine's table, or a collective schedule. */
    protected Transfer(Owner owner) {
        this.owner = owner;
    }

    /** {@link #isDone()}: a waiter hands the transfer itself as the condition it sleeps on. */
    @Override
    public boolean getAsBoolean() {
        return state != PENDING;
    }

    public void init(CommState c, int ctx, Object buffer, Kind k, int off, int count, int peerWorld, int msgTag) {
        this.comm = c;
        this.context = ctx;
        this.buf = buffer;
        this.kind = k;
        this.offset = off;
        this.capacityBytes = (long) count * k.size;
        this.peer = peerWorld;
        this.tag = msgTag;
        this.state = PENDING;
        this.error = null;
        this.statusSource = -1;
        this.statusTag = -1;
        this.statusBytes = 0;
    }

    /** One line for a stall report ({@code railyard.stall.report}): what it is, with whom, on which context and tag. */
    public String describe() {
        return getClass().getSimpleName() + " peer " + peer + ", context " + context + ", tag " + tag + ", "
                + capacityBytes + " B";
    }

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

    public void complete() {
        state = DONE;
        owner.completed(this);
    }

    public void fail(ErrorClass c, String message) {
        if (state != PENDING) {
            return;
        }
        error = new RailyardException(c, message);
        state = FAILED;
        owner.completed(this);
    }

    /** Completed with nothing to carry (a peer of PROC_NULL). */
    public void nothingToDo() {
        state = DONE;
    }

    /** Throws the error of a failed transfer (a copy, so the stack shows the caller). */
    public final void throwIfFailed() {
        if (state == FAILED) {
            throw new RailyardException(error.errorClass(), error.getMessage(), error);
        }
    }

    public void clear() {
        buf = null;
        comm = null;
        error = null;
    }

    // a request that is not a point-to-point message (a collective schedule) is never queued on a channel

    @Override
    protected int nextFrame(FrameFields header, int maxPayload) {
        throw new IllegalStateException(this + " is never queued on a channel");
    }

    @Override
    protected boolean writePayload(MemorySegment seg, long offset, int length) {
        throw new IllegalStateException(this + " is never queued on a channel");
    }

    @Override
    protected void onWritten() {
        throw new IllegalStateException(this + " is never queued on a channel");
    }
}
