package org.railyard.transport;

import java.io.BufferedOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.net.Inet4Address;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.NetworkInterface;
import java.net.SocketException;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.function.IntFunction;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;
import org.railyard.bootstrap.AddressCard;
import org.railyard.transport.self.SelfTransport;
import org.railyard.wire.Handshake;

/**
 * Opens links: listens for handshakes, connects to peers on demand, proves and checks the job
 * secret, picks the transport, and settles which side's connection wins when two processes connect
 * to each other at once (the one opened by the lower rank). Handshakes run on virtual threads, off
 * the progress agent; finished links and failures come back through {@link #poll()}, which the
 * agent drains (Aeron's proxy idea: other threads never touch the agent's state).
 */
public final class Connector implements AutoCloseable {
    private static final System.Logger LOG = System.getLogger("org.railyard.transport");

    /** A link ready for use, or a connection that could not be made ({@code link == null}). */
    public record Event(int peer, Link link, String error) { }

    private enum State { NONE, CONNECTING, AWAIT_INCOMING, LINKED, CLOSED }

    private final int rank;
    private final int size;
    private final long jobHash;
    private final byte[] secret;
    private final List<Transport> transports;
    private final SelfTransport self;
    private final Duration timeout;
    private final State[] state;
    private final Queue<Event> events = new ConcurrentLinkedQueue<>();
    private final SecureRandom random = new SecureRandom();
    private IntFunction<AddressCard> cards;
    private AddressCard myCard;
    private ServerSocketChannel server;
    private Thread acceptThread;
    private volatile boolean closing;

    /**
     * @param transports started transports, any order (sorted here by priority, best first)
     */
    public Connector(int rank, int size, String jobId, byte[] secret, List<Transport> transports, Duration timeout) {
        this.rank = rank;
        this.size = size;
        this.jobHash = jobHash(jobId);
        this.secret = secret.clone();
        List<Transport> sorted = new ArrayList<>(transports);
        sorted.sort((a, b) -> Integer.compare(b.priority(), a.priority()));
        this.transports = List.copyOf(sorted);
        this.self = (SelfTransport) sorted.stream().filter(t -> t instanceof SelfTransport).findFirst().orElse(null);
        this.timeout = timeout;
        this.state = new State[size];
        java.util.Arrays.fill(state, State.NONE);
    }

    /** Binds the handshake listener; returns the addresses to publish in this process's card. */
    public List<InetSocketAddress> listen(String host) throws IOException {
        server = ServerSocketChannel.open();
        server.bind(new InetSocketAddress(host.isEmpty() ? "0.0.0.0" : host, 0), 1024);
        int port = ((InetSocketAddress) server.getLocalAddress()).getPort();
        List<InetSocketAddress> out = new ArrayList<>();
        if (!host.isEmpty()) {
            out.add(InetSocketAddress.createUnresolved(host, port));
        } else {
            out.add(InetSocketAddress.createUnresolved("127.0.0.1", port));
            for (InetAddress a : interfaceAddresses()) {
                out.add(InetSocketAddress.createUnresolved(a.getHostAddress(), port));
            }
        }
        acceptThread = Thread.ofPlatform().daemon().name("railyard-accept-" + rank).start(this::acceptLoop);
        return out;
    }

    /** Sets where peer cards come from (a bootstrap lookup, made on a connector thread) and our own card. */
    public void cards(AddressCard mine, IntFunction<AddressCard> lookup) {
        this.myCard = mine;
        this.cards = lookup;
    }

    /** Transports in priority order, best first. */
    public List<Transport> transports() {
        return transports;
    }

    /** Next finished connection attempt, or null. Called by the progress agent. */
    public Event poll() {
        return events.poll();
    }

    /**
     * Starts linking to {@code peer} unless a link exists or is under way (from either side).
     * The result arrives through {@link #poll()}.
     */
    public void connect(int peer) {
        if (peer == rank) {
            try {
                events.add(new Event(peer, self.loopback(rank), null));
            } catch (IOException e) {
                events.add(new Event(peer, null, "cannot open the self link: " + e.getMessage()));
            }
            return;
        }
        synchronized (this) {
            if (state[peer] != State.NONE) {
                return;
            }
            state[peer] = State.CONNECTING;
        }
        Thread.ofVirtual().name("railyard-connect-" + rank + "-" + peer).start(() -> connectTo(peer));
    }

    /** The progress agent tells that a link to {@code peer} is gone for good. */
    public synchronized void lost(int peer) {
        state[peer] = State.CLOSED;
    }

    private void connectTo(int peer) {
        List<String> tried = new ArrayList<>();
        try {
            AddressCard card = cards.apply(peer);
            boolean sameNode = card.node().equals(myCard.node());
            for (InetSocketAddress a : card.handshake()) {
                boolean loop = a.getHostString().startsWith("127.");
                if (loop != sameNode && card.handshake().size() > 1) {
                    continue;
                }
                String outcome = attempt(peer, card, a);
                if (outcome == null) {
                    return;
                }
                tried.add(a.getHostString() + ":" + a.getPort() + " (" + outcome + ")");
            }
            if (tried.isEmpty()) {
                tried.add("no handshake address in its card");
            }
        } catch (RuntimeException e) {
            tried.add(e.getMessage());
        }
        synchronized (this) {
            if (state[peer] == State.CONNECTING) {
                state[peer] = State.NONE;
            }
        }
        events.add(new Event(peer, null, "could not connect to rank " + peer + ": " + String.join("; ", tried)));
    }

    /** One attempt at one address; null on success (or when the other side's link wins), else why not. */
    private String attempt(int peer, AddressCard card, InetSocketAddress addr) {
        SocketChannel ch = null;
        List<Transport> offered = new ArrayList<>();
        List<String> params = new ArrayList<>();
        try {
            ch = SocketChannel.open();
            ch.socket().connect(new InetSocketAddress(addr.getHostString(), addr.getPort()), (int) timeout.toMillis());
            ch.socket().setSoTimeout((int) timeout.toMillis());
            DataInputStream in = new DataInputStream(ch.socket().getInputStream());
            DataOutputStream out = new DataOutputStream(new BufferedOutputStream(ch.socket().getOutputStream()));
            byte[] nonceC = nonce();
            Handshake.writeHello(out, new Handshake.Hello(jobHash, rank, peer, nonceC));
            Handshake.Challenge c = Handshake.readChallenge(in);
            if (c.status() != Handshake.OK) {
                ch.close();
                return "refused: " + Handshake.statusName(c.status());
            }
            if (!MessageDigest.isEqual(c.mac(), mac("A", rank, peer, nonceC, c.nonce()))) {
                ch.close();
                LOG.log(System.Logger.Level.WARNING, "rank " + rank + ": " + addr + " answered as rank " + peer
                        + " but could not prove the job secret; dropped");
                return "peer failed to prove the job secret";
            }
            List<Handshake.Offer> offers = new ArrayList<>();
            for (Transport t : transports) {
                if (t == self || !card.transports().contains(t.name()) || !t.reaches(myCard, card)) {
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
            Handshake.writeProof(out, new Handshake.Proof(mac("C", rank, peer, c.nonce(), nonceC), offers));
            Handshake.Accept acc = Handshake.readAccept(in);
            Link link = null;
            for (int i = 0; i < offered.size(); i++) {
                Transport t = offered.get(i);
                if (acc.status() == Handshake.OK && link == null && t.name().equals(acc.transport())) {
                    ch.socket().setSoTimeout(0);
                    link = t.complete(peer, params.get(i), acc.maxFrame(), ch);
                    ch.configureBlocking(false);
                } else {
                    t.abandon(peer, params.get(i));
                }
            }
            offered.clear();
            if (acc.status() == Handshake.DUPLICATE) {
                ch.close();
                synchronized (this) {
                    if (state[peer] == State.CONNECTING) {
                        state[peer] = State.AWAIT_INCOMING;
                    }
                }
                return null;
            }
            if (link == null) {
                ch.close();
                return "no common transport (" + Handshake.statusName(acc.status()) + ")";
            }
            synchronized (this) {
                state[peer] = State.LINKED;
            }
            events.add(new Event(peer, link, null));
            return null;
        } catch (IOException | RuntimeException e) {
            for (int i = 0; i < offered.size(); i++) {
                offered.get(i).abandon(peer, params.get(i));
            }
            closeQuietly(ch);
            return e.getClass().getSimpleName() + ": " + e.getMessage();
        }
    }

    private void acceptLoop() {
        while (!closing) {
            SocketChannel ch;
            try {
                ch = server.accept();
            } catch (IOException e) {
                if (!closing) {
                    LOG.log(System.Logger.Level.ERROR, "rank " + rank + ": handshake listener failed: " + e);
                }
                return;
            }
            Thread.ofVirtual().name("railyard-handshake-" + rank).start(() -> acceptOne(ch));
        }
    }

    private void acceptOne(SocketChannel ch) {
        String from = "?";
        try {
            from = String.valueOf(ch.getRemoteAddress());
            ch.socket().setSoTimeout((int) timeout.toMillis());
            DataInputStream in = new DataInputStream(ch.socket().getInputStream());
            DataOutputStream out = new DataOutputStream(new BufferedOutputStream(ch.socket().getOutputStream()));
            Handshake.Hello h = Handshake.readHello(in);
            byte status = Handshake.OK;
            if (closing) {
                status = Handshake.CLOSING;
            } else if (h.jobHash() != jobHash) {
                status = Handshake.WRONG_JOB;
            } else if (h.to() != rank || h.from() < 0 || h.from() >= size || h.from() == rank) {
                status = Handshake.WRONG_RANK;
            }
            byte[] nonceA = nonce();
            byte[] macA = status == Handshake.OK ? mac("A", h.from(), h.to(), h.nonce(), nonceA) : new byte[Handshake.MAC_BYTES];
            Handshake.writeChallenge(out, new Handshake.Challenge(status, nonceA, macA));
            if (status != Handshake.OK) {
                LOG.log(System.Logger.Level.WARNING, "rank " + rank + ": refused connection from " + from + " claiming rank "
                        + h.from() + ": " + Handshake.statusName(status));
                ch.close();
                return;
            }
            Handshake.Proof p = Handshake.readProof(in);
            if (!MessageDigest.isEqual(p.mac(), mac("C", h.from(), h.to(), nonceA, h.nonce()))) {
                LOG.log(System.Logger.Level.WARNING, "rank " + rank + ": refused connection from " + from + " claiming rank "
                        + h.from() + ": wrong job secret");
                ch.close();
                return;
            }
            int peer = h.from();
            synchronized (this) {
                State s = state[peer];
                boolean mineWins = s == State.CONNECTING && rank < peer;
                if (s == State.LINKED || s == State.CLOSED || mineWins) {
                    Handshake.writeAccept(out, new Handshake.Accept(Handshake.DUPLICATE, "", 0));
                    ch.close();
                    return;
                }
                state[peer] = State.LINKED;
            }
            for (Handshake.Offer o : p.offers()) {
                Transport t = byName(o.transport());
                if (t == null || t == self) {
                    continue;
                }
                try {
                    Link link = t.accept(peer, o.parameters(), ch);
                    Handshake.writeAccept(out, new Handshake.Accept(Handshake.OK, t.name(), link.maxFrame()));
                    ch.socket().setSoTimeout(0);
                    ch.configureBlocking(false);
                    events.add(new Event(peer, link, null));
                    return;
                } catch (IOException | RuntimeException e) {
                    LOG.log(System.Logger.Level.DEBUG, "rank " + rank + ": cannot accept " + t.name() + " from rank " + peer + ": " + e);
                }
            }
            Handshake.writeAccept(out, new Handshake.Accept(Handshake.NO_TRANSPORT, "", 0));
            ch.close();
            synchronized (this) {
                state[peer] = State.NONE;
            }
        } catch (IOException | RuntimeException e) {
            if (!closing) {
                LOG.log(System.Logger.Level.WARNING, "rank " + rank + ": dropped connection from " + from
                        + " during handshake: " + e);
            }
            closeQuietly(ch);
        }
    }

    private Transport byName(String name) {
        for (Transport t : transports) {
            if (t.name().equals(name)) {
                return t;
            }
        }
        return null;
    }

    private byte[] nonce() {
        byte[] n = new byte[Handshake.NONCE_BYTES];
        random.nextBytes(n);
        return n;
    }

    private byte[] mac(String label, int from, int to, byte[] n1, byte[] n2) {
        try {
            Mac m = Mac.getInstance("HmacSHA256");
            m.init(new SecretKeySpec(secret, "HmacSHA256"));
            m.update(label.getBytes(StandardCharsets.US_ASCII));
            m.update(java.nio.ByteBuffer.allocate(8).putInt(from).putInt(to).array());
            m.update(n1);
            m.update(n2);
            return m.doFinal();
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("HmacSHA256 unavailable", e);
        }
    }

    static long jobHash(String jobId) {
        try {
            byte[] d = MessageDigest.getInstance("SHA-256").digest(jobId.getBytes(StandardCharsets.UTF_8));
            return java.nio.ByteBuffer.wrap(d).getLong();
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("SHA-256 unavailable", e);
        }
    }

    private static List<InetAddress> interfaceAddresses() {
        List<InetAddress> out = new ArrayList<>();
        try {
            for (NetworkInterface ni : Collections.list(NetworkInterface.getNetworkInterfaces())) {
                if (!ni.isUp() || ni.isLoopback()) {
                    continue;
                }
                for (InetAddress a : Collections.list(ni.getInetAddresses())) {
                    if (a instanceof Inet4Address) {
                        out.add(a);
                    }
                }
            }
        } catch (SocketException e) {
            LOG.log(System.Logger.Level.DEBUG, "cannot list interfaces: " + e);
        }
        return out;
    }

    private static void closeQuietly(SocketChannel ch) {
        if (ch != null) {
            try {
                ch.close();
            } catch (IOException ignored) {
                // nothing more to do
            }
        }
    }

    @Override
    public void close() {
        closing = true;
        try {
            if (server != null) {
                server.close();
            }
        } catch (IOException ignored) {
            // closing anyway
        }
        for (Transport t : transports) {
            t.close();
        }
    }
}
