package org.railyard.bootstrap;

import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.net.UnknownHostException;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import org.railyard.error.ErrorClass;
import org.railyard.error.RailyardException;

/**
 * Bootstrap through the key-value server of the Railyard launcher ({@code railyard run}), see
 * {@link KvServer}.
 *
 * <h2>Environment</h2>
 * The launcher hands every rank:
 * <ul>
 *   <li>{@code RAILYARD_KV}: {@code host:port} of the server ({@code [v6addr]:port} for IPv6);</li>
 *   <li>{@code RAILYARD_RANK}, {@code RAILYARD_SIZE}: this process's rank and the job size;</li>
 *   <li>{@code RAILYARD_JOB}: the job id;</li>
 *   <li>{@code RAILYARD_SECRET}: the job secret, 64 hex digits (32 bytes).</li>
 * </ul>
 *
 * <h2>Protocol</h2>
 * One TCP connection per rank, opened by the constructor, carrying ASCII lines ending in
 * {@code '\n'}; words are separated by one space. Keys and values never contain spaces, so they
 * need no quoting. S is the server, C the client.
 * <pre>
 * S: RAILYARD-KV 1 &lt;snonce&gt;                       protocol version 1; 32 random bytes in hex
 * C: HELLO &lt;job&gt; &lt;rank&gt; &lt;cnonce&gt; &lt;cproof&gt;
 * S: WELCOME &lt;sproof&gt;                            or: DENIED &lt;reason&gt;, then S closes
 *
 * C: PUT &lt;key&gt; &lt;value&gt;                           no reply; the key is visible to all at once
 * C: GET &lt;key&gt; &lt;millis&gt;                          S waits up to millis for the key to be put
 * S: VALUE &lt;value&gt;                               or: TIMEOUT
 * C: MGET &lt;millis&gt; &lt;key&gt; &lt;key&gt; ...                S waits up to millis for every key
 * S: VALUES &lt;value&gt; &lt;value&gt; ...                   in the order asked; or: TIMEOUT &lt;first key missing&gt;
 * C: FENCE &lt;n&gt; &lt;millis&gt;                           n counts this rank's fences from 1
 * S: FENCED &lt;n&gt;                                  every rank entered fence n
 *                                                or: TIMEOUT &lt;arrived&gt; &lt;who is missing&gt;
 *                                                or: FAILED &lt;reason&gt;
 * C: BYE                                         the rank ends normally; S closes
 * S: ERROR &lt;reason&gt;                               malformed request; S closes
 * </pre>
 * The proofs are HMAC-SHA256 under the job secret, in hex, of
 * {@code "RAILYARD-KV 1 <role> <job> <rank> <snonce> <cnonce>"} with role {@code client} for
 * cproof and {@code server} for sproof. Both nonces are fresh per connection, so a recorded
 * exchange cannot be replayed, and each side learns that the other knows the secret without the
 * secret crossing the wire. Nothing else is accepted before the client's proof.
 *
 * <p>Puts are sent as they are made: the server needs no fence to make them visible, and a
 * {@code get} waits until the key appears. A fence therefore guarantees what the
 * {@link Bootstrap} contract promises (everything put before it is visible after it) and more.
 * Values read are cached until the next fence.
 *
 * <p>Every wait is bounded: the server bounds GET and FENCE by the time the client sends, and the
 * client bounds its read of the answer by the same time plus a margin for a server that has gone
 * silent. A bound that expires raises {@link RailyardException} with {@link ErrorClass#TIMEOUT};
 * other failures raise {@link ErrorClass#BOOTSTRAP}, or {@link ErrorClass#AUTH} when the server
 * refuses this process. The methods are thread-safe: requests are serialized on the connection.
 */
public final class KvBootstrap implements Bootstrap {
    /** Environment variable holding {@code host:port} of the launcher's key-value server. */
    public static final String ENV_KV = "RAILYARD_KV";
    public static final String ENV_RANK = "RAILYARD_RANK";
    public static final String ENV_SIZE = "RAILYARD_SIZE";
    public static final String ENV_JOB = "RAILYARD_JOB";
    public static final String ENV_SECRET = "RAILYARD_SECRET";

    /** Extra time granted to the server to answer after its own bound expired, for network delay. */
    private static final Duration SERVER_SLACK = Duration.ofSeconds(10);

    private final int rank;
    private final int size;
    private final String jobId;
    private final byte[] secret;
    private final String server;
    private final Socket socket;
    private final InputStream in;
    private final OutputStream out;
    private final Duration timeout;
    private final Map<String, String> cache = new HashMap<>();
    private int fences;
    private boolean closed;
    /** Set once the connection is out of step (a read timed out, the server went away): no further use. */
    private String broken;

    /**
     * Reads the job's identity from {@code env}, connects to the server and proves knowledge of the
     * job secret, all bounded by {@link Bootstraps#DEFAULT_TIMEOUT}.
     *
     * @throws RailyardException BOOTSTRAP naming the variable when the environment is incomplete or
     *                           malformed, or when the server cannot be reached; AUTH when the
     *                           server refuses this process or fails to prove itself; TIMEOUT when
     *                           the server does not answer in time
     */
    public KvBootstrap(Map<String, String> env) {
        this(env, Bootstraps.DEFAULT_TIMEOUT);
    }

    /** As {@link #KvBootstrap(Map)}, with {@code timeout} bounding connect, handshake and gets. */
    KvBootstrap(Map<String, String> env, Duration timeout) {
        this(env, timeout, timeout);
    }

    /** As {@link #KvBootstrap(Map)}, with {@code connectTimeout} bounding connect and handshake, {@code timeout} gets. */
    KvBootstrap(Map<String, String> env, Duration connectTimeout, Duration timeout) {
        this.timeout = timeout;
        this.size = intVar(env, ENV_SIZE, 1, Integer.MAX_VALUE, "a job size of at least 1");
        this.rank = intVar(env, ENV_RANK, 0, size - 1, "a rank in [0, " + size + ") given " + ENV_SIZE + "=" + size);
        this.jobId = required(env, ENV_JOB);
        if (!KvProtocol.isWord(jobId, false)) {
            throw badEnv(ENV_JOB + "='" + jobId + "' is not a job id (printable ASCII without spaces or '=')");
        }
        String secretHex = required(env, ENV_SECRET);
        this.secret = KvProtocol.unhex(secretHex, KvProtocol.SECRET_BYTES);
        if (secret == null) {
            // Never echo the value: it may be the secret with a typo.
            throw badEnv(ENV_SECRET + " must be " + 2 * KvProtocol.SECRET_BYTES
                    + " hexadecimal digits (" + KvProtocol.SECRET_BYTES + " bytes); it has " + secretHex.length() + " characters"
                    + (secretHex.length() == 2 * KvProtocol.SECRET_BYTES ? " but not all are hex digits" : ""));
        }
        InetSocketAddress address = address(required(env, ENV_KV));
        this.server = address.getHostString() + ":" + address.getPort();

        Socket s = new Socket();
        try {
            s.setTcpNoDelay(true);
            s.connect(address, (int) Math.max(1, KvProtocol.wireMillis(connectTimeout)));
            this.socket = s;
            this.in = new BufferedInputStream(s.getInputStream());
            this.out = new BufferedOutputStream(s.getOutputStream());
            handshake(connectTimeout);
        } catch (IOException e) {
            closeQuietly(s);
            if (e instanceof UnknownHostException) {
                throw new RailyardException(ErrorClass.BOOTSTRAP, "the key-value server's host in " + ENV_KV + "="
                        + server + " is unknown here", e);
            }
            if (e instanceof SocketTimeoutException) {
                throw new RailyardException(ErrorClass.TIMEOUT, "could not connect to the key-value server at " + server
                        + " (" + ENV_KV + ") within " + KvProtocol.human(connectTimeout), e);
            }
            throw new RailyardException(ErrorClass.BOOTSTRAP, "could not connect to the key-value server at " + server
                    + " (" + ENV_KV + "): " + e.getMessage(), e);
        } catch (RuntimeException e) {
            closeQuietly(s);
            throw e;
        }
    }

    private void handshake(Duration timeout) throws IOException {
        String what = "the key-value server's greeting";
        String greeting = read(timeout, what);
        String[] g = greeting.split(" ", -1);
        if (g.length != 3 || !g[0].equals(KvProtocol.MAGIC)) {
            throw new RailyardException(ErrorClass.BOOTSTRAP, "the process at " + server + " (" + ENV_KV
                    + ") is not a Railyard key-value server (it greeted with '" + shorten(greeting) + "')");
        }
        if (!g[1].equals(Integer.toString(KvProtocol.VERSION))) {
            throw new RailyardException(ErrorClass.BOOTSTRAP, "the key-value server at " + server + " speaks protocol version "
                    + g[1] + ", this library speaks " + KvProtocol.VERSION + ": launcher and library versions differ");
        }
        String serverNonce = g[2];
        String clientNonce = KvProtocol.nonce();
        send(KvProtocol.HELLO + " " + jobId + " " + rank + " " + clientNonce + " "
                + KvProtocol.proof(secret, "client", jobId, rank, serverNonce, clientNonce));
        String answer = read(timeout, "the key-value server's answer to our proof of the job secret");
        if (answer.startsWith(KvProtocol.DENIED)) {
            throw new RailyardException(ErrorClass.AUTH, "the key-value server at " + server + " refused rank " + rank
                    + " of job " + jobId + ": " + answer.substring(KvProtocol.DENIED.length()).trim());
        }
        String expected = KvProtocol.proof(secret, "server", jobId, rank, serverNonce, clientNonce);
        if (!answer.startsWith(KvProtocol.WELCOME + " ")
                || !KvProtocol.sameProof(expected, answer.substring(KvProtocol.WELCOME.length() + 1))) {
            throw new RailyardException(ErrorClass.AUTH, "the key-value server at " + server
                    + " could not prove that it knows the job secret; not trusting it");
        }
    }

    @Override
    public int rank() {
        return rank;
    }

    @Override
    public int size() {
        return size;
    }

    @Override
    public String jobId() {
        return jobId;
    }

    @Override
    public byte[] jobSecret() {
        return secret.clone();
    }

    @Override
    public synchronized void put(String key, String value) {
        checkWord("key", key, false);
        checkWord("value of key '" + key + "'", value, true);
        usable("publishing key '" + key + "'");
        try {
            send(KvProtocol.PUT + " " + key + " " + value);
        } catch (IOException e) {
            throw lost("publishing key '" + key + "'", e);
        }
        cache.put(key, value);
    }

    @Override
    public synchronized void fence(Duration timeout) {
        int seq = fences + 1;
        String what = "bootstrap fence " + seq + " of " + size + " ranks";
        String answer = request(KvProtocol.FENCE + " " + seq + " " + KvProtocol.wireMillis(timeout), timeout, what);
        if (answer.equals(KvProtocol.FENCED + " " + seq)) {
            fences = seq;
            cache.clear();
            return;
        }
        if (answer.startsWith(KvProtocol.TIMEOUT + " ")) {
            String[] w = answer.split(" ", 3);
            throw new RailyardException(ErrorClass.TIMEOUT, what + " timed out after " + KvProtocol.human(timeout) + ": "
                    + w[1] + " of " + size + " ranks arrived; still waiting for " + (w.length > 2 ? w[2] : "?")
                    + " (key-value server " + server + ")");
        }
        throw failure(what, answer);
    }

    @Override
    public synchronized String get(String key) {
        checkWord("key", key, false);
        String cached = cache.get(key);
        if (cached != null) {
            return cached;
        }
        String what = "bootstrap key '" + key + "'";
        String answer = request(KvProtocol.GET + " " + key + " " + KvProtocol.wireMillis(timeout), timeout, what);
        if (answer.startsWith(KvProtocol.VALUE + " ")) {
            String value = answer.substring(KvProtocol.VALUE.length() + 1);
            cache.put(key, value);
            return value;
        }
        if (answer.equals(KvProtocol.TIMEOUT)) {
            throw new RailyardException(ErrorClass.TIMEOUT, what + " was not published by any rank within "
                    + KvProtocol.human(timeout) + " (key-value server " + server + ")");
        }
        throw failure(what, answer);
    }

    /**
     * Reads the keys not yet cached with {@code MGET}, at most {@value #MGET_KEYS} keys a request
     * (so that an answer of address cards stays far below the protocol's line limit): a job's
     * layout (every rank's card) costs each rank N/{@value #MGET_KEYS} requests, not N.
     */
    @Override
    public synchronized java.util.List<String> getAll(java.util.List<String> keys) {
        java.util.List<String> missing = new java.util.ArrayList<>();
        for (String k : keys) {
            checkWord("key", k, false);
            if (!cache.containsKey(k) && !missing.contains(k)) {
                missing.add(k);
            }
        }
        for (int from = 0; from < missing.size(); from += MGET_KEYS) {
            java.util.List<String> part = missing.subList(from, Math.min(missing.size(), from + MGET_KEYS));
            String what = part.size() + " bootstrap keys from '" + part.getFirst() + "'";
            String answer = request(KvProtocol.MGET + " " + KvProtocol.wireMillis(timeout) + " " + String.join(" ", part),
                    timeout, what);
            if (answer.startsWith(KvProtocol.TIMEOUT + " ")) {
                throw new RailyardException(ErrorClass.TIMEOUT, "bootstrap key '" + answer.substring(KvProtocol.TIMEOUT.length() + 1)
                        + "' was not published by any rank within " + KvProtocol.human(timeout) + " (key-value server " + server + ")");
            }
            String[] w = answer.split(" ", -1);
            if (!w[0].equals(KvProtocol.VALUES) || w.length != part.size() + 1) {
                throw failure(what, answer);
            }
            for (int i = 0; i < part.size(); i++) {
                cache.put(part.get(i), w[i + 1]);
            }
        }
        java.util.List<String> values = new java.util.ArrayList<>(keys.size());
        for (String k : keys) {
            values.add(cache.get(k));
        }
        return values;
    }

    /** Most keys in one MGET request. */
    static final int MGET_KEYS = 256;

    @Override
    public String name() {
        return "railyard-kv";
    }

    /** Says goodbye, so fences other ranks enter later fail at once instead of timing out; idempotent. */
    @Override
    public synchronized void close() {
        if (closed) {
            return;
        }
        closed = true;
        if (broken == null) {
            try {
                send(KvProtocol.BYE);
            } catch (IOException ignored) {
                // The server is gone already; there is nobody left to say goodbye to.
            }
        }
        closeQuietly(socket);
    }

    @Override
    public String toString() {
        return "KvBootstrap[rank " + rank + " of " + size + ", job " + jobId + ", server " + server + "]";
    }

    /** Sends a request the server bounds by {@code serverWait}, and reads its answer. */
    private String request(String line, Duration serverWait, String what) {
        usable(what);
        try {
            send(line);
            return read(serverWait.plus(SERVER_SLACK), what);
        } catch (IOException e) {
            throw lost(what, e);
        }
    }

    private void send(String line) throws IOException {
        KvProtocol.writeLine(out, line);
    }

    /** Reads the next line, waiting at most {@code timeout}; {@code what} names the wait in errors. */
    private String read(Duration timeout, String what) throws IOException {
        socket.setSoTimeout((int) Math.max(1, KvProtocol.wireMillis(timeout)));
        try {
            String line = KvProtocol.readLine(in);
            if (line == null) {
                broken = "the key-value server at " + server + " closed the connection";
                throw new RailyardException(ErrorClass.BOOTSTRAP, broken + " while waiting for " + what
                        + " (has the launcher stopped the job?)");
            }
            return line;
        } catch (SocketTimeoutException e) {
            broken = "the key-value server at " + server + " did not answer in time";
            throw new RailyardException(ErrorClass.TIMEOUT, "no answer from the key-value server at " + server
                    + " within " + KvProtocol.human(timeout) + " while waiting for " + what, e);
        }
    }

    private void usable(String what) {
        if (closed) {
            throw new RailyardException(ErrorClass.BOOTSTRAP, what + ": the bootstrap of rank " + rank + " was already closed");
        }
        if (broken != null) {
            throw new RailyardException(ErrorClass.BOOTSTRAP, what + ": " + broken + " earlier; the bootstrap is unusable");
        }
    }

    private RailyardException lost(String what, IOException e) {
        broken = "the connection to the key-value server at " + server + " broke (" + e.getMessage() + ")";
        return new RailyardException(ErrorClass.BOOTSTRAP, broken + " while " + what, e);
    }

    private RailyardException failure(String what, String answer) {
        if (answer.startsWith(KvProtocol.FAILED + " ")) {
            return new RailyardException(ErrorClass.BOOTSTRAP, what + " failed: " + answer.substring(KvProtocol.FAILED.length() + 1));
        }
        broken = "the key-value server at " + server + " answered out of protocol";
        return new RailyardException(ErrorClass.BOOTSTRAP, what + ": " + broken + ": '" + shorten(answer) + "'");
    }

    private static void checkWord(String what, String s, boolean mayBeEmpty) {
        if (!KvProtocol.isWord(s, mayBeEmpty)) {
            throw new RailyardException(ErrorClass.ARG, "bootstrap " + what + " '" + (s == null ? "null" : shorten(s))
                    + "' must be " + (mayBeEmpty ? "" : "non-empty ") + "printable ASCII without spaces, '=' or newlines");
        }
    }

    private static String required(Map<String, String> env, String name) {
        String v = env.get(name);
        if (v == null || v.isBlank()) {
            throw badEnv("environment variable " + name + " is not set; it is set by 'railyard run' for every rank it starts");
        }
        return v.trim();
    }

    private static int intVar(Map<String, String> env, String name, int min, int max, String expected) {
        String v = required(env, name);
        try {
            int n = Integer.parseInt(v);
            if (n >= min && n <= max) {
                return n;
            }
        } catch (NumberFormatException e) {
            // Reported below with the same message as an out-of-range value.
        }
        throw badEnv(name + "='" + shorten(v) + "' is not " + expected);
    }

    /** Parses {@code host:port} or {@code [ipv6]:port} ({@link HostPort}), the key-value server's address. */
    static InetSocketAddress address(String v) {
        InetSocketAddress a = HostPort.parse(v);
        if (a == null) {
            throw badEnv(ENV_KV + "='" + shorten(v) + "' is not host:port of a key-value server (e.g. 127.0.0.1:40123)");
        }
        return a;
    }

    private static RailyardException badEnv(String message) {
        return new RailyardException(ErrorClass.BOOTSTRAP, message);
    }

    private static String shorten(String s) {
        return s.length() <= 80 ? s : s.substring(0, 77) + "...";
    }

    private static void closeQuietly(Socket s) {
        try {
            s.close();
        } catch (IOException ignored) {
            // Nothing to do about a socket that fails to close.
        }
    }
}
