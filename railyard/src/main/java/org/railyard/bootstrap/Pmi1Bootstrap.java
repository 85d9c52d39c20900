package org.railyard.bootstrap;

import java.time.Duration;
import java.util.Map;
import org.railyard.error.ErrorClass;
import org.railyard.error.RailyardException;

/**
 * Bootstrap from a PMI-1 process manager, as MPICH's Hydra ({@code mpiexec.hydra}) serves it:
 * the client side of the PMI-1 wire protocol, newline-terminated lines such as
 * {@code cmd=put kvsname=kvs_42_0 key=card.3 value=...}, one answer per request.
 *
 * <h2>Reaching the server</h2>
 * <ul>
 * <li>{@code PMI_FD=n} (Hydra's default): descriptor {@code n}, inherited from Hydra's proxy, is
 *     already connected. Rank and size come from {@code PMI_RANK} and {@code PMI_SIZE}. Java cannot
 *     open a descriptor by number, so {@link PmiFdConnection} reaches it with
 *     {@code java.lang.foreign} downcalls to libc; run the JVM with
 *     {@code --enable-native-access=ALL-UNNAMED} to keep JDK 25 from warning about it.</li>
 * <li>{@code PMI_PORT=host:port} ({@code mpiexec.hydra -pmi-port}): a TCP connection, on which
 *     the process first introduces itself with {@code cmd=initack pmiid=$PMI_ID}; the server
 *     answers {@code cmd=initack} and then {@code cmd=set size=..}, {@code cmd=set rank=..},
 *     {@code cmd=set debug=..}, which give rank and size.</li>
 * </ul>
 * If both are set, PMI_FD wins, as in MPICH's own client.
 *
 * <h2>What the constructor does</h2>
 * {@code init} (PMI 1.1), {@code get_maxes}, {@code get_my_kvsname} (the job id: the key-value space's name, which Hydra makes unique per job); then rank 0
 * draws 32 random bytes with {@link java.security.SecureRandom} and puts them, hex-encoded, under the key
 * {@value #SECRET_KEY}; then one fence; then every rank reads that key. So {@link #jobSecret()} is
 * valid, and equal in every rank, as soon as the constructor returns. The caller's own
 * put/fence/get round comes after and needs a fence of its own.
 *
 * <h2>Limits of the server</h2>
 * {@code get_maxes} gives the longest kvsname, key and value the server stores. They are counted
 * as C buffer sizes, terminating NUL included (Hydra 4 says 64 and 1024), so keys and values must
 * be strictly shorter. A key that is too long is refused with {@link ErrorClass#ARG}. A value that
 * is too long is split: its parts go under {@code key#0}, {@code key#1}, ..., and the key itself
 * holds {@value #PARTS_MARK}N; {@link #get} puts the parts back together. For that reason, keys
 * ending in '#' and digits are reserved, and so is {@value #SECRET_KEY}.
 *
 * <h2>Failures</h2>
 * Every wait for the server is bounded: by {@link Bootstraps#DEFAULT_TIMEOUT} (setting
 * {@code railyard.bootstrap.timeout}), or by the timeout given to {@link #fence(Duration)}.
 * Expiry throws {@link RailyardException} of class {@link ErrorClass#TIMEOUT}; a server that
 * hangs up, answers with an error code, or sends a line that is not PMI-1 gives
 * {@link ErrorClass#BOOTSTRAP}, quoting the line. After a timeout or a broken exchange the
 * connection cannot be trusted to be in step (a late answer would be taken for the next one), so
 * every later call fails at once with the first error's message.
 *
 * <p>Thread-safe: calls are serialized, since PMI-1 allows one outstanding request per process.
 */
public final class Pmi1Bootstrap extends PmiBootstrap {
    /** What {@link #name()} returns. */
    public static final String NAME = "pmi-1";

    /** The key under which rank 0 publishes the job secret, hex-encoded. */
    public static final String SECRET_KEY = PmiKeys.SECRET_KEY;

    /** Prefix of the value that stands for a value stored in parts; followed by the part count. */
    public static final String PARTS_MARK = PmiKeys.PARTS_MARK;

    /** Longest key and value the server stores, in characters (its maxima less the C string's NUL). */
    private final int maxKey;
    private final int maxValue;

    /**
     * Connects to the PMI-1 server named in {@code env} and performs the start-up described in the
     * class comment; every wait is bounded by {@link Bootstraps#DEFAULT_TIMEOUT}.
     *
     * @param env the process environment, or a map standing for it (PMI_FD or PMI_PORT, with
     *            PMI_RANK and PMI_SIZE, or PMI_ID)
     * @throws RailyardException BOOTSTRAP if the environment is incomplete or the server misbehaves,
     *         TIMEOUT if it does not answer in time
     */
    public Pmi1Bootstrap(Map<String, String> env) {
        this(env, Bootstraps.DEFAULT_TIMEOUT);
    }

    /** As {@link #Pmi1Bootstrap(Map)} with another bound on each wait (tests use short ones). */
    Pmi1Bootstrap(Map<String, String> env, Duration timeout) {
        PmiKeys.checkTimeout(timeout, "PMI timeout");
        super("PMI-1", timeout, open(env, timeout, "PMI server", setBy("PMI_FD"),
                "a PMI-1 process manager such as mpiexec.hydra"));
        try {
            if (env.get("PMI_FD") != null) {
                rank = envInt(env, "PMI_RANK", 0);
                size = envInt(env, "PMI_SIZE", 1);
            } else {
                int[] rankSize = introduce(env);
                rank = rankSize[0];
                size = rankSize[1];
            }
            if (rank >= size) {
                throw new RailyardException(ErrorClass.BOOTSTRAP, "the PMI rank " + rank
                        + " is outside [0, " + size + ") given by the " + conn.describe());
            }

            PmiMessage init = request("cmd=init pmi_version=1 pmi_subversion=1", "response_to_init",
                    timeout, TIMEOUT_SETTING);
            String version = init.attr("pmi_version");
            if (init.rc(conn.describe()) != 0 || (version != null && !version.equals("1"))) {
                throw new RailyardException(ErrorClass.BOOTSTRAP, "the " + conn.describe()
                        + " refused PMI version 1.1: it answered " + PmiMessage.quote(init.line()));
            }

            PmiMessage maxes = request("cmd=get_maxes", "maxes", timeout, TIMEOUT_SETTING);
            maxKey = positiveMax(maxes, "keylen_max");
            maxValue = positiveMax(maxes, "vallen_max");
            positiveMax(maxes, "kvsname_max"); // only checked: the server names the space, not this process

            PmiMessage name = request("cmd=get_my_kvsname", "my_kvsname", timeout, TIMEOUT_SETTING);
            jobId = name.required("kvsname", conn.describe());

            shareSecret();
        } catch (RuntimeException e) {
            conn.close();
            throw e;
        }
    }

    /**
     * Hydra's -pmi-port greeting: say which process this is, learn rank and size.
     *
     * @return {rank, size}
     */
    private int[] introduce(Map<String, String> env) {
        int id = envInt(env, "PMI_ID", 0);
        String hello = "cmd=initack pmiid=" + id;
        long deadline = deadlineAfter(timeout);
        exchange(() -> {
            conn.send(hello, deadline);
            return null;
        });
        String waitingFor = "cmd=initack answering " + PmiMessage.quote(hello) + " for " + human(timeout)
                + " (" + TIMEOUT_SETTING + ")";
        PmiMessage ack = exchange(() -> PmiMessage.parse(conn.receive(deadline, waitingFor), conn.describe()));
        expectCmd(ack, "initack", hello);
        // Then exactly three settings, as Hydra sends them: size, rank, debug (debug is unused).
        Integer rankSet = null;
        Integer sizeSet = null;
        boolean debugSet = false;
        for (int i = 0; i < 3; i++) {
            String waitingForSet = "cmd=set line " + (i + 1) + " of 3 after cmd=initack, for " + human(timeout)
                    + " (" + TIMEOUT_SETTING + ")";
            PmiMessage set = exchange(() -> PmiMessage.parse(conn.receive(deadline, waitingForSet), conn.describe()));
            expectCmd(set, "set", hello);
            if (set.attr("size") != null && sizeSet == null) {
                sizeSet = set.requiredInt("size", conn.describe());
            } else if (set.attr("rank") != null && rankSet == null) {
                rankSet = set.requiredInt("rank", conn.describe());
            } else if (set.attr("debug") != null && !debugSet) {
                debugSet = true;
            } else {
                throw fail(new RailyardException(ErrorClass.BOOTSTRAP, "the " + conn.describe() + " sent "
                        + PmiMessage.quote(set.line()) + " after cmd=initack; PMI-1 expects one cmd=set each of"
                        + " size, rank and debug"));
            }
        }
        if (sizeSet < 1 || rankSet < 0) {
            throw fail(new RailyardException(ErrorClass.BOOTSTRAP, "the " + conn.describe()
                    + " gave an impossible rank " + rankSet + " or size " + sizeSet));
        }
        return new int[] {rankSet, sizeSet};
    }

    /** Puts a value whole when it fits, else in parts (see the class comment). */
    @Override
    protected void store(String key, String value) {
        PmiKeys.store(key, value, maxValue, this::putRaw, this::checkKeyLength);
    }

    @Override
    public synchronized void fence(Duration timeout) {
        PmiKeys.checkTimeout(timeout, "fence timeout");
        PmiMessage out = request("cmd=barrier_in", "barrier_out", timeout, "the fence's timeout");
        if (out.rc(conn.describe()) != 0) {
            throw new RailyardException(ErrorClass.BOOTSTRAP, "the " + conn.describe() + " failed the fence: "
                    + PmiMessage.quote(out.line()));
        }
    }

    /** Gets a value, putting it together from its parts if it was stored in parts. */
    @Override
    protected String fetch(String key) {
        return PmiKeys.fetch(key, this::getRaw);
    }

    @Override
    public String name() {
        return NAME;
    }

    /**
     * Tells the process manager to end the whole job with exit code {@code code}
     * ({@code cmd=abort exitcode=N}, as MPICH's PMI_Abort sends it; Hydra kills every process of
     * the job and ends with that code). PMI-1 has no field for the message.
     */
    @Override
    protected void sendAbort(int code, String message, long deadline) {
        conn.send("cmd=abort exitcode=" + code, deadline);
    }

    /** Sends {@code cmd=finalize} and waits, bounded, for {@code cmd=finalize_ack}. */
    @Override
    protected void finish() {
        request("cmd=finalize", "finalize_ack", timeout, TIMEOUT_SETTING);
    }

    // ---------------------------------------------------------------------------------------------

    private void putRaw(String key, String value) {
        PmiMessage result = request("cmd=put kvsname=" + jobId + " key=" + key + " value=" + value, "put_result",
                timeout, TIMEOUT_SETTING);
        if (result.rc(conn.describe()) != 0) {
            throw new RailyardException(ErrorClass.BOOTSTRAP, "the " + conn.describe() + " refused to store PMI key '"
                    + key + "': " + PmiMessage.quote(result.line()));
        }
    }

    private String getRaw(String key) {
        PmiMessage result = request("cmd=get kvsname=" + jobId + " key=" + key, "get_result", timeout,
                TIMEOUT_SETTING);
        if (result.rc(conn.describe()) != 0) {
            String msg = result.attr("msg");
            throw new RailyardException(ErrorClass.BOOTSTRAP, "PMI key '" + key + "' is not in the key-value space of job "
                    + jobId + " (the " + conn.describe() + " said " + (msg == null ? result.line() : msg)
                    + "); a key is visible only after the fence that follows its put");
        }
        return result.required("value", conn.describe());
    }

    /**
     * One request and its answer, which must be {@code cmd=expect}. Any failure of the exchange
     * itself (not an error code inside a well-formed answer) leaves the connection out of step.
     */
    private PmiMessage request(String line, String expect, Duration bound, String boundName) {
        long deadline = deadlineAfter(bound);
        String waitingFor = "cmd=" + expect + " answering " + PmiMessage.quote(line) + " for " + human(bound)
                + " (" + boundName + ")";
        PmiMessage answer = exchange(() -> {
            conn.send(line, deadline);
            return PmiMessage.parse(conn.receive(deadline, waitingFor), conn.describe());
        });
        expectCmd(answer, expect, line);
        return answer;
    }

    private void expectCmd(PmiMessage answer, String expect, String request) {
        if (!answer.cmd().equals(expect)) {
            throw fail(new RailyardException(ErrorClass.BOOTSTRAP, "the " + conn.describe() + " answered "
                    + PmiMessage.quote(answer.line()) + " to " + PmiMessage.quote(request) + "; PMI-1 expects cmd="
                    + expect));
        }
    }

    private int positiveMax(PmiMessage maxes, String attr) {
        int max = maxes.requiredInt(attr, conn.describe());
        if (max < 2) {
            throw new RailyardException(ErrorClass.BOOTSTRAP, "the " + conn.describe() + " allows " + attr + "="
                    + max + ", too small to use: " + PmiMessage.quote(maxes.line()));
        }
        return max - 1; // a C buffer size: the terminating NUL takes one
    }

    private void checkKeyLength(String storedKey, String userKey) {
        if (storedKey.length() > maxKey) {
            throw new RailyardException(ErrorClass.ARG, "PMI key '" + userKey + "' is too long: the " + conn.describe()
                    + " stores keys of at most " + maxKey + " characters"
                    + (storedKey.equals(userKey) ? "" : ", and this value needs the part key '" + storedKey + "'"));
        }
    }

    /** PMI-1 splits lines at spaces and attributes at '='; the Bootstrap contract forbids both. */
    private static void checkText(String what, String text, boolean emptyAllowed) {
        PmiKeys.checkText(what, text, emptyAllowed);
    }

    private static int envInt(Map<String, String> env, String name, int min) {
        return PmiKeys.envInt(env, name, min, setBy(name));
    }

    private static String setBy(String name) {
        return "a PMI-1 process manager sets it together with " + (name.equals("PMI_ID") ? "PMI_PORT" : "PMI_FD");
    }

    private static long deadlineAfter(Duration bound) {
        return PmiKeys.deadlineAfter(bound);
    }

    static String human(Duration d) {
        return PmiKeys.human(d);
    }
}
