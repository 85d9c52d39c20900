package org.railyard.engine.request;

/** Where the engine writes what a completed receive or a probe found, without allocating. */
public interface StatusSink {
    /**
     * @param source sender's rank in the communicator of the receive
     * @param tag the message's tag
     * @param bytes the message's length in bytes
     * @param elementSize bytes per element of the receive's datatype
     */
    void setStatus(int source, int tag, long bytes, int elementSize);
}
