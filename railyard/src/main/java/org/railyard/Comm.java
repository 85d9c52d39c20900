package org.railyard;

import org.railyard.engine.CommState;
import org.railyard.engine.Engine;
import org.railyard.engine.Kind;
import org.railyard.engine.Transfer;

/**
 * A communicator: a group of processes, each with a rank in [0, size), and a private matching
 * context so that messages of one communicator never match receives of another.
 *
 * <p>Buffers are Java primitive arrays, {@link java.nio.ByteBuffer}s (addressed absolutely from
 * index 0; position and limit are ignored) or {@link java.lang.foreign.MemorySegment}s. Offsets and
 * counts are in elements of the buffer's type, inferred from the buffer ({@code double[]} moves
 * doubles), or given explicitly with a {@link Datatype}. Messages are typed by bytes: a receive
 * accepts any message whose length fits its buffer.
 *
 * <p>Ranks are in [0, size) or {@link #PROC_NULL} (the call does nothing); receives and probes also
 * take {@link #ANY_SOURCE}. Tags are in [0, {@link #TAG_UB}]; receives also take {@link #ANY_TAG}.
 * A message longer than the receive buffer fails the receive with
 * {@link org.railyard.error.ErrorClass#TRUNCATE}. Messages between one pair of processes on one
 * communicator are received in the order they were sent.
 *
 * <p>Every method may be called from several threads at once (the engine serialises them).
 */
public final class Comm {
    /** Wildcard source for receives and probes. */
    public static final int ANY_SOURCE = Engine.ANY_SOURCE;
    /** Wildcard tag for receives and probes. */
    public static final int ANY_TAG = Engine.ANY_TAG;
    /** The null process: sends to it and receives from it complete at once and move nothing. */
    public static final int PROC_NULL = Engine.PROC_NULL;
    /** The largest tag a program may use. */
    public static final int TAG_UB = Engine.TAG_UB;

    final Engine engine;
    final CommState state;

    Comm(Engine engine, CommState state) {
        this.engine = engine;
        this.state = state;
    }

    /** This process's rank in the communicator. */
    public int rank() {
        return state.rank();
    }

    /** Number of processes in the communicator. */
    public int size() {
        return state.size();
    }

    /** A name for messages: "WORLD", "SELF", or derived names such as "WORLD.dup1". */
    public String name() {
        return state.name();
    }

    /** The rank in the world communicator of this communicator's rank {@code rank}. */
    public int worldRank(int rank) {
        return state.worldRank(rank);
    }

    /** The engine's communicator state; for the facades built on this API. */
    public CommState state() {
        return state;
    }

    // ---------------------------------------------------------------- point to point, blocking

    /** Standard-mode send of {@code count} elements of {@code buf} from {@code offset}. */
    public void send(Object buf, int offset, int count, int dest, int tag) {
        engine.send(state, buf, Kind.ofBuffer(buf), offset, count, dest, tag, Engine.MODE_STANDARD);
    }

    /** Standard-mode send with an explicit element type. */
    public void send(Object buf, int offset, int count, Datatype type, int dest, int tag) {
        engine.send(state, buf, type.kind(), offset, count, dest, tag, Engine.MODE_STANDARD);
    }

    /** Synchronous-mode send: returns only once the matching receive has started. */
    public void ssend(Object buf, int offset, int count, int dest, int tag) {
        engine.send(state, buf, Kind.ofBuffer(buf), offset, count, dest, tag, Engine.MODE_SYNC);
    }

    /** Synchronous-mode send with an explicit element type. */
    public void ssend(Object buf, int offset, int count, Datatype type, int dest, int tag) {
        engine.send(state, buf, type.kind(), offset, count, dest, tag, Engine.MODE_SYNC);
    }

    /** Receives into {@code buf}; returns a new status. */
    public Status recv(Object buf, int offset, int count, int source, int tag) {
        Status st = new Status();
        engine.recv(state, buf, Kind.ofBuffer(buf), offset, count, source, tag, st);
        return st;
    }

    /** Receives into {@code buf}, writing the status into {@code status} (no allocation). */
    public void recv(Object buf, int offset, int count, int source, int tag, Status status) {
        engine.recv(state, buf, Kind.ofBuffer(buf), offset, count, source, tag, status);
    }

    /** Receives with an explicit element type. */
    public Status recv(Object buf, int offset, int count, Datatype type, int source, int tag) {
        Status st = new Status();
        engine.recv(state, buf, type.kind(), offset, count, source, tag, st);
        return st;
    }

    /** Sends one message and receives one, without deadlock whatever the order of the peers. */
    public Status sendrecv(Object sendbuf, int sendoffset, int sendcount, int dest, int sendtag,
                           Object recvbuf, int recvoffset, int recvcount, int source, int recvtag) {
        Request r = irecv(recvbuf, recvoffset, recvcount, source, recvtag);
        send(sendbuf, sendoffset, sendcount, dest, sendtag);
        return r.await();
    }

    // ---------------------------------------------------------------- point to point, non-blocking

    /** Non-blocking standard-mode send. The buffer must not change until the request completes. */
    public Request isend(Object buf, int offset, int count, int dest, int tag) {
        return wrap(engine.isend(state, buf, Kind.ofBuffer(buf), offset, count, dest, tag, Engine.MODE_STANDARD));
    }

    public Request isend(Object buf, int offset, int count, Datatype type, int dest, int tag) {
        return wrap(engine.isend(state, buf, type.kind(), offset, count, dest, tag, Engine.MODE_STANDARD));
    }

    /** Non-blocking synchronous-mode send: completes once the matching receive has started. */
    public Request issend(Object buf, int offset, int count, int dest, int tag) {
        return wrap(engine.isend(state, buf, Kind.ofBuffer(buf), offset, count, dest, tag, Engine.MODE_SYNC));
    }

    public Request issend(Object buf, int offset, int count, Datatype type, int dest, int tag) {
        return wrap(engine.isend(state, buf, type.kind(), offset, count, dest, tag, Engine.MODE_SYNC));
    }

    /** Non-blocking receive. */
    public Request irecv(Object buf, int offset, int count, int source, int tag) {
        return wrap(engine.irecv(state, buf, Kind.ofBuffer(buf), offset, count, source, tag));
    }

    public Request irecv(Object buf, int offset, int count, Datatype type, int source, int tag) {
        return wrap(engine.irecv(state, buf, type.kind(), offset, count, source, tag));
    }

    private Request wrap(Transfer t) {
        return new Request(engine, t);
    }

    // ---------------------------------------------------------------- probe

    /** Waits until a matching message can be received, and describes it without receiving it. */
    public Status probe(int source, int tag) {
        Status st = new Status();
        engine.probe(state, source, tag, st);
        return st;
    }

    /** Describes a matching message if one can be received now; null otherwise. */
    public Status iprobe(int source, int tag) {
        Status st = new Status();
        return engine.iprobe(state, source, tag, st) ? st : null;
    }

    // ---------------------------------------------------------------- collectives

    /** Returns once every process of the communicator has called it. */
    public void barrier() {
        engine.barrier(state);
    }

    /** Copies {@code count} elements of root's buffer into everyone's. */
    public void bcast(Object buf, int offset, int count, int root) {
        engine.bcast(state, buf, Kind.ofBuffer(buf), offset, count, root);
    }

    public void bcast(Object buf, int offset, int count, Datatype type, int root) {
        engine.bcast(state, buf, type.kind(), offset, count, root);
    }

    /** Combines everyone's {@code sendbuf} element-wise with {@code op}, in rank order, into root's {@code recvbuf}. */
    public void reduce(Object sendbuf, int sendoffset, Object recvbuf, int recvoffset, int count, Op op, int root) {
        engine.reduce(state, sendbuf, sendoffset, recvbuf, recvoffset, count, Kind.ofBuffer(sendbuf), op.reduction(), root);
    }

    public void reduce(Object sendbuf, int sendoffset, Object recvbuf, int recvoffset, int count, Datatype type, Op op, int root) {
        engine.reduce(state, sendbuf, sendoffset, recvbuf, recvoffset, count, type.kind(), op.reduction(), root);
    }

    /** Like {@link #reduce}, with the result delivered to every process. */
    public void allreduce(Object sendbuf, int sendoffset, Object recvbuf, int recvoffset, int count, Op op) {
        engine.allreduce(state, sendbuf, sendoffset, recvbuf, recvoffset, count, Kind.ofBuffer(sendbuf), op.reduction());
    }

    public void allreduce(Object sendbuf, int sendoffset, Object recvbuf, int recvoffset, int count, Datatype type, Op op) {
        engine.allreduce(state, sendbuf, sendoffset, recvbuf, recvoffset, count, type.kind(), op.reduction());
    }

    /** Convenience: the sum (or other op) of one double over the communicator, at every process. */
    public double allreduce(double value, Op op) {
        double[] v = {value};
        double[] r = new double[1];
        allreduce(v, 0, r, 0, 1, op);
        return r[0];
    }

    /** Convenience: one long over the communicator, at every process. */
    public long allreduce(long value, Op op) {
        long[] v = {value};
        long[] r = new long[1];
        allreduce(v, 0, r, 0, 1, op);
        return r[0];
    }

    // ---------------------------------------------------------------- communicators

    /** Collective: a new communicator with the same group and a fresh context. */
    public Comm dup() {
        return new Comm(engine, engine.dup(state));
    }

    /**
     * Collective: splits into one communicator per {@code color}, ranks ordered by {@code key} then
     * by rank here. A process passing {@link #UNDEFINED} gets null.
     */
    public Comm split(int color, int key) {
        CommState s = engine.split(state, color, key);
        return s == null ? null : new Comm(engine, s);
    }

    /** Color for {@link #split} of a process that wants no new communicator. */
    public static final int UNDEFINED = Engine.UNDEFINED;

    /** Marks the communicator unusable; later calls on it fail with a COMM error. */
    public void free() {
        engine.free(state);
    }

    @Override
    public String toString() {
        return "Comm[" + name() + ", rank " + rank() + " of " + size() + "]";
    }
}
