package org.railyard.transport;

/**
 * What a transport learns about its process at start.
 *
 * @param rank this process's world rank
 * @param size number of processes in the job
 * @param jobId the job's identifier (printable)
 * @param node identity of this node (processes with equal node share memory)
 * @param doorbell where links of shared memory register the bells waiters of this process sleep on
 */
public record TransportEnv(int rank, int size, String jobId, String node, Doorbell doorbell) {
    /** An environment whose doorbell never sleeps (transports tested alone). */
    public TransportEnv(int rank, int size, String jobId, String node) {
        this(rank, size, jobId, node, new Doorbell(false));
    }
}
