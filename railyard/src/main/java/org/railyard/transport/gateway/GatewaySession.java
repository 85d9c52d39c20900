package org.railyard.transport.gateway;

import java.io.DataInputStream;
import java.io.EOFException;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.locks.LockSupport;
import java.util.function.IntConsumer;
import org.railyard.transport.Transport;
import org.railyard.transport.ring.FrameRing;
import org.railyard.wire.FrameHeader;
import org.railyard.wire.GatewayFrame;

/**
 * A rank's one connection to its site's gateway, shared by the links to every peer of other sites.
 *
 * <pre>
 *  progress thread ──claim/commit──▶ out ring ──writer thread──▶ socket ──▶ gateway
 *  progress thread ◀──poll── inbox ring of peer p ◀──reader thread (sorts by source) ◀── socket
 * </pre>
 *
 * Links are driven by the progress thread (one at a time, so the out ring has one producer); the
 * writer thread is its only consumer and blocks in the socket, so the progress thread never does
 * (a full ring is BACK_PRESSURED). The reader thread is the only producer of every inbox; it waits,
 * parked in short steps, while an inbox is full, which holds back the gateway's connection (TCP
 * flow control) until that peer's link is polled. A frame from a peer holding no link yet makes a
 * pending inbox and calls the arrival hook once. Whatever the reader leaves for the progress
 * thread (a frame in an inbox, a broken link) it follows with {@code wake}, which wakes a thread
 * of this process sleeping on the doorbell, so that a waiter does not sit out its sleep first.
 */
final class GatewaySession {
    private static final ValueLayout.OfInt INT = ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);
    private static final long INBOX_WAIT_NANOS = 20_000;

    private final Transport transport;
    private final Socket socket;
    private final SocketChannel channel;
    private final DataInputStream in;
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
    /** Peers owed a RESET (their link closed here), oldest first; progress thread only. */
    private final java.util.ArrayDeque<GatewayFrame.Address> resets = new java.util.ArrayDeque<>();
    private final Thread writer;
    private final Thread reader;
    private volatile boolean writerParked;
    private volatile long committed;
    private volatile long written;
    private volatile boolean closed;
    private volatile String failure;

    GatewaySession(Transport transport, GatewayClient.Opened opened, GatewayFrame.Address self, long job, String site,
                   String gateway, int size, int maxFrame, IntConsumer arrived, Runnable broken, Runnable wake) {
        this.job = job;
        this.transport = transport;
        this.socket = opened.socket();
        this.channel = socket.getChannel();
        this.in = opened.in();
        this.self = self;
        this.site = site;
        this.gateway = gateway;
        this.maxFrame = maxFrame;
        this.links = new GatewayLink[size];
        this.arrived = arrived;
        this.broken = broken;
        this.wake = wake;
        long outCapacity = ringCapacity(maxFrame + GatewayFrame.HEADER, 4L << 20);
        this.inboxCapacity = ringCapacity(maxFrame, 2L << 20);
        this.out = new FrameRing(Arena.ofAuto().allocate(FrameRing.bytesFor(outCapacity), 64), outCapacity,
                maxFrame + GatewayFrame.HEADER);
        this.writer = Thread.ofPlatform().daemon().name("railyard-gateway-writer-" + self.process()).start(this::writeLoop);
        this.reader = Thread.ofPlatform().daemon().name("railyard-gateway-reader-" + self.process()).start(this::readLoop);
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
        return true;
    }

    // ---- output: the progress thread produces, the writer consumes

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
        if (writerParked) {
            LockSupport.unpark(writer);
        }
    }

    boolean pendingOutput() {
        return written < committed;
    }

    private void writeLoop() {
        MemorySegment seg = out.segment();
        try {
            while (!closed) {
                long off = out.peek();
                if (off < 0) {
                    writerParked = true;
                    if (out.peek() < 0 && !closed) {
                        LockSupport.park(this);
                    }
                    writerParked = false;
                    continue;
                }
                int len = seg.get(INT, off);
                ByteBuffer bb = seg.asSlice(off, len).asByteBuffer();
                while (bb.hasRemaining()) {
                    channel.write(bb);
                }
                out.release(len);
                written += len;
            }
        } catch (IOException e) {
            fail("writing to the gateway failed: " + e.getMessage());
        }
    }

    // ---- input: the reader produces into the inboxes, each link consumes its own

    private void readLoop() {
        byte[] header = new byte[GatewayFrame.HEADER];
        byte[] body = new byte[maxFrame];
        try {
            while (!closed) {
                GatewayFrame.Header h = GatewayFrame.readHeader(in, header, Math.max(maxFrame, GatewayFrame.MAX_TEXT));
                switch (h.type()) {
                    case GatewayFrame.DATA -> deliver(h, body, header);
                    case GatewayFrame.UNREACHABLE -> {
                        String why = new String(GatewayFrame.readBody(in, h), StandardCharsets.UTF_8);
                        int peer = h.source().process();
                        if (peer == -1) {
                            siteUnreachable(h.source().site(), "the gateway of site '" + site + "' (" + gateway + "): " + why);
                        } else if (peer >= 0 && peer < links.length) {
                            inbox(peer).unreachable("the gateway of site '" + site + "' (" + gateway + ") cannot reach rank "
                                    + peer + ": " + why);
                        }
                        wake.run();
                    }
                    case GatewayFrame.ERROR -> {
                        fail("the gateway of site '" + site + "' (" + gateway + ") closed the connection: "
                                + new String(GatewayFrame.readBody(in, h), StandardCharsets.UTF_8));
                        return;
                    }
                    default -> {
                        fail("the gateway of site '" + site + "' (" + gateway + ") sent " + GatewayFrame.typeName(h.type()));
                        return;
                    }
                }
            }
        } catch (EOFException e) {
            fail("the gateway of site '" + site + "' (" + gateway + ") closed the connection"
                    + (e.getMessage().equals("connection closed") ? "" : ": " + e.getMessage()));
        } catch (IOException e) {
            fail("the connection to the gateway of site '" + site + "' (" + gateway + ") broke: " + e.getMessage());
        }
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
     * One DATA frame: checked, then copied into its source's inbox (waiting while that is full). A
     * cut frame counts only once its END follows; on ABORT it is dropped and the link from its
     * source breaks, naming why (the other sources' links go on).
     */
    private void deliver(GatewayFrame.Header h, byte[] body, byte[] scratch) throws IOException {
        int peer = h.source().process();
        int len = h.bodyLength();
        boolean reset = h.has(GatewayFrame.FLAG_RESET);
        if (peer >= links.length || h.destination().process() != self.process() || len > maxFrame
                || (len < FrameHeader.LENGTH && !reset)) {
            throw new IOException("the gateway forwarded a frame from " + h.source() + " to " + h.destination()
                    + " of " + len + " bytes to rank " + self.process() + " of a job of " + links.length);
        }
        in.readFully(body, 0, len);
        if (h.has(GatewayFrame.FLAG_CUT)) {
            GatewayFrame.Header t = GatewayFrame.readHeader(in, scratch, GatewayFrame.MAX_TEXT);
            if ((t.type() != GatewayFrame.END && t.type() != GatewayFrame.ABORT) || !t.source().equals(h.source())
                    || !t.destination().equals(h.destination())) {
                throw new IOException("the gateway followed a cut frame from rank " + peer + " with "
                        + GatewayFrame.typeName(t.type()) + " from " + t.source() + " instead of its END or ABORT");
            }
            if (t.type() == GatewayFrame.ABORT) {
                String why = new String(GatewayFrame.readBody(in, t), StandardCharsets.UTF_8);
                breakLink(peer, "the gateway of site '" + site + "' (" + gateway + ") could not complete a frame from rank "
                        + peer + ": " + why);
                return;
            }
        }
        if (reset) {
            breakLink(peer, "rank " + peer + " closed its link to this rank through the gateway (to link again)");
            return;
        }
        MemorySegment b = MemorySegment.ofArray(body);
        if (b.get(INT, 0) != len) {
            throw new IOException("rank " + peer + " sent through the gateway a frame of " + len
                    + " bytes whose header says " + b.get(INT, 0));
        }
        GatewayLink l = inbox(peer);
        FrameRing ring = l.inbox();
        long off;
        while ((off = ring.tryClaim(len)) < 0) {
            if (l.discarded() || closed) {
                return;
            }
            LockSupport.parkNanos(INBOX_WAIT_NANOS);
        }
        MemorySegment.copy(b, 0, ring.segment(), off, len);
        ring.commit();
        wake.run();
    }

    /** The link from {@code peer}, if any, breaks with {@code why} (no pending link is made for it). */
    private void breakLink(int peer, String why) {
        GatewayLink l;
        synchronized (this) {
            l = links[peer];
        }
        if (l != null) {
            l.unreachable(why);
            wake.run();
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
        wake.run();
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
        LockSupport.unpark(writer);
    }
}
