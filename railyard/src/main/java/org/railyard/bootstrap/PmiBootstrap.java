package org.railyard.bootstrap;

import java.time.Duration;
import java.util.Map;
import org.railyard.error.ErrorClass;
import org.railyard.error.RailyardException;

/**
 * What the two PMI clients do alike, whatever their wire protocol: reach the server named by
 * {@code PMI_FD} or {@code PMI_PORT}, keep the connection in step ({@link PmiGuard}), share the
 * job secret through the key-value space, check and store keys (long values in parts,
 * {@link PmiKeys}), ask the manager to abort, and say goodbye on close. Each subclass speaks one
 * wire protocol: {@link Pmi1Bootstrap} PMI-1 lines, {@link Pmi2Bootstrap} PMI-2 messages; it
 * fills in the identity (rank, size, job id) during its constructor and calls
 * {@link #shareSecret()} last.
 *
 * <p>Thread-safe: the public calls are serialized on the instance, since PMI allows one
 * outstanding request per process.
 */
abstract sealed class PmiBootstrap implements Bootstrap permits Pmi1Bootstrap, Pmi2Bootstrap {
    /** Names the bound of every wait that is not a fence's, in timeout messages. */
    static final String TIMEOUT_SETTING = "setting railyard.bootstrap.timeout";

    /** Bound of every wait on the server but a fence's. */
    protected final Duration timeout;
    protected final PmiConnection conn;
    private final PmiGuard guard;

    // Set once by the subclass's constructor, before it returns; read-only afterwards.
    protected int rank;
    protected int size;
    protected String jobId;
    private byte[] secret;

    /**
     * @param protocol "PMI-1" or "PMI-2", for messages
     * @param conn     the open connection to the server, owned from now on (a subclass whose
     *                 constructor fails closes it)
     */
    protected PmiBootstrap(String protocol, Duration timeout, PmiConnection conn) {
        this.timeout = timeout;
        this.conn = conn;
        this.guard = new PmiGuard(protocol);
    }

    /**
     * The connection {@code env} names: descriptor {@code PMI_FD} if set, else TCP to
     * {@code PMI_PORT}, bounded by {@code timeout}.
     *
     * @param serverName   what the descriptor is called in messages ("PMI server")
     * @param fdSetBy      why PMI_FD must be a descriptor number, for its error message
     * @param startedBy    the kind of manager that sets them, for the message when neither is set
     */
    static PmiConnection open(Map<String, String> env, Duration timeout, String serverName, String fdSetBy,
                              String startedBy) {
        if (env.get("PMI_FD") != null) {
            int fd = PmiKeys.envInt(env, "PMI_FD", 0, fdSetBy);
            return new PmiFdConnection(fd, serverName + " on PMI_FD=" + fd);
        }
        String port = env.get("PMI_PORT");
        if (port != null) {
            return PmiSocketConnection.connect(port.trim(), timeout);
        }
        throw new RailyardException(ErrorClass.BOOTSTRAP, "neither PMI_FD nor PMI_PORT is set: this process was"
                + " not started by " + startedBy);
    }

    /** Rank 0 draws and publishes the secret; one fence; everyone reads it back. */
    protected final void shareSecret() {
        secret = PmiKeys.shareSecret(rank, this::store, () -> fence(timeout), this::fetch);
    }

    /** Stores a value (checked) in this protocol's encoding, in parts when long. */
    protected abstract void store(String key, String value);

    /** Reads a value stored by {@link #store}. */
    protected abstract String fetch(String key);

    /** Sends this protocol's abort request, bounded by {@code deadline}; awaits no answer. */
    protected abstract void sendAbort(int code, String message, long deadline);

    /** This protocol's finalize exchange, bounded by {@link #timeout}. */
    protected abstract void finish();

    @Override
    public final int rank() {
        return rank;
    }

    @Override
    public final int size() {
        return size;
    }

    @Override
    public final String jobId() {
        return jobId;
    }

    @Override
    public final byte[] jobSecret() {
        return secret.clone();
    }

    /**
     * Publishes {@code key}; long values are stored in parts (see the subclass's comment).
     *
     * @throws RailyardException ARG if the key or value breaks the {@link Bootstrap} contract, the
     *         key is reserved or too long; BOOTSTRAP or TIMEOUT if the server fails
     */
    @Override
    public final synchronized void put(String key, String value) {
        PmiKeys.checkText("key", key, false);
        PmiKeys.checkText("value", value, true);
        PmiKeys.checkNotReserved(key, getClass().getSimpleName());
        store(key, value);
    }

    /**
     * Reads {@code key}, reassembling a value stored in parts.
     *
     * @throws RailyardException BOOTSTRAP naming the key if no process put it before the last fence
     */
    @Override
    public final synchronized String get(String key) {
        PmiKeys.checkText("key", key, false);
        return fetch(key);
    }

    /**
     * Asks the process manager to end the whole job (see the subclass for what its protocol
     * carries); no answer is awaited, and the connection is unusable afterwards.
     */
    @Override
    public final synchronized void abort(int code, String message) {
        String msg = PmiKeys.printable(message);
        exchange(() -> {
            sendAbort(code, msg, PmiKeys.deadlineAfter(ABORT_BOUND));
            return null;
        });
        fail(new RailyardException(ErrorClass.BOOTSTRAP, "this process asked the " + conn.describe()
                + " to abort the job: " + msg));
    }

    /**
     * Says goodbye to the server ({@link #finish}), bounded, then releases the connection.
     * Idempotent; skips the exchange when the connection already broke.
     *
     * @throws RailyardException TIMEOUT or BOOTSTRAP if the server did not acknowledge (the
     *         connection is released all the same)
     */
    @Override
    public final synchronized void close() {
        if (guard.closed()) {
            return;
        }
        try {
            if (guard.inStep()) {
                finish();
            }
        } finally {
            guard.markClosed();
            conn.close();
        }
    }

    @Override
    public String toString() {
        return name() + " rank " + rank + " of " + size + " in job " + jobId + " via the " + conn.describe();
    }

    /** Runs a step of an exchange with the server; a failure leaves the connection out of step. */
    protected final <T> T exchange(PmiGuard.Step<T> step) {
        return guard.exchange(step);
    }

    /** Marks the connection out of step by {@code e} and returns it. */
    protected final RailyardException fail(RailyardException e) {
        return guard.fail(e);
    }
}
