package org.railyard.transport.gateway;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.IntConsumer;
import org.railyard.bootstrap.AddressCard;
import org.railyard.bootstrap.JobKeys;
import org.railyard.transport.Bell;
import org.railyard.transport.Capability;
import org.railyard.transport.Link;
import org.railyard.transport.HandshakeFree;
import org.railyard.transport.TransportEnv;
import org.railyard.transport.ring.Doorbell;
import org.railyard.util.Config;
import org.railyard.util.KeepAlive;
import org.railyard.wire.GatewayFrame;

/**
 * Peers of another site through this site's gateway (seed 003): an {@link Capability#INDIRECT}
 * transport, required whenever the two sites ({@code railyard.site}) differ, offered only when
 * {@code railyard.gateway} names the gateway(s). Every rank keeps one connection to its gateway
 * ({@link GatewaySession}), opened and proven at start so that frames from other sites find it;
 * each peer's link ({@link GatewayLink}) writes its frames there behind a routing header and reads
 * the frames the session sorted by source.
 *
 * <p>Failover: the session connects to the first gateway of the setting that answers; when its
 * connection breaks, every link through it fails, and a new session opens at once (retried with
 * backoff, bounded by {@code railyard.partition.timeout}) on the first gateway that answers then,
 * the second one when the first stays down, so that frames from other sites find this rank again.
 * When this site or the peer's names a second gateway (the card entry {@value #CARD_KEY} counts
 * them), the links {@link GatewayLink#reroutes reroute}: the channel above keeps acknowledgements
 * and retransmission, links the peer again through the new session and sends again what the dead
 * gateway may have lost, and the peer drops duplicates by PSN. Otherwise the channels through the
 * broken session fail (PEER_FAILED naming the site's gateway).
 */
public final class GatewayTransport implements HandshakeFree {
    /** The first pause between two attempts to reopen a broken gateway session; it doubles. */
    static final long REOPEN_FIRST_PAUSE_NANOS = 100_000_000L;
    /** The longest pause between two attempts to reopen a broken gateway session. */
    static final long REOPEN_MAX_PAUSE_NANOS = 2_000_000_000L;

    private static final Set<Capability> CAPABILITIES = Capability.fixed(Capability.RELIABLE, Capability.ORDERED,
            Capability.REMOTE, Capability.DETECTS_FAILURE, Capability.INDIRECT);
    /** Smallest frame limit. */
    private static final int MIN_FRAME = 4096;
    /** Address card entry: how many gateways this rank's site has (a second one lets links reroute). */
    static final String CARD_KEY = "gateways";

    private List<InetSocketAddress> gateways = List.of();
    private TransportEnv env;
    /** The process's doorbell: each session adds a word, which its I/O thread rings after each frame it leaves in an inbox. */
    private Doorbell doorbell;
    private String site;
    private int maxFrame;
    private Duration timeout;
    private KeepAlive keepAlive;
    private byte[] verifier;
    private volatile IntConsumer arrivals = p -> { };
    private GatewaySession session;
    private volatile boolean closed;
    private Thread reopening;

    @Override public String name() { return "gateway"; }
    @Override public int priority() { return 30; }
    @Override public int maxFrame() { return maxFrame; }
    @Override public Set<Capability> capabilities() { return CAPABILITIES; }
    @Override public Bell bell() { return doorbell == null ? Bell.NONE : doorbell; }

    /** The gateways a setting names; empty for an empty setting or {@code off}. */
    public static List<InetSocketAddress> parse(String setting) {
        String v = setting.trim();
        if (v.isEmpty() || v.equals("off")) {
            return List.of();
        }
        List<InetSocketAddress> out = new ArrayList<>();
        for (String part : v.split(",")) {
            int colon = part.lastIndexOf(':');
            int port;
            try {
                port = colon > 0 ? Integer.parseInt(part.substring(colon + 1).trim()) : -1;
            } catch (NumberFormatException e) {
                port = -1;
            }
            if (port < 1 || port > 65535) {
                throw new IllegalArgumentException("setting " + Config.GATEWAY_PROP + " = '" + setting
                        + "': each gateway is HOST:PORT, not '" + part + "' (or 'off')");
            }
            out.add(InetSocketAddress.createUnresolved(part.substring(0, colon).trim(), port));
        }
        return List.copyOf(out);
    }

    @Override
    public boolean start(TransportEnv env) throws IOException {
        gateways = parse(Config.string(Config.GATEWAY_PROP, Config.GATEWAY_DEFAULT));
        if (gateways.isEmpty()) {
            return false;
        }
        this.env = env;
        this.doorbell = Doorbell.of(env);
        site = Config.string(Config.SITE_PROP, Config.SITE_DEFAULT);
        maxFrame = (int) Config.bytes(Config.TCP_FRAME_PROP, Config.TCP_FRAME_DEFAULT);
        if (maxFrame < MIN_FRAME) {
            throw new IllegalArgumentException("setting " + Config.TCP_FRAME_PROP + " = " + maxFrame + " is below " + MIN_FRAME);
        }
        timeout = Config.duration(Config.CONNECT_TIMEOUT_PROP, Config.CONNECT_TIMEOUT_DEFAULT);
        keepAlive = KeepAlive.configured();
        byte[] secret = env.secret();
        if (secret.length == 0) {
            throw new IOException("setting " + Config.GATEWAY_PROP + " names a gateway, but this process has no job secret"
                    + " to prove to it (start the job with railyard run, or under a launcher that sets one)");
        }
        verifier = JobKeys.gatewayVerifier(env.jobId(), secret);
        session();
        return true;
    }

    /** The open session, or a new one on the first gateway that answers. */
    private synchronized GatewaySession session() throws IOException {
        if (session != null && session.isOpen()) {
            return session;
        }
        GatewayFrame.Address self = new GatewayFrame.Address(GatewayFrame.siteId(site), GatewayFrame.nodeId(env.node()),
                env.rank());
        StringBuilder why = new StringBuilder();
        for (InetSocketAddress g : gateways) {
            InetSocketAddress resolved = new InetSocketAddress(g.getHostString(), g.getPort());
            try {
                GatewayClient.Opened o = GatewayClient.open(resolved, env.jobId(), verifier, self, env.size(), 0, site,
                        false, timeout, keepAlive);
                session = new GatewaySession(this, o, self, GatewayFrame.jobId(env.jobId()), site,
                        g.getHostString() + ":" + g.getPort(), env.size(), maxFrame, p -> arrivals.accept(p), this::reopen,
                        doorbell);
                return session;
            } catch (IOException e) {
                why.append(why.isEmpty() ? "" : "; ").append(g.getHostString()).append(':').append(g.getPort())
                        .append(": ").append(e.getMessage());
            }
        }
        throw new IOException("no gateway of site '" + site + "' (setting " + Config.GATEWAY_PROP + ") answered: " + why);
    }

    /**
     * The session broke: open a new one in the background, so that ranks of other sites reach this
     * one again; tries with backoff ({@link #REOPEN_FIRST_PAUSE_NANOS} doubling to
     * {@link #REOPEN_MAX_PAUSE_NANOS}) for up to railyard.partition.timeout.
     */
    private synchronized void reopen() {
        if (closed || (reopening != null && reopening.isAlive())) {
            return;
        }
        Duration bound = Config.duration(Config.PARTITION_TIMEOUT_PROP, Config.PARTITION_TIMEOUT_DEFAULT);
        reopening = Thread.ofVirtual().name("railyard-gateway-reopen-" + env.rank()).start(() -> {
            long deadline = System.nanoTime() + bound.toNanos();
            long pause = REOPEN_FIRST_PAUSE_NANOS;
            while (!closed && System.nanoTime() - deadline < 0) {
                try {
                    session();
                    return;
                } catch (IOException e) {
                    java.util.concurrent.locks.LockSupport.parkNanos(pause);
                    pause = Math.min(REOPEN_MAX_PAUSE_NANOS, 2 * pause);
                }
            }
        });
    }

    @Override
    public Map<String, String> cardEntries() {
        return Map.of(CARD_KEY, Integer.toString(gateways.size()));
    }

    @Override
    public boolean required(AddressCard self, AddressCard peer) {
        return !self.site().equals(peer.site());
    }

    @Override
    public boolean reaches(AddressCard self, AddressCard peer) {
        return self.rank() != peer.rank() && !self.site().equals(peer.site());
    }

    @Override
    public Link join(int peer, AddressCard self, AddressCard peerCard) throws IOException {
        GatewayFrame.Address to = new GatewayFrame.Address(GatewayFrame.siteId(peerCard.site()),
                GatewayFrame.nodeId(peerCard.node()), peer);
        boolean reroutes = gateways.size() > 1 || secondGateway(peerCard);
        return session().link(peer, to, peerCard.site(), reroutes);
    }

    private static boolean secondGateway(AddressCard card) {
        try {
            return Integer.parseInt(card.entries().getOrDefault(CARD_KEY, "1")) > 1;
        } catch (NumberFormatException e) {
            return false;
        }
    }

    @Override
    public void arrivals(IntConsumer peerArrived) {
        arrivals = peerArrived;
    }

    @Override
    public synchronized void close() {
        closed = true;
        if (session != null) {
            session.close();
        }
    }
}
