package org.railyard.transport;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Supplier;

/**
 * What a transport learns about its process at start, and a place where the transports of one
 * process share an object without knowing each other (the ring transports' one {@link Bell}).
 */
public final class TransportEnv {
    private final int rank;
    private final int size;
    private final String jobId;
    private final String node;
    private final boolean bells;
    private byte[] secret = new byte[0];
    private final Map<Class<?>, Object> shared = new ConcurrentHashMap<>();

    /**
     * @param rank  this process's world rank
     * @param size  number of processes in the job
     * @param jobId the job's identifier (printable)
     * @param node  identity of this node (processes with equal node share memory)
     * @param bells true if waiters may sleep on a {@link Bell} ({@code railyard.doorbell})
     */
    public TransportEnv(int rank, int size, String jobId, String node, boolean bells) {
        this.rank = rank;
        this.size = size;
        this.jobId = jobId;
        this.node = node;
        this.bells = bells;
    }

    /** An environment whose bells never sleep (transports tested alone). */
    public TransportEnv(int rank, int size, String jobId, String node) {
        this(rank, size, jobId, node, false);
    }

    public int rank() { return rank; }
    public int size() { return size; }
    public String jobId() { return jobId; }
    public String node() { return node; }

    /**
     * The job secret, for transports whose intermediary checks it (relay, gateway); empty when
     * the environment was made without one (transports tested alone).
     */
    public byte[] secret() { return secret.clone(); }

    /** Sets the job secret (the channel table does, before starting the transports). */
    public TransportEnv secret(byte[] jobSecret) {
        this.secret = jobSecret.clone();
        return this;
    }

    /** True if waiters may sleep on a bell (the setting; whether futexes work is the bell's business). */
    public boolean bells() { return bells; }

    /**
     * The one object of {@code type} that the transports of this process share, made by the
     * first to ask.
     */
    public <T> T shared(Class<T> type, Supplier<? extends T> make) {
        return type.cast(shared.computeIfAbsent(type, t -> make.get()));
    }
}
