package org.railyard.engine;

import org.railyard.types.Kind;

import java.lang.foreign.MemorySegment;
import org.railyard.channel.FrameFields;
import org.railyard.channel.Outbound;
import org.railyard.channel.VirtualChannel;
import org.railyard.engine.comm.CommState;
import org.railyard.error.ErrorClass;
import org.railyard.error.RailyardException;
import org.railyard.util.LongMap;
import org.railyard.wire.FrameHeader;
import org.railyard.wire.FrameType;

/**
 * The engine's half of the reduced P2PSAP operations (send, receive, wait) for iterative schemes:
 * <em>value flows</em>, one per (communicator context, peer, tag) and direction, carried as
 * {@link FrameType#VALUE} frames outside the engine's message matching. The API face is
 * {@code org.railyard.IterativeComm}.
 *
 * <p>Each value sent gets the next sequence number of its flow (from 1), and the scheme it is sent
 * under rides in its frame's flags:
 * <ul>
 *   <li><b>asynchronous</b>: the flow has one outgoing slot. A send copies the value into it and
 *       queues it on the peer's channel, unless it is still queued (not yet handed to a link), in
 *       which case the newer value simply replaces the older one there (it is superseded). A send
 *       never waits for the peer, and a fast sender holds one value per flow, not a backlog.</li>
 *   <li><b>synchronous</b>: every value is queued and delivered, in order (a buffered send; the
 *       receiver keeps what arrives until it is received, as MPI keeps unexpected eager messages).</li>
 * </ul>
 * On arrival a value whose sequence number is not above the newest that arrived on its flow is
 * stale (reordered or replayed) and dropped. The rest join the flow's inbox in order; an
 * asynchronous value replaces an asynchronous value still waiting at the tail of the inbox, so an
 * asynchronous flow's inbox holds at most one value however fast the sender is. A receive takes
 * the inbox's oldest value, or reports that none is there.
 *
 * <p>The scheme flag also tells the stack floor, over an unreliable transport, which composition
 * the flow needs; the first value sent under another scheme than the last makes the stack
 * reconfigure the connection (see {@code org.railyard.stack.Stack}). Nothing here depends on it.
 *
 * <p>All methods take the engine's progress lock; waits drive progress as {@link Engine#await} does.
 * A send or a receive drives one duty cycle of progress when none ran for
 * {@value #PROGRESS_INTERVAL_NANOS} ns: an iterative program calls them many times per iteration and
 * never waits, so they must move the frames, but a duty cycle per call would cost more than the
 * values it moves.
 */
public final class ValueFlows {
    /** Returned by {@link #receive} when no new value is there. */
    public static final long NONE = 0;
    /** Least time between two duty cycles driven by sends and receives. */
    static final long PROGRESS_INTERVAL_NANOS = 20_000;

    private final Engine engine;
    private final LongMap<OutFlow> out = new LongMap<>();
    private final LongMap<InFlow> in = new LongMap<>();
    private ValueOut freeOut;
    private ValueIn freeIn;
    private long lastProgress;
    /** Value frames queued on channels and not yet handed to a link. */
    private int queued;
    /** Counters: values sent, superseded before sending, received (taken), dropped stale on arrival. */
    private long sent, supersededOut, taken, stale, supersededIn;

    ValueFlows(Engine engine) {
        this.engine = engine;
    }

    private static long key(int context, int worldPeer, int tag) {
        // tags are below 2^30, world ranks below 2^20, contexts below 2^14 in practice
        return ((long) context << 50) ^ ((long) worldPeer << 30) ^ tag;
    }

    private static final class OutFlow {
        long seq;
        ValueOut slot;
    }

    private static final class InFlow {
        long arrived;
        ValueIn head, tail;
    }

    /** An outgoing value: an Outbound the channel writes as one VALUE frame. */
    private final class ValueOut extends Outbound {
        int context, source, tag;
        long seq;
        boolean async;
        boolean pending;
        MemorySegment data = MemorySegment.NULL;
        int bytes;
        ValueOut nextFree;

        @Override
        protected int nextFrame(FrameFields header, int maxPayload) {
            header.set(FrameType.VALUE, async ? FrameHeader.FLAG_VALUE_ASYNC : 0, context, source, tag, bytes, seq, 0);
            return bytes;
        }

        @Override
        protected boolean writePayload(MemorySegment seg, long offset, int length) {
            MemorySegment.copy(data, 0, seg, offset, length);
            return true;
        }

        @Override
        protected void onWritten() {
            pending = false;
            queued--;
            if (!async) {
                nextFree = freeOut;
                freeOut = this;
            }
        }
    }

    private static final class ValueIn {
        MemorySegment data = MemorySegment.NULL;
        int bytes;
        long seq;
        boolean async;
        ValueIn next;
    }

    private static MemorySegment room(MemorySegment buf, long bytes) {
        return buf.byteSize() >= bytes ? buf : MemorySegment.ofArray(new long[(int) ((bytes + 7) / 8)]);
    }

    /**
     * Sends {@code count} elements of {@code buf} from {@code off} to {@code dest} on flow
     * {@code tag} of communicator {@code c}, under the asynchronous scheme if {@code async}. Returns
     * the value's sequence number. Never waits for the receiver.
     */
    public long send(CommState c, Object buf, Kind k, int off, int count, int dest, int tag, boolean async) {
        engine.checkComm(c);
        checkPeer(c, dest);
        checkTag(tag);
        k.checkRange(buf, off, count);
        long bytes = (long) count * k.size;
        if (bytes > engine.eagerLimit()) {
            throw new RailyardException(ErrorClass.COUNT, "a value of " + bytes + " bytes is larger than the limit of "
                    + engine.eagerLimit() + " bytes (one frame on every transport); split it over several tags");
        }
        int destWorld = c.worldRank(dest);
        var lock = engine.progressLock();
        lock.lock();
        try {
            long key = key(c.context, destWorld, tag);
            OutFlow f = out.get(key);
            if (f == null) {
                f = new OutFlow();
                out.put(key, f);
            }
            ValueOut v;
            if (async) {
                v = f.slot;
                if (v == null) {
                    v = new ValueOut();
                    v.async = true;
                    f.slot = v;
                }
            } else {
                v = freeOut;
                if (v != null) {
                    freeOut = v.nextFree;
                } else {
                    v = new ValueOut();
                }
                v.async = false;
            }
            v.data = room(v.data, bytes);
            k.copyOut(buf, off, 0, v.data, 0, bytes);
            v.bytes = (int) bytes;
            v.context = c.context;
            v.source = engine.rank();
            v.tag = tag;
            v.seq = ++f.seq;
            sent++;
            if (v.pending) {
                supersededOut++;
            } else {
                VirtualChannel ch = engine.channels().channel(destWorld);
                checkUp(ch, c, dest);
                v.pending = true;
                queued++;
                ch.sendEnvelope(v);
            }
            maybeProgress();
            return v.seq;
        } finally {
            lock.unlock();
        }
    }

    /**
     * Takes the oldest value waiting on flow {@code tag} from {@code source} into {@code buf};
     * returns its sequence number, or {@link #NONE} when no value is waiting. Drives progress first
     * (at most once per {@value #PROGRESS_INTERVAL_NANOS} ns), so a loop of receives sees new arrivals.
     *
     * @throws RailyardException TRUNCATE if the value is longer than {@code count} elements (the
     *         value is then consumed), PEER_FAILED if the flow's channel is down and nothing waits
     */
    public long receive(CommState c, Object buf, Kind k, int off, int count, int source, int tag) {
        engine.checkComm(c);
        checkPeer(c, source);
        checkTag(tag);
        k.checkRange(buf, off, count);
        int srcWorld = c.worldRank(source);
        var lock = engine.progressLock();
        lock.lock();
        try {
            maybeProgress();
            InFlow f = in.get(key(c.context, srcWorld, tag));
            if (f == null || f.head == null) {
                VirtualChannel ch = engine.channels().existing(srcWorld);
                if (ch != null) {
                    checkUp(ch, c, source);
                }
                return NONE;
            }
            ValueIn v = f.head;
            f.head = v.next;
            if (f.head == null) {
                f.tail = null;
            }
            long seq = v.seq;
            int bytes = v.bytes;
            v.next = freeIn;
            freeIn = v;
            if ((long) count * k.size < bytes) {
                throw new RailyardException(ErrorClass.TRUNCATE, "value " + seq + " of " + bytes + " bytes from rank "
                        + source + " tag " + tag + " does not fit a buffer of " + count + " " + k + " elements");
            }
            k.copyIn(v.data, 0, buf, off, 0, bytes);
            taken++;
            return seq;
        } finally {
            lock.unlock();
        }
    }

    private void maybeProgress() {
        long now = System.nanoTime();
        if (now - lastProgress >= PROGRESS_INTERVAL_NANOS) {
            lastProgress = now;
            engine.progressOnce();
        }
    }

    /**
     * Waits, driving progress, until a value waits on flow {@code tag} from {@code source} (so the
     * next {@link #receive} returns one); false after {@code timeoutNanos}.
     *
     * @throws RailyardException PEER_FAILED if the peer's channel goes down first
     */
    public boolean await(CommState c, int source, int tag, long timeoutNanos) {
        engine.checkComm(c);
        checkPeer(c, source);
        checkTag(tag);
        int srcWorld = c.worldRank(source);
        long key = key(c.context, srcWorld, tag);
        return engine.driveUntil(() -> {
            InFlow f = in.get(key);
            if (f != null && f.head != null) {
                return true;
            }
            VirtualChannel ch = engine.channels().existing(srcWorld);
            if (ch != null) {
                checkUp(ch, c, source);
            }
            return false;
        }, timeoutNanos);
    }

    /** Waits, driving progress, until every value sent is handed to a link; false after {@code timeoutNanos}. */
    public boolean flush(long timeoutNanos) {
        return engine.driveUntil(() -> queued == 0, timeoutNanos);
    }

    /** A VALUE frame from the channel floor (under the progress lock). */
    void onFrame(VirtualChannel from, MemorySegment seg, long off, int length) {
        int bytes = FrameHeader.messageLength(seg, off);
        if (bytes != length - FrameHeader.LENGTH) {
            from.protocolError("VALUE frame of " + length + " bytes announces a value of " + bytes + " bytes");
            return;
        }
        long key = key(FrameHeader.context(seg, off), from.peer(), FrameHeader.tag(seg, off));
        InFlow f = in.get(key);
        if (f == null) {
            f = new InFlow();
            in.put(key, f);
        }
        long seq = FrameHeader.cookie(seg, off);
        if (seq <= f.arrived) {
            stale++;
            return;
        }
        f.arrived = seq;
        boolean async = (FrameHeader.flags(seg, off) & FrameHeader.FLAG_VALUE_ASYNC) != 0;
        ValueIn v;
        if (async && f.tail != null && f.tail.async) {
            v = f.tail;
            supersededIn++;
        } else {
            v = freeIn;
            if (v != null) {
                freeIn = v.next;
            } else {
                v = new ValueIn();
            }
            v.next = null;
            if (f.tail == null) {
                f.head = v;
            } else {
                f.tail.next = v;
            }
            f.tail = v;
        }
        v.data = room(v.data, bytes);
        MemorySegment.copy(seg, off + FrameHeader.LENGTH, v.data, 0, bytes);
        v.bytes = bytes;
        v.seq = seq;
        v.async = async;
    }

    private static void checkUp(VirtualChannel ch, CommState c, int rank) {
        if (ch.state() == VirtualChannel.State.DOWN || ch.state() == VirtualChannel.State.CLOSED) {
            throw new RailyardException(ErrorClass.PEER_FAILED, "value flow with rank " + rank + " of " + c.name()
                    + ": " + ch.failure());
        }
    }

    private static void checkPeer(CommState c, int rank) {
        if (rank < 0 || rank >= c.size()) {
            throw new RailyardException(ErrorClass.RANK, "rank " + rank + " is out of range [0, " + c.size()
                    + ") for communicator " + c.name());
        }
    }

    private static void checkTag(int tag) {
        if (tag < 0 || tag > Engine.TAG_UB) {
            throw new RailyardException(ErrorClass.TAG, "tag " + tag + " is out of range [0, " + Engine.TAG_UB + "]");
        }
    }

    /** "sent S (superseded before sending X), received R, stale on arrival T, superseded in the inbox U". */
    public String stats() {
        var lock = engine.progressLock();
        lock.lock();
        try {
            return "values sent " + sent + " (superseded before sending " + supersededOut + "), received " + taken
                    + ", stale on arrival " + stale + ", superseded in the inbox " + supersededIn;
        } finally {
            lock.unlock();
        }
    }

    /** Values superseded before they were handed to a link, at this end. */
    public long supersededBeforeSending() {
        return supersededOut;
    }
}
