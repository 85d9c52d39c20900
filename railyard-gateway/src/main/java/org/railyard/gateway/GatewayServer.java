package org.railyard.gateway;

import java.io.BufferedInputStream;
import java.io.DataInputStream;
import java.io.EOFException;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Consumer;
import org.railyard.bootstrap.JobKeys;
import org.railyard.transport.gateway.GatewayClient;
import org.railyard.util.AcceptLoop;
import org.railyard.util.KeepAlive;
import org.railyard.wire.GatewayFrame;

/**
 * A site gateway (seed 003's proxy): the ranks of its site connect to it, and it keeps connections
 * to the gateways of the other sites. It forwards DATA frames by their routing header
 * ({@link GatewayFrame}) without reading their body, and while it receives them (cut-through: the
 * header and each piece of the body go out as they come in).
 *
 * <p>Threads: one platform thread per connection reads it and forwards what it reads, cut-through,
 * itself: a frame is written onto the destination connection by the thread that read it, under
 * that {@link Endpoint}'s lock, one frame at a time. The kernel wakes a platform thread blocked in
 * its read directly; a virtual thread's wake-up passes through the JDK's pollers and a carrier
 * thread, three threads scheduled per hop instead of one (docs/gateway.md, "Where a gateway hop
 * spends time").
 *
 * <p>Jobs. Every connection proves its job's gateway verifier ({@link JobKeys#gatewayVerifier});
 * the first connection of a job registers it. Frames of one job never reach a connection of
 * another: routes are looked up in the job the connection proved, and the WAN connections are per
 * job ({@link Settings#connections} stripes per peer site; a (source, destination) pair always uses
 * the same stripe, so its frames stay in order).
 *
 * <p>Bad input (a foreign or malformed header, a frame of another job, a source that is not the
 * connection's own, an unknown site or process) closes that connection with the reason logged,
 * after an ERROR frame naming it; the gateway goes on serving the others. A destination that cannot
 * be reached (a peer gateway down, a rank that never connects within {@link Settings#patience}) gets
 * the source rank an UNREACHABLE naming it; the frame is dropped.
 */
public final class GatewayServer implements AutoCloseable {
    /** A peer gateway: its site when given on the command line (else asked with IDENT), its address. */
    public record Peer(String site, InetSocketAddress address) { }

    /**
     * @param site        the site this gateway serves
     * @param bind        where it listens
     * @param peers       the gateways of the other sites (two of one site: the second is the failover)
     * @param connections WAN connections per job and peer site, striped by (source, destination)
     * @param patience    bound on a handshake step, a connection to a peer, and the wait for a
     *                    destination rank to connect
     * @param maxBody     largest DATA body accepted
     * @param warm        a WAN stripe on which nothing was written for this long gets a WARM frame, so
     *                    that TCP does not restart it from a small window after an idle spell (it does so
     *                    after one retransmission timeout (at least Linux's TCP_RTO_MIN), with
     *                    {@code net.ipv4.tcp_slow_start_after_idle} and a congestion control that
     *                    follows it, as cubic and reno do and bbr does not); zero: never
     */
    public record Settings(String site, InetSocketAddress bind, List<Peer> peers, int connections, Duration patience,
                           int maxBody, Duration warm) {
        public Settings {
            peers = List.copyOf(peers);
            if (connections < 1 || connections > 64) {
                throw new IllegalArgumentException("--connections must be between 1 and 64, not " + connections);
            }
            if (warm.isNegative()) {
                throw new IllegalArgumentException("--warm must not be negative, not " + warm.toMillis() + " ms");
            }
        }

        /** Settings whose stripes are never kept warm. */
        public Settings(String site, InetSocketAddress bind, List<Peer> peers, int connections, Duration patience,
                        int maxBody) {
            this(site, bind, peers, connections, patience, maxBody, Duration.ZERO);
        }
    }

    private static final SecureRandom RANDOM = new SecureRandom();
    private static final int CHUNK = 64 * 1024;

    private final Settings settings;
    private final int siteId;
    private final Consumer<String> log;
    private final ServerSocket server;
    private final ConcurrentHashMap<Long, GatewayJob> jobs = new ConcurrentHashMap<>();
    /** Site id to the peer addresses serving it, learned from the settings and IDENT. */
    private final ConcurrentHashMap<Integer, List<InetSocketAddress>> peerSites = new ConcurrentHashMap<>();
    private final GatewayCounters counters = new GatewayCounters();
    private final Set<Socket> sockets = ConcurrentHashMap.newKeySet();
    /** Notified when a peer site is learned or a peer opens a stripe. */
    private final Object peerLock = new Object();
    private final Thread acceptor;
    private final Thread warmer;
    /** The probes on every connection, accepted or opened (read at start: a bad setting fails it). */
    private final KeepAlive keepAlive;
    private volatile boolean closed;

    private GatewayServer(Settings settings, Consumer<String> log) throws IOException {
        this.settings = settings;
        this.siteId = GatewayFrame.siteId(settings.site());
        this.log = log;
        this.keepAlive = KeepAlive.configured(); // a bad setting fails the start, naming it
        counters.site(siteId, settings.site());
        for (Peer p : settings.peers()) {
            if (p.site() != null) {
                learn(p.site(), p.address());
            }
        }
        server = new ServerSocket();
        server.setReuseAddress(true);
        server.bind(settings.bind(), 1024);
        acceptor = Thread.ofVirtual().name("gateway-accept").start(this::acceptLoop);
        warmer = settings.warm().isZero() ? null : Thread.ofVirtual().name("gateway-warm").start(this::warmLoop);
    }

    /** Every quarter of {@link Settings#warm}: a WARM on each stripe quiet for that long. */
    private void warmLoop() {
        long quiet = settings.warm().toNanos();
        while (!closed) {
            // a periodic duty, not a wait for a condition: the quarter bounds how late a WARM goes
            java.util.concurrent.locks.LockSupport.parkNanos(quiet / 4);
            for (GatewayJob job : jobs.values()) {
                for (Endpoint e : job.stripes()) {
                    if (e.warmIfQuiet(quiet)) {
                        counters.warmed();
                    }
                }
            }
        }
    }

    /** Binds and starts serving; {@code log} gets one line per event worth a line. */
    public static GatewayServer start(Settings settings, Consumer<String> log) throws IOException {
        return new GatewayServer(settings, log);
    }

    /** Where it listens (the actual port when 0 was asked). */
    public InetSocketAddress address() {
        return new InetSocketAddress(settings.bind().getAddress(), server.getLocalPort());
    }

    /** The counters as {@code name value} lines. */
    public String stats() {
        return counters.render(jobs.values());
    }

    /** Adds a peer gateway of {@code site} (a launcher that embeds several gateways introduces them). */
    public void peer(String site, InetSocketAddress address) {
        learn(site, address);
    }

    private void learn(String site, InetSocketAddress address) {
        learnOnly(site, address);
        synchronized (peerLock) {
            peerLock.notifyAll();
        }
    }

    private void learnOnly(String site, InetSocketAddress address) {
        int id = GatewayFrame.siteId(site);
        counters.site(id, site);
        peerSites.compute(id, (k, v) -> {
            if (v == null) {
                return List.of(address);
            }
            if (v.contains(address)) {
                return v;
            }
            java.util.ArrayList<InetSocketAddress> l = new java.util.ArrayList<>(v);
            l.add(address);
            return List.copyOf(l);
        });
    }

    private void acceptLoop() {
        AcceptLoop.run(server, () -> closed, e -> log.accept("railyard gateway: accept failed: " + e.getMessage()), s -> {
            sockets.add(s);
            Thread.ofPlatform().daemon().name("gateway-conn").start(() -> serve(s));
        });
    }

    /** One accepted connection, from its first byte to its close. */
    private void serve(Socket s) {
        String from = s.getRemoteSocketAddress().toString();
        Endpoint ep = null;
        GatewayJob job = null;
        try {
            s.setTcpNoDelay(true);
            KeepAlive.apply(s, keepAlive);
            s.setSoTimeout((int) settings.patience().toMillis());
            DataInputStream in = new DataInputStream(new BufferedInputStream(s.getInputStream(), CHUNK));
            ep = new Endpoint(s, from);
            byte[] scratch = new byte[GatewayFrame.HEADER];
            GatewayFrame.Header h;
            try {
                h = GatewayFrame.readHeader(in, scratch, GatewayFrame.MAX_TEXT + 1024);
            } catch (EOFException e) {
                throw new BadInput(e.getMessage().startsWith("connection closed") ? "closed before its first frame"
                        : e.getMessage());
            }
            switch (h.type()) {
                case GatewayFrame.STATS_REQUEST -> {
                    ep.send(GatewayFrame.STATS, GatewayFrame.text(stats()));
                    return;
                }
                case GatewayFrame.IDENT_REQUEST -> {
                    ep.send(GatewayFrame.IDENT, GatewayFrame.text(settings.site()));
                    return;
                }
                case GatewayFrame.HELLO -> {
                }
                default -> throw new BadInput("opened with " + GatewayFrame.typeName(h.type()) + " instead of HELLO");
            }
            GatewayFrame.Hello hello;
            try {
                hello = GatewayFrame.hello(h, GatewayFrame.readBody(in, h));
            } catch (IOException e) {
                throw new BadInput(e.getMessage());
            }
            boolean peer = h.has(GatewayFrame.FLAG_GATEWAY);
            if (!peer && h.source().site() != siteId) {
                throw new BadInput("rank " + h.source().process() + " of site '" + hello.site()
                        + "' connected to the gateway of site '" + settings.site() + "'");
            }
            if (peer && h.source().site() == siteId) {
                throw new BadInput("a gateway of this gateway's own site '" + settings.site() + "' connected as a peer");
            }
            job = prove(ep, in, scratch, h, hello);
            s.setSoTimeout(0);
            if (peer) {
                counters.site(h.source().site(), hello.site());
                ep.peerSite = h.source().site();
                // a stripe carries both ways: frames to that site may take it until the peer closes it
                job.offerStripe(ep.peerSite, hello.stripe() % settings.connections(), ep);
                synchronized (peerLock) {
                    peerLock.notifyAll();
                }
                int port = h.source().node();
                if (port > 0 && port <= 65535) {
                    learn(hello.site(), new InetSocketAddress(s.getInetAddress(), port));
                }
                log.accept("railyard gateway: job " + hello.jobId() + ": gateway of site '" + hello.site()
                        + "' connected, stripe " + hello.stripe() + ", from " + from);
            } else {
                ep.address = h.source();
                log.accept("railyard gateway: job " + hello.jobId() + ": rank " + h.source().process() + " of "
                        + hello.jobSize() + " connected from " + from + " (node "
                        + String.format("%08x", h.source().node()) + ")");
                job.register(h.source().process(), ep);
            }
            ep.job = job;
            forwardLoop(ep, job, in, scratch);
        } catch (BadInput e) {
            counters.rejected();
            String who = ep != null && ep.address != null ? " (rank " + ep.address.process() + " of job " + job.id + ")"
                    : ep != null && ep.peerSite != 0 ? " (gateway of site '" + counters.siteName(ep.peerSite) + "')" : "";
            log.accept("railyard gateway: closed the connection from " + from + who + ": " + e.getMessage());
            if (ep != null) {
                ep.sendQuietly(GatewayFrame.ERROR, GatewayFrame.text(e.getMessage()));
            }
        } catch (IOException e) {
            if (!closed) {
                String who = ep != null && ep.address != null ? "rank " + ep.address.process() + " of job " + job.id
                        : ep != null && ep.peerSite != 0 ? "gateway of site '" + counters.siteName(ep.peerSite) + "'" : from;
                log.accept("railyard gateway: connection of " + who + " ended: " + e.getMessage());
            }
        } finally {
            if (ep != null) {
                ep.close();
                if (job != null && ep.address != null && job.unregister(ep.address.process(), ep)) {
                    // the job's last rank here left: its WAN stripes go, and so does the job
                    jobs.remove(job.hash, job);
                    job.closeStripes();
                    log.accept("railyard gateway: job " + job.id + ": no rank left here, its stripes closed");
                }
                if (job != null && ep.peerSite != 0) {
                    job.dropStripe(ep);
                    if (!closed) {
                        siteLost(job, ep.peerSite, "its connection ended");
                    }
                }
            }
            sockets.remove(s);
        }
    }

    /** Challenge and response on the job's verifier; registers the job when it is new. */
    private GatewayJob prove(Endpoint ep, DataInputStream in, byte[] scratch, GatewayFrame.Header h,
                             GatewayFrame.Hello hello) throws IOException {
        GatewayJob known = jobs.get(h.job());
        if (known != null && known.size != hello.jobSize()) {
            throw new BadInput("job " + hello.jobId() + " has " + known.size + " ranks here, the HELLO says "
                    + hello.jobSize());
        }
        byte[] nonceG = new byte[GatewayFrame.NONCE_BYTES];
        RANDOM.nextBytes(nonceG);
        int process = h.source().process();
        byte[] mac = known == null ? new byte[GatewayFrame.MAC_BYTES]
                : JobKeys.relayProof(known.verifier, "G", process, hello.nonce(), nonceG);
        byte flag = (byte) (h.flags() & GatewayFrame.FLAG_GATEWAY);
        ep.send(GatewayFrame.CHALLENGE, (byte) (flag | (known == null ? GatewayFrame.FLAG_NEW_JOB : 0)),
                GatewayFrame.challengeBody(nonceG, mac));
        GatewayFrame.Frame proof;
        try {
            proof = GatewayFrame.readFrame(in, scratch, GatewayFrame.MAX_TEXT);
        } catch (SocketTimeoutException e) {
            throw new BadInput("no PROOF within " + settings.patience().toSeconds() + " s");
        } catch (IOException e) {
            throw new BadInput(e.getMessage());
        }
        GatewayFrame.Header p = proof.header();
        byte[] body = proof.body();
        if (p.type() != GatewayFrame.PROOF) {
            throw new BadInput("sent " + GatewayFrame.typeName(p.type()) + " where PROOF was due");
        }
        boolean claimsNew = p.has(GatewayFrame.FLAG_NEW_JOB);
        if (claimsNew != (known == null)) {
            throw new BadInput("PROOF " + (claimsNew ? "carries a verifier for a job this gateway knows"
                    : "carries no verifier for a job this gateway does not know"));
        }
        byte[] verifier = known != null ? known.verifier
                : GatewayFrame.slice(body, GatewayFrame.PROOF_VERIFIER_OFFSET, GatewayFrame.VERIFIER_BYTES);
        byte[] want = JobKeys.relayProof(verifier, "C", process, nonceG, hello.nonce());
        if (!JobKeys.same(want, GatewayFrame.slice(body, GatewayFrame.PROOF_MAC_OFFSET, GatewayFrame.MAC_BYTES))) {
            throw new BadInput("wrong job secret for job " + hello.jobId());
        }
        GatewayJob job = known;
        if (job == null) {
            GatewayJob fresh = new GatewayJob(hello.jobId(), h.job(), verifier, hello.jobSize());
            job = jobs.putIfAbsent(h.job(), fresh);
            if (job == null) {
                job = fresh;
            } else if (!JobKeys.same(job.verifier, verifier) || job.size != hello.jobSize()) {
                throw new BadInput("job " + hello.jobId() + " registered at the same time with another secret or size");
            }
        }
        ep.send(GatewayFrame.WELCOME, flag, new byte[0]);
        return job;
    }

    /** Reads DATA frames from {@code ep} and forwards each, until the connection ends. */
    private void forwardLoop(Endpoint ep, GatewayJob job, DataInputStream in, byte[] scratch) throws IOException {
        byte[] chunk = new byte[GatewayFrame.HEADER + CHUNK];
        while (!closed) {
            GatewayFrame.Header h;
            try {
                h = GatewayFrame.readHeader(in, chunk, settings.maxBody());
            } catch (EOFException e) {
                if (e.getMessage().equals("connection closed")) {
                    return;
                }
                throw new BadInput(e.getMessage());
            } catch (IOException e) {
                if (e instanceof java.net.SocketException) {
                    throw e;
                }
                throw new BadInput(e.getMessage());
            }
            if (h.type() == GatewayFrame.WARM && ep.peerSite != 0) {
                continue;
            }
            if (h.type() != GatewayFrame.DATA) {
                throw new BadInput("sent " + GatewayFrame.typeName(h.type()) + " where DATA was due");
            }
            if (ep.address != null && h.has(GatewayFrame.FLAG_CUT)) {
                throw new BadInput("a rank sent a DATA frame flagged as cut (only gateways cut frames)");
            }
            if (h.job() != job.hash) {
                throw new BadInput("a frame of another job (" + Long.toHexString(h.job()) + ") on a connection of job "
                        + job.id);
            }
            if (ep.address != null && !ep.address.equals(h.source())) {
                throw new BadInput("a frame from " + h.source() + " on the connection of " + ep.address);
            }
            if (ep.peerSite != 0 && (h.source().site() != ep.peerSite || h.destination().site() != siteId)) {
                throw new BadInput("a frame from site " + String.format("%08x", h.source().site()) + " to site "
                        + String.format("%08x", h.destination().site()) + " on a connection from site '"
                        + counters.siteName(ep.peerSite) + "' to this site");
            }
            if (h.destination().process() >= job.size) {
                throw new BadInput("unknown process " + h.destination().process() + " in a job of " + job.size);
            }
            Route r = route(job, h);
            forward(ep, in, chunk, h, r);
        }
    }

    /** Where a frame goes: an endpoint, or why none. */
    private record Route(Endpoint to, String unreachable) { }

    private Route route(GatewayJob job, GatewayFrame.Header h) throws IOException {
        GatewayFrame.Address dst = h.destination();
        if (dst.site() == siteId) {
            Endpoint e = job.awaitRank(dst.process(), settings.patience());
            if (e == null) {
                return new Route(null, "rank " + dst.process() + " of job " + job.id
                        + " did not connect to the gateway of site '" + settings.site() + "' within "
                        + settings.patience().toSeconds() + " s");
            }
            if (e.address.node() != dst.node()) {
                throw new BadInput("unknown process " + dst + ": rank " + dst.process() + " of job " + job.id
                        + " is on node " + String.format("%08x", e.address.node()));
            }
            return new Route(e, null);
        }
        int k = job.stripeFor(dst.site(), h.source().process(), settings.connections());
        Endpoint open = job.openStripe(dst.site(), k);
        if (open != null) {
            return new Route(open, null);
        }
        List<InetSocketAddress> peers = peersOf(dst.site());
        if (peers.isEmpty()) {
            // a gateway told of no peer for that site learns one when that site's gateway connects
            long deadline = System.nanoTime() + settings.patience().toNanos();
            synchronized (peerLock) {
                while ((open = job.openStripe(dst.site(), k)) == null
                        && (peers = peerSites.getOrDefault(dst.site(), List.of())).isEmpty()) {
                    long left = deadline - System.nanoTime();
                    if (left <= 0) {
                        break;
                    }
                    try {
                        peerLock.wait(Math.max(1, left / 1_000_000));
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                        break;
                    }
                }
            }
            if (open != null) {
                return new Route(open, null);
            }
        }
        if (peers.isEmpty()) {
            throw new BadInput("unknown site " + String.format("%08x", dst.site()) + ": no peer gateway of this gateway serves it");
        }
        List<InetSocketAddress> targets = peers;
        try {
            return new Route(job.stripe(dst.site(), k, () -> openStripe(job, dst.site(), k, targets)), null);
        } catch (IOException e) {
            return new Route(null, "the gateway of site '" + counters.siteName(dst.site()) + "' is unreachable: "
                    + e.getMessage());
        }
    }

    /** The peer gateways of {@code site}, asking every peer whose site is not known yet. */
    private List<InetSocketAddress> peersOf(int site) {
        List<InetSocketAddress> l = peerSites.get(site);
        if (l != null) {
            return l;
        }
        for (Peer p : settings.peers()) {
            if (p.site() == null && !peerSites.values().stream().anyMatch(v -> v.contains(p.address()))) {
                try {
                    learn(GatewayClient.ident(p.address(), settings.patience()), p.address());
                } catch (IOException e) {
                    log.accept("railyard gateway: peer " + p.address() + " did not tell its site: " + e.getMessage());
                }
            }
        }
        return peerSites.getOrDefault(site, List.of());
    }

    /** Opens WAN stripe {@code k} of {@code job} to {@code site}: the first peer that answers. */
    private Endpoint openStripe(GatewayJob job, int site, int k, List<InetSocketAddress> peers) throws IOException {
        StringBuilder why = new StringBuilder();
        for (InetSocketAddress a : peers) {
            try {
                GatewayClient.Opened o = GatewayClient.open(a, job.id, job.verifier,
                        new GatewayFrame.Address(siteId, server.getLocalPort(), -1), job.size, k, settings.site(), true,
                        settings.patience(), keepAlive);
                sockets.add(o.socket());
                Endpoint e = new Endpoint(o.socket(), a.toString());
                e.peerSite = site;
                counters.wanOpened();
                log.accept("railyard gateway: job " + job.id + ": stripe " + k + " to site '" + counters.siteName(site)
                        + "' open to " + a);
                e.job = job;
                // the peer may send frames of its own site on it, or an ERROR before closing it
                Thread.ofPlatform().daemon().name("gateway-wan").start(() -> carry(job, e, o.in(), site, k));
                return e;
            } catch (IOException e) {
                why.append(why.isEmpty() ? "" : "; ").append(a).append(": ").append(e.getMessage());
            }
        }
        throw new IOException(why.toString());
    }

    /** Reads what the peer sends on a stripe this gateway opened, until it closes. */
    private void carry(GatewayJob job, Endpoint e, DataInputStream in, int site, int k) {
        String why = "closed by the peer";
        try {
            forwardLoop(e, job, in, new byte[GatewayFrame.HEADER]);
        } catch (IOException ex) {
            why = ex.getMessage() != null ? ex.getMessage() : ex.toString(); // a close from this side has no message
        }
        e.close();
        job.dropStripe(e);
        sockets.remove(e.socket);
        if (!closed) {
            log.accept("railyard gateway: job " + job.id + ": stripe " + k + " to site '" + counters.siteName(site)
                    + "' closed: " + why);
            siteLost(job, site, why);
        }
    }

    /**
     * A WAN connection of {@code job} to {@code site} ended: frames on it may be lost, so every rank
     * of the job here hears UNREACHABLE for that whole site (process -1), and its links to ranks
     * of that site fail instead of waiting for frames that will not come.
     */
    private void siteLost(GatewayJob job, int site, String why) {
        byte[] text = GatewayFrame.text("the connection to the gateway of site '" + counters.siteName(site)
                + "' was lost: " + why);
        for (Endpoint r : job.ranks()) {
            r.sendQuietly(GatewayFrame.UNREACHABLE, new GatewayFrame.Address(site, 0, -1), r.address, text);
        }
    }

    /**
     * Forwards the frame whose header is in {@code chunk} to {@code r}, cut-through: the header and
     * the first piece of the body in one write, then each piece as it is read. A frame whose body
     * was not whole in that first piece, or that came cut, goes out flagged {@link GatewayFrame#FLAG_CUT}
     * and is followed, under the same hold of the destination, by its END, or by ABORT when the
     * source ended inside the body (the rest is filled with zeros so the destination's framing
     * holds): the destination drops that frame and fails that source's flow only. A destination
     * that fails drops the rest of the frame (the source hears UNREACHABLE).
     */
    private void forward(Endpoint src, DataInputStream in, byte[] chunk, GatewayFrame.Header h, Route r)
            throws IOException {
        int remaining = h.bodyLength();
        Endpoint dst = r.to();
        String lost = r.unreachable();
        boolean cutIn = h.has(GatewayFrame.FLAG_CUT);
        boolean cut = cutIn;
        boolean first = true;
        boolean headerOut = false;
        String torn = null;
        if (dst != null) {
            dst.writing.lock();
        }
        try {
            int have = GatewayFrame.HEADER;
            while (remaining > 0 || have > 0) {
                int want = Math.min(remaining, chunk.length - have);
                int n = want == 0 ? 0 : in.read(chunk, have, want);
                if (n < 0) {
                    torn = "truncated DATA frame: the connection ended with " + remaining + " of " + h.bodyLength()
                            + " body bytes to come";
                    break;
                }
                remaining -= n;
                have += n;
                if (first) {
                    first = false;
                    cut |= remaining > 0;
                    if (cut) {
                        chunk[GatewayFrame.FLAGS_OFFSET] |= GatewayFrame.FLAG_CUT;
                    }
                }
                if (dst != null && lost == null) {
                    try {
                        dst.out.write(chunk, 0, have);
                        dst.lastWrite = System.nanoTime();
                        headerOut = true;
                    } catch (IOException e) {
                        dst.close();
                        lost = "the connection to " + (dst.address != null ? "rank " + dst.address.process()
                                : "the gateway of site '" + counters.siteName(dst.peerSite) + "'") + " broke: "
                                + e.getMessage();
                    }
                }
                have = 0;
            }
            boolean out = dst != null && lost == null && headerOut;
            if (torn != null) {
                if (out) {
                    abort(dst, h, remaining, chunk, "the connection of " + h.source() + " ended inside the frame");
                }
                counters.dropped();
                throw new BadInput(torn);
            }
            if (cut) {
                trailer(src, in, chunk, h, cutIn, out ? dst : null);
            }
        } finally {
            if (dst != null) {
                dst.writing.unlock();
            }
        }
        if (lost == null) {
            counters.forwarded(h.source().site(), h.destination().site(), h.bodyLength());
        } else {
            counters.dropped();
            if (src.address != null) {
                src.sendQuietly(GatewayFrame.UNREACHABLE, h.destination(), src.address, GatewayFrame.text(lost));
            } else {
                log.accept("railyard gateway: dropped a frame from " + h.source() + " to " + h.destination() + ": " + lost);
            }
        }
    }

    /**
     * The END or ABORT after a cut frame, to {@code dst} (null: the frame did not go out, the
     * trailer is only consumed): this gateway's own END when it cut the frame, else the one that
     * follows it from the peer, or an ABORT of its own when the peer's connection ends first.
     */
    private void trailer(Endpoint src, DataInputStream in, byte[] chunk, GatewayFrame.Header h, boolean cutIn,
                         Endpoint dst) throws IOException {
        if (!cutIn) {
            if (dst != null) {
                dst.sendQuietly(GatewayFrame.END, h.source(), h.destination(), new byte[0]);
            }
            return;
        }
        GatewayFrame.Frame end;
        try {
            end = GatewayFrame.readFrame(in, chunk, GatewayFrame.MAX_TEXT);
        } catch (IOException e) {
            if (dst != null) {
                abort(dst, h, 0, chunk, "the gateway of site '" + counters.siteName(src.peerSite)
                        + "' ended before the end of a cut frame");
            }
            throw e instanceof java.net.SocketException ? e : new BadInput(e.getMessage());
        }
        GatewayFrame.Header t = end.header();
        if ((t.type() != GatewayFrame.END && t.type() != GatewayFrame.ABORT) || !t.source().equals(h.source())
                || !t.destination().equals(h.destination())) {
            if (dst != null) {
                abort(dst, h, 0, chunk, "the gateway of site '" + counters.siteName(src.peerSite)
                        + "' did not end a cut frame");
            }
            throw new BadInput("sent " + GatewayFrame.typeName(t.type()) + " from " + t.source() + " to "
                    + t.destination() + " where the END of a cut frame from " + h.source() + " to " + h.destination()
                    + " was due");
        }
        if (dst != null) {
            dst.sendQuietly(t.type(), t.source(), t.destination(), end.body());
        }
    }

    /** Fills the {@code missing} body bytes of a torn frame on {@code dst} with zeros, then sends its ABORT. */
    private void abort(Endpoint dst, GatewayFrame.Header h, int missing, byte[] chunk, String why) {
        try {
            java.util.Arrays.fill(chunk, (byte) 0);
            for (int left = missing; left > 0; ) {
                int n = Math.min(left, chunk.length);
                dst.out.write(chunk, 0, n);
                left -= n;
            }
            dst.sendQuietly(GatewayFrame.ABORT, h.source(), h.destination(), GatewayFrame.text(why));
            log.accept("railyard gateway: aborted a cut frame from " + h.source() + " to " + h.destination() + ": " + why);
        } catch (IOException e) {
            dst.close();
        }
    }

    @Override
    public void close() throws IOException {
        closed = true;
        server.close();
        for (Socket s : sockets) {
            try {
                s.close();
            } catch (IOException ignored) {
                // closing anyway
            }
        }
        if (warmer != null) {
            warmer.interrupt();
        }
        try {
            acceptor.join(2000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
