package org.railyard.transport.relay;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import org.railyard.wire.RelayFrame;

/**
 * This process's connection to one relay, kept up across the relay's restarts: on a sending port,
 * the STOREs of every link whose peer that relay owns; on the receiving port (the process's owner
 * relay, {@link RelayFrame#FLAG_RECEIVE}), the DELIVERs for this rank and its DELIVERED
 * acknowledgements. Sending and receiving use separate connections, so a relay that holds this
 * rank's STOREs back (its store is full) still reads the acknowledgements that free it.
 *
 * <p>Threads: one runner per port connects, writes (queued frames, batched into one flush), and
 * after a break connects again. Every connection is non-blocking and read by whichever thread
 * comes first ({@link RelayReceiver}): a thread of the rank through {@link #pollInput} (the
 * waiting thread's {@link RelayLink#poll}, which on a sending port looks while frames await their
 * STORED, and a thread sending, which takes the STOREDs come meanwhile before it decides whether
 * it may write directly), or the connection's reader thread when nobody has looked for a while.
 * So neither a DELIVER reaching a waiting rank nor the STORED of each message it sent wakes a
 * thread of the rank. A frame stays queued until its STORED: after a reconnection every frame not
 * yet STORED is written again, in order, and the relay keeps each sequence number once.
 *
 * <p>Writing. One thread at a time writes to the connection ({@code writing}). A frame sent while
 * nothing is queued or being written, and while the frames written and not yet STORED are few and
 * small ({@link #DIRECT_FRAMES}, a quarter of the socket's send buffer), is written at once by the
 * thread that sends it: the relay read every byte up to the STOREDs it returned, so the kernel's
 * send buffer has room for it and the write cannot wait on the relay. Anything else is queued for
 * the runner, which writes what has queued meanwhile in one flush. The receiving port's DELIVERED
 * acknowledgements (which only let the relay forget) are written {@link #ACK_DELAY} after they
 * become due, or as soon as {@link #ACK_FRAMES} frames are due, so they are not a system call and
 * a wake-up per message. The delayed ones are written by the receiving connection's reader thread
 * ({@link RelayReceiver.Tick}) at its first wake-up after they are due: while the rank polls it
 * wakes anyway, at the end of each park ({@link RelayReceiver#HANDOVER_NANOS}, so they wait at most
 * that long past {@link #ACK_DELAY}), and its wait on the socket is bounded by their due time.
 * The thread that consumed the frames wakes nobody for them, and no thread wakes for them alone
 * while the rank polls. The runner writes the urgent ones, and those of a connection opened again.
 *
 * <p>Bounds: a connection that breaks is opened again, with backoff, for at most {@code absence};
 * beyond it, or when the relay refuses this process (an ERROR: wrong secret, a sequence gap after
 * a relay lost its memory), the port fails for good and says why.
 */
final class RelayPort implements AutoCloseable {
    /** A frame to store at the relay for {@code destination}: the first {@code length} bytes of {@code frame}. */
    record Out(int destination, long sequence, byte[] frame, int length) { }

    /** What a port's reader and its failure are handed to. */
    interface Handler {
        /** A DELIVER on the receiving port (reader thread). */
        void delivered(int source, long sequence, byte[] frame);

        /** A STORED freed room on a sending port (reader thread). */
        void stored();

        /** A PRESENCE answer: {@code rank} has been away from this relay for {@code absentMillis} (0: it is here). */
        void presence(RelayPort port, int rank, long absentMillis);

        /** The port failed for good (runner thread). */
        void failed(RelayPort port, String why);

        /** One-line notices (reconnections). */
        void say(String line);
    }

    /** First input buffer of a sending port: it reads STOREDs and PRESENCE answers (24 bytes each). */
    private static final int STORED_BUFFER = 16 << 10;
    /** Most frames written between two flushes. */
    private static final int BATCH = 64;
    /** Most frames written and not yet STORED for a sending thread to write a frame itself. */
    static final int DIRECT_FRAMES = 4;
    /** Longest a due DELIVERED waits to be written. */
    static final long ACK_DELAY = TimeUnit.MILLISECONDS.toNanos(1);
    /** Frames consumed after which their DELIVERED is written at once. */
    static final int ACK_FRAMES = 64;
    private static final Duration BACKOFF_MIN = Duration.ofMillis(50);
    private static final Duration BACKOFF_MAX = Duration.ofSeconds(1);

    private final InetSocketAddress relay;
    /** HOST:PORT, for notices. */
    private final String name;
    private final boolean receive;
    private final RelayTransport transport;
    private final Handler handler;
    private final ReentrantLock lock = new ReentrantLock();
    /** The arrays of this port's frames: taken by {@link #claim}, given back at their STORED. */
    private final FramePool frames = new FramePool();
    private final Condition work = lock.newCondition();
    /** Signalled when {@link #held} falls to zero (a checkpoint waits for it). */
    private final Condition empty = lock.newCondition();
    /** Frames not written on the current connection, in order; guarded by lock. */
    private final ArrayDeque<Out> pending = new ArrayDeque<>();
    /** Frames written, their STORED not come yet, in order of writing; guarded by lock. */
    private final ArrayDeque<Out> unstored = new ArrayDeque<>();
    /** Bytes of pending and unstored frames; written under lock (read without it by {@link #awaitsStored}). */
    private volatile long held;
    /** Receiving port: per source, the highest sequence consumed and the highest acknowledged. */
    private final long[] ackWanted;
    private final long[] ackSent;
    private boolean acksDue;
    /** Receiving port: the acknowledgements due are written without waiting for {@link #ACK_DELAY}. */
    private boolean acksUrgent;
    /** Receiving port: when (System.nanoTime) the oldest acknowledgement not yet written became due. */
    private long acksSince;
    /** Receiving port: frames consumed since the last acknowledgements were written. */
    private int acksCount;
    /** Receiving port: the reader thread's acknowledgements to write (that thread only). */
    private final long[] tickAcks;
    /** True while a thread (the runner, or a sender writing directly) writes to the connection; guarded by lock. */
    private boolean writing;
    /** Bytes a sending thread may have written and not STORED to write one more frame directly: set at connection. */
    private long directBytes;
    /** True after a sender found this port's window full: the next STORED rings the doorbell. */
    volatile boolean pressed;
    /** Sending port: ranks whose presence to ask about at the next write; guarded by lock. */
    private final java.util.Set<Integer> asks = new java.util.LinkedHashSet<>();
    private RelayClient client;
    /** Receiving port: the current connection's polled input; null before the first and on a sending port. */
    private volatile RelayReceiver receiver;
    private boolean broken;
    private volatile boolean closed;
    private volatile String failure;
    private volatile long reconnections;
    private final Thread runner;

    /** Connects (bounded by the transport's connect timeout) and starts the runner; throws if the first connection fails. */
    RelayPort(RelayTransport transport, InetSocketAddress relay, boolean receive, Handler handler) throws IOException {
        this.transport = transport;
        this.relay = relay;
        this.name = relay.getHostString() + ":" + relay.getPort();
        this.receive = receive;
        this.handler = handler;
        this.ackWanted = receive ? new long[transport.size()] : null;
        this.ackSent = receive ? new long[transport.size()] : null;
        this.tickAcks = receive ? new long[transport.size()] : null;
        this.client = transport.connect(relay, receive);
        this.directBytes = client.sendBuffer() / 4;
        this.runner = Thread.ofPlatform().daemon().name("railyard-relay-" + (receive ? "receive-" : "send-") + relay)
                .start(this::run);
    }

    InetSocketAddress relay() {
        return relay;
    }

    /** Why the port failed for good; null while it works. */
    String failure() {
        return failure;
    }

    /** Times the connection was opened again after a break. */
    long reconnections() {
        return reconnections;
    }

    /** Bytes queued or written and not yet STORED. */
    long held() {
        lock.lock();
        try {
            return held;
        } finally {
            lock.unlock();
        }
    }

    /** Waits at most {@code bound} for every queued frame to be STORED. */
    void awaitStored(java.time.Duration bound) {
        lock.lock();
        try {
            if (held > 0) {
                empty.await(bound.toNanos(), java.util.concurrent.TimeUnit.NANOSECONDS);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } finally {
            lock.unlock();
        }
    }

    /**
     * An array for a frame of {@code length} bytes to {@link #send} through this port (its
     * contents are stale); the port uses it again once the relay STOREs the frame.
     */
    byte[] claim(int length) {
        return frames.take(length);
    }

    /** Sends a frame to the relay (progress agent): written at once when it can be (see the class), else queued for the runner. */
    void send(Out out) {
        RelayClient c;
        boolean looked = false;
        while (true) {
            boolean look = false;
            lock.lock();
            try {
                c = client;
                boolean busy = c == null || broken || closed || writing || !pending.isEmpty();
                boolean full = unstored.size() >= DIRECT_FRAMES || held + out.length() > directBytes;
                if (!busy && full && !looked) {
                    look = true; // the STOREDs come meanwhile may make room: this thread reads them first
                } else {
                    held += out.length();
                    if (busy || full) {
                        pending.add(out);
                        if (!writing) {
                            work.signal();
                        }
                        return;
                    }
                    writing = true;
                    unstored.add(out);
                }
            } finally {
                lock.unlock();
            }
            if (!look) {
                break;
            }
            pollInput();
            looked = true;
        }
        String why = null;
        try {
            c.store(out.destination(), out.sequence(), false, out.frame(), 0, out.length());
        } catch (IOException e) {
            why = e.getMessage();
        }
        wrote(c, why);
    }

    /**
     * A thread other than the runner ended its write to {@code c} ({@code why} it failed, null if
     * it did not): the connection is free again, broken if it failed, and the runner is woken when
     * it has work that waited for the write.
     */
    private void wrote(RelayClient c, String why) {
        lock.lock();
        try {
            writing = false;
            if (why != null && client == c && !broken) {
                broken = true;
                brokenWhy = why;
            }
            if (broken || !pending.isEmpty() || !asks.isEmpty() || acksUrgent) {
                work.signal(); // the runner waited for this write to end (due acknowledgements: the reader's)
            }
        } finally {
            lock.unlock();
        }
    }

    /** Receiving port: every message of {@code source} up to {@code sequence} is consumed. */
    void ack(int source, long sequence) {
        boolean wakeReader = false;
        lock.lock();
        try {
            if (sequence > ackWanted[source]) {
                acksCount += (int) Math.min(ACK_FRAMES, sequence - ackWanted[source]);
                ackWanted[source] = sequence;
                if (!acksDue) {
                    acksDue = true;
                    acksSince = System.nanoTime();
                    wakeReader = true; // the reader thread writes them when due (see the class)
                }
                if (acksCount >= ACK_FRAMES && !acksUrgent) {
                    acksUrgent = true;
                    work.signal();
                }
            }
        } finally {
            lock.unlock();
        }
        RelayReceiver r = receiver;
        if (wakeReader && r != null) {
            r.wake(); // a reader thread waiting on the socket bounds that wait by the due time
        }
    }

    /**
     * Receiving port, the reader thread's {@link RelayReceiver.Tick}: writes the acknowledgements
     * that are due for {@link #ACK_DELAY} when nobody else writes now; returns the nanoseconds until
     * the next are due ({@link Long#MAX_VALUE}: none).
     */
    private long ackTick() {
        RelayClient c;
        boolean any = false;
        lock.lock();
        try {
            if (!acksDue || closed || broken || client == null) {
                return Long.MAX_VALUE; // none, or the runner's after a reconnection
            }
            long left = acksSince + ACK_DELAY - System.nanoTime();
            if (left > 0 || writing) {
                return left > 0 ? left : ACK_DELAY; // a writer now: look again later
            }
            c = client;
            writing = true;
            any = takeAcks(tickAcks);
        } finally {
            lock.unlock();
        }
        String why = null;
        try {
            if (any) {
                for (int s = 0; s < tickAcks.length; s++) {
                    if (tickAcks[s] > 0) {
                        c.deliveredLater(s, tickAcks[s]);
                    }
                }
                c.flush();
            }
        } catch (IOException e) {
            why = e.getMessage();
        }
        wrote(c, why);
        return Long.MAX_VALUE;
    }

    /**
     * Takes the acknowledgements due into {@code acks} (per source, 0 for none) and marks them
     * sent; true if there is any. The caller holds the lock.
     */
    private boolean takeAcks(long[] acks) {
        boolean any = false;
        for (int s = 0; s < acks.length; s++) {
            acks[s] = ackWanted[s] > ackSent[s] ? ackWanted[s] : 0;
            if (acks[s] > 0) {
                ackSent[s] = ackWanted[s];
                any = true;
            }
        }
        acksDue = false;
        acksUrgent = false;
        acksCount = 0;
        return any;
    }

    /** Sending port: asks the relay whether {@code rank} is connected to receive there (answer: {@link Handler#presence}). */
    void askPresence(int rank) {
        lock.lock();
        try {
            if (asks.add(rank)) {
                work.signal();
            }
        } finally {
            lock.unlock();
        }
    }

    private void run() {
        long lostAt = 0;
        long backoff = BACKOFF_MIN.toNanos();
        while (!closed) {
            RelayClient c;
            lock.lock();
            try {
                c = client;
            } finally {
                lock.unlock();
            }
            if (c == null) {
                try {
                    c = transport.connect(relay, receive);
                } catch (IOException e) {
                    String why = e.getMessage();
                    if (why != null && why.startsWith("relay refused")) {
                        fail("relay " + name + " refused this rank: " + why);
                        return;
                    }
                    if (System.nanoTime() - lostAt > transport.absence().toNanos()) {
                        fail("relay " + name + " unreachable for " + transport.absence().toSeconds() + " s: " + why);
                        return;
                    }
                    pause(backoff);
                    backoff = Math.min(backoff * 2, BACKOFF_MAX.toNanos());
                    continue;
                }
                backoff = BACKOFF_MIN.toNanos();
                reconnections++;
                handler.say("relay " + name + ": connected again" + (receive ? " (receiving)" : ""));
                lock.lock();
                try {
                    client = c;
                    broken = false;
                    // everything not STORED goes again, first, in its original order
                    for (Iterator<Out> it = unstored.descendingIterator(); it.hasNext(); ) {
                        pending.addFirst(it.next());
                    }
                    unstored.clear();
                    if (receive) {
                        for (int s = 0; s < ackSent.length; s++) {
                            if (ackWanted[s] > 0) {
                                ackSent[s] = 0; // a relay that restarted may not have it
                                acksDue = true;
                            }
                        }
                    }
                } finally {
                    lock.unlock();
                }
            }
            RelayClient conn = c;
            RelayReceiver polled = null;
            try {
                RelayClient.Detached d = conn.detachInput();
                polled = receive
                        ? new RelayReceiver(d.channel(), d.leftover(), transport.receiveBuffer(),
                                RelayReceiver.deliveries(handler), this::ackTick)
                        : new RelayReceiver(d.channel(), d.leftover(), STORED_BUFFER, this::acknowledged);
            } catch (IOException e) {
                lost(e.getMessage());
            }
            RelayReceiver r = polled;
            receiver = r;
            Thread reader = Thread.ofPlatform().daemon().name("railyard-relay-read-" + relay)
                    .start(r != null ? () -> served(r) : () -> { });
            String why = write(conn);
            if (r != null) {
                r.close();
            }
            try {
                conn.close();
            } catch (IOException ignored) {
                // broken anyway
            }
            try {
                reader.join();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
            lock.lock();
            try {
                client = null;
            } finally {
                lock.unlock();
            }
            if (why != null && why.startsWith("relay refused")) {
                fail("relay " + name + " refused this rank: " + why);
                return;
            }
            lostAt = System.nanoTime();
            if (!closed) {
                handler.say("relay " + name + ": connection lost (" + why + "), connecting again for up to "
                        + transport.absence().toSeconds() + " s");
            }
        }
    }

    /** Writes queued frames and acknowledgements until the connection breaks or the port closes; why it stopped. */
    private String write(RelayClient c) {
        Out[] batch = new Out[BATCH];
        long[] acks = receive ? new long[ackWanted.length] : null;
        List<Integer> asking = new ArrayList<>();
        while (true) {
            int n = 0;
            boolean anyAck = false;
            asking.clear();
            lock.lock();
            try {
                while (!closed && !broken) {
                    if (writing || (pending.isEmpty() && !acksDue && asks.isEmpty())) {
                        work.awaitUninterruptibly();
                    } else if (pending.isEmpty() && asks.isEmpty() && !acksUrgent) {
                        long left = acksSince + ACK_DELAY - System.nanoTime();
                        if (left <= 0) {
                            break;
                        }
                        try {
                            work.awaitNanos(left); // acknowledgements only: let a few more come first
                        } catch (InterruptedException e) {
                            Thread.currentThread().interrupt();
                            return "interrupted";
                        }
                    } else {
                        break;
                    }
                }
                if (closed) {
                    return "closed";
                }
                if (broken) {
                    return brokenWhy;
                }
                writing = true;
                while (n < BATCH && !pending.isEmpty()) {
                    Out o = pending.poll();
                    unstored.add(o);
                    batch[n++] = o;
                }
                if (acksDue) {
                    anyAck = takeAcks(acks);
                }
                asking.addAll(asks);
                asks.clear();
            } finally {
                lock.unlock();
            }
            try {
                for (int i = 0; i < n; i++) {
                    c.storeLater(batch[i].destination(), batch[i].sequence(), batch[i].frame(), batch[i].length());
                    batch[i] = null;
                }
                if (anyAck) {
                    for (int s = 0; s < acks.length; s++) {
                        if (acks[s] > 0) {
                            c.deliveredLater(s, acks[s]);
                        }
                    }
                }
                for (int rank : asking) {
                    c.presenceLater(rank);
                }
                c.flush();
            } catch (IOException e) {
                return e.getMessage();
            } finally {
                lock.lock();
                try {
                    writing = false;
                } finally {
                    lock.unlock();
                }
            }
        }
    }

    private String brokenWhy;

    /** The reader thread: serves the polled connection (see {@link RelayReceiver}) until it breaks. */
    private void served(RelayReceiver r) {
        lost(r.serve());
    }

    /** The connection broke for {@code why}: the runner connects again. */
    private void lost(String why) {
        lock.lock();
        try {
            if (!broken) {
                broken = true;
                brokenWhy = why;
            }
            work.signal();
        } finally {
            lock.unlock();
        }
    }

    /**
     * Reads what the relay sent, if no other thread is reading it now: on the receiving port a
     * waiting thread's look (through {@link RelayLink#poll}), the DELIVERs handed to the inboxes;
     * on a sending port the STOREDs, which free the frames they name. Never blocks; returns the
     * frames read.
     */
    int pollInput() {
        return pollInput(null);
    }

    /** The reader of the connection now, null between connections. */
    RelayReceiver receiver() {
        return receiver;
    }

    /** As {@link #pollInput()}, offering each DELIVER to {@code direct} first (see {@link RelayReceiver#poll(RelayReceiver.Direct)}). */
    int pollInput(RelayReceiver.Direct direct) {
        RelayReceiver r = receiver;
        return r == null ? 0 : r.poll(direct);
    }

    /** Sending port: true while frames written are not yet STORED (a look at the input may find their STOREDs). */
    boolean awaitsStored() {
        return held > 0; // a racy read: a stale answer costs one look, or defers it to the next poll
    }

    /** Sending port: what the relay sends on it (STOREDs, PRESENCE answers), from whichever thread read it. */
    private void acknowledged(RelayFrame.Header h, byte[] body) throws IOException {
        if (h.type() == RelayFrame.STORED) {
            stored(h.destination(), h.sequence());
        } else if (h.type() == RelayFrame.PRESENCE) {
            handler.presence(this, h.destination(), h.sequence());
        } else {
            throw new IOException("relay sent " + RelayFrame.typeName(h.type()) + " on a sending connection");
        }
    }

    /** A STORED: the frame it names is kept by the relay and leaves the queue. */
    private void stored(int destination, long sequence) {
        lock.lock();
        try {
            Out head = unstored.peek();
            if (head != null && head.destination() == destination && head.sequence() == sequence) {
                unstored.poll();
                held -= head.length();
                frames.give(head.frame());
            } else {
                for (Iterator<Out> it = unstored.iterator(); it.hasNext(); ) {
                    Out o = it.next();
                    if (o.destination() == destination && o.sequence() == sequence) {
                        it.remove();
                        held -= o.length();
                        frames.give(o.frame());
                        break;
                    }
                }
            }
            if (held == 0) {
                empty.signalAll();
            }
        } finally {
            lock.unlock();
        }
        if (pressed) {
            pressed = false;
            handler.stored();
        }
    }

    private void fail(String why) {
        failure = why;
        handler.say(why);
        handler.failed(this, why);
    }

    /** Waits {@code nanos} between connection attempts, or less if the port closes. */
    private void pause(long nanos) {
        lock.lock();
        try {
            if (!closed) {
                work.awaitNanos(nanos);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } finally {
            lock.unlock();
        }
    }

    /**
     * Closes the connection, after waiting (at most {@code drain}) until every queued frame is
     * STORED and every acknowledgement written, so a job's last messages are not left behind.
     */
    void close(Duration drain) {
        long deadline = System.nanoTime() + drain.toNanos();
        lock.lock();
        try {
            if (acksDue) {
                acksUrgent = true;
                work.signal();
            }
            while (failure == null && (!pending.isEmpty() || !unstored.isEmpty() || acksDue)) {
                long left = deadline - System.nanoTime();
                if (left <= 0) {
                    break;
                }
                work.awaitNanos(Math.min(left, TimeUnit.MILLISECONDS.toNanos(10)));
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } finally {
            lock.unlock();
        }
        close();
    }

    @Override
    public void close() {
        closed = true;
        lock.lock();
        try {
            work.signalAll();
            RelayReceiver r = receiver;
            if (r != null) {
                r.close();
            }
            if (client != null) {
                try {
                    client.close();
                } catch (IOException ignored) {
                    // closing anyway
                }
            }
        } finally {
            lock.unlock();
        }
        try {
            runner.join(TimeUnit.SECONDS.toMillis(2));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
