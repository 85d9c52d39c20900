package org.railyard;

/**
 * What a completed receive (or a probe) tells: who sent, with which tag, and how much. A caller who
 * wants no allocation per message passes its own {@code Status} to {@link Comm#recv(Object, int, int,
 * int, int, Status)} and reads it back.
 */
public final class Status implements org.railyard.engine.request.StatusSink {
    int source = -1;
    int tag = -1;
    long bytes;
    int elementSize = 1;
    boolean cancelled;
    int index = -1;

    public Status() {
    }

    Status(int source, int tag, long bytes, int elementSize) {
        set(source, tag, bytes, elementSize);
    }

    @Override
    public void setStatus(int source, int tag, long bytes, int elementSize) {
        set(source, tag, bytes, elementSize);
    }

    void set(int source, int tag, long bytes, int elementSize) {
        this.source = source;
        this.tag = tag;
        this.bytes = bytes;
        this.elementSize = elementSize;
        this.cancelled = false;
    }

    /** Rank of the sender in the communicator of the receive. */
    public int source() {
        return source;
    }

    /** Tag of the message. */
    public int tag() {
        return tag;
    }

    /** Length of the message in bytes. */
    public long bytes() {
        return bytes;
    }

    /** Number of whole elements of the receive's datatype in the message. */
    public int count() {
        return (int) (bytes / elementSize);
    }

    /** Number of whole elements of {@code type} in the message. */
    public int count(Datatype type) {
        return (int) (bytes / type.size());
    }

    /** True if the request this status belongs to was cancelled before it matched. */
    public boolean cancelled() {
        return cancelled;
    }

    /** For the any/some waits: the index of the request in the array passed in; -1 otherwise. */
    public int index() {
        return index;
    }

    @Override
    public String toString() {
        return "Status[source=" + source + ", tag=" + tag + ", bytes=" + bytes + (cancelled ? ", cancelled" : "") + "]";
    }
}
