package org.railyard.bootstrap;

import java.time.Duration;

/**
 * How a process learns who it is in a job and finds its peers: a key-value space shared by the
 * job, with a collective fence. Implementations: the Railyard launcher's key-value server
 * ({@link KvBootstrap}), MPICH Hydra's PMI-1 ({@link Pmi1Bootstrap}), Slurm's and Hydra's PMI-2
 * ({@link Pmi2Bootstrap}), and a process started alone ({@link SingletonBootstrap}). {@link Bootstraps#detect()} picks one from the environment.
 *
 * <p>Protocol of use: every process {@link #put}s its own keys, calls {@link #fence()} once, and may
 * then {@link #get} any key put before the fence by any process. Keys and values are printable
 * ASCII without spaces, '=' or newlines (values are encoded by the caller where needed).
 */
public interface Bootstrap extends AutoCloseable {

    /** This process's rank in the job, in [0, size). */
    int rank();

    /** Number of processes in the job. */
    int size();

    /** Identifier of the job, equal in every process of the job; printable, no spaces. */
    String jobId();

    /**
     * The job secret, equal in every process of the job and unknown outside it. Under the Railyard
     * launcher it is created by the launcher and handed over in the environment; under PMI, rank 0
     * draws it and publishes it through the key-value space before the first fence.
     */
    byte[] jobSecret();

    /** Publishes a key; visible to others after the next {@link #fence()}. */
    void put(String key, String value);

    /** Collective: waits until every process of the job has reached it, bounded by {@code timeout}. */
    void fence(Duration timeout);

    /** Default-bounded fence. */
    default void fence() {
        fence(Bootstraps.DEFAULT_TIMEOUT);
    }

    /**
     * Reads a key put by any process before the last fence.
     *
     * @throws org.railyard.error.RailyardException (BOOTSTRAP) if absent or the server is gone
     */
    String get(String key);

    /**
     * The values of {@code keys}, in their order, each as {@link #get} reads it; a mechanism with
     * a bulk read ({@link KvBootstrap}) takes a few requests for all of them instead of one per key.
     *
     * @throws org.railyard.error.RailyardException as {@link #get}, for the first key that fails
     */
    default java.util.List<String> getAll(java.util.List<String> keys) {
        java.util.List<String> values = new java.util.ArrayList<>(keys.size());
        for (String k : keys) {
            values.add(get(k));
        }
        return values;
    }

    /** Name of the mechanism, printed by {@code --print-choices}: "railyard-kv", "pmi-1", "pmi-2", "singleton". */
    String name();

    /**
     * The node index of every rank as the process manager gave it (PMI-2's
     * {@code PMI_process_mapping}), without any exchange; null when the mechanism gives none.
     * Ranks with equal indexes share a node. The address cards remain the authority on node
     * identity (a host name and boot id); this is what the manager planned.
     */
    default int[] nodeOfRank() {
        return null;
    }

    /**
     * Asks the job's manager to end the whole job because this process aborts with {@code code}
     * ({@code message} for its log); returns once the request is sent, bounded by
     * {@link #ABORT_BOUND}, after which the caller exits with the code. The default does nothing:
     * a manager that speaks no abort (the Railyard launcher) learns from the exit code and stops
     * the other ranks itself. The connection is unusable afterwards.
     *
     * @throws org.railyard.error.RailyardException BOOTSTRAP or TIMEOUT if the request could not be sent
     */
    default void abort(int code, String message) {
    }

    /** How long {@link #abort} may wait to send its request. */
    Duration ABORT_BOUND = Duration.ofSeconds(5);

    /** Tells the job's manager this process ends normally; releases sockets. */
    @Override
    void close();
}
