package org.railyard.bootstrap;

import java.time.Duration;
import java.util.Map;
import org.railyard.error.ErrorClass;
import org.railyard.error.RailyardException;

/**
 * Bootstrap from a PMI-2 process manager: Slurm's {@code srun --mpi=pmi2} (plugin {@code mpi/pmi2})
 * and MPICH's Hydra, which serves PMI-1 and PMI-2 on the same connection. The client side of the
 * PMI-2 wire protocol ({@link Pmi2Message}): one PMI-1 style line {@code cmd=init pmi_version=2
 * pmi_subversion=0}, then length-prefixed messages, one answer per request.
 *
 * <h2>Reaching the server</h2>
 * {@code PMI_FD=n} (Slurm, and Hydra by default): an inherited Unix socket, reached through
 * {@code java.lang.foreign} ({@link PmiFdConnection}); or {@code PMI_PORT=host:port} (Hydra's
 * {@code -pmi-port}): TCP. The process names itself in {@code fullinit} with {@code pmirank}
 * ({@code PMI_RANK}, or {@code PMI_ID} where Hydra gives that instead) and, under Slurm,
 * {@code pmijobid} ({@code PMI_JOBID}); the answer gives rank and size.
 *
 * <h2>What the constructor does</h2>
 * {@code init}, {@code fullinit}, {@code job-getid} (the job id: Slurm's "job.step", Hydra's kvs
 * name), {@code info-getjobattr} of {@code PMI_process_mapping} (the node of every rank,
 * {@link #nodeOfRank()}; absent if the server has none), then the job secret as under PMI-1:
 * rank 0 puts it, one {@code kvs-fence}, everyone gets it.
 *
 * <h2>Keys and values</h2>
 * The {@link Bootstrap} contract allows ';' in values (address cards hold them), and PMI-2 ends
 * attributes with ';' (Slurm does not read MPICH's ";;" escape), so values travel escaped:
 * '%' as {@code %25} and ';' as {@code %3B}. Keys are at most {@value #MAX_KEY} characters and an
 * escaped value longer than {@value #MAX_VALUE} goes in parts, as under PMI-1 ({@link PmiKeys}).
 *
 * <h2>Failures</h2>
 * As in {@link Pmi1Bootstrap}: every wait is bounded ({@code railyard.bootstrap.timeout}, or the
 * fence's own timeout) and ends in {@link ErrorClass#TIMEOUT}; a server that hangs up, answers
 * with {@code rc} other than 0, leaves out {@code rc}, or sends what is not PMI-2 gives
 * {@link ErrorClass#BOOTSTRAP} quoting it; after such a failure every later call fails at once.
 * Thread-safe: calls are serialized.
 */
public final class Pmi2Bootstrap extends PmiBootstrap {
    /** What {@link #name()} returns. */
    public static final String NAME = "pmi-2";

    /** Longest key, characters: MPICH's PMI2_MAX_KEYLEN (64) less the C string's NUL. */
    static final int MAX_KEY = 63;

    /** Longest escaped value stored whole, characters; PMI2_MAX_VALLEN is 1024 with the NUL. */
    static final int MAX_VALUE = 1000;

    /** Requests this process sent to PMI-2 servers, all instances together. */
    private static final java.util.concurrent.atomic.AtomicLong REQUESTS = new java.util.concurrent.atomic.AtomicLong();

    private final int[] nodeOfRank;

    /**
     * Connects to the PMI-2 server named in {@code env} and performs the start-up described in the
     * class comment; every wait is bounded by {@link Bootstraps#DEFAULT_TIMEOUT}.
     *
     * @param env the process environment, or a map standing for it
     * @throws RailyardException BOOTSTRAP if the environment is incomplete or the server misbehaves,
     *         TIMEOUT if it does not answer in time
     */
    public Pmi2Bootstrap(Map<String, String> env) {
        this(env, Bootstraps.DEFAULT_TIMEOUT);
    }

    /** As {@link #Pmi2Bootstrap(Map)} with another bound on each wait (tests use short ones). */
    Pmi2Bootstrap(Map<String, String> env, Duration timeout) {
        PmiKeys.checkTimeout(timeout, "PMI timeout");
        String rankText = env.get("PMI_RANK") != null ? "PMI_RANK" : "PMI_ID";
        int given = PmiKeys.envInt(env, rankText, 0, "a PMI-2 process manager sets PMI_RANK (or PMI_ID) together with "
                + (env.get("PMI_FD") != null ? "PMI_FD" : "PMI_PORT"));
        super("PMI-2", timeout, open(env, timeout, "PMI-2 server", "", "a PMI-2 process manager such as srun --mpi=pmi2"));
        try {
            greet();
            String pmijobid = env.get("PMI_JOBID");
            Pmi2Message init = request("cmd=fullinit;" + (pmijobid == null ? "" : "pmijobid=" + pmijobid + ";")
                    + "pmirank=" + given + ";threaded=FALSE;", "fullinit-response", timeout, TIMEOUT_SETTING);
            size = init.requiredInt("size", conn.describe());
            rank = init.requiredInt("rank", conn.describe());
            if (size < 1 || rank < 0 || rank >= size) {
                throw fail(new RailyardException(ErrorClass.BOOTSTRAP, "the " + conn.describe() + " gave rank " + rank
                        + " of size " + size + ", which is impossible: " + PmiMessage.quote(init.body())));
            }
            jobId = request("cmd=job-getid;", "job-getid-response", timeout, TIMEOUT_SETTING)
                    .required("jobid", conn.describe());
            Pmi2Message map = request("cmd=info-getjobattr;key=PMI_process_mapping;", "info-getjobattr-response",
                    timeout, TIMEOUT_SETTING);
            nodeOfRank = map.found(conn.describe())
                    ? ProcessMapping.nodeOfRank(map.required("value", conn.describe()), size, conn.describe())
                    : null;
            shareSecret();
        } catch (RuntimeException e) {
            conn.close();
            throw e;
        }
    }

    /** The one PMI-1 style exchange that opens PMI-2: the server must agree to version 2.0. */
    private void greet() {
        String line = "cmd=init pmi_version=2 pmi_subversion=0";
        long deadline = PmiKeys.deadlineAfter(timeout);
        String waitingFor = "cmd=response_to_init answering " + PmiMessage.quote(line) + " for "
                + PmiKeys.human(timeout) + " (" + TIMEOUT_SETTING + ")";
        PmiMessage answer = exchange(() -> {
            conn.send(line, deadline);
            return PmiMessage.parse(conn.receive(deadline, waitingFor), conn.describe());
        });
        if (!answer.cmd().equals("response_to_init") || answer.rc(conn.describe()) != 0
                || !"2".equals(answer.attr("pmi_version"))) {
            throw fail(new RailyardException(ErrorClass.BOOTSTRAP, "the " + conn.describe() + " refused PMI version 2.0:"
                    + " it answered " + PmiMessage.quote(answer.line()) + " to " + PmiMessage.quote(line)
                    + " (a PMI-1 only server? then leave railyard.pmi unset or set it to 1)"));
        }
    }

    /** The node index of every rank, from {@code PMI_process_mapping}; null if the server gave none. */
    @Override
    public int[] nodeOfRank() {
        return nodeOfRank == null ? null : nodeOfRank.clone();
    }

    /** Escapes the value (class comment) and stores it, in parts when long. */
    @Override
    protected void store(String key, String value) {
        PmiKeys.store(key, escape(value), MAX_VALUE, this::putRaw, this::checkKeyLength);
    }

    @Override
    public synchronized void fence(Duration timeout) {
        PmiKeys.checkTimeout(timeout, "fence timeout");
        request("cmd=kvs-fence;", "kvs-fence-response", timeout, "the fence's timeout");
    }

    @Override
    protected String fetch(String key) {
        return unescape(PmiKeys.fetch(key, this::getRaw), key);
    }

    @Override
    public String name() {
        return NAME;
    }

    /**
     * How many requests this process has sent to PMI-2 servers so far (the init line not
     * counted): what bench/startup.sh adds up to show how the key-value traffic grows with the job.
     */
    public static long requestsSent() {
        return REQUESTS.get();
    }

    /**
     * Tells the process manager to end the whole job ({@code cmd=abort;isworld=TRUE}), with
     * {@code message} in its log (PMI-2 carries no exit code: the caller exits with it); the
     * manager kills the job's processes.
     */
    @Override
    protected void sendAbort(int code, String message, long deadline) {
        conn.sendRaw(Pmi2Message.frame("cmd=abort;isworld=TRUE;msg=" + message.replace(';', '_') + ";"), "cmd=abort",
                deadline);
    }

    /** Sends {@code cmd=finalize} and waits, bounded, for its answer. */
    @Override
    protected void finish() {
        request("cmd=finalize;", "finalize-response", timeout, TIMEOUT_SETTING);
    }

    // ---------------------------------------------------------------------------------------------

    private void putRaw(String key, String value) {
        request("cmd=kvs-put;key=" + key + ";value=" + value + ";", "kvs-put-response", timeout, TIMEOUT_SETTING);
    }

    private String getRaw(String key) {
        Pmi2Message answer = request("cmd=kvs-get;jobid=" + jobId + ";srcid=-1;key=" + key + ";", "kvs-get-response",
                timeout, TIMEOUT_SETTING);
        if (!answer.found(conn.describe())) {
            throw new RailyardException(ErrorClass.BOOTSTRAP, "PMI key '" + key + "' is not in the key-value space of job "
                    + jobId + " (the " + conn.describe() + " answered found=FALSE); a key is visible only after the"
                    + " fence that follows its put");
        }
        return answer.required("value", conn.describe());
    }

    /**
     * One request and its answer, which must be {@code cmd=expect} with {@code rc=0}. A failure of
     * the exchange leaves the connection out of step; a non-zero rc in a well-formed answer does not.
     */
    private Pmi2Message request(String body, String expect, Duration bound, String boundName) {
        long deadline = PmiKeys.deadlineAfter(bound);
        String waitingFor = "cmd=" + expect + " answering " + PmiMessage.quote(body) + " for " + PmiKeys.human(bound)
                + " (" + boundName + ")";
        Pmi2Message answer = exchange(() -> {
            REQUESTS.incrementAndGet();
            conn.sendRaw(Pmi2Message.frame(body), body, deadline);
            String field = conn.receiveExactly(Pmi2Message.LENGTH_FIELD, deadline, waitingFor);
            int length = Pmi2Message.length(field, PmiConnection.MAX_LINE, "the " + conn.describe());
            return Pmi2Message.parse(conn.receiveExactly(length, deadline, waitingFor), "the " + conn.describe());
        });
        if (!answer.cmd().equals(expect)) {
            throw fail(new RailyardException(ErrorClass.BOOTSTRAP, "the " + conn.describe() + " answered "
                    + PmiMessage.quote(answer.body()) + " to " + PmiMessage.quote(body) + "; PMI-2 expects cmd=" + expect));
        }
        int rc = exchange(() -> answer.requiredInt("rc", "the " + conn.describe()));
        if (rc != 0) {
            String msg = answer.attr("errmsg");
            throw new RailyardException(ErrorClass.BOOTSTRAP, "the " + conn.describe() + " failed "
                    + PmiMessage.quote(body) + " with rc=" + rc + (msg == null ? "" : ": " + msg)
                    + " (it answered " + PmiMessage.quote(answer.body()) + ")");
        }
        return answer;
    }

    private void checkKeyLength(String storedKey, String userKey) {
        if (storedKey.length() > MAX_KEY || storedKey.indexOf(';') >= 0) {
            throw new RailyardException(ErrorClass.ARG, "PMI key '" + userKey + "' cannot be stored by PMI-2: keys hold"
                    + " at most " + MAX_KEY + " characters and no ';'"
                    + (storedKey.equals(userKey) ? "" : ", and this value needs the part key '" + storedKey + "'"));
        }
    }

    /** '%' and ';' as %25 and %3B: PMI-2 ends attributes with ';'. */
    static String escape(String value) {
        if (value.indexOf('%') < 0 && value.indexOf(';') < 0) {
            return value;
        }
        StringBuilder sb = new StringBuilder(value.length() + 16);
        for (int i = 0; i < value.length(); i++) {
            char c = value.charAt(i);
            switch (c) {
                case '%' -> sb.append("%25");
                case ';' -> sb.append("%3B");
                default -> sb.append(c);
            }
        }
        return sb.toString();
    }

    /** The inverse of {@link #escape}; anything else after '%' means another program wrote the key. */
    static String unescape(String value, String key) {
        if (value.indexOf('%') < 0) {
            return value;
        }
        StringBuilder sb = new StringBuilder(value.length());
        for (int i = 0; i < value.length(); i++) {
            char c = value.charAt(i);
            if (c != '%') {
                sb.append(c);
            } else if (value.startsWith("%25", i)) {
                sb.append('%');
                i += 2;
            } else if (value.startsWith("%3B", i)) {
                sb.append(';');
                i += 2;
            } else {
                throw new RailyardException(ErrorClass.BOOTSTRAP, "PMI key '" + key + "' holds "
                        + PmiMessage.quote(value) + ", with a '%' at index " + i + " that is not %25 or %3B:"
                        + " Railyard did not write it (another program shares the key space?)");
            }
        }
        return sb.toString();
    }
}
