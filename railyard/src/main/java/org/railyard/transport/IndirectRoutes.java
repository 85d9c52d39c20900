package org.railyard.transport;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import org.railyard.bootstrap.AddressCard;
import org.railyard.transport.Connector.State;
import org.railyard.transport.LinkSource.Event;

/**
 * The links of {@link Connector} that go through an intermediary ({@link Capability#INDIRECT}):
 * joining a rail through such a transport, answering a peer whose first frame arrived through one
 * (an arrival), and the fallback of a rail 0 whose direct connect failed. A channel that moved to
 * an intermediary keeps one rail there. State changes are made holding the {@link Connector}'s
 * monitor, under the same rules as the connector's own code; each join ends in exactly one event
 * posted through the connector, or none when the rail was taken meanwhile.
 */
final class IndirectRoutes {
    private static final System.Logger LOG = System.getLogger("org.railyard.transport");

    private final Connector conn;
    /** Arrivals told before the connector knew the cards (a relay replaying to a rank started again); held by the connector's monitor. */
    private final List<Runnable> beforeCards = new ArrayList<>();

    IndirectRoutes(Connector conn) {
        this.conn = conn;
    }

    /** The cards are known: follows the arrivals told before. */
    void cardsKnown() {
        List<Runnable> held;
        synchronized (conn) {
            held = new ArrayList<>(beforeCards);
            beforeCards.clear();
        }
        held.forEach(Runnable::run);
    }

    /**
     * An indirect transport tells that {@code peer}'s first frame arrived: link it if this process
     * reaches that peer through an intermediary and holds no link or attempt to it yet. If this
     * process would reach the peer directly, the peer fell back to the intermediary after its direct
     * connect failed (a firewall one way): follow it there, unless a direct link is up or being made.
     */
    void arrived(int peer, Transport via) {
        if (conn.closing) {
            return; // the job ends here: a late frame's peer needs no link any more
        }
        if (peer < 0 || peer >= conn.size || peer == conn.rank) {
            LOG.log(System.Logger.Level.WARNING, "rank " + conn.rank + ": an indirect transport reported a frame from rank "
                    + peer + ", which is not a peer of this job of " + conn.size);
            return;
        }
        synchronized (conn) {
            if (conn.cards == null) {
                beforeCards.add(() -> arrived(peer, via));
                return;
            }
        }
        Thread.ofVirtual().name("railyard-arrival-" + conn.rank + "-" + peer).start(() -> {
            List<RailPaths.Path> p;
            try {
                p = conn.pathsTo(peer);
            } catch (RuntimeException e) {
                conn.post(new Event(peer, 0, 1, 0, null, "rank " + peer + " sent through an intermediary, but: " + e.getMessage(),
                        false));
                return;
            }
            if (p.size() == 1 && conn.indirect(p.getFirst()) != null) {
                conn.startRail(peer, 0, 1, p);
                return;
            }
            followArrival(peer, via);
        });
    }

    /**
     * The peer came through {@code via} although this process would reach it directly: join it
     * there too, unless a direct link is up. While a direct attempt of this process is under way,
     * the arrival is kept, and followed if the peer turns the attempt down (it went through the
     * intermediary meanwhile, see {@link HandshakeAcceptor}).
     */
    void followArrival(int peer, Transport via) {
        synchronized (conn) {
            State[] st = conn.states(peer);
            if (st[0] == State.CONNECTING) {
                conn.pendingArrival[peer] = via;
                return;
            }
            if ((st[0] != State.NONE && st[0] != State.AWAIT_INCOMING) || !via.reaches(conn.myCard, conn.cards.apply(peer))) {
                return;
            }
            conn.paths[peer] = List.of(new RailPaths.Path(null, null, via.name()));
            st[0] = State.CONNECTING;
            conn.pendingArrival[peer] = null;
        }
        LOG.log(System.Logger.Level.INFO, "rank " + conn.rank + ": rank " + peer + " reaches this process through "
                + via.name() + "; answering the same way");
        joinRail(peer, 0, 1, via);
    }

    /** The indirect transport a failed direct connect to the peer of {@code card} falls back to, or null. */
    Transport fallbackFor(AddressCard card) {
        for (Transport t : conn.transports) {
            if (t.capabilities().contains(Capability.INDIRECT) && card.transports().contains(t.name())
                    && t.reaches(conn.myCard, card)) {
                return t;
            }
        }
        return null;
    }

    /**
     * Rail 0 of {@code peer} could not be connected directly: if an indirect transport reaches the
     * peer, the channel goes through it instead (one rail), and so does every later attempt.
     *
     * @return true if the attempt was handed to the intermediary
     */
    boolean fallBack(int peer, int rail, String tried) {
        Transport t = rail == 0 ? fallbackFor(conn.cards.apply(peer)) : null;
        if (t == null) {
            return false;
        }
        synchronized (conn) {
            if (conn.states(peer)[rail] != State.CONNECTING) {
                return false;
            }
            conn.paths[peer] = List.of(new RailPaths.Path(null, null, t.name()));
        }
        LOG.log(System.Logger.Level.INFO, "rank " + conn.rank + ": cannot connect to rank " + peer + " directly (" + tried
                + "); going through " + t.name());
        joinRail(peer, rail, 1, t);
        return true;
    }

    /** One rail through an intermediary: the transport makes the link from the two cards. */
    void joinRail(int peer, int rail, int rails, Transport via) {
        String why;
        try {
            Link link = via.join(peer, conn.myCard, conn.cards.apply(peer));
            long e;
            synchronized (conn) {
                State[] st = conn.states(peer);
                if (st[rail] != State.CONNECTING) {
                    link.close();
                    return;
                }
                st[rail] = State.LINKED;
                e = ++conn.epoch[peer][rail];
            }
            conn.post(new Event(peer, rail, rails, e, link, null, false));
            return;
        } catch (IOException | RuntimeException e) {
            why = e.getClass().getSimpleName() + ": " + e.getMessage();
        }
        synchronized (conn) {
            State[] st = conn.states(peer);
            if (st[rail] == State.CONNECTING) {
                st[rail] = State.NONE;
            }
        }
        conn.post(new Event(peer, rail, rails, 0, null, "could not reach rank " + peer + " through " + via.name() + ": " + why,
                false));
    }
}
