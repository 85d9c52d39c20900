package org.railyard.transport;

import java.io.BufferedOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.net.ConnectException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.channels.SocketChannel;
import java.security.MessageDigest;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.railyard.bootstrap.AddressCard;
import org.railyard.transport.Connector.State;
import org.railyard.transport.LinkSource.Event;
import org.railyard.wire.Handshake;

/**
 * The connecting side of {@link Connector}: links one claimed rail (state CONNECTING) to a peer.
 * A rail whose path goes through an intermediary is joined there; otherwise each handshake address
 * of the path (or of the peer's card) is tried in turn with the job-secret proof and the transport
 * offers, and a failed rail 0 falls back to an intermediary when one reaches the peer. Every state
 * change is made holding the {@link Connector}'s monitor, under the same rules as the connector's
 * own code; each attempt ends in exactly one event posted through the connector (or none, when the
 * other side's link wins the tie-break).
 */
final class RailDialer {
    private static final System.Logger LOG = System.getLogger("org.railyard.transport");

    private final Connector conn;

    RailDialer(Connector conn) {
        this.conn = conn;
    }

    /** One rail: its path's address, or every handshake address of the peer when the path fixes none. */
    void connectTo(int peer, int rail, int rails, RailPaths.Path path) {
        Transport via = conn.indirect(path);
        if (via != null) {
            conn.routes.joinRail(peer, rail, rails, via);
            return;
        }
        List<String> tried = new ArrayList<>();
        boolean allRefused = true;
        try {
            AddressCard card = conn.cards.apply(peer);
            List<InetSocketAddress> targets = new ArrayList<>();
            if (path != null && path.remote() != null) {
                targets.add(path.remote());
            } else {
                boolean sameNode = card.node().equals(conn.myCard.node()) || card.sameMachine(conn.myCard);
                for (InetSocketAddress a : card.handshake()) {
                    boolean loop = a.getHostString().startsWith("127.");
                    if (loop == sameNode || card.handshake().size() == 1) {
                        targets.add(a);
                    }
                }
            }
            // with an intermediary to fall back to, the direct attempts take at most half the connect
            // timeout, so the fallback ends within the channel's own bound (the connect timeout)
            Duration bound = rail == 0 && conn.routes.fallbackFor(card) != null
                    ? conn.timeout.dividedBy(2L * Math.max(1, targets.size())) : null;
            for (InetSocketAddress a : targets) {
                Outcome o = attempt(peer, rail, rails, card, path == null ? null : path.local(), a, bound);
                if (o == null) {
                    return;
                }
                allRefused &= o.refused;
                tried.add(a.getHostString() + ":" + a.getPort() + (path == null || path.local() == null ? ""
                        : " from " + path.local().getHostAddress()) + " (" + o.why + ")");
            }
            if (tried.isEmpty()) {
                tried.add("no handshake address in its card");
                allRefused = false;
            }
        } catch (RuntimeException e) {
            tried.add(e.getMessage());
            allRefused = false;
        }
        if (conn.routes.fallBack(peer, rail, String.join("; ", tried))) {
            return;
        }
        synchronized (conn) {
            State[] st = conn.states(peer);
            if (st[rail] == State.CONNECTING) {
                st[rail] = State.NONE;
            }
        }
        conn.post(new Event(peer, rail, rails, 0, null, "could not connect to rank " + peer
                + (rails > 1 ? " (rail " + rail + ")" : "") + ": " + String.join("; ", tried), allRefused));
    }

    /** Why an attempt failed, and whether the peer's machine refused the connection outright. */
    private record Outcome(String why, boolean refused) { }

    /**
     * One attempt at one address, from {@code local} if given; null on success (or when the other
     * side's link wins), else why not.
     */
    private Outcome attempt(int peer, int rail, int rails, AddressCard card, InetAddress local, InetSocketAddress addr,
                            Duration fallbackBound) {
        SocketChannel ch = null;
        List<Transport> offered = new ArrayList<>();
        List<String> params = new ArrayList<>();
        try {
            ch = SocketChannel.open();
            if (local != null) {
                ch.bind(new InetSocketAddress(local, 0)); // leave by this path's interface
            }
            // a rail that died is retried often: an attempt on a dead path must not take the whole connect timeout
            Duration bound = fallbackBound != null ? fallbackBound : rails > 1 && rail >= 0 ? conn.probeTimeout() : conn.timeout;
            ch.socket().connect(new InetSocketAddress(addr.getHostString(), addr.getPort()), (int) bound.toMillis());
            ch.socket().setSoTimeout((int) conn.timeout.toMillis());
            DataInputStream in = new DataInputStream(ch.socket().getInputStream());
            DataOutputStream out = new DataOutputStream(new BufferedOutputStream(ch.socket().getOutputStream()));
            byte[] nonceC = conn.proof.nonce();
            Handshake.writeHello(out, new Handshake.Hello(conn.jobHash, conn.rank, peer, nonceC, rail, rails));
            Handshake.Challenge c = Handshake.readChallenge(in);
            if (c.status() != Handshake.OK) {
                ch.close();
                return new Outcome("refused: " + Handshake.statusName(c.status()), false);
            }
            if (!MessageDigest.isEqual(c.mac(), conn.proof.mac("A", conn.rank, peer, nonceC, c.nonce()))) {
                ch.close();
                LOG.log(System.Logger.Level.WARNING, "rank " + conn.rank + ": " + addr + " answered as rank " + peer
                        + " but could not prove the job secret; dropped");
                return new Outcome("peer failed to prove the job secret", false);
            }
            List<Handshake.Offer> offers = new ArrayList<>();
            for (Transport t : conn.transports) {
                if (t == conn.self || t.capabilities().contains(Capability.INDIRECT) || !card.transports().contains(t.name())
                        || !t.reaches(conn.myCard, card)) {
                    continue;
                }
                try {
                    String p = t.offer(peer, card);
                    offered.add(t);
                    params.add(p);
                    offers.add(new Handshake.Offer(t.name(), p));
                } catch (IOException e) {
                    LOG.log(System.Logger.Level.DEBUG, t.name() + " cannot offer a link to rank " + peer + ": " + e);
                }
            }
            Handshake.writeProof(out, new Handshake.Proof(conn.proof.mac("C", conn.rank, peer, c.nonce(), nonceC), offers));
            Handshake.Accept acc = Handshake.readAccept(in);
            Link link = null;
            for (int i = 0; i < offered.size(); i++) {
                Transport t = offered.get(i);
                if (acc.status() == Handshake.OK && link == null && t.name().equals(acc.transport())) {
                    ch.socket().setSoTimeout(0);
                    link = t.complete(peer, params.get(i), acc.parameters(), acc.maxFrame(), ch);
                    if (link.holdsHandshake()) {
                        ch.configureBlocking(false);
                    }
                } else {
                    t.abandon(peer, params.get(i));
                }
            }
            offered.clear();
            if (acc.status() == Handshake.DUPLICATE) {
                ch.close();
                Transport arrivedVia;
                synchronized (conn) {
                    State[] st = conn.states(peer);
                    if (st[rail] == State.CONNECTING) {
                        st[rail] = State.AWAIT_INCOMING;
                    }
                    arrivedVia = rail == 0 ? conn.pendingArrival[peer] : null;
                }
                if (arrivedVia != null) {
                    conn.routes.followArrival(peer, arrivedVia);
                }
                return null;
            }
            if (link == null) {
                ch.close();
                return new Outcome("no common transport (" + Handshake.statusName(acc.status()) + ")", false);
            }
            if (!link.holdsHandshake()) {
                Connector.closeQuietly(ch);
            }
            long e;
            synchronized (conn) {
                State[] st = conn.states(peer);
                if (st[rail] == State.CLOSED) {
                    link.close();
                    return null;
                }
                st[rail] = State.LINKED;
                e = ++conn.epoch[peer][rail];
            }
            conn.post(new Event(peer, rail, rails, e, link, null, false));
            return null;
        } catch (IOException | RuntimeException e) {
            for (int i = 0; i < offered.size(); i++) {
                offered.get(i).abandon(peer, params.get(i));
            }
            Connector.closeQuietly(ch);
            boolean refused = e instanceof ConnectException && String.valueOf(e.getMessage()).contains("refused");
            return new Outcome(e.getClass().getSimpleName() + ": " + e.getMessage(), refused);
        }
    }
}
