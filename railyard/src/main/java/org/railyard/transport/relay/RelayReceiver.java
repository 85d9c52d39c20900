package org.railyard.transport.relay;

import java.io.EOFException;
import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.BooleanSupplier;
import java.util.function.IntSupplier;
import org.railyard.wire.RelayFrame;

/**
 * A rank's connection to a relay, read without blocking by whichever thread comes first: a thread
 * of the rank that looks (through {@link RelayPort#pollInput}: the waiting thread's
 * {@link RelayLink#poll}, as a tcp link is read by its waiter, or a thread sending) or, when nobody
 * has polled for {@link #HANDOVER_NANOS}, the port's reader thread, which then waits for the socket
 * to become readable. What the relay sends (a DELIVER on the receiving connection, a STORED on a
 * sending one) therefore reaches a rank that is looking without a second thread waking in between,
 * and a rank that computes (or whose progress agent rests) still takes what its relay writes, so
 * the relay's writes to it do not stall.
 *
 * <p>One thread reads at a time ({@code reading}); a poll that finds it held returns at once (the
 * holder hands what it reads to the same {@link Sink}); so does the reader thread, which then
 * looks again after {@link #HANDOVER_NANOS} rather than selecting again at once (the holder may
 * have lost its core with the bytes still unread, and a readable socket ends every select at once). Frames are parsed from a direct buffer that
 * grows to the largest frame seen; each frame's body is copied out for the sink (a frame without a
 * body allocates nothing), unless a poll's {@link Direct} takes a DELIVER from the buffer itself. An ERROR from the relay ends the connection naming the relay's reason.
 * A break (end of stream, a malformed frame, an ERROR, a frame the sink refuses) is kept in
 * {@link #broken} and ends {@link #serve}, which the port then treats as a lost connection.
 */
final class RelayReceiver {
    /** How long after the last poll the reader thread starts waiting on the socket itself. */
    static final long HANDOVER_NANOS = TimeUnit.MILLISECONDS.toNanos(2);
    /** Longest the reader thread waits on the socket before it looks whether it should stop. */
    private static final long SELECT_MILLIS = 100;

    /**
     * Timed work of the reader thread besides reading (a receiving port's due acknowledgements):
     * called by it each time it wakes. While polls come it parks until the handover regardless (so
     * work due meanwhile waits at most {@link #HANDOVER_NANOS} past its due time, and the thread
     * wakes no more often than without it); its wait on the socket lasts no longer than the answer.
     */
    interface Tick {
        /** Does what is due; returns nanoseconds until the next call is wanted, {@link Long#MAX_VALUE} for none. */
        long tick();
    }

    /** Nothing timed to do. */
    static final Tick NO_TICK = () -> Long.MAX_VALUE;

    /** Where the frames read go; called by the thread that read them, which holds the read lock. */
    interface Sink {
        /** One whole frame other than ERROR; an IOException ends the connection naming why. */
        void frame(RelayFrame.Header h, byte[] body) throws IOException;
    }

    /**
     * A polling thread's offer to take DELIVERs straight from the input buffer, without the copy
     * for the {@link Sink}: asked for each DELIVER the poll parses, with the read lock held.
     */
    interface Direct {
        /**
         * The DELIVER {@code h}, its body {@code length} bytes at {@code offset} in {@code segment}
         * (valid only during the call); true if it was taken (or dropped as a duplicate), false to
         * hand it to the sink as usual.
         */
        boolean take(RelayFrame.Header h, MemorySegment segment, long offset, int length);
    }

    private static final byte[] NO_BODY = new byte[0];

    private final SocketChannel ch;
    private final Sink sink;
    private final Tick tick;
    private final ReentrantLock reading = new ReentrantLock();
    /** Bytes [position, limit) received and not yet parsed; guarded by {@link #reading}. */
    private ByteBuffer in;
    private MemorySegment inSeg;
    /** When (System.nanoTime) a waiting thread last polled. */
    private volatile long polled;
    /** Why reading ended; null while the connection works. */
    private volatile String broken;
    private volatile boolean closed;
    private volatile Thread server;
    /** The reader thread's selector, null until it first waits on the socket. */
    private volatile Selector selector;
    /** True from before the reader thread asks its {@link Tick} until its wait on the socket ended. */
    private volatile boolean selecting;
    /** Held by the one waiting thread that sleeps on the socket ({@link #sleepUntilReadable}); the others park. */
    private final ReentrantLock sleeping = new ReentrantLock();
    /** The sleeping waiters' selector, opened at the first sleep; guarded by {@link #sleeping}. */
    private Selector waiterSelector;
    /** The selector a waiting thread sleeps on now, null when none does: {@link #wakeSleeper} wakes it. */
    private volatile Selector asleepOn;
    /** Sleeps on the socket that ended before their bound (input came, or a wake). */
    private volatile long sleepWakes;
    /**
     * {@link #polled} when the last sleep ended with the socket readable, else -1; guarded by
     * {@link #sleeping}. Still equal at the next sleep: nobody has polled since (the progress lock
     * was held elsewhere), the input is still unread, and a select would return at once.
     */
    private long readyAt = -1;
    /** The key of another connection watched during a sleep ({@code also}), interest off between sleeps; guarded by {@link #sleeping}. */
    private SelectionKey watched;
    /** As {@link #readyAt}, for the other connection that ended the last sleep: its receiver and its polled time then. */
    private RelayReceiver watchedReady;
    private long watchedReadyAt = -1;

    /**
     * @param ch       the connection, after the handshake, non-blocking
     * @param leftover bytes the handshake read past its last frame (the first DELIVERs)
     * @param capacity the input buffer's first size (it grows for a larger frame)
     */
    RelayReceiver(SocketChannel ch, byte[] leftover, int capacity, Sink sink) {
        this(ch, leftover, capacity, sink, NO_TICK);
    }

    /** As above, with timed work for the reader thread ({@link Tick}). */
    RelayReceiver(SocketChannel ch, byte[] leftover, int capacity, Sink sink, Tick tick) {
        this.ch = ch;
        this.sink = sink;
        this.tick = tick;
        this.in = ByteBuffer.allocateDirect(Math.max(capacity, leftover.length + RelayFrame.HEADER));
        this.inSeg = MemorySegment.ofBuffer(in); // the whole buffer: made before put moves its position
        in.put(leftover).flip();
        this.polled = System.nanoTime();
    }

    /** A receiving connection's reader: every DELIVER goes to {@code handler}, any other frame ends it. */
    RelayReceiver(SocketChannel ch, byte[] leftover, int capacity, RelayPort.Handler handler) {
        this(ch, leftover, capacity, deliveries(handler));
    }

    /** The sink of a receiving connection: DELIVERs only. */
    static Sink deliveries(RelayPort.Handler handler) {
        return (h, body) -> {
            if (h.type() != RelayFrame.DELIVER) {
                throw new IOException("relay sent " + RelayFrame.typeName(h.type()) + " on a receiving connection");
            }
            handler.delivered(h.source(), h.sequence(), body);
        };
    }

    /** Why reading ended; null while it works. */
    String broken() {
        return broken;
    }

    /**
     * A waiting thread's look: reads what the relay sent, unless another thread is reading now;
     * returns the frames handed to the inboxes. Never blocks.
     */
    int poll() {
        return poll(null);
    }

    /**
     * As {@link #poll()}, offering each DELIVER to {@code direct} (null: none) before it is copied
     * for the sink. A poll from inside {@code direct} (the thread already reads) returns 0.
     */
    int poll(Direct direct) {
        polled = System.nanoTime();
        if (broken != null || reading.isHeldByCurrentThread() || !reading.tryLock()) {
            return 0;
        }
        try {
            return drain(true, direct);
        } finally {
            reading.unlock();
        }
    }

    /**
     * A waiting thread's sleep until the relay writes to this connection: after {@code lastLook}
     * (a duty cycle, made once a {@link #wakeSleeper} can end the sleep) found nothing, waits for
     * the socket to become readable, for at most {@code nanos} rounded up to whole milliseconds
     * (the kernel's wait counts in them), or until {@link #wakeSleeper}. The kernel wakes exactly
     * this thread when the relay writes, and the thread reads at its next poll, so no other thread
     * of the rank wakes for the frame. One thread sleeps here at a time.
     *
     * @param stay asked after the last look: true if the caller must not sleep on the socket now
     *             (its wait may end by something else than this connection's input)
     * @return true if it slept or the last look found work; false if it cannot sleep here
     *         (another thread sleeps, the connection ended, {@code stay}, or the input that ended
     *         the last sleep is still unread because no poll came since): the caller parks
     */
    boolean sleepUntilReadable(long nanos, IntSupplier lastLook, BooleanSupplier stay) {
        return sleepUntilReadable(nanos, lastLook, stay, null);
    }

    /**
     * As {@link #sleepUntilReadable(long, IntSupplier, BooleanSupplier)}, and input on the
     * connection of {@code also} (null: none; a back-pressured rank's sending connection, whose
     * STOREDs free its room) ends the sleep too. Input of {@code also} that ended the last sleep
     * and that nobody polled since makes this one a park, as this connection's own does.
     */
    boolean sleepUntilReadable(long nanos, IntSupplier lastLook, BooleanSupplier stay, RelayReceiver also) {
        if (!sleeping.tryLock()) {
            return false;
        }
        try {
            if (broken != null || closed) {
                closeWaiterSelector();
                return false;
            }
            Selector sel = waiterSelector;
            if (sel == null) {
                sel = Selector.open();
                ch.register(sel, SelectionKey.OP_READ);
                waiterSelector = sel;
            }
            SelectionKey other = also == null ? null : watch(sel, also);
            asleepOn = sel; // before the look: a wake that comes during it ends the select at once
            try {
                if (lastLook.getAsInt() > 0) {
                    return true;
                }
                if (stay.getAsBoolean() || readyAt == polled || (also != null && also == watchedReady
                        && watchedReadyAt == also.polled)) {
                    return false; // the input it would wake for is there, unread: the caller parks
                }
                long bound = Math.max(1, TimeUnit.NANOSECONDS.toMillis(nanos + 999_999));
                long start = System.nanoTime();
                sel.select(bound);
                boolean otherReady = other != null && sel.selectedKeys().contains(other);
                boolean ownReady = sel.selectedKeys().size() > (otherReady ? 1 : 0);
                sel.selectedKeys().clear();
                readyAt = ownReady ? polled : -1;
                watchedReady = otherReady ? also : null;
                watchedReadyAt = otherReady ? also.polled : -1;
                if (System.nanoTime() - start < TimeUnit.MILLISECONDS.toNanos(bound)) {
                    sleepWakes++;
                }
                return true;
            } finally {
                asleepOn = null;
                if (other != null) {
                    try {
                        other.interestOps(0); // between sleeps its input wakes nobody
                    } catch (java.nio.channels.CancelledKeyException closed) {
                        // that connection closed: the next watch registers its successor
                    }
                }
            }
        } catch (IOException | java.nio.channels.ClosedSelectorException | java.nio.channels.CancelledKeyException e) {
            closeWaiterSelector();
            return false; // the connection is closing: its end is seen by the next poll
        } finally {
            sleeping.unlock();
        }
    }

    /**
     * The key of {@code also}'s connection in the waiters' selector {@code sel}, registered at its
     * first watch (again when that receiver's connection changed), interest set to reading; holding
     * {@link #sleeping}. A closed connection throws, which ends the sleep as a closing one does.
     */
    private SelectionKey watch(Selector sel, RelayReceiver also) throws IOException {
        SelectionKey k = watched;
        if (k == null || k.channel() != also.ch || !k.isValid()) {
            if (k != null) {
                k.cancel();
            }
            k = also.ch.register(sel, SelectionKey.OP_READ);
            watched = k;
        } else {
            k.interestOps(SelectionKey.OP_READ);
        }
        return k;
    }

    /** Ends a waiting thread's sleep on the socket, if one sleeps there; cheap when none does. */
    void wakeSleeper() {
        Selector sel = asleepOn;
        if (sel != null) {
            sel.wakeup();
        }
    }

    /** Sleeps on the socket that ended before their bound. */
    long sleepWakes() {
        return sleepWakes;
    }

    /** Holding {@link #sleeping}. */
    private void closeWaiterSelector() {
        Selector sel = waiterSelector;
        waiterSelector = null;
        watched = null;
        watchedReady = null;
        if (sel != null) {
            try {
                sel.close();
            } catch (IOException ignored) {
                // the key goes with the socket anyway
            }
        }
    }

    /**
     * The reader thread: while threads poll it keeps out of the way, after {@link #HANDOVER_NANOS}
     * without a poll it waits for the socket to become readable and reads; returns why the
     * connection ended.
     */
    String serve() {
        server = Thread.currentThread();
        try (Selector sel = Selector.open()) {
            ch.register(sel, SelectionKey.OP_READ);
            selector = sel;
            while (broken == null && !closed) {
                long quiet = System.nanoTime() - polled;
                if (quiet < HANDOVER_NANOS) {
                    tick.tick(); // what is due waits for the end of the park: the wake-ups stay those of the handover
                    LockSupport.parkNanos(this, HANDOVER_NANOS - quiet); // a poll within the bound keeps it out
                    continue;
                }
                selecting = true; // before the tick: work that becomes due after it wakes the select (see wake)
                try {
                    long due = tick.tick();
                    sel.select(due >= TimeUnit.MILLISECONDS.toNanos(SELECT_MILLIS) ? SELECT_MILLIS
                            : Math.max(1, TimeUnit.NANOSECONDS.toMillis(due + 999_999)));
                } finally {
                    selecting = false;
                }
                sel.selectedKeys().clear();
                if (!reading.tryLock()) {
                    // a poll holds it: it reads now, or lost its core with the bytes unread. Selecting
                    // again would return at once, and waiting for the lock would make its unlock wake
                    // this thread: look again after a handover instead
                    LockSupport.parkNanos(this, HANDOVER_NANOS);
                    continue;
                }
                try {
                    drain(false, null);
                } finally {
                    reading.unlock();
                }
            }
        } catch (IOException e) {
            fail(e.getMessage());
        } finally {
            server = null;
            selector = null;
        }
        return closed && broken == null ? "closed" : broken;
    }

    /**
     * Reads and parses until the socket has nothing more, or, when {@code bounded} (a waiting
     * thread, which has frames to act on), once it has frames and read a buffer's worth; the
     * caller holds {@link #reading}. DELIVERs are offered to {@code direct} first (null: none).
     */
    private int drain(boolean bounded, Direct direct) {
        if (broken != null) {
            return 0;
        }
        int frames = 0;
        long bytes = 0;
        try {
            frames += parse(direct);
            while (!bounded || frames == 0 || bytes < in.capacity()) {
                int r = readSome();
                if (r < 0) {
                    throw new EOFException(in.hasRemaining() ? "relay closed the connection in the middle of a frame"
                            : "relay closed the connection");
                }
                if (r == 0) {
                    return frames;
                }
                bytes += r;
                frames += parse(direct);
            }
            return frames;
        } catch (IOException e) {
            fail(e.getMessage());
            return frames;
        }
    }

    /** One non-blocking read into the free end of the buffer (compacted first when that is short). */
    private int readSome() throws IOException {
        if (in.capacity() - in.limit() < RelayFrame.HEADER || (in.position() > 0 && in.capacity() - in.limit() < in.capacity() / 4)) {
            in.compact().flip();
        }
        int pos = in.position();
        in.position(in.limit()).limit(in.capacity());
        try {
            return ch.read(in);
        } finally {
            in.flip().position(pos);
        }
    }

    /**
     * Hands every whole frame in the buffer over (a DELIVER to {@code direct} if it takes it, else
     * a copy to the sink); grows the buffer for a frame larger than it.
     */
    private int parse(Direct direct) throws IOException {
        int n = 0;
        while (in.remaining() >= RelayFrame.HEADER) {
            int pos = in.position();
            String fault = RelayFrame.validate(inSeg, pos, RelayClient.MAX_BODY);
            if (fault != null) {
                throw new IOException(fault);
            }
            int len = RelayFrame.frameLength(inSeg, pos);
            if (in.remaining() < len) {
                if (len > in.capacity()) {
                    grow(len);
                }
                break;
            }
            RelayFrame.Header h = RelayFrame.header(inSeg, pos);
            in.position(pos + len); // before direct: the frame is consumed whatever it does
            if (direct != null && h.type() == RelayFrame.DELIVER
                    && direct.take(h, inSeg, pos + RelayFrame.HEADER, h.bodyLength())) {
                n++;
                continue;
            }
            byte[] body = h.bodyLength() == 0 ? NO_BODY : new byte[h.bodyLength()];
            MemorySegment.copy(inSeg, pos + RelayFrame.HEADER, MemorySegment.ofArray(body), 0, body.length);
            if (h.type() == RelayFrame.ERROR) {
                throw new IOException("relay refused: " + new String(body, StandardCharsets.UTF_8));
            }
            sink.frame(h, body);
            n++;
        }
        return n;
    }

    private void grow(int frame) {
        ByteBuffer bigger = ByteBuffer.allocateDirect(Math.max(frame, 2 * in.capacity()));
        inSeg = MemorySegment.ofBuffer(bigger); // the whole buffer: made before put moves its position
        bigger.put(in).flip();
        in = bigger;
    }

    private void fail(String why) {
        if (broken == null) {
            broken = why == null ? "relay connection failed" : why;
        }
        stop();
    }

    /**
     * Timed work became due ({@link Tick}): a reader thread waiting on the socket asks its tick
     * again now; a parked one does at the end of its park (at most {@link #HANDOVER_NANOS}).
     */
    void wake() {
        Selector sel = selector;
        if (selecting && sel != null) {
            sel.wakeup();
        }
    }

    /** Stops reading; {@link #serve} returns soon after. */
    void close() {
        closed = true;
        stop();
    }

    private void stop() {
        wakeSleeper();
        try {
            ch.close();
        } catch (IOException ignored) {
            // broken or closing anyway
        }
        Thread t = server;
        if (t != null) {
            LockSupport.unpark(t);
        }
    }
}
