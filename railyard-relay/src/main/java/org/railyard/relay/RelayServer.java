package org.railyard.relay;

import java.io.EOFException;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketException;
import java.nio.ByteBuffer;
import java.nio.channels.ClosedChannelException;
import java.nio.channels.ServerSocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.railyard.bootstrap.JobKeys;
import org.railyard.util.AcceptLoop;
import org.railyard.util.KeepAlive;
import org.railyard.wire.RelayFrame;

/**
 * A relay server (a Channel Memory server, seed 001, section 4): accepts connections from the ranks
 * of any number of jobs, checks that each proves its job (see {@link RelayFrame} for the
 * conversation), stores the messages they send in the destination's {@link Mailbox}, delivers each
 * destination's messages on its receiver connection in arrival order, and forgets them once the
 * destination acknowledges them.
 *
 * <p>Threads: one accepting; per connection a platform thread reading it (blocking reads: the
 * kernel wakes it directly, with no poller in between), and on a receiver connection a second one
 * delivering. The reader of a sender forwards the message it just stored itself, on the
 * destination's receiver connection, when it is short, nothing is queued before it and nobody
 * else is writing there ({@link RelayStore#forward}). A long message in the same case is passed
 * on as it is read (cut-through, {@link RelayStore#beginPassage}): the DELIVER's header goes out
 * as soon as the STORE's header is in, then each piece of the body as it arrives, and the message
 * is logged and filed once whole (other messages for that destination wait for it, so that the
 * order of delivery, of the mailbox and of the log stay one). The deliverer delivers the rest (a
 * backlog, a long message whose receiver was busy, a replay after a reconnection). A sender's STOREDs are written once their records are durable, together, just
 * before its reader would wait for input (or after {@value #ACK_BATCH} of them), so a stream of
 * messages is acknowledged in few writes and one log force. A connection that sends anything
 * foreign, malformed or against the rules gets an ERROR naming the fault and is closed; the relay
 * and every other connection go on. A sender is held back (not read) while the store is full.
 *
 * <p>Bounds on a peer: its handshake, and a frame it began, must be finished within the handshake
 * timeout, and a frame the relay writes to it must be taken within the same bound (a rank frozen
 * with its connection open takes nothing): a watcher thread, looking every quarter of the bound (at
 * most each second), closes a connection whose read or write waited longer, so that the thread
 * writing to it (a sender's reader forwarding, a deliverer) goes on and the reading thread ends.
 * Reads carry no timeout of their own (see {@link RelayConnection}). A rank closed that way that is
 * alive connects again and is delivered everything it has not acknowledged.
 */
public final class RelayServer implements AutoCloseable {
    /** Settings of one relay. */
    /**
     * Settings of one relay.
     *
     * @param sockbuf send and receive buffer asked for on every connection's socket, bytes (0: the
     *                kernel's defaults and autotuning)
     */
    public record Settings(InetSocketAddress bind, Path logDir, RelayLog.Fsync fsync, long maxBytes, int maxMessage,
                           Duration handshakeTimeout, long compactMin, int sockbuf) {
        /** The default of {@link #sockbuf}: the tcp transport's. */
        public static final int SOCKBUF_DEFAULT = (int) org.railyard.util.Config.TCP_SOCKBUF_DEFAULT;
        /** Largest {@link #sockbuf}. */
        public static final long SOCKBUF_MAX = 1L << 30;

        public Settings {
            if (maxBytes < 1) {
                throw new IllegalArgumentException("--max-bytes must be at least 1, not " + maxBytes);
            }
            if (sockbuf < 0) {
                throw new IllegalArgumentException("--sockbuf must be 0 (the kernel's defaults) or more, not " + sockbuf);
            }
        }

        /** Settings with the default socket buffers. */
        public Settings(InetSocketAddress bind, Path logDir, RelayLog.Fsync fsync, long maxBytes, int maxMessage,
                        Duration handshakeTimeout, long compactMin) {
            this(bind, logDir, fsync, maxBytes, maxMessage, handshakeTimeout, compactMin, SOCKBUF_DEFAULT);
        }

        /** A relay that keeps messages in memory only (no log), as the launcher's embedded relays do. */
        public static Settings memoryOnly(InetSocketAddress bind, long maxBytes, int maxMessage) {
            return new Settings(bind, null, RelayLog.Fsync.NEVER, maxBytes, maxMessage, Duration.ofSeconds(10), 64L << 20);
        }
    }

    private static final SecureRandom RANDOM = new SecureRandom();
    /** Most STOREDs a reader holds before writing them. */
    static final int ACK_BATCH = 256;
    /** Most messages, and past the first most bytes, a deliverer writes before one flush. */
    private static final int DELIVER_BATCH = 64;
    private static final long DELIVER_BATCH_BYTES = 1 << 20;
    /**
     * Longest message a reader reads whole before it forwards it; a longer one is passed on piece by
     * piece as it is read when its receiver is free, else it goes to the deliverer.
     */
    private static final int FORWARD_MAX = 64 << 10;
    /** Most bytes of a passing message read (and written on) at a time. */
    private static final int PASS_CHUNK = 128 << 10;

    private final Settings settings;
    private final RelayCounters counters = new RelayCounters();
    private final RelayStore store;
    private final ServerSocket server;
    private final Consumer<String> say;
    private final Set<Socket> open = ConcurrentHashMap.newKeySet();
    /** Connections past their first frame's start, for the watcher. */
    private final Set<RelayConnection> live = ConcurrentHashMap.newKeySet();
    private final Thread acceptor;
    /**
     * The keepalive probes of every accepted connection ({@code railyard.tcp.keepalive} of this
     * process; null: none): a rank that vanishes without closing (its host gone, its network cut)
     * ends its connection about that long after its last traffic, and its absence starts then.
     */
    private final KeepAlive keepAlive;
    private final Thread watcher;
    private volatile boolean closing;

    /**
     * Opens the log (recovering what it holds) and starts listening.
     *
     * @param say where the one-line notices go (a job or rank connecting, a refusal, the store full)
     */
    public static RelayServer start(Settings settings, Consumer<String> say) throws IOException {
        return new RelayServer(settings, say);
    }

    private RelayServer(Settings settings, Consumer<String> say) throws IOException {
        this.settings = settings;
        this.say = say;
        this.keepAlive = KeepAlive.configured(); // a bad setting fails the start, naming it
        RelayLog log = settings.logDir() == null ? null : new RelayLog(settings.logDir(), settings.fsync(), settings.compactMin());
        this.store = new RelayStore(settings.maxBytes(), log, counters, say);
        try {
            store.recover();
            server = ServerSocketChannel.open().socket(); // its sockets have channels: see RelayConnection
            server.setReuseAddress(true);
            if (settings.sockbuf() > 0) {
                server.setReceiveBufferSize(settings.sockbuf()); // accepted sockets inherit it (window scale at SYN)
            }
            server.bind(settings.bind());
        } catch (IOException | RuntimeException e) {
            store.close();
            throw e;
        }
        acceptor = Thread.ofPlatform().name("relay-accept").daemon().start(this::acceptLoop);
        watcher = Thread.ofPlatform().name("relay-watch").daemon().start(this::watchWrites);
    }

    /**
     * Closes every connection a write to which has waited longer than the handshake timeout, or
     * whose peer has left a frame or its handshake unfinished that long (see the class).
     */
    private void watchWrites() {
        long bound = settings.handshakeTimeout().toNanos();
        long period = Math.clamp(settings.handshakeTimeout().toMillis() / 4, 10, 1_000);
        while (!closing) {
            try {
                Thread.sleep(period); // the period of a liveness check, not a wait for a condition
            } catch (InterruptedException e) {
                return;
            }
            long now = System.nanoTime();
            for (RelayConnection c : live) {
                long reading = c.readSince;
                if (reading != 0 && now - reading > bound && !c.socket.isClosed()) {
                    c.stalled = true; // its reader, woken by the close, ends quietly
                    (c.proven ? counters.malformed : counters.refused).incrementAndGet();
                    say.accept("relay: closed " + c.who + ": " + (c.proven ? "stalled in the middle of a frame" : "no complete handshake")
                            + " for " + settings.handshakeTimeout().toMillis() + " ms");
                    closeQuietly(c.socket);
                    continue;
                }
                long since = c.writeSince;
                if (since != 0 && now - since > bound && !c.socket.isClosed()) {
                    counters.malformed.incrementAndGet();
                    say.accept("relay: closed " + c.who + ": a frame written to it was not taken within "
                            + settings.handshakeTimeout().toMillis() + " ms");
                    closeQuietly(c.socket);
                }
            }
        }
    }

    /** Where the relay listens (the port chosen when asked for port 0). */
    public InetSocketAddress address() {
        return (InetSocketAddress) server.getLocalSocketAddress();
    }

    /** The counters and the store's contents as {@code name value} lines. */
    public String stats() {
        return store.stats();
    }

    private void acceptLoop() {
        AcceptLoop.run(server, () -> closing, e -> say.accept("relay: accepting failed: " + e), s -> {
            counters.connections.incrementAndGet();
            open.add(s);
            Thread.ofPlatform().daemon().name("relay-conn").start(() -> serve(s));
        });
    }

    /** One connection, from its first frame to its close. */
    private void serve(Socket s) {
        RelayConnection c = null;
        String who = String.valueOf(s.getRemoteSocketAddress());
        try {
            s.setTcpNoDelay(true);
            if (settings.sockbuf() > 0) {
                s.setSendBufferSize(settings.sockbuf());
                s.setReceiveBufferSize(settings.sockbuf());
            }
            KeepAlive.apply(s, keepAlive);
            c = new RelayConnection(s, who, settings, store);
            live.add(c);
            RelayFrame.Header h = c.readHeader();
            if (h.type() == RelayFrame.STATS_REQUEST) {
                byte[] text = store.stats().getBytes(StandardCharsets.UTF_8);
                c.send(RelayFrame.STATS, (byte) 0, -1, -1, 0, text);
                return;
            }
            if (h.type() != RelayFrame.HELLO) {
                throw new Refusal("the first frame must be HELLO or STATS_REQUEST, not " + RelayFrame.typeName(h.type()));
            }
            RelayFrame.Hello hello = RelayFrame.hello(h, c.body(h));
            who = "job " + hello.jobId() + " rank " + hello.rank() + " (" + who + ")";
            c.who = who;
            RelayStore.Job job = prove(c, hello);
            c.proven = true;
            counters.connected.incrementAndGet();
            try {
                say.accept(who + " connected" + (hello.receive() ? ", receiving here" : ""));
                long generation = 0;
                if (hello.receive()) {
                    generation = store.attach(job, hello.rank(), c);
                    RelayConnection conn = c;
                    long g = generation;
                    Thread.ofPlatform().daemon().name("relay-deliver").start(() -> deliver(conn, job, hello.rank(), g));
                }
                try {
                    readLoop(c, job, hello.rank());
                } finally {
                    if (hello.receive()) {
                        store.detach(job, hello.rank(), generation);
                    }
                }
            } finally {
                counters.connected.decrementAndGet();
            }
        } catch (Refusal e) {
            counters.refused.incrementAndGet();
            say.accept("relay: refused " + who + ": " + e.getMessage());
            if (c != null) {
                c.error(e.getMessage());
            }
        } catch (EOFException e) {
            if (!closing && e.getMessage() != null && (c == null || !c.stalled)) {
                counters.malformed.incrementAndGet();
                say.accept("relay: closed " + who + ": " + e.getMessage());
            }
        } catch (SocketException | ClosedChannelException e) { // the peer's end, or closed by another thread here
            if (!closing && (c == null || !c.stalled)) { // a stalled one: the watcher said why
                say.accept("relay: connection of " + who + " ended: "
                        + (e.getMessage() != null ? e.getMessage() : "closed"));
            }
        } catch (IOException | RelayStore.SequenceGap e) {
            if (!closing && (c == null || !c.stalled)) {
                counters.malformed.incrementAndGet();
                say.accept("relay: closed " + who + ": " + e.getMessage());
                if (c != null) {
                    c.error(e.getMessage());
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } finally {
            if (c != null) {
                live.remove(c);
            }
            closeQuietly(s);
        }
    }

    /** The job the connection proves, registering it if new; throws {@link Refusal} otherwise. */
    private RelayStore.Job prove(RelayConnection c, RelayFrame.Hello hello) throws IOException {
        RelayStore.Job job = store.job(hello.jobId());
        byte[] nonceR = new byte[RelayFrame.NONCE_BYTES];
        RANDOM.nextBytes(nonceR);
        byte[] mine = job == null ? new byte[RelayFrame.MAC_BYTES]
                : JobKeys.relayProof(job.verifier, "R", hello.rank(), hello.nonce(), nonceR);
        c.send(RelayFrame.CHALLENGE, job == null ? RelayFrame.FLAG_NEW_JOB : 0, -1, hello.rank(), 0,
                RelayFrame.challengeBody(nonceR, mine));
        RelayFrame.Header h = c.readHeader();
        if (h.type() != RelayFrame.PROOF) {
            throw new Refusal("PROOF expected after CHALLENGE, got " + RelayFrame.typeName(h.type()));
        }
        byte[] body = c.body(h);
        if (h.has(RelayFrame.FLAG_NEW_JOB) != (job == null)) {
            throw new Refusal("the PROOF " + (job == null ? "lacks" : "carries") + " a verifier for job " + hello.jobId());
        }
        byte[] verifier = job == null ? RelayFrame.slice(body, RelayFrame.PROOF_VERIFIER_OFFSET, RelayFrame.VERIFIER_BYTES)
                : job.verifier;
        byte[] theirs = RelayFrame.slice(body, RelayFrame.PROOF_MAC_OFFSET, RelayFrame.MAC_BYTES);
        if (!JobKeys.same(theirs, JobKeys.relayProof(verifier, "C", hello.rank(), nonceR, hello.nonce()))) {
            throw new Refusal("wrong job secret for job " + hello.jobId());
        }
        if (job == null) {
            job = store.register(hello.jobId(), hello.jobSize(), verifier);
            if (!JobKeys.same(job.verifier, verifier)) { // another connection registered the job first
                throw new Refusal("wrong job secret for job " + hello.jobId());
            }
        }
        if (job.size != hello.jobSize()) {
            throw new Refusal("job " + hello.jobId() + " has " + job.size + " ranks, the HELLO says " + hello.jobSize());
        }
        c.send(RelayFrame.WELCOME, (byte) 0, -1, hello.rank(), 0, new byte[0]);
        return job;
    }

    private void readLoop(RelayConnection c, RelayStore.Job job, int rank)
            throws IOException, InterruptedException, RelayStore.SequenceGap {
        while (true) {
            if (c.acks > 0 && c.waitsForHeader()) {
                c.flushAcks(); // nothing more to read at once: acknowledge what was stored first
            }
            RelayFrame.Header h;
            try {
                h = c.readHeader();
            } catch (EOFException e) {
                return; // the rank closed its connection
            }
            switch (h.type()) {
                case RelayFrame.STORE -> {
                    if (h.source() != rank || h.destination() >= job.size) {
                        throw new Refusal("STORE from rank " + h.source() + " to rank " + h.destination()
                                + " on the connection of rank " + rank + " of a job of " + job.size);
                    }
                    if (!store.tryReserve(h.bodyLength())) {
                        c.flushAcks(); // about to wait for room: what is stored is acknowledged first
                        if (!store.reserve(h.bodyLength())) {
                            return;
                        }
                    }
                    if (h.bodyLength() > FORWARD_MAX) {
                        try {
                            if (c.acks > 0 && c.waitsFor(h.bodyLength())) {
                                c.flushAcks(); // the body will be waited for: acknowledge what is stored first
                            }
                        } catch (IOException e) {
                            store.release(h.bodyLength());
                            throw e;
                        }
                        RelayStore.Passage p = store.beginPassage(job, h.source(), h.destination(), h.sequence());
                        if (p != null) {
                            c.ack(h, passOn(c, job, h, p));
                            continue;
                        }
                    }
                    byte[] body;
                    try {
                        if (c.acks > 0 && c.waitsFor(h.bodyLength())) {
                            c.flushAcks();
                        }
                        body = c.body(h);
                    } catch (IOException e) {
                        store.release(h.bodyLength());
                        throw e;
                    }
                    long position = storeHeldBack(c, job, h, body);
                    if (position != RelayStore.DUPLICATE) {
                        forward(job, h.destination());
                    }
                    c.ack(h, position);
                }
                case RelayFrame.DELIVERED -> {
                    if (h.destination() != rank || h.source() >= job.size) {
                        throw new Refusal("DELIVERED of rank " + h.source() + " to rank " + h.destination()
                                + " on the connection of rank " + rank + " of a job of " + job.size);
                    }
                    store.acknowledge(job, rank, h.source(), h.sequence());
                }
                case RelayFrame.PRESENCE_REQUEST -> {
                    if (h.destination() >= job.size) {
                        throw new Refusal("PRESENCE_REQUEST about rank " + h.destination() + " of a job of " + job.size);
                    }
                    c.send(RelayFrame.PRESENCE, (byte) 0, -1, h.destination(), store.absentMillis(job, h.destination()),
                            new byte[0]);
                }
                default -> throw new Refusal("a rank may send STORE, DELIVERED and PRESENCE_REQUEST here, not "
                        + RelayFrame.typeName(h.type()));
            }
        }
    }

    /**
     * Cut-through: reads the body of STORE {@code h} and writes each piece on to the receiver
     * connection of the passage as it arrives (one DELIVER), then stores the message. The receiver
     * failing meanwhile (closed) leaves the message stored and undelivered, for its next connection;
     * the sender failing meanwhile (its frame cut or stalled beyond the bound) leaves the receiver
     * with part of a DELIVER, so that connection is closed too (its rank connects again and is
     * delivered everything held, in order) and nothing is stored.
     *
     * @return the log position the STORED waits for
     */
    private long passOn(RelayConnection from, RelayStore.Job job, RelayFrame.Header h, RelayStore.Passage p)
            throws IOException, InterruptedException {
        RelayConnection to = (RelayConnection) p.receiver();
        int length = h.bodyLength();
        byte[] body = new byte[length];
        ByteBuffer piece = from.passBuffer(PASS_CHUNK);
        boolean forwarding = true;
        try {
            synchronized (to) {
                to.beginPassage(h);
                for (int done = 0; done < length; ) {
                    piece.clear().limit(Math.min(PASS_CHUNK, length - done));
                    int n = from.readPart(piece);
                    if (n < 0) {
                        throw new EOFException("truncated STORE frame: stream ended inside its body of " + length + " bytes");
                    }
                    piece.flip();
                    if (forwarding) {
                        try {
                            to.pass(piece);
                        } catch (IOException e) {
                            forwarding = false; // the receiver's reader sees the broken socket and ends it
                            closeQuietly(to.socket);
                        }
                        piece.rewind();
                    }
                    piece.get(body, done, n);
                    done += n;
                }
            }
        } catch (IOException | RuntimeException | Error e) {
            if (forwarding) {
                closeQuietly(to.socket); // it holds part of a DELIVER
            }
            store.abortPassage(job, p, length);
            throw e;
        }
        boolean told = false;
        while (true) {
            try {
                return store.endPassage(job, p, h.source(), h.sequence(), h.has(RelayFrame.FLAG_CONTROL), body, forwarding);
            } catch (IOException e) {
                try {
                    if (closing) {
                        throw e;
                    }
                    logFailed(from, job, h, e, told);
                    told = true;
                } catch (IOException | InterruptedException | RuntimeException | Error stop) {
                    // not stored, no STORED: the sender sends it again, a receiver that has it drops it by sequence
                    store.abortPassage(job, p, length);
                    throw stop;
                }
            }
        }
    }

    /** Stores a message; while the log cannot be written (a full disk), holds the sender back and retries. */
    private long storeHeldBack(RelayConnection c, RelayStore.Job job, RelayFrame.Header h, byte[] body)
            throws InterruptedException, RelayStore.SequenceGap, IOException {
        boolean told = false;
        while (true) {
            try {
                return store.store(job, h.source(), h.destination(), h.sequence(), h.has(RelayFrame.FLAG_CONTROL), body);
            } catch (IOException e) {
                if (closing) {
                    throw e;
                }
                logFailed(c, job, h, e, told);
                told = true;
            }
        }
    }

    /**
     * The log refused the record of {@code h} (a full disk): the first time ({@code told} false)
     * says so and acknowledges the messages stored before it; then waits before the next attempt.
     */
    private void logFailed(RelayConnection c, RelayStore.Job job, RelayFrame.Header h, IOException e, boolean told)
            throws IOException, InterruptedException {
        if (!told) {
            counters.heldBack.incrementAndGet();
            say.accept("relay log cannot be written (" + e.getMessage() + "): holding rank " + h.source()
                    + " of job " + job.id + " back until it can");
            c.flushAcks(); // the messages stored before this one are acknowledged meanwhile
        }
        TimeUnit.SECONDS.sleep(1); // backoff between attempts at a failing disk
    }

    /**
     * Right after a message for {@code rank} is stored: writes it on the rank's receiver connection
     * from this thread, if nothing waits before it and nobody else is writing there (no hand-over
     * to the deliverer). A receiver connection that fails here is closed; its own threads end.
     */
    private void forward(RelayStore.Job job, int rank) {
        RelayStore.Delivery d = store.forward(job, rank, FORWARD_MAX);
        if (d != null) {
            write((RelayConnection) d.receiver(), job, rank, d);
        }
    }

    /** Writes a delivery taken from the store, gives back the right to write; false if the connection failed. */
    private boolean write(RelayConnection c, RelayStore.Job job, int rank, RelayStore.Delivery d) {
        try {
            c.deliver(rank, d.messages());
            return true;
        } catch (IOException e) {
            closeQuietly(c.socket); // its reader sees the broken socket and reports it
            return false;
        } finally {
            store.written(job, rank, d);
        }
    }

    /** Delivers the messages of {@code rank} on its receiver connection until a newer one takes over or it breaks. */
    private void deliver(RelayConnection c, RelayStore.Job job, int rank, long generation) {
        try {
            while (!closing) {
                RelayStore.Delivery d = store.take(job, rank, generation, TimeUnit.SECONDS.toNanos(1), DELIVER_BATCH,
                        DELIVER_BATCH_BYTES);
                if (d == null) {
                    if (!store.current(job, rank, generation)) {
                        if (!closing) {
                            say.accept("job " + job.id + " rank " + rank + ": a newer receiver connection takes over");
                        }
                        break;
                    }
                    if (c.socket.isClosed()) {
                        break;
                    }
                    continue;
                }
                if (!write(c, job, rank, d)) {
                    return;
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        closeQuietly(c.socket);
    }

    private void closeQuietly(Socket s) {
        open.remove(s);
        try {
            s.close();
        } catch (IOException ignored) {
            // closing anyway
        }
    }

    @Override
    public void close() throws IOException {
        closing = true;
        server.close();
        for (Socket s : open) {
            closeQuietly(s);
        }
        watcher.interrupt();
        try {
            acceptor.join(5_000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        store.close();
    }

    /** A connection that broke a rule: it gets an ERROR naming the rule, and is closed. */
    private static final class Refusal extends IOException {
        private static final long serialVersionUID = 1L;

        Refusal(String message) {
            super(message);
        }
    }

}
