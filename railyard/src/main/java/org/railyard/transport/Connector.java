package org.railyard.transport;

import java.io.BufferedOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.net.ConnectException;
import java.net.Inet4Address;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.InterfaceAddress;
import java.net.NetworkInterface;
import java.net.SocketException;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Queue;
import java.util.Set;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.function.IntFunction;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;
import org.railyard.bootstrap.AddressCard;
import org.railyard.util.Config;
import org.railyard.wire.Handshake;

/**
 * Opens links: listens for handshakes, connects to peers on demand, proves and checks the job
 * secret, picks the transport, and settles which side's connection wins when two processes connect
 * to each other at once (the one opened by the lower rank). Handshakes run on virtual threads, off
 * the progress agent; finished links and failures come back through {@link #poll()}, which the
 * agent drains (Aeron's proxy idea: other threads never touch the agent's state).
 *
 * <p>Rails: the links to one peer are numbered by {@link RailPaths} (one per network path and
 * connection on it, {@code railyard.rails} connections per path; one rail to a peer reached by a
 * same-node transport such as shm). Each rail has its own state here and its own tie-break, and
 * each link of a rail an epoch, so a report about a link that was replaced meanwhile changes
 * nothing. A rail whose link died is linked again by the lower-ranked side only; the acceptor takes
 * a rail index again when its link is gone, or when the lower-ranked side, having found it dead
 * first, connects it again (the new link replaces the old).
 */
public final class Connector implements LinkSource {
    private static final System.Logger LOG = System.getLogger("org.railyard.transport");

    private enum State { NONE, CONNECTING, AWAIT_INCOMING, LINKED, CLOSED }

    private final int rank;
    private final int size;
    private final long jobHash;
    private final JobProof proof;
    private final List<Transport> transports;
    /** The transport that links this process to itself ({@link Capability#LOOPBACK}), or null. */
    private final Transport self;
    private final Duration timeout;
    private final int railsPerPath;
    private final List<RailPaths.Net> railNets;
    /** Per peer, per rail: guarded by this. Allocated on first use of a peer. */
    private final State[][] state;
    private final long[][] epoch;
    /** Per peer: its rails' paths (index = rail / railsPerPath), computed once from the cards. */
    private final List<RailPaths.Path>[] paths;
    /** Per peer: the indirect transport its first frame came through while a direct attempt was under way; guarded by this. */
    private final Transport[] pendingArrival;
    private final Queue<Event> events = new ConcurrentLinkedQueue<>();
    private volatile Bell doorbell;
        private IntFunction<AddressCard> cards;
    private AddressCard myCard;
    private ServerSocketChannel server;
    private Thread acceptThread;
    private volatile boolean closing;

    /**
     * @param transports started transports, any order (sorted here by priority, best first)
     */
    public Connector(int rank, int size, String jobId, byte[] secret, List<Transport> transports, Duration timeout) {
        this(rank, size, jobId, secret, transports, timeout,
                (int) Config.number(Config.RAILS_PROP, Config.RAILS_DEFAULT),
                RailPaths.parseNets(Config.string(Config.RAIL_NETS_PROP, Config.RAIL_NETS_DEFAULT)));
    }

    /**
     * @param railsPerPath connections per network path to a peer over a remote transport
     * @param railNets     networks that may carry data (empty: any)
     */
    @SuppressWarnings("unchecked")
    public Connector(int rank, int size, String jobId, byte[] secret, List<Transport> transports, Duration timeout,
                     int railsPerPath, List<RailPaths.Net> railNets) {
        if (railsPerPath < 1 || railsPerPath > Handshake.MAX_RAILS) {
            throw new IllegalArgumentException("setting " + Config.RAILS_PROP + " = " + railsPerPath + " is outside 1.."
                    + Handshake.MAX_RAILS);
        }
        this.railsPerPath = railsPerPath;
        this.railNets = List.copyOf(railNets);
        this.epoch = new long[size][];
        this.paths = new List[size];
        this.pendingArrival = new Transport[size];
        this.rank = rank;
        this.size = size;
        this.jobHash = JobProof.jobHash(jobId);
        this.proof = new JobProof(secret);
        List<Transport> sorted = new ArrayList<>(transports);
        sorted.sort((a, b) -> Integer.compare(b.priority(), a.priority()));
        this.transports = List.copyOf(sorted);
        this.self = sorted.stream().filter(t -> t.capabilities().contains(Capability.LOOPBACK)).findFirst().orElse(null);
        this.timeout = timeout;
        this.state = new State[size][];
        for (Transport t : this.transports) {
            if (t.capabilities().contains(Capability.INDIRECT)) {
                t.arrivals(peer -> arrived(peer, t));
            }
        }
    }

    /** The per-rail states of {@code peer}; call holding this. */
    private State[] states(int peer) {
        if (state[peer] == null) {
            state[peer] = new State[Handshake.MAX_RAILS];
            java.util.Arrays.fill(state[peer], State.NONE);
            epoch[peer] = new long[Handshake.MAX_RAILS];
        }
        return state[peer];
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
            for (InetAddress a : Interfaces.addresses()) {
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

    /** Waiters of this process to wake when a connection attempt ends (they may sleep on it). */
    public void doorbell(Bell bell) {
        this.doorbell = bell;
    }

    private void post(Event e) {
        events.add(e);
        Bell bell = doorbell;
        if (bell != null) {
            bell.wakeSleepers();
        }
    }

    /** Next finished connection attempt, or null. Called by the progress agent. */
    public Event poll() {
        return events.poll();
    }

    /**
     * Starts linking every rail to {@code peer} that has no link and no attempt under way (from
     * either side). The results arrive through {@link #poll()}, one event per rail.
     */
    @Override
    public void connect(int peer) {
        if (peer == rank) {
            try {
                post(new Event(peer, self.loopback(rank), null));
            } catch (IOException e) {
                post(new Event(peer, null, "cannot open the self link: " + e.getMessage()));
            }
            return;
        }
        Thread.ofVirtual().name("railyard-connect-" + rank + "-" + peer).start(() -> {
            List<RailPaths.Path> p;
            try {
                p = pathsTo(peer);
            } catch (RuntimeException e) {
                post(new Event(peer, 0, 1, 0, null, "could not connect to rank " + peer + ": " + e.getMessage(), false));
                return;
            }
            int rails = railCount(p);
            for (int r = 0; r < rails; r++) {
                if (r > 0 && fellBack(peer, p)) {
                    return; // rail 0 went through an intermediary after its direct connect failed: one rail
                }
                startRail(peer, r, rails, p);
            }
        });
    }

    /** True if the paths to {@code peer} are no longer {@code p}: a direct connect failed and an intermediary took over. */
    private synchronized boolean fellBack(int peer, List<RailPaths.Path> p) {
        return paths[peer] != p;
    }

    @Override
    public void connectRail(int peer, int rail) {
        Thread.ofVirtual().name("railyard-connect-" + rank + "-" + peer + "." + rail).start(() -> {
            List<RailPaths.Path> p;
            try {
                p = pathsTo(peer);
            } catch (RuntimeException e) {
                return;
            }
            int rails = railCount(p);
            if (rail < rails) {
                startRail(peer, rail, rails, p);
            }
        });
    }

    /** Claims rail {@code r} (NONE to CONNECTING) and runs its attempt on this thread, or returns if it is taken. */
    private void startRail(int peer, int r, int rails, List<RailPaths.Path> p) {
        synchronized (this) {
            State[] st = states(peer);
            if (st[r] != State.NONE) {
                return;
            }
            st[r] = State.CONNECTING;
        }
        connectTo(peer, r, rails, p.get(Math.min(r / railsPerPath, p.size() - 1)));
    }

    /** How many rails a channel with these paths has: one if a same-node transport carries it. */
    private int railCount(List<RailPaths.Path> p) {
        if (p.size() == 1 && p.getFirst() instanceof RailPaths.Path only && only.remote() == null && only.local() == null
                && !only.name().equals(RailPaths.ANY_ROUTE)) {
            return 1;
        }
        return Math.min(Handshake.MAX_RAILS, p.size() * railsPerPath);
    }

    /**
     * The network paths to {@code peer}, found once from the two cards; a single path when the best
     * transport both offer reaches only the same node (shm keeps one rail).
     */
    private List<RailPaths.Path> pathsTo(int peer) {
        synchronized (this) {
            if (paths[peer] != null) {
                return paths[peer];
            }
        }
        AddressCard card = cards.apply(peer);
        List<RailPaths.Path> p = null;
        Transport indirect = null;
        for (Transport t : transports) {
            if (t == self || !card.transports().contains(t.name()) || !t.reaches(myCard, card)) {
                continue;
            }
            if (t.capabilities().contains(Capability.INDIRECT)) {
                if (t.required(myCard, card)) {
                    p = List.of(new RailPaths.Path(null, null, t.name()));
                    break;
                }
                indirect = indirect == null ? t : indirect;
                continue;
            }
            if (p == null && !t.capabilities().contains(Capability.REMOTE)) {
                p = List.of(new RailPaths.Path(null, null, t.name()));
            }
        }
        if (p == null && (indirect != null && (card.handshake().isEmpty() || onlyIndirect()))) {
            p = List.of(new RailPaths.Path(null, null, indirect.name()));
        }
        if (p == null) {
            p = RailPaths.between(myCard, card, railNets);
        }
        synchronized (this) {
            if (paths[peer] == null) {
                paths[peer] = List.copyOf(p);
            }
            return paths[peer];
        }
    }

    @Override
    public synchronized void railLost(int peer, int rail, long linkEpoch) {
        State[] st = states(peer);
        if (st[rail] == State.LINKED && epoch[peer][rail] == linkEpoch) {
            st[rail] = State.NONE;
        }
    }

    /** The progress agent tells that the links to {@code peer} are gone for good. */
    @Override
    public synchronized void lost(int peer) {
        java.util.Arrays.fill(states(peer), State.CLOSED);
    }

    /** True if every transport but self reaches peers through an intermediary (the job asked for it). */
    private boolean onlyIndirect() {
        return transports.stream().allMatch(t -> t == self || t.capabilities().contains(Capability.INDIRECT));
    }

    /** The indirect transport a path goes through, or null for a direct path. */
    private Transport indirect(RailPaths.Path path) {
        if (path == null || path.remote() != null || path.local() != null) {
            return null;
        }
        Transport t = byName(path.name());
        return t != null && t.capabilities().contains(Capability.INDIRECT) ? t : null;
    }

    /**
     * An indirect transport tells that {@code peer}'s first frame arrived: link it if this process
     * reaches that peer through an intermediary and holds no link or attempt to it yet. If this
     * process would reach the peer directly, the peer fell back to the intermediary after its direct
     * connect failed (a firewall one way): follow it there, unless a direct link is up or being made.
     */
    private void arrived(int peer, Transport via) {
        if (peer < 0 || peer >= size || peer == rank || closing) {
            LOG.log(System.Logger.Level.WARNING, "rank " + rank + ": an indirect transport reported a frame from rank "
                    + peer + ", which is not a peer of this job of " + size);
            return;
        }
        Thread.ofVirtual().name("railyard-arrival-" + rank + "-" + peer).start(() -> {
            List<RailPaths.Path> p;
            try {
                p = pathsTo(peer);
            } catch (RuntimeException e) {
                post(new Event(peer, 0, 1, 0, null, "rank " + peer + " sent through an intermediary, but: " + e.getMessage(),
                        false));
                return;
            }
            if (p.size() == 1 && indirect(p.getFirst()) != null) {
                startRail(peer, 0, 1, p);
                return;
            }
            followArrival(peer, via);
        });
    }

    /**
     * The peer came through {@code via} although this process would reach it directly: join it
     * there too, unless a direct link is up. While a direct attempt of this process is under way,
     * the arrival is kept, and followed if the peer turns the attempt down (it went through the
     * intermediary meanwhile, see {@link #acceptOne}).
     */
    private void followArrival(int peer, Transport via) {
        synchronized (this) {
            State[] st = states(peer);
            if (st[0] == State.CONNECTING) {
                pendingArrival[peer] = via;
                return;
            }
            if ((st[0] != State.NONE && st[0] != State.AWAIT_INCOMING) || !via.reaches(myCard, cards.apply(peer))) {
                return;
            }
            paths[peer] = List.of(new RailPaths.Path(null, null, via.name()));
            st[0] = State.CONNECTING;
            pendingArrival[peer] = null;
        }
        LOG.log(System.Logger.Level.INFO, "rank " + rank + ": rank " + peer + " reaches this process through "
                + via.name() + "; answering the same way");
        joinRail(peer, 0, 1, via);
    }

    /**
     * Rail 0 of {@code peer} could not be connected directly: if an indirect transport reaches the
     * peer, the channel goes through it instead (one rail), and so does every later attempt.
     *
     * @return true if the attempt was handed to the intermediary
     */
    /** The indirect transport a failed direct connect to the peer of {@code card} falls back to, or null. */
    private Transport fallbackFor(AddressCard card) {
        for (Transport t : transports) {
            if (t.capabilities().contains(Capability.INDIRECT) && card.transports().contains(t.name())
                    && t.reaches(myCard, card)) {
                return t;
            }
        }
        return null;
    }

    private boolean fallBack(int peer, int rail, String tried) {
        Transport t = rail == 0 ? fallbackFor(cards.apply(peer)) : null;
        if (t == null) {
            return false;
        }
        synchronized (this) {
            if (states(peer)[rail] != State.CONNECTING) {
                return false;
            }
            paths[peer] = List.of(new RailPaths.Path(null, null, t.name()));
        }
        LOG.log(System.Logger.Level.INFO, "rank " + rank + ": cannot connect to rank " + peer + " directly (" + tried
                + "); going through " + t.name());
        joinRail(peer, rail, 1, t);
        return true;
    }

    /** One rail through an intermediary: the transport makes the link from the two cards. */
    private void joinRail(int peer, int rail, int rails, Transport via) {
        String why;
        try {
            Link link = via.join(peer, myCard, cards.apply(peer));
            long e;
            synchronized (this) {
                State[] st = states(peer);
                if (st[rail] != State.CONNECTING) {
                    link.close();
                    return;
                }
                st[rail] = State.LINKED;
                e = ++epoch[peer][rail];
            }
            post(new Event(peer, rail, rails, e, link, null, false));
            return;
        } catch (IOException | RuntimeException e) {
            why = e.getClass().getSimpleName() + ": " + e.getMessage();
        }
        synchronized (this) {
            State[] st = states(peer);
            if (st[rail] == State.CONNECTING) {
                st[rail] = State.NONE;
            }
        }
        post(new Event(peer, rail, rails, 0, null, "could not reach rank " + peer + " through " + via.name() + ": " + why,
                false));
    }

    /** One rail: its path's address, or every handshake address of the peer when the path fixes none. */
    private void connectTo(int peer, int rail, int rails, RailPaths.Path path) {
        Transport via = indirect(path);
        if (via != null) {
            joinRail(peer, rail, rails, via);
            return;
        }
        List<String> tried = new ArrayList<>();
        boolean allRefused = true;
        try {
            AddressCard card = cards.apply(peer);
            List<InetSocketAddress> targets = new ArrayList<>();
            if (path != null && path.remote() != null) {
                targets.add(path.remote());
            } else {
                boolean sameNode = card.node().equals(myCard.node());
                for (InetSocketAddress a : card.handshake()) {
                    boolean loop = a.getHostString().startsWith("127.");
                    if (loop == sameNode || card.handshake().size() == 1) {
                        targets.add(a);
                    }
                }
            }
            // with an intermediary to fall back to, the direct attempts take at most half the connect
            // timeout, so the fallback ends within the channel's own bound (the connect timeout)
            Duration bound = rail == 0 && fallbackFor(card) != null
                    ? timeout.dividedBy(2L * Math.max(1, targets.size())) : null;
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
        if (fallBack(peer, rail, String.join("; ", tried))) {
            return;
        }
        synchronized (this) {
            State[] st = states(peer);
            if (st[rail] == State.CONNECTING) {
                st[rail] = State.NONE;
            }
        }
        post(new Event(peer, rail, rails, 0, null, "could not connect to rank " + peer
                + (rails > 1 ? " (rail " + rail + ")" : "") + ": " + String.join("; ", tried), allRefused));
    }

    /** Why an attempt failed, and whether the peer's machine refused the connection outright. */
    private record Outcome(String why, boolean refused) { }

    @Override
    public void probe(int peer) {
        Thread.ofVirtual().name("railyard-probe-" + rank + "-" + peer).start(() -> {
            Set<InetSocketAddress> targets = new LinkedHashSet<>();
            List<String> found = new ArrayList<>();
            boolean allRefused = true;
            try {
                for (RailPaths.Path p : pathsTo(peer)) {
                    if (p.remote() != null) {
                        targets.add(p.remote());
                    }
                }
                if (targets.isEmpty()) {
                    targets.addAll(cards.apply(peer).handshake());
                }
            } catch (RuntimeException e) {
                post(new Event(peer, PROBE, 0, 0, null, "cannot probe: " + e.getMessage(), false));
                return;
            }
            for (InetSocketAddress a : targets) {
                try (SocketChannel ch = SocketChannel.open()) {
                    ch.socket().connect(new InetSocketAddress(a.getHostString(), a.getPort()), (int) probeTimeout().toMillis());
                    found.add(a.getHostString() + " answers");
                    allRefused = false;
                } catch (ConnectException e) {
                    boolean refused = String.valueOf(e.getMessage()).contains("refused");
                    allRefused &= refused;
                    found.add(a.getHostString() + ": " + e.getMessage());
                } catch (IOException e) {
                    allRefused = false;
                    found.add(a.getHostString() + ": " + e.getClass().getSimpleName() + " " + e.getMessage());
                }
            }
            post(new Event(peer, PROBE, 0, 0, null, String.join("; ", found), allRefused && !targets.isEmpty()));
        });
    }

    private Duration probeTimeout() {
        return timeout.compareTo(Duration.ofSeconds(2)) < 0 ? timeout : Duration.ofSeconds(2);
    }

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
            Duration bound = fallbackBound != null ? fallbackBound : rails > 1 && rail >= 0 ? probeTimeout() : timeout;
            ch.socket().connect(new InetSocketAddress(addr.getHostString(), addr.getPort()), (int) bound.toMillis());
            ch.socket().setSoTimeout((int) timeout.toMillis());
            DataInputStream in = new DataInputStream(ch.socket().getInputStream());
            DataOutputStream out = new DataOutputStream(new BufferedOutputStream(ch.socket().getOutputStream()));
            byte[] nonceC = proof.nonce();
            Handshake.writeHello(out, new Handshake.Hello(jobHash, rank, peer, nonceC, rail, rails));
            Handshake.Challenge c = Handshake.readChallenge(in);
            if (c.status() != Handshake.OK) {
                ch.close();
                return new Outcome("refused: " + Handshake.statusName(c.status()), false);
            }
            if (!MessageDigest.isEqual(c.mac(), proof.mac("A", rank, peer, nonceC, c.nonce()))) {
                ch.close();
                LOG.log(System.Logger.Level.WARNING, "rank " + rank + ": " + addr + " answered as rank " + peer
                        + " but could not prove the job secret; dropped");
                return new Outcome("peer failed to prove the job secret", false);
            }
            List<Handshake.Offer> offers = new ArrayList<>();
            for (Transport t : transports) {
                if (t == self || t.capabilities().contains(Capability.INDIRECT) || !card.transports().contains(t.name())
                        || !t.reaches(myCard, card)) {
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
            Handshake.writeProof(out, new Handshake.Proof(proof.mac("C", rank, peer, c.nonce(), nonceC), offers));
            Handshake.Accept acc = Handshake.readAccept(in);
            Link link = null;
            for (int i = 0; i < offered.size(); i++) {
                Transport t = offered.get(i);
                if (acc.status() == Handshake.OK && link == null && t.name().equals(acc.transport())) {
                    ch.socket().setSoTimeout(0);
                    link = t.complete(peer, params.get(i), acc.parameters(), acc.maxFrame(), ch);
                    ch.configureBlocking(false);
                } else {
                    t.abandon(peer, params.get(i));
                }
            }
            offered.clear();
            if (acc.status() == Handshake.DUPLICATE) {
                ch.close();
                Transport arrivedVia;
                synchronized (this) {
                    State[] st = states(peer);
                    if (st[rail] == State.CONNECTING) {
                        st[rail] = State.AWAIT_INCOMING;
                    }
                    arrivedVia = rail == 0 ? pendingArrival[peer] : null;
                }
                if (arrivedVia != null) {
                    followArrival(peer, arrivedVia);
                }
                return null;
            }
            if (link == null) {
                ch.close();
                return new Outcome("no common transport (" + Handshake.statusName(acc.status()) + ")", false);
            }
            long e;
            synchronized (this) {
                State[] st = states(peer);
                if (st[rail] == State.CLOSED) {
                    link.close();
                    return null;
                }
                st[rail] = State.LINKED;
                e = ++epoch[peer][rail];
            }
            post(new Event(peer, rail, rails, e, link, null, false));
            return null;
        } catch (IOException | RuntimeException e) {
            for (int i = 0; i < offered.size(); i++) {
                offered.get(i).abandon(peer, params.get(i));
            }
            closeQuietly(ch);
            boolean refused = e instanceof ConnectException && String.valueOf(e.getMessage()).contains("refused");
            return new Outcome(e.getClass().getSimpleName() + ": " + e.getMessage(), refused);
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
            byte[] nonceA = proof.nonce();
            byte[] macA = status == Handshake.OK ? proof.mac("A", h.from(), h.to(), h.nonce(), nonceA) : new byte[Handshake.MAC_BYTES];
            Handshake.writeChallenge(out, new Handshake.Challenge(status, nonceA, macA));
            if (status != Handshake.OK) {
                LOG.log(System.Logger.Level.WARNING, "rank " + rank + ": refused connection from " + from + " claiming rank "
                        + h.from() + ": " + Handshake.statusName(status));
                ch.close();
                return;
            }
            Handshake.Proof p = Handshake.readProof(in);
            if (!MessageDigest.isEqual(p.mac(), proof.mac("C", h.from(), h.to(), nonceA, h.nonce()))) {
                LOG.log(System.Logger.Level.WARNING, "rank " + rank + ": refused connection from " + from + " claiming rank "
                        + h.from() + ": wrong job secret");
                ch.close();
                return;
            }
            int peer = h.from();
            int rail = h.rail();
            long linkEpoch;
            synchronized (this) {
                State s = states(peer)[rail];
                boolean mineWins = s == State.CONNECTING && rank < peer;
                // a lower rank connects a rail that is linked here only after finding its link dead: replace it
                boolean stale = s == State.LINKED && peer > rank;
                // a channel that fell back to an intermediary stays there: the peer follows it (see arrived)
                boolean relayed = paths[peer] != null && paths[peer].size() == 1 && indirect(paths[peer].getFirst()) != null;
                if (stale || s == State.CLOSED || mineWins || relayed) {
                    Handshake.writeAccept(out, new Handshake.Accept(Handshake.DUPLICATE, "", 0));
                    ch.close();
                    return;
                }
                states(peer)[rail] = State.LINKED;
                linkEpoch = ++epoch[peer][rail];
            }
            for (Handshake.Offer o : p.offers()) {
                Transport t = byName(o.transport());
                if (t == null || t == self) {
                    continue;
                }
                try {
                    Link link = t.accept(peer, o.parameters(), ch);
                    Handshake.writeAccept(out, new Handshake.Accept(Handshake.OK, t.name(), link.maxFrame(), t.answer(link)));
                    ch.socket().setSoTimeout(0);
                    ch.configureBlocking(false);
                    post(new Event(peer, rail, h.rails(), linkEpoch, link, null, false));
                    return;
                } catch (IOException | RuntimeException e) {
                    LOG.log(System.Logger.Level.DEBUG, "rank " + rank + ": cannot accept " + t.name() + " from rank " + peer + ": " + e);
                }
            }
            Handshake.writeAccept(out, new Handshake.Accept(Handshake.NO_TRANSPORT, "", 0));
            ch.close();
            synchronized (this) {
                if (states(peer)[rail] == State.LINKED && epoch[peer][rail] == linkEpoch) {
                    states(peer)[rail] = State.NONE;
                }
            }
        } catch (EOFException e) {
            // a probe (or a scanner) connected and left without a word
            LOG.log(System.Logger.Level.DEBUG, "rank " + rank + ": connection from " + from + " closed before its handshake");
            closeQuietly(ch);
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

    /** Every IPv4 address of this machine's interfaces that are up, loopback excepted: see {@link Interfaces#nets()}. */
    public static List<String> interfaceNets() {
        return Interfaces.nets();
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
        // A ServerSocketChannel closed while a platform thread is blocked in accept() keeps its
        // socket until that accept returns, and may still accept one more connection; interrupting
        // the thread closes the channel at once (ClosedByInterruptException), so a closed connector
        // refuses connections from the moment close() returns.
        if (acceptThread != null) {
            acceptThread.interrupt();
        }
        try {
            if (server != null) {
                server.close();
            }
            if (acceptThread != null) {
                acceptThread.join(2000);
            }
        } catch (IOException ignored) {
            // closing anyway
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        for (Transport t : transports) {
            t.close();
        }
    }
}
