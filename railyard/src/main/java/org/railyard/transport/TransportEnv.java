package org.railyard.transport;

/**
 * What a transport learns about its process at start.
 *
 * @param rank this process's world rank
 * @param size number of processes in the job
 * @param jobId the job's identifier (printable)
 * @param node identity of this node (processes with equal node share memory)
 */
public record TransportEnv(int rank, int size, String jobId, String node) {
}
