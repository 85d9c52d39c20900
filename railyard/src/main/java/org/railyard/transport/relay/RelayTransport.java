package org.railyard.transport.relay;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.function.IntConsumer;
import org.railyard.bootstrap.AddressCard;
import org.railyard.transport.Capability;
import org.railyard.transport.Link;
import org.railyard.transport.ReplayLog;
import org.railyard.transport.HandshakeFree;
import org.railyard.transport.TransportEnv;
import org.railyard.transport.ring.Doorbell;
import org.railyard.util.Config;
import org.railyard.wire.CheckpointImage;

/**
 * The relay transport (seed 001, MPICH-CM): a rank reaches a peer through relay servers instead of
 * a connection of its own. Every rank has one owner relay ({@code railyard.relays}, the owner of
 * rank r being entry r mod count), which stores the messages sent to it; the rank publishes it in
 * its address card ({@code x.relay:HOST:PORT}), so the cards are the job's rank-to-relay map.
 *
 * <p>Used ({@link Capability#INDIRECT}, lowest priority) for a peer that accepts no connection or
 * whose direct connect failed, for a pair of which one side listens for none, and for every peer
 * under {@code railyard.transports=relay}. Started only when {@code railyard.relays} names at least
 * one relay. A relay is a rail: the channel above is the one every link has.
 */
public final class RelayTransport implements HandshakeFree, ReplayLog {
    /** Address-card key of a rank's owner relay. */
    public static final String CARD_KEY = "relay";

    private static final Set<Capability> CAPS = Capability.fixed(Capability.RELIABLE, Capability.ORDERED,
            Capability.REMOTE, Capability.INDIRECT);

    /** How long closing waits for the last frames to be STORED and the last acknowledgements written. */
    private static final Duration DRAIN = Duration.ofSeconds(2);

    private TransportEnv env;
    private byte[] secret;
    private int maxFrame;
    private long window;
    /** Send and receive buffer asked for on every relay socket, bytes (0: the kernel's defaults). */
    private int sockbuf;
    private Duration timeout;
    private Duration absence;
    private InetSocketAddress owner;
    private volatile RelayPort receiving;
    private final Map<InetSocketAddress, RelayPort> sending = new ConcurrentHashMap<>();
    private RelayLink.Inbox[] inboxes;
    private long[] nextSequence;
    /** Told of a peer whose first frame arrived while it has no link; null until the connector sets it. */
    private IntConsumer arrivals;
    /** Peers whose first frame arrived before {@link #arrivals} was set (a relay replaying at once to a rank started again). */
    private final BitSet earlyArrivals = new BitSet();
    private Doorbell doorbell;
    private final RelayInputBell inputBell = new RelayInputBell(this);
    private volatile boolean closed;
    private Thread watcher;
    /**
     * Replay mode ({@code railyard.restarts} above 0): frames are acknowledged to no relay (the
     * owner relay keeps them all, for a restarted rank's replay), and {@link #turns} fixes the order
     * in which the links hand them to the channel.
     */
    private boolean replay;
    /**
     * Replay mode: the source of every frame queued in an inbox, in the order this rank's owner
     * relay delivered them. A link hands a frame only when its peer is at the head, so the engine
     * sees the frames of all peers in the relay's order, which the relay keeps across a restart of
     * this rank: a wildcard receive matches again what it matched the first time. The owner
     * relay's reader appends, the progress agent takes.
     */
    private final ConcurrentLinkedQueue<Integer> turns = new ConcurrentLinkedQueue<>();

    @Override public String name() { return "relay"; }
    @Override public int priority() { return 10; }
    @Override public int maxFrame() { return maxFrame; }
    @Override public Set<Capability> capabilities() { return CAPS; }

    /** The relays named by {@code railyard.relays}, in order; empty if none. */
    public static List<InetSocketAddress> relays(String setting) {
        List<InetSocketAddress> out = new ArrayList<>();
        for (String part : setting.split(",")) {
            String p = part.trim();
            if (p.isEmpty()) {
                continue;
            }
            out.add(hostPort(p, "setting " + Config.RELAYS_PROP));
        }
        return out;
    }

    /** Largest socket buffer {@code railyard.relay.sockbuf} may ask for. */
    static final long SOCKBUF_MAX = 1L << 30;

    /** The setting {@code railyard.relay.sockbuf} checked: 0 (the kernel's defaults) up to {@link #SOCKBUF_MAX}. */
    static int sockbuf(long bytes) {
        if (bytes < 0 || bytes > SOCKBUF_MAX) {
            throw new IllegalArgumentException("setting " + Config.RELAY_SOCKBUF_PROP + " = " + bytes
                    + " is outside 0 (the kernel's defaults) .. " + SOCKBUF_MAX + " bytes");
        }
        return (int) bytes;
    }

    /** The first size of the receiving connection's input buffer: a few of the largest frames. */
    int receiveBuffer() {
        return 4 * (maxFrame + org.railyard.wire.RelayFrame.HEADER);
    }

    /** HOST:PORT, or an IllegalArgumentException naming {@code what} and the text. */
    static InetSocketAddress hostPort(String text, String what) {
        int colon = text.lastIndexOf(':');
        try {
            int port = Integer.parseInt(text.substring(colon + 1));
            if (colon <= 0 || port < 1 || port > 65535) {
                throw new NumberFormatException();
            }
            return InetSocketAddress.createUnresolved(text.substring(0, colon), port);
        } catch (RuntimeException e) {
            throw new IllegalArgumentException(what + ": '" + text + "' is not HOST:PORT (port 1..65535)");
        }
    }

    @Override
    public boolean start(TransportEnv env) throws IOException {
        List<InetSocketAddress> relays = relays(Config.string(Config.RELAYS_PROP, Config.RELAYS_DEFAULT));
        if (relays.isEmpty()) {
            return false;
        }
        this.env = env;
        this.secret = env.secret();
        this.maxFrame = (int) Config.bytes(Config.RELAY_FRAME_PROP, Config.RELAY_FRAME_DEFAULT);
        if (maxFrame < 4096) {
            throw new IllegalArgumentException("setting " + Config.RELAY_FRAME_PROP + " = " + maxFrame + " is below 4096");
        }
        this.window = Config.bytes(Config.RELAY_WINDOW_PROP, Config.RELAY_WINDOW_DEFAULT);
        this.sockbuf = sockbuf(Config.bytes(Config.RELAY_SOCKBUF_PROP, Config.RELAY_SOCKBUF_DEFAULT));
        this.timeout = Config.duration(Config.CONNECT_TIMEOUT_PROP, Config.CONNECT_TIMEOUT_DEFAULT);
        this.absence = Config.duration(Config.RELAY_ABSENCE_PROP, Config.RELAY_ABSENCE_DEFAULT);
        long restarts = Config.number(Config.RESTARTS_PROP, Config.RESTARTS_DEFAULT);
        if (restarts < 0) {
            throw new IllegalArgumentException("setting " + Config.RESTARTS_PROP + " = " + restarts + " is negative");
        }
        this.replay = restarts > 0;
        this.inboxes = new RelayLink.Inbox[env.size()];
        for (int i = 0; i < inboxes.length; i++) {
            inboxes[i] = new RelayLink.Inbox();
        }
        this.nextSequence = new long[env.size()];
        resume(env);
        this.doorbell = Doorbell.of(env);
        this.owner = relays.get(env.rank() % relays.size());
        this.watcher = Thread.ofVirtual().name("railyard-relay-presence-" + env.rank()).start(this::watch);
        try {
            this.receiving = new RelayPort(this, owner, true, handler);
        } catch (IOException e) {
            throw new IOException("cannot reach this rank's owner relay " + text(owner) + " (" + Config.RELAYS_PROP
                    + "): " + e.getMessage(), e);
        }
        return true;
    }

    /**
     * A rank started again that has a checkpoint resumes from it: the frames of each peer up to the
     * recorded position are dropped if the owner relay still has them, and its own frames are
     * numbered on from the recorded sequence (before the receiving connection opens, so that no
     * frame is queued against the old positions).
     */
    private void resume(TransportEnv env) throws IOException {
        String dir = Config.string(Config.CHECKPOINT_DIR_PROP, Config.CHECKPOINT_DIR_DEFAULT);
        if (!replay || dir.isEmpty() || Config.number(Config.INCARNATION_PROP, Config.INCARNATION_DEFAULT) == 0) {
            return;
        }
        CheckpointImage img = CheckpointImage.read(Path.of(dir), env.rank(), env.size());
        if (img == null) {
            return;
        }
        for (int p = 0; p < inboxes.length; p++) {
            inboxes[p].lastQueued = img.consumed[p];
            inboxes[p].lastHanded = img.consumed[p];
            nextSequence[p] = img.sent[p];
        }
    }

    @Override
    public long[] consumed() {
        long[] c = new long[inboxes.length];
        for (int p = 0; p < c.length; p++) {
            c[p] = inboxes[p].lastHanded;
        }
        return c;
    }

    @Override
    public long[] sent() {
        return nextSequence.clone();
    }

    @Override
    public void awaitStored(Duration bound) throws IOException {
        long deadline = System.nanoTime() + bound.toNanos();
        List<RelayPort> ports;
        synchronized (sending) {
            ports = new ArrayList<>(sending.values());
        }
        for (RelayPort p : ports) {
            while (p.held() > 0) {
                if (p.failure() != null) {
                    throw new IOException(p.failure());
                }
                if (System.nanoTime() - deadline > 0) {
                    throw new IOException("relay " + text(p.relay()) + " did not store " + p.held() + " bytes within "
                            + bound.toSeconds() + " s (" + Config.RELAY_ABSENCE_PROP + ")");
                }
                p.awaitStored(Duration.ofMillis(50));
            }
        }
    }

    /** Acknowledges the checkpoint's positions to the owner relay, which frees what they cover. */
    @Override
    public void release(long[] consumed) {
        for (int p = 0; p < consumed.length; p++) {
            if (consumed[p] > 0) {
                receiving.ack(p, consumed[p]);
            }
        }
    }

    private static String text(InetSocketAddress a) {
        return a.getHostString() + ":" + a.getPort();
    }

    int size() {
        return env.size();
    }

    Duration absence() {
        return absence;
    }

    /** A new connection to {@code relay}, the job proven; bounded by the connect timeout. */
    RelayClient connect(InetSocketAddress relay, boolean receive) throws IOException {
        InetSocketAddress resolved = relay.isUnresolved() ? new InetSocketAddress(relay.getHostString(), relay.getPort()) : relay;
        return RelayClient.connect(resolved, env.jobId(), secret, env.rank(), env.size(), receive, timeout, sockbuf, true);
    }

    /** True in replay mode: links acknowledge nothing and take their turn in {@link #turns}. */
    boolean replay() {
        return replay;
    }

    /** Replay mode: true if the next frame to hand over, in the owner relay's order, is from {@code peer}. */
    boolean turnOf(int peer) {
        Integer head = turns.peek();
        return head != null && head == peer;
    }

    /** Replay mode: the frame at the head of {@link #turns} was handed over (progress agent). */
    void turnTaken() {
        turns.poll();
    }

    /** The next STORE sequence number to {@code peer} (progress agent). */
    long nextSequence(int peer) {
        return ++nextSequence[peer];
    }

    /**
     * Asks, a few times per absence bound, the owner relay of every linked peer whether the peer
     * is there; a peer away longer than {@code railyard.relay.absence} fails its link (see
     * {@link RelayPort.Handler#presence}), and the ranks waiting on it get PEER_FAILED.
     */
    private void watch() {
        long period = Math.clamp(absence.toMillis() / 4, 20, 5_000);
        while (!closed) {
            try {
                Thread.sleep(period); // the period of a liveness check, not a wait for a condition
            } catch (InterruptedException e) {
                return;
            }
            for (int p = 0; p < inboxes.length; p++) {
                RelayLink l = inboxes[p].link;
                if (l != null && l.isOpen()) {
                    l.port().askPresence(p);
                }
            }
        }
    }

    @Override
    public Map<String, String> cardEntries() {
        return owner == null ? Map.of() : Map.of(CARD_KEY, text(owner));
    }

    @Override
    public boolean reaches(AddressCard self, AddressCard peer) {
        return self.rank() != peer.rank() && peer.entries().containsKey(CARD_KEY);
    }

    /** Symmetric: a pair of which either side accepts no connection goes through the relays. */
    @Override
    public boolean required(AddressCard self, AddressCard peer) {
        return self.handshake().isEmpty() || peer.handshake().isEmpty();
    }

    @Override
    public synchronized void arrivals(IntConsumer peerArrived) {
        this.arrivals = peerArrived;
        for (int p = earlyArrivals.nextSetBit(0); p >= 0; p = earlyArrivals.nextSetBit(p + 1)) {
            peerArrived.accept(p);
        }
        earlyArrivals.clear();
    }

    /** Tells the connector that {@code peer}'s first frame arrived, now or once it listens. */
    private synchronized void announce(int peer) {
        if (arrivals == null) {
            earlyArrivals.set(peer);
        } else {
            arrivals.accept(peer);
        }
    }

    @Override
    public Link join(int peer, AddressCard self, AddressCard peerCard) throws IOException {
        String at = peerCard.entries().get(CARD_KEY);
        if (at == null) {
            throw new IOException("the address card of rank " + peer + " names no relay");
        }
        InetSocketAddress relay;
        try {
            relay = hostPort(at, "owner relay of rank " + peer);
        } catch (IllegalArgumentException e) {
            throw new IOException(e.getMessage());
        }
        if (receiving.failure() != null) {
            throw new IOException(receiving.failure());
        }
        RelayPort out = sendingPort(relay);
        if (out.failure() != null) {
            throw new IOException(out.failure());
        }
        RelayLink.Inbox inbox = inboxes[peer];
        RelayLink link = new RelayLink(this, peer, maxFrame, out, receiving, inbox, window);
        inbox.link = link;
        return link;
    }

    private RelayPort sendingPort(InetSocketAddress relay) throws IOException {
        synchronized (sending) {
            RelayPort p = sending.get(relay);
            if (p == null || p.failure() != null) {
                if (closed) {
                    throw new IOException("relay transport closed");
                }
                p = new RelayPort(this, relay, false, handler);
                sending.put(relay, p);
            }
            return p;
        }
    }

    /** A link closed: frames from its peer wait in the inbox for the next one. */
    void unlinked(int peer, RelayLink link) {
        RelayLink.Inbox inbox = inboxes[peer];
        if (inbox.link == link) {
            inbox.link = null;
            inbox.announced = false;
        }
    }

    private final RelayPort.Handler handler = new RelayPort.Handler() {
        @Override
        public void delivered(int source, long sequence, byte[] frame) {
            if (source < 0 || source >= inboxes.length) {
                return; // the relay checked it against the job's size; nothing to do with it here
            }
            RelayLink.Inbox in = inboxes[source];
            if (sequence <= in.lastQueued) {
                return; // delivered again after a reconnection or a relay restart: already taken
            }
            in.lastQueued = sequence;
            in.frames.add(new RelayLink.Inbox.Frame(sequence, frame));
            if (replay) {
                turns.add(source); // after the frame: a link that sees its turn finds the frame queued
            }
            if (in.link == null && !in.announced) {
                in.announced = true;
                // the reading thread may be a waiter holding the progress lock: the connector hears of it elsewhere
                Thread.ofVirtual().name("railyard-relay-arrival-" + source).start(() -> announce(source));
            }
            wakeSleepers();
        }

        @Override
        public void stored() {
            wakeSleepers();
        }

        @Override
        public void presence(RelayPort port, int rank, long absentMillis) {
            if (rank < 0 || rank >= inboxes.length || absentMillis <= absence.toMillis()) {
                return;
            }
            RelayLink l = inboxes[rank].link;
            if (l != null && l.sendsThrough(port)) {
                l.fail("rank " + rank + " has been away from its relay " + text(port.relay()) + " for "
                        + absentMillis / 1000 + " s, more than " + Config.RELAY_ABSENCE_PROP + " (" + absence.toSeconds() + " s)");
                wakeSleepers();
            }
        }

        @Override
        public void failed(RelayPort port, String why) {
            for (RelayLink.Inbox in : inboxes) {
                RelayLink l = in.link;
                if (l != null && (port == receiving || l.sendsThrough(port))) {
                    l.fail(why);
                }
            }
            wakeSleepers();
        }

        @Override
        public void say(String line) {
            System.getLogger("org.railyard.transport").log(System.Logger.Level.INFO, "rank " + env.rank() + ": " + line);
        }
    };

    /** Wakes this process's threads that sleep on the doorbell or on the receiving connection. */
    private void wakeSleepers() {
        doorbell.wakeSleepers();
        inputBell.wakeSleepers();
    }

    @Override
    public org.railyard.transport.Bell inputBell() {
        return inputBell;
    }

    /** The port of this rank's owner relay, null before the transport started. */
    RelayPort receivingPort() {
        return receiving;
    }

    /** True while a link was refused room by a sending port and its STOREDs have not freed it yet. */
    boolean backPressured() {
        return pressedPort() != null;
    }

    /** A port that refused a link room and whose STOREDs have not freed it yet; null if none. */
    RelayPort pressedPort() {
        for (RelayPort p : sending.values()) {
            if (p.pressed) {
                return p;
            }
        }
        RelayPort r = receiving;
        return r != null && r.pressed ? r : null;
    }

    @Override
    public void close() {
        closed = true;
        if (watcher != null) {
            watcher.interrupt();
        }
        List<RelayPort> ports;
        synchronized (sending) {
            ports = new ArrayList<>(sending.values());
            sending.clear();
        }
        for (RelayPort p : ports) {
            p.close(DRAIN);
        }
        if (receiving != null) {
            receiving.close(DRAIN);
        }
    }
}
