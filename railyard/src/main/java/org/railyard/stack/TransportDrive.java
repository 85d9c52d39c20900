package org.railyard.stack;

import org.railyard.wire.SegmentHeader;

/**
 * TransportDrive: the bottom of every composition, where the flows of a connection meet the one
 * datagram link (P2PSAP's "port identifiers on each segment").
 *
 * <p>Send path: writes the addressing fields of {@link SegmentHeader} (magic, port, kind, epoch,
 * the peer's connection token) and hands the segment to the {@link Mux}. Receive path: the mux has
 * already chosen this session by port and kind; a segment of another epoch (a late datagram of a
 * composition that has since been replaced) is dropped here.
 *
 * <p>Needs from below: datagrams, possibly lost, duplicated or reordered. Gives above: only
 * segments of this flow, this direction and this epoch.
 */
public final class TransportDrive extends MicroProtocol {
    @Override
    protected void down(Segment s) {
        int kind = session.sender() ? SegmentHeader.KIND_DATA : SegmentHeader.KIND_ACK;
        SegmentHeader.address(s.mem, 0, session.port, kind, session.epoch, session.peerToken);
        session.segmentsOut++;
        session.lower.send(session, s);
    }

    @Override
    protected boolean writable(int frameBytes) {
        return session.lower.writable();
    }

    @Override
    protected void up(Segment s) {
        if (SegmentHeader.epoch(s.mem, 0) != session.epoch) {
            session.stale++;
            s.release();
            return;
        }
        above.up(s);
    }

    /** Finds the session a received segment belongs to. */
    @FunctionalInterface
    public interface Sessions {
        /** The session of {@code port} playing {@code role} at this end, or null. */
        Session find(int port, Session.Role role);
    }

    /**
     * The demultiplexer under the sessions of one connection: checks each received datagram's
     * header and connection token, and hands it to the session its port and kind name (data to the
     * receiver session, acknowledgements to the sender session). Sessions send through it. It is
     * the top of the connection's lower chain: fault-injection layers (tests) sit below it, the
     * link at the bottom.
     */
    public static final class Mux extends MicroProtocol implements Session.Lower {
        private final int token;
        private final Sessions sessions;
        /** Datagrams refused: malformed, foreign token, or no session for them. */
        public long refused;
        /** Why the last datagram was refused, for diagnostics. */
        public String lastRefusal;

        /**
         * @param token this end's connection token
         */
        public Mux(int token, Sessions sessions) {
            this.token = token;
            this.sessions = sessions;
        }

        @Override
        public void send(Session from, Segment s) {
            below.down(s);
        }

        @Override
        public boolean writable() {
            return below.writable(0);
        }

        @Override
        protected void up(Segment s) {
            String bad = SegmentHeader.validate(s.mem, 0, s.length, token);
            Session target = null;
            if (bad == null) {
                boolean data = SegmentHeader.kind(s.mem, 0) == SegmentHeader.KIND_DATA;
                target = sessions.find(SegmentHeader.port(s.mem, 0), data ? Session.Role.RECEIVER : Session.Role.SENDER);
                if (target == null) {
                    bad = "no session for port " + SegmentHeader.port(s.mem, 0);
                }
            }
            if (bad != null) {
                refused++;
                lastRefusal = bad;
                s.release();
                return;
            }
            target.receive(s);
        }

        @Override
        public String name() {
            return "TransportDrive";
        }
    }
}
