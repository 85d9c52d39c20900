package org.railyard.transport.gateway;

import java.io.EOFException;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.CancelledKeyException;
import java.nio.channels.ClosedSelectorException;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.locks.LockSupport;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.IntConsumer;
import org.railyard.transport.Transport;
import org.railyard.transport.ring.Doorbell;
import org.railyard.transport.ring.FrameRing;
import org.railyard.wire.FrameHeader;
import org.railyard.wire.GatewayFrame;

/**
 * A rank's one connection to its site's gateway, shared by the links to every peer of other sites.
 *
 * <pre>
 *  progress thread ──claim/commit──▶ out ring ──flush (progress thread; what the socket refuses: I/O thread)──▶ socket ──▶ gateway
 *  progress thread ◀──poll── inbox ring of peer p ◀──I/O thread (sorts by source; unparks the poller, rings) ◀── socket
 * </pre>
 *
 * The connection is non-blocking. Links are driven by the progress thread (one at a time, so the
 * out ring has one producer), and a link's flush writes the out ring into the socket itself, as a
 * tcp link does, so a frame leaves without a hand-off to another thread and the progress thread
 * never blocks on the gateway. One thread at a time writes (it holds {@code writing}); the
 * progress thread only tries, and leaves what it cannot write (the I/O thread writes, or the
 * socket is full) to the I/O thread, which waits in its selector until the socket takes it.
 *
 * <p>The I/O thread is the only reader: it waits in the selector, reads what arrives into the
 * inbox of each frame's source, and then unparks the thread that polled the links last (a waiter
 * between two timed parks looks again at once instead of sitting out its park) and rings the
 * process's doorbell, on which the session has a word of its own (a waiter sleeping on it wakes).
 * The progress thread does not read the socket: a waiter's spins then cost no system call each,
 * which on a loaded machine would take the processor from the gateways and the WAN. A frame whose
 * inbox is full stays in the input, with everything behind it, until that peer's link is polled,
 * which holds back the gateway's connection (TCP flow control). A frame from a peer holding no link
 * yet makes a pending inbox and calls the arrival hook once, on the I/O thread (the hook may wait
 * for the connector). A broken connection is seen by the I/O thread at once.
 */
final class GatewaySession {
    private static final ValueLayout.OfInt INT = ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);
    private static final long INBOX_WAIT_NANOS = 20_000;

    private final Transport transport;
    private final Socket socket;
    private final SocketChannel channel;
    private final Selector selector;
    private final SelectionKey key;
    private final GatewayInput input;
    private final GatewayFrame.Address self;
    private final long job;
    private final String site;
    private final String gateway;
    private final int maxFrame;
    private final long inboxCapacity;
    private final FrameRing out;
    private final GatewayLink[] links;
    private final IntConsumer arrived;
    private final Runnable broken;
    private final Runnable wake;
    /** The doorbell word of this connection: the process's waiters sleep on it too, and a frame the I/O thread reads rings it. */
    private final MemorySegment bellWord = Arena.ofAuto().allocate(4, 4);
    private final Doorbell doorbell;
    /** Peers owed a RESET (their link closed here), oldest first; progress thread only. */
    private final java.util.ArrayDeque<GatewayFrame.Address> resets = new java.util.ArrayDeque<>();
    private final Thread io;
    /** Held by the thread that writes the socket (consumes the out ring). */
    private final ReentrantLock writing = new ReentrantLock();
    /** Set when output was left for the I/O thread; it clears it once the out ring is empty. */
    private final AtomicBoolean outPending = new AtomicBoolean();
    /** The frame being written and its length; holding {@link #writing}. */
    private ByteBuffer partial;
    private int partialLength;
    /** The thread that polled the links last (the progress thread, or a waiter driving it); the I/O thread unparks it. */
    private volatile Thread poller;
    private volatile long committed;
    private volatile long written;
    private volatile boolean closed;
    private volatile String failure;

    GatewaySession(Transport transport, GatewayClient.Opened opened, GatewayFrame.Address self, long job, String site,
                   String gateway, int size, int maxFrame, IntConsumer arrived, Runnable broken, Doorbell doorbell)
            throws IOException {
        this.job = job;
        this.transport = transport;
        this.socket = opened.socket();
        this.channel = socket.getChannel();
        this.self = self;
        this.site = site;
        this.gateway = gateway;
        this.maxFrame = maxFrame;
        this.links = new GatewayLink[size];
        this.arrived = arrived;
        this.broken = broken;
        this.doorbell = doorbell;
        this.wake = doorbell::wakeSleepers;
        long outCapacity = ringCapacity(maxFrame + GatewayFrame.HEADER, 4L << 20);
        this.inboxCapacity = ringCapacity(maxFrame, 2L << 20);
        this.out = new FrameRing(Arena.ofAuto().allocate(FrameRing.bytesFor(outCapacity), 64), outCapacity,
                maxFrame + GatewayFrame.HEADER);
        this.input = new GatewayInput(maxFrame);
        try {
            // what the handshake's buffered stream read past the WELCOME is the start of the frames;
            // it serves those first, and the rest stays in the socket for the channel
            java.io.DataInputStream in = opened.in();
            byte[] ahead = new byte[Math.min(in.available(), input.primeLimit())];
            in.readFully(ahead);
            input.prime(ahead);
            channel.configureBlocking(false);
            this.selector = Selector.open();
            this.key = channel.register(selector, SelectionKey.OP_READ);
            doorbell.add(bellWord);
        } catch (IOException | RuntimeException e) {
            socket.close();
            throw e;
        }
        this.io = Thread.ofPlatform().daemon().name("railyard-gateway-io-" + self.process()).start(this::ioLoop);
    }

    /** A power of two holding at least four frames of {@code frame} bytes, and at least {@code floor}. */
    private static long ringCapacity(int frame, long floor) {
        long need = Math.max(floor, 4L * frame);
        return Long.highestOneBit(need - 1) << 1;
    }

    Transport transport() {
        return transport;
    }

    int maxFrame() {
        return maxFrame;
    }

    GatewayFrame.Address self() {
        return self;
    }

    long job() {
        return job;
    }

    String site() {
        return site;
    }

    String gateway() {
        return gateway;
    }

    boolean isOpen() {
        return !closed && failure == null;
    }

    String failure() {
        return failure;
    }

    /** The link to {@code peer}: the pending one its first frames made, or a new one. */
    synchronized GatewayLink link(int peer, GatewayFrame.Address to, String peerSite, boolean reroutes) throws IOException {
        if (!isOpen()) {
            throw new IOException("the connection to the gateway " + gateway + " is down: " + failure);
        }
        GatewayLink l = links[peer];
        if (l == null || l.discarded()) {
            l = new GatewayLink(this, peer, newInbox());
            links[peer] = l;
        }
        l.joined(to, peerSite, reroutes);
        return l;
    }

    /** The inbox of {@code peer} for the reader: its link, or a pending one (the arrival hook is told). */
    private GatewayLink inbox(int peer) {
        GatewayLink l;
        boolean fresh = false;
        synchronized (this) {
            l = links[peer];
            if (l == null || l.discarded()) {
                l = new GatewayLink(this, peer, newInbox());
                links[peer] = l;
                fresh = true;
            }
        }
        if (fresh) {
            // the I/O thread: the hook may wait for the connector, never the progress thread
            arrived.accept(peer);
        }
        return l;
    }

    private FrameRing newInbox() {
        return new FrameRing(Arena.ofAuto().allocate(FrameRing.bytesFor(inboxCapacity), 64), inboxCapacity, maxFrame);
    }

    synchronized void forget(GatewayLink l) {
        if (links[l.peer()] == l) {
            links[l.peer()] = null;
        }
    }

    /**
     * The link to {@code to} was closed here while the session is up: the peer is told (a DATA
     * frame flagged {@link GatewayFrame#FLAG_RESET}), so that its link breaks too and both ends
     * start the next one from the same frame. Progress thread.
     */
    void reset(GatewayFrame.Address to) {
        resets.add(to);
        sendResets();
    }

    /** Sends the RESETs owed; false while the out ring has no room for one (a claim retries first). */
    boolean sendResets() {
        if (resets.isEmpty()) {
            return true;
        }
        while (!resets.isEmpty()) {
            int routed = GatewayFrame.HEADER + 1;
            long off = out.tryClaim(routed);
            if (off < 0) {
                return false;
            }
            GatewayFrame.Address dst = resets.poll();
            MemorySegment seg = out.segment();
            GatewayFrame.writeHeader(seg, off, routed, GatewayFrame.DATA, GatewayFrame.FLAG_RESET, job, self.site(),
                    self.node(), self.process(), dst.site(), dst.node(), dst.process());
            seg.set(ValueLayout.JAVA_BYTE, off + GatewayFrame.HEADER, (byte) 0);
            commit(routed);
        }
        // the closed link that owed them is not flushed again
        flush();
        return true;
    }

    // ---- output: the progress thread produces; whoever holds writing drains into the socket

    /** Room for a routed frame of {@code length} bytes in the out ring; its offset, or -1 when full. */
    long claim(int length) {
        return out.tryClaim(length);
    }

    MemorySegment outSegment() {
        return out.segment();
    }

    void commit(int length) {
        out.commit();
        committed += length;
    }

    boolean pendingOutput() {
        return written < committed;
    }

    /**
     * Writes what the out ring holds into the socket, without blocking, from the calling thread
     * (the progress thread: a link's flush). What the socket cannot take now, or what it cannot
     * write because the I/O thread is writing, is left to the I/O thread, which waits until the
     * socket is writable. Returns a positive number if it wrote anything.
     */
    int flush() {
        if (!pendingOutput() || closed) {
            return 0;
        }
        long before = written;
        if (writing.tryLock()) {
            try {
                drain();
            } catch (IOException e) {
                writing.unlock();
                fail("writing to the gateway failed: " + e.getMessage());
                return 0;
            }
            writing.unlock();
        }
        if (pendingOutput() && outPending.compareAndSet(false, true)) {
            selector.wakeup();
        }
        return written > before ? 1 : 0;
    }

    /** Writes frames from the out ring until it is empty (true) or the socket takes no more (false). Holding {@link #writing}. */
    private boolean drain() throws IOException {
        MemorySegment seg = out.segment();
        while (true) {
            if (partial != null) {
                channel.write(partial);
                if (partial.hasRemaining()) {
                    return false;
                }
                partial = null;
                out.release(partialLength);
                written += partialLength;
            }
            long off = out.peek();
            if (off < 0) {
                return true;
            }
            partialLength = seg.get(INT, off);
            partial = seg.asSlice(off, partialLength).asByteBuffer();
        }
    }

    // ---- input: the I/O thread pumps the socket into the inboxes, each link consumes its own

    /** The thread that polls the links now (a waiter, or the agent): the I/O thread unparks it after a frame. */
    void polledBy(Thread t) {
        if (poller != t) {
            poller = t;
        }
    }

    /**
     * The I/O thread: waits in the selector until the gateway sends or the socket can take output
     * left over, and then reads (into the inboxes, waking the poller) or writes. A broken
     * connection is seen at once (and the transport reopens a session).
     */
    private void ioLoop() {
        try {
            while (!closed) {
                boolean wantWrite = outPending.get();
                key.interestOps(SelectionKey.OP_READ | (wantWrite ? SelectionKey.OP_WRITE : 0));
                if (input.stuck()) {
                    // an inbox is full: look again once its link had a chance to be polled
                    selector.selectNow();
                    LockSupport.parkNanos(INBOX_WAIT_NANOS);
                } else {
                    selector.select();
                }
                if (closed) {
                    return;
                }
                if (input.pump(channel, this::unit) > 0) {
                    arrivedHere();
                }
                if (wantWrite || outPending.get()) {
                    writeLeftOver();
                }
            }
        } catch (ClosedSelectorException | CancelledKeyException e) {
            // closed here
        } catch (IOException e) {
            readFailed(e);
        }
    }

    /**
     * The I/O thread left work for the progress thread: the thread that polls the links is
     * unparked (a waiter between two timed parks looks again at once, as it would have found the
     * frame itself had it polled), and a thread sleeping on the doorbell is woken.
     */
    private void arrivedHere() {
        Thread t = poller;
        if (t != null) {
            LockSupport.unpark(t);
        }
        wake.run();
    }

    /** The I/O thread writes what the progress thread left; it clears {@link #outPending} once all is out. */
    private void writeLeftOver() {
        boolean empty;
        writing.lock();
        try {
            empty = drain();
        } catch (IOException e) {
            writing.unlock();
            fail("writing to the gateway failed: " + e.getMessage());
            return;
        }
        writing.unlock();
        if (empty) {
            outPending.set(false);
            // a commit after the drain whose flush found writing taken saw outPending still set
            if (pendingOutput()) {
                outPending.set(true);
            }
        }
    }

    private void readFailed(IOException e) {
        if (e instanceof GatewayClosed c) {
            fail(c.getMessage());
        } else if (e instanceof EOFException) {
            fail("the gateway of site '" + site + "' (" + gateway + ") closed the connection"
                    + (e.getMessage().equals("connection closed") ? "" : ": " + e.getMessage()));
        } else {
            fail("the connection to the gateway of site '" + site + "' (" + gateway + ") broke: " + e.getMessage());
        }
    }

    /** The gateway ended the session itself (ERROR, or a frame a rank never gets): the message is the failure. */
    private static final class GatewayClosed extends IOException {
        GatewayClosed(String why) {
            super(why);
        }
    }

    /** One whole unit from the gateway (see {@link GatewayInput}); false while its inbox is full. */
    private boolean unit(MemorySegment seg, long off, GatewayFrame.Header h, long toff, GatewayFrame.Header t)
            throws IOException {
        switch (h.type()) {
            case GatewayFrame.DATA -> {
                return deliver(seg, off, h, toff, t);
            }
            case GatewayFrame.UNREACHABLE -> {
                String why = text(seg, off, h);
                int peer = h.source().process();
                if (peer == -1) {
                    siteUnreachable(h.source().site(), "the gateway of site '" + site + "' (" + gateway + "): " + why);
                } else if (peer >= 0 && peer < links.length) {
                    inbox(peer).unreachable("the gateway of site '" + site + "' (" + gateway + ") cannot reach rank "
                            + peer + ": " + why);
                }
                arrivedHere();
                return true;
            }
            case GatewayFrame.ERROR -> throw new GatewayClosed("the gateway of site '" + site + "' (" + gateway
                    + ") closed the connection: " + text(seg, off, h));
            default -> throw new GatewayClosed("the gateway of site '" + site + "' (" + gateway + ") sent "
                    + GatewayFrame.typeName(h.type()));
        }
    }

    private static String text(MemorySegment seg, long off, GatewayFrame.Header h) {
        byte[] b = new byte[h.bodyLength()];
        MemorySegment.copy(seg, ValueLayout.JAVA_BYTE, off + GatewayFrame.HEADER, b, 0, b.length);
        return new String(b, StandardCharsets.UTF_8);
    }

    /** Every link to a rank of the site {@code siteId} breaks with {@code why}. */
    private synchronized void siteUnreachable(int siteId, String why) {
        for (GatewayLink l : links) {
            if (l != null && l.peerSiteId() == siteId) {
                l.unreachable(why);
            }
        }
    }

    /**
     * One DATA frame (with its trailer {@code t} when it came cut): checked, then copied into its
     * source's inbox; false while that is full. A cut frame counts only with its END; on ABORT it
     * is dropped and the link from its source breaks, naming why (the other sources' links go on).
     */
    private boolean deliver(MemorySegment seg, long off, GatewayFrame.Header h, long toff, GatewayFrame.Header t)
            throws IOException {
        int peer = h.source().process();
        int len = h.bodyLength();
        boolean reset = h.has(GatewayFrame.FLAG_RESET);
        if (peer >= links.length || h.destination().process() != self.process() || len > maxFrame
                || (len < FrameHeader.LENGTH && !reset)) {
            throw new IOException("the gateway forwarded a frame from " + h.source() + " to " + h.destination()
                    + " of " + len + " bytes to rank " + self.process() + " of a job of " + links.length);
        }
        if (t != null) {
            if ((t.type() != GatewayFrame.END && t.type() != GatewayFrame.ABORT) || !t.source().equals(h.source())
                    || !t.destination().equals(h.destination())) {
                throw new IOException("the gateway followed a cut frame from rank " + peer + " with "
                        + GatewayFrame.typeName(t.type()) + " from " + t.source() + " instead of its END or ABORT");
            }
            if (t.type() == GatewayFrame.ABORT) {
                breakLink(peer, "the gateway of site '" + site + "' (" + gateway + ") could not complete a frame from rank "
                        + peer + ": " + text(seg, toff, t));
                return true;
            }
        }
        if (reset) {
            breakLink(peer, "rank " + peer + " closed its link to this rank through the gateway (to link again)");
            return true;
        }
        long body = off + GatewayFrame.HEADER;
        if (seg.get(INT, body) != len) {
            throw new IOException("rank " + peer + " sent through the gateway a frame of " + len
                    + " bytes whose header says " + seg.get(INT, body));
        }
        GatewayLink l = inbox(peer);
        FrameRing ring = l.inbox();
        long at = ring.tryClaim(len);
        if (at < 0) {
            // dropped with its link, else kept until the link's poll makes room
            return l.discarded() || closed;
        }
        MemorySegment.copy(seg, body, ring.segment(), at, len);
        ring.commit();
        return true;
    }

    /** The link from {@code peer}, if any, breaks with {@code why} (no pending link is made for it). */
    private void breakLink(int peer, String why) {
        GatewayLink l;
        synchronized (this) {
            l = links[peer];
        }
        if (l != null) {
            l.unreachable(why);
            arrivedHere();
        }
    }

    /** The connection broke (not closed here): its links fail, and the transport is told once. */
    private void fail(String why) {
        boolean first;
        synchronized (this) {
            first = failure == null && !closed;
            if (first) {
                failure = why;
            }
        }
        close();
        arrivedHere();
        if (first) {
            broken.run();
        }
    }

    void close() {
        if (closed) {
            return;
        }
        closed = true;
        try {
            socket.close();
        } catch (IOException ignored) {
            // already broken
        }
        try {
            selector.close();
        } catch (IOException ignored) {
            // closing anyway
        }
        doorbell.remove(bellWord);
    }
}
