package org.railyard.transport;

import java.io.BufferedOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.nio.channels.SocketChannel;
import java.security.MessageDigest;
import org.railyard.transport.Connector.State;
import org.railyard.transport.LinkSource.Event;
import org.railyard.util.AcceptLoop;
import org.railyard.wire.Handshake;

/**
 * The accepting side of {@link Connector}: takes connections from its handshake listener and runs
 * each handshake on a virtual thread. A connection is answered only after it names this job and
 * this rank and proves the job secret; then the rail's tie-break decides (the connection opened by
 * the lower rank wins, a rail that fell back to an intermediary stays there), and the first offered
 * transport that accepts makes the link. State changes are made holding the {@link Connector}'s
 * monitor; a link made here is posted through the connector as an event.
 */
final class HandshakeAcceptor {
    private static final System.Logger LOG = System.getLogger("org.railyard.transport");

    private final Connector conn;

    HandshakeAcceptor(Connector conn) {
        this.conn = conn;
    }

    /**
     * Accepts connections until the connector closes or its listener is closed; run on the accept
     * thread. An accept that fails while the listener stays open (the process out of file
     * descriptors) is retried after {@link AcceptLoop.Retry}'s pause: a rank whose listener
     * stopped would leave every later peer unable to reach it. Each new kind of failure is logged
     * once, with what to do about it.
     */
    void loop() {
        AcceptLoop.Retry retry = new AcceptLoop.Retry();
        while (!conn.closing) {
            SocketChannel ch;
            try {
                ch = conn.server.accept();
                retry.reset();
            } catch (IOException e) {
                if (conn.closing || !conn.server.isOpen()) {
                    if (!conn.closing) {
                        LOG.log(System.Logger.Level.ERROR, "rank " + conn.rank + ": handshake listener closed: " + e);
                    }
                    return;
                }
                String news = retry.news(e);
                if (news != null) {
                    LOG.log(System.Logger.Level.ERROR, "rank " + conn.rank + ": handshake listener cannot accept: " + news);
                }
                if (!retry.pause()) {
                    return;
                }
                continue;
            }
            Thread.ofVirtual().name("railyard-handshake-" + conn.rank).start(() -> acceptOne(ch));
        }
    }

    private void acceptOne(SocketChannel ch) {
        String from = "?";
        try {
            from = String.valueOf(ch.getRemoteAddress());
            ch.socket().setSoTimeout((int) conn.timeout.toMillis());
            DataInputStream in = new DataInputStream(ch.socket().getInputStream());
            DataOutputStream out = new DataOutputStream(new BufferedOutputStream(ch.socket().getOutputStream()));
            Handshake.Hello h = Handshake.readHello(in);
            byte status = Handshake.OK;
            if (conn.closing) {
                status = Handshake.CLOSING;
            } else if (h.jobHash() != conn.jobHash) {
                status = Handshake.WRONG_JOB;
            } else if (h.to() != conn.rank || h.from() < 0 || h.from() >= conn.size || h.from() == conn.rank) {
                status = Handshake.WRONG_RANK;
            }
            byte[] nonceA = conn.proof.nonce();
            byte[] macA = status == Handshake.OK ? conn.proof.mac("A", h.from(), h.to(), h.nonce(), nonceA) : new byte[Handshake.MAC_BYTES];
            Handshake.writeChallenge(out, new Handshake.Challenge(status, nonceA, macA));
            if (status != Handshake.OK) {
                LOG.log(System.Logger.Level.WARNING, "rank " + conn.rank + ": refused connection from " + from + " claiming rank "
                        + h.from() + ": " + Handshake.statusName(status));
                ch.close();
                return;
            }
            Handshake.Proof p = Handshake.readProof(in);
            if (!MessageDigest.isEqual(p.mac(), conn.proof.mac("C", h.from(), h.to(), nonceA, h.nonce()))) {
                LOG.log(System.Logger.Level.WARNING, "rank " + conn.rank + ": refused connection from " + from + " claiming rank "
                        + h.from() + ": wrong job secret");
                ch.close();
                return;
            }
            int peer = h.from();
            int rail = h.rail();
            long linkEpoch;
            synchronized (conn) {
                State s = conn.states(peer)[rail];
                boolean mineWins = s == State.CONNECTING && conn.rank < peer;
                // a lower rank connects a rail that is linked here only after finding its link dead: replace it
                boolean stale = s == State.LINKED && peer > conn.rank;
                // a channel that fell back to an intermediary stays there: the peer follows it (see arrived)
                boolean relayed = conn.paths[peer] != null && conn.paths[peer].size() == 1 && conn.indirect(conn.paths[peer].getFirst()) != null;
                if (stale || s == State.CLOSED || mineWins || relayed) {
                    Handshake.writeAccept(out, new Handshake.Accept(Handshake.DUPLICATE, "", 0));
                    ch.close();
                    return;
                }
                conn.states(peer)[rail] = State.LINKED;
                linkEpoch = ++conn.epoch[peer][rail];
            }
            for (Handshake.Offer o : p.offers()) {
                Transport t = conn.byName(o.transport());
                if (t == null || t == conn.self) {
                    continue;
                }
                try {
                    Link link = t.accept(peer, o.parameters(), ch);
                    Handshake.writeAccept(out, new Handshake.Accept(Handshake.OK, t.name(), link.maxFrame(), t.answer(link)));
                    if (link.holdsHandshake()) {
                        ch.socket().setSoTimeout(0);
                        ch.configureBlocking(false);
                    } else {
                        // the Accept is flushed: the connector reads it before the end of the stream
                        Connector.closeQuietly(ch);
                    }
                    conn.post(new Event(peer, rail, h.rails(), linkEpoch, link, null, false));
                    return;
                } catch (IOException | RuntimeException e) {
                    LOG.log(System.Logger.Level.DEBUG, "rank " + conn.rank + ": cannot accept " + t.name() + " from rank " + peer + ": " + e);
                }
            }
            Handshake.writeAccept(out, new Handshake.Accept(Handshake.NO_TRANSPORT, "", 0));
            ch.close();
            synchronized (conn) {
                if (conn.states(peer)[rail] == State.LINKED && conn.epoch[peer][rail] == linkEpoch) {
                    conn.states(peer)[rail] = State.NONE;
                }
            }
        } catch (EOFException e) {
            // a probe (or a scanner) connected and left without a word
            LOG.log(System.Logger.Level.DEBUG, "rank " + conn.rank + ": connection from " + from + " closed before its handshake");
            Connector.closeQuietly(ch);
        } catch (IOException | RuntimeException e) {
            if (!conn.closing) {
                LOG.log(System.Logger.Level.WARNING, "rank " + conn.rank + ": dropped connection from " + from
                        + " during handshake: " + e);
            }
            Connector.closeQuietly(ch);
        }
    }
}
