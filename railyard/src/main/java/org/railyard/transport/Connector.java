package org.railyard.transport;

import java.io.IOException;
import java.net.ConnectException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Queue;
import java.util.Set;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.function.IntFunction;
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
 *
 * <p>This class holds the rail states, the path choice and the requests; the handshakes run in
 * {@link HandshakeAcceptor} (accepting side) and {@link RailDialer} (connecting side), and links
 * through an intermediary in {@link IndirectRoutes}. All of them read and change the rail states
 * only holding this connector's monitor.
 */
public final class Connector implements LinkSource {
    private static final System.Logger LOG = System.getLogger("org.railyard.transport");

    /** A rail's state; read and changed only holding this connector's monitor (here and in its helpers). */
    enum State { NONE, CONNECTING, AWAIT_INCOMING, LINKED, CLOSED }

    final int rank;
    final int size;
    final long jobHash;
    final JobProof proof;
    final List<Transport> transports;
    /** The transport that links this process to itself ({@link Capability#LOOPBACK}), or null. */
    final Transport self;
    final Duration timeout;
    private final int railsPerPath;
    private final List<RailPaths.Net> railNets;
    /** Per peer, per rail: guarded by this. Allocated on first use of a peer. */
    private final State[][] state;
    final long[][] epoch;
    /** Per peer: its rails' paths (index = rail / railsPerPath), computed once from the cards. */
    final List<RailPaths.Path>[] paths;
    /** Per peer: the indirect transport its first frame came through while a direct attempt was under way; guarded by this. */
    final Transport[] pendingArrival;
    private final Queue<Event> events = new ConcurrentLinkedQueue<>();
    private volatile Bell doorbell;
    IntFunction<AddressCard> cards;
    AddressCard myCard;
    ServerSocketChannel server;
    private Thread acceptThread;
    volatile boolean closing;
    /** Links through an intermediary, arrivals and the fallback to them. */
    final IndirectRoutes routes = new IndirectRoutes(this);
    private final RailDialer dialer = new RailDialer(this);
    private final HandshakeAcceptor acceptor = new HandshakeAcceptor(this);

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
                t.arrivals(peer -> routes.arrived(peer, t));
            }
        }
    }

    /** The per-rail states of {@code peer}; call holding this. */
    State[] states(int peer) {
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
        acceptThread = Thread.ofPlatform().daemon().name("railyard-accept-" + rank).start(acceptor::loop);
        return out;
    }

    /** Sets where peer cards come from (a bootstrap lookup, made on a connector thread) and our own card. */
    public void cards(AddressCard mine, IntFunction<AddressCard> lookup) {
        synchronized (this) {
            this.myCard = mine;
            this.cards = lookup;
        }
        routes.cardsKnown();
    }

    /** Transports in priority order, best first. */
    public List<Transport> transports() {
        return transports;
    }

    /** Waiters of this process to wake when a connection attempt ends (they may sleep on it). */
    public void doorbell(Bell bell) {
        this.doorbell = bell;
    }

    void post(Event e) {
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
    void startRail(int peer, int r, int rails, List<RailPaths.Path> p) {
        synchronized (this) {
            State[] st = states(peer);
            if (st[r] != State.NONE) {
                return;
            }
            st[r] = State.CONNECTING;
        }
        dialer.connectTo(peer, r, rails, p.get(Math.min(r / railsPerPath, p.size() - 1)));
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
    List<RailPaths.Path> pathsTo(int peer) {
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
    Transport indirect(RailPaths.Path path) {
        if (path == null || path.remote() != null || path.local() != null) {
            return null;
        }
        Transport t = byName(path.name());
        return t != null && t.capabilities().contains(Capability.INDIRECT) ? t : null;
    }


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

    Duration probeTimeout() {
        return timeout.compareTo(Duration.ofSeconds(2)) < 0 ? timeout : Duration.ofSeconds(2);
    }

    Transport byName(String name) {
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

    static void closeQuietly(SocketChannel ch) {
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
