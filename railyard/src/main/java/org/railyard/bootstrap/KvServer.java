package org.railyard.bootstrap;

import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.BitSet;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Consumer;
import org.railyard.util.AcceptLoop;

/**
 * The key-value server of one job, run by the launcher; {@link KvBootstrap} is its client and
 * documents the protocol. One connection per rank; a connection that cannot prove the job secret
 * is refused and logged, and the server goes on serving the others.
 *
 * <p>Keys become visible to every rank as soon as their PUT arrives (a fence only guarantees they
 * have arrived). Fences are numbered from 1; fence {@code n} completes when every rank of the job
 * has entered it. A rank that said goodbye can never enter another fence, so fences waiting for it
 * fail at once instead of running into their timeout. A rank whose connection merely drops is not
 * treated that way: the launcher sees the process die and stops the job, which reports the real
 * cause instead of a cascade of bootstrap failures.
 */
public final class KvServer implements AutoCloseable {
    /**
     * Bound on a connecting process proving itself, so a silent stranger cannot hold a thread
     * forever. Generous: a rank JVM starting on a crowded node (many ranks per core, each compiling)
     * was seen to take over 30 s between its connect and its hello, and a rank refused here fails
     * the whole job. A stranger costs only a virtual thread meanwhile.
     */
    private static final int HANDSHAKE_TIMEOUT_MS = 120_000;

    private final int size;
    private final String jobId;
    private final byte[] secret;
    private final Consumer<String> log;
    private final ServerSocket listener;
    private final Thread acceptor;
    private final Set<Socket> open = ConcurrentHashMap.newKeySet();
    private final java.util.concurrent.atomic.AtomicLong requests = new java.util.concurrent.atomic.AtomicLong();

    private final ReentrantLock lock = new ReentrantLock();
    private final Condition changed = lock.newCondition();
    private final Map<String, String> kv = new HashMap<>();
    private final BitSet connected = new BitSet();
    private final BitSet departed = new BitSet();
    /** Ranks that have entered the fence now being gathered, number {@code completedFences + 1}. */
    private final BitSet arrived = new BitSet();
    private int completedFences;
    private volatile boolean closed;
    /** Ranks may start again ({@link #allowRestarts}): a fence the job completed is answered at once. */
    private volatile boolean restarts;

    private KvServer(int size, String jobId, byte[] secret, Consumer<String> log, ServerSocket listener) {
        this.size = size;
        this.jobId = jobId;
        this.secret = secret.clone();
        this.log = log;
        this.listener = listener;
        this.acceptor = Thread.ofPlatform().daemon().name("railyard-kv-accept").unstarted(this::acceptLoop);
    }

    /**
     * Starts serving a job.
     *
     * @param size   number of ranks in the job
     * @param jobId  the job's identifier (printable, no spaces)
     * @param secret the job secret, 32 bytes
     * @param bind   where to listen; port 0 picks a free port
     * @param log    receives one line per notable event (refused connections, protocol errors)
     */
    public static KvServer start(int size, String jobId, byte[] secret, InetSocketAddress bind, Consumer<String> log)
            throws IOException {
        if (size < 1) {
            throw new IllegalArgumentException("job size must be at least 1, got " + size);
        }
        if (!KvProtocol.isWord(jobId, false)) {
            throw new IllegalArgumentException("job id '" + jobId + "' must be printable ASCII without spaces or '='");
        }
        if (secret.length != KvProtocol.SECRET_BYTES) {
            throw new IllegalArgumentException("job secret must be " + KvProtocol.SECRET_BYTES + " bytes, got " + secret.length);
        }
        ServerSocket ss = new ServerSocket();
        ss.setReuseAddress(true);
        ss.bind(bind, Math.max(50, Math.min(size, 4096)));
        KvServer server = new KvServer(size, jobId, secret, log, ss);
        server.acceptor.start();
        return server;
    }

    /**
     * Lets a rank that the launcher started again ({@code railyard run --restart}) run its bootstrap
     * again: it puts its keys again (a put replaces), and a fence the job already completed is
     * answered at once instead of refused as out of step.
     */
    public void allowRestarts() {
        restarts = true;
    }

    /** The port it listens on. */
    public int port() {
        return listener.getLocalPort();
    }

    /** Number of ranks that said goodbye so far. */
    public int departedCount() {
        lock.lock();
        try {
            return departed.cardinality();
        } finally {
            lock.unlock();
        }
    }

    /** Stops listening and drops every connection; ranks still using it get an error. */
    @Override
    public void close() {
        closed = true;
        closeQuietly(listener);
        for (Socket s : open) {
            closeQuietly(s);
        }
        lock.lock();
        try {
            changed.signalAll();
        } finally {
            lock.unlock();
        }
    }

    private void acceptLoop() {
        AcceptLoop.run(listener, () -> closed,
                e -> log.accept("railyard: key-value server stopped accepting connections: " + e.getMessage()), s -> {
                    open.add(s);
                    // One virtual thread per connection: a rank blocked in a fence costs no platform thread.
                    Thread.ofVirtual().name("railyard-kv-conn").start(() -> serve(s));
                });
    }

    private void serve(Socket s) {
        String peer = s.getRemoteSocketAddress().toString();
        int rank = -1;
        boolean saidBye = false;
        try (s) {
            s.setTcpNoDelay(true);
            s.setSoTimeout(HANDSHAKE_TIMEOUT_MS);
            InputStream in = new BufferedInputStream(s.getInputStream());
            OutputStream out = new BufferedOutputStream(s.getOutputStream());
            rank = handshake(peer, in, out);
            if (rank < 0) {
                return;
            }
            // Ranks may sit between fences for as long as the program computes: no read timeout now.
            s.setSoTimeout(0);
            String line;
            while ((line = KvProtocol.readLine(in)) != null) {
                if (line.equals(KvProtocol.BYE)) {
                    saidBye = true;
                    return;
                }
                String reply = command(rank, line);
                if (closed) {
                    // shutting down: no answer (a wait the shutdown cut short did not time out);
                    // the client sees the connection close, a bootstrap error
                    return;
                }
                if (reply != null) {
                    KvProtocol.writeLine(out, reply);
                    if (reply.startsWith(KvProtocol.ERROR)) {
                        log.accept("railyard: key-value server dropped rank " + rank + ": " + reply.substring(KvProtocol.ERROR.length()).trim());
                        return;
                    }
                }
            }
        } catch (IOException e) {
            if (!closed && rank < 0) {
                log.accept("railyard: refused a key-value connection from " + peer + ": " + e.getMessage());
            }
        } finally {
            open.remove(s);
            if (rank >= 0) {
                leave(rank, saidBye);
            }
        }
    }

    /** Returns the rank the peer proved to be, or -1 after refusing it. */
    private int handshake(String peer, InputStream in, OutputStream out) throws IOException {
        String serverNonce = KvProtocol.nonce();
        KvProtocol.writeLine(out, KvProtocol.MAGIC + " " + KvProtocol.VERSION + " " + serverNonce);
        String hello = KvProtocol.readLine(in);
        if (hello == null) {
            log.accept("railyard: refused a key-value connection from " + peer + ": it closed before proving the job secret");
            return -1;
        }
        String[] w = hello.split(" ", -1);
        if (w.length != 5 || !w[0].equals(KvProtocol.HELLO)) {
            return refuse(peer, out, "it did not speak the key-value protocol (first line was not HELLO)");
        }
        int rank;
        try {
            rank = Integer.parseInt(w[2]);
        } catch (NumberFormatException e) {
            return refuse(peer, out, "it claimed a rank that is not a number");
        }
        String clientNonce = w[3];
        if (KvProtocol.unhex(clientNonce, KvProtocol.NONCE_BYTES) == null) {
            return refuse(peer, out, "its nonce is malformed");
        }
        // The proof is checked before the claims, so a stranger learns nothing about the job.
        String expected = KvProtocol.proof(secret, "client", w[1], rank, serverNonce, clientNonce);
        if (!KvProtocol.sameProof(expected, w[4])) {
            return refuse(peer, out, "it does not know the job secret (claimed rank " + rank + " of job " + w[1] + ")");
        }
        if (!w[1].equals(jobId)) {
            return refuse(peer, out, "it belongs to job " + w[1] + ", this server serves job " + jobId);
        }
        if (rank < 0 || rank >= size) {
            return refuse(peer, out, "rank " + rank + " is out of range [0, " + size + ")");
        }
        lock.lock();
        try {
            if (connected.get(rank)) {
                return refuse(peer, out, "rank " + rank + " is already connected");
            }
            connected.set(rank);
        } finally {
            lock.unlock();
        }
        KvProtocol.writeLine(out, KvProtocol.WELCOME + " "
                + KvProtocol.proof(secret, "server", jobId, rank, serverNonce, clientNonce));
        return rank;
    }

    private int refuse(String peer, OutputStream out, String why) throws IOException {
        log.accept("railyard: refused a key-value connection from " + peer + ": " + why);
        KvProtocol.writeLine(out, KvProtocol.DENIED + " " + why);
        return -1;
    }

    /**
     * Requests the server has executed (PUT, GET, MGET and FENCE of every rank, handshakes and
     * BYE not counted): what shows how the job's key-value traffic grows with its size.
     */
    public long requestsServed() {
        return requests.get();
    }

    /** Executes one request; returns the reply line, or null for requests that have none (PUT). */
    private String command(int rank, String line) {
        requests.incrementAndGet();
        Request r = Request.parse(line);
        if (r.error() != null) {
            return KvProtocol.ERROR + " " + r.error();
        }
        switch (r.verb()) {
            case KvProtocol.PUT -> {
                lock.lock();
                try {
                    kv.put(r.key(), r.value());
                    changed.signalAll();
                } finally {
                    lock.unlock();
                }
                return null;
            }
            case KvProtocol.GET -> {
                return get(r.key(), r.millis());
            }
            case KvProtocol.MGET -> {
                return getAll(r.keys(), r.millis());
            }
            default -> {
                return fence(rank, r.seq(), r.millis());
            }
        }
    }

    /**
     * A request line of a rank that passed the handshake, decoded: {@code PUT key value},
     * {@code GET key millis}, {@code MGET millis key...} (its keys in {@code keys}) or
     * {@code FENCE seq millis}; {@code error} is the text of the ERROR reply when the line is none
     * of these.
     */
    record Request(String verb, String key, String value, long seq, long millis, String error, List<String> keys) {
        Request(String verb, String key, String value, long seq, long millis, String error) {
            this(verb, key, value, seq, millis, error, List.of());
        }

        static Request parse(String line) {
            String[] w = line.split(" ", -1);
            switch (w[0]) {
                case KvProtocol.PUT -> {
                    if (w.length != 3 || !KvProtocol.isWord(w[1], false) || !KvProtocol.isWord(w[2], true)) {
                        return malformed("PUT");
                    }
                    return new Request(KvProtocol.PUT, w[1], w[2], 0, 0, null);
                }
                case KvProtocol.GET -> {
                    Long millis = w.length == 3 && KvProtocol.isWord(w[1], false) ? count(w[2]) : null;
                    return millis == null ? malformed("GET") : new Request(KvProtocol.GET, w[1], null, 0, millis, null);
                }
                case KvProtocol.MGET -> {
                    Long millis = w.length >= 3 ? count(w[1]) : null;
                    List<String> keys = w.length >= 3 ? List.of(w).subList(2, w.length) : List.of();
                    if (millis == null || keys.stream().anyMatch(k -> !KvProtocol.isWord(k, false))) {
                        return malformed("MGET");
                    }
                    return new Request(KvProtocol.MGET, null, null, 0, millis, null, keys);
                }
                case KvProtocol.FENCE -> {
                    Long seq = w.length == 3 ? count(w[1]) : null;
                    Long millis = w.length == 3 ? count(w[2]) : null;
                    return seq == null || millis == null ? malformed("FENCE")
                            : new Request(KvProtocol.FENCE, null, null, seq, millis, null);
                }
                default -> {
                    return new Request(null, null, null, 0, 0, "unknown request '" + w[0] + "'");
                }
            }
        }

        private static Request malformed(String verb) {
            return new Request(null, null, null, 0, 0, "malformed " + verb);
        }
    }

    /** A whole number of at least 0, or null. */
    private static Long count(String s) {
        try {
            long v = Long.parseLong(s);
            return v < 0 ? null : v;
        } catch (NumberFormatException e) {
            return null;
        }
    }

    /** {@code VALUE} of the key once it is put, or {@code TIMEOUT}. */
    private String get(String key, long millis) {
        String all = getAll(List.of(key), millis);
        if (all.startsWith(KvProtocol.VALUES + " ")) {
            return KvProtocol.VALUE + all.substring(KvProtocol.VALUES.length());
        }
        return all.startsWith(KvProtocol.TIMEOUT) ? KvProtocol.TIMEOUT : all;
    }

    /** {@code VALUES} of every key in order once all are put, or {@code TIMEOUT} naming the first missing. */
    private String getAll(List<String> keys, long millis) {
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(millis);
        lock.lock();
        try {
            while (true) {
                StringBuilder sb = new StringBuilder(KvProtocol.VALUES);
                String missing = null;
                for (String k : keys) {
                    String v = kv.get(k);
                    if (v == null) {
                        missing = k;
                        break;
                    }
                    sb.append(' ').append(v);
                }
                if (missing == null) {
                    return sb.toString();
                }
                long left = deadline - System.nanoTime();
                if (left <= 0 || closed) {
                    return KvProtocol.TIMEOUT + " " + missing;
                }
                changed.awaitNanos(left);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return KvProtocol.FAILED + " the key-value server is shutting down";
        } finally {
            lock.unlock();
        }
    }

    private String fence(int rank, long seq, long millis) {
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(millis);
        lock.lock();
        try {
            if (restarts && seq <= completedFences) {
                return KvProtocol.FENCED + " " + seq; // a restarted rank going through its bootstrap again
            }
            if (seq != completedFences + 1) {
                return KvProtocol.ERROR + " rank " + rank + " entered fence " + seq + " but the job is at fence " + (completedFences + 1);
            }
            arrived.set(rank);
            if (arrived.cardinality() == size) {
                completedFences++;
                arrived.clear();
                changed.signalAll();
            }
            while (completedFences < seq) {
                if (!departed.isEmpty()) {
                    arrived.clear(rank);
                    return KvProtocol.FAILED + " " + KvProtocol.ranks(departed) + " already left the job (closed its bootstrap)"
                            + " and will never enter fence " + seq;
                }
                long left = deadline - System.nanoTime();
                if (left <= 0 || closed) {
                    // Withdraw, so a retry of the same fence counts this rank once.
                    arrived.clear(rank);
                    BitSet missing = new BitSet();
                    missing.set(0, size);
                    missing.andNot(arrived);
                    missing.clear(rank);
                    return KvProtocol.TIMEOUT + " " + (arrived.cardinality() + 1) + " " + KvProtocol.ranks(missing);
                }
                changed.awaitNanos(left);
            }
            return KvProtocol.FENCED + " " + seq;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return KvProtocol.FAILED + " the key-value server is shutting down";
        } finally {
            lock.unlock();
        }
    }

    private void leave(int rank, boolean saidBye) {
        lock.lock();
        try {
            connected.clear(rank);
            if (saidBye) {
                departed.set(rank);
                changed.signalAll();
            }
        } finally {
            lock.unlock();
        }
    }

    @Override
    public String toString() {
        return "KvServer[job " + jobId + ", " + size + " ranks, port " + port() + "]";
    }

    private static void closeQuietly(AutoCloseable c) {
        try {
            c.close();
        } catch (Exception ignored) {
            // Closing during shutdown: the peer may already be gone, nothing useful to report.
        }
    }
}
