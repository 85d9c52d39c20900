package org.railyard.transport.gateway;

import java.lang.foreign.MemorySegment;
import org.railyard.transport.Link;
import org.railyard.transport.Transport;
import org.railyard.transport.ring.FrameRing;
import org.railyard.wire.FrameHeader;
import org.railyard.wire.GatewayFrame;

/**
 * The link to one peer of another site, through the session's gateway connection. A claim reserves
 * the routing header and the frame in the session's out ring and hands out the offset past the
 * header; flush writes the out ring into the connection (as a tcp link writes its socket). Poll
 * reads the frames the session's I/O thread put in this peer's inbox. The link breaks when
 * the session does, or when the gateway says the peer is unreachable; frames already in the inbox
 * are still delivered first.
 */
final class GatewayLink implements Link {
    private final GatewaySession session;
    private final int peer;
    private final FrameRing inbox;
    private volatile GatewayFrame.Address to;
    private volatile String peerSite = "";
    private volatile boolean reroutes;
    private volatile String unreachable;
    private volatile boolean closed;
    private int claimed;

    GatewayLink(GatewaySession session, int peer, FrameRing inbox) {
        this.session = session;
        this.peer = peer;
        this.inbox = inbox;
    }

    /**
     * The connector asked for this link: frames to the peer go to {@code to}; {@code reroutes} when
     * either site has a second gateway (see {@link #reroutes()}).
     */
    void joined(GatewayFrame.Address to, String site, boolean reroutes) {
        this.to = to;
        this.peerSite = site;
        this.reroutes = reroutes;
    }

    /** The site id of the peer, or 0 before the connector asked for this link. */
    int peerSiteId() {
        GatewayFrame.Address a = to;
        return a == null ? 0 : a.site();
    }

    FrameRing inbox() {
        return inbox;
    }

    /** The gateway cannot deliver to this peer: the link breaks with that reason. */
    void unreachable(String why) {
        if (unreachable == null) {
            unreachable = why;
        }
    }

    /** Closed here or broken: the session makes a fresh link for the peer's next frame or join. */
    boolean discarded() {
        return closed || unreachable != null;
    }

    @Override public Transport transport() { return session.transport(); }
    @Override public int peer() { return peer; }
    @Override public int maxFrame() { return session.maxFrame(); }

    @Override
    public long tryClaim(int frameLength) {
        GatewayFrame.Address dst = to;
        if (discarded() || !session.isOpen() || dst == null) {
            return CLOSED;
        }
        if (!session.sendResets()) {
            return BACK_PRESSURED;
        }
        int routed = GatewayFrame.HEADER + frameLength;
        long off = session.claim(routed);
        if (off < 0) {
            return BACK_PRESSURED;
        }
        GatewayFrame.Address src = session.self();
        GatewayFrame.writeHeader(session.outSegment(), off, routed, GatewayFrame.DATA, (byte) 0, session.job(), src.site(),
                src.node(), src.process(), dst.site(), dst.node(), dst.process());
        claimed = routed;
        return off + GatewayFrame.HEADER;
    }

    @Override public MemorySegment claimSegment() { return session.outSegment(); }

    @Override
    public void commit() {
        session.commit(claimed);
    }

    @Override
    public int flush() {
        return closed ? 0 : session.flush();
    }

    @Override
    public int poll(FrameHandler handler, int limit) {
        int n = 0;
        session.polledBy(Thread.currentThread());
        MemorySegment seg = inbox.segment();
        while (n < limit && !closed) {
            long off = inbox.peek();
            if (off < 0) {
                break;
            }
            int len = FrameHeader.frameLength(seg, off);
            String bad = inbox.plausible(len) ? FrameHeader.validate(seg, off, session.maxFrame())
                    : "corrupt gateway inbox: frame length " + len;
            if (bad != null) {
                unreachable("rank " + peer + " sent through the gateway: " + bad);
                close();
                return n;
            }
            n++;
            boolean more = handler.onFrame(this, seg, off, len);
            inbox.release(len);
            if (!more) {
                break;
            }
        }
        return n;
    }

    /** Open until closed, or broken (the session or the peer's route) with nothing left to deliver. */
    @Override
    public boolean isOpen() {
        if (closed) {
            return false;
        }
        if (unreachable == null && session.isOpen()) {
            return true;
        }
        return inbox.hasData();
    }

    @Override
    public boolean hasPendingOutput() {
        return isOpen() && session.pendingOutput();
    }

    /**
     * True when this site or the peer's lists a second gateway: the channel keeps its frames until
     * acknowledged, and when the gateway dies it links the peer again through the session opened
     * on the next gateway, sending again what was not acknowledged (the peer drops duplicates).
     */
    @Override
    public boolean reroutes() {
        return reroutes;
    }

    @Override
    public String failure() {
        if (unreachable != null) {
            return unreachable;
        }
        String s = session.failure();
        return s == null ? null : s + " (rank " + peer + " of site '" + peerSite + "' is reached only through it)";
    }

    @Override
    public String describe() {
        return "gateway of site '" + session.site() + "' at " + session.gateway() + " to rank " + peer + " of site '"
                + peerSite + "', frames up to " + (session.maxFrame() >> 10) + " KiB";
    }

    @Override
    public void close() {
        if (!closed) {
            closed = true;
            session.forget(this);
            GatewayFrame.Address dst = to;
            if (reroutes && unreachable == null && dst != null && session.isOpen()) {
                // the peer's link must break too, or its rail would go on counting this one's bytes
                session.reset(dst);
            }
        }
    }
}
