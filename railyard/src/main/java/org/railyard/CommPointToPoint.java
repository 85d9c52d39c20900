package org.railyard;

import org.railyard.engine.Engine;
import org.railyard.types.Kind;
import org.railyard.engine.request.Transfer;
import org.railyard.engine.comm.CommState;

/**
 * The point-to-point half of {@link Comm}: who this process is in the communicator, sends,
 * receives and probes. Part of Comm's public API (Comm is its only subclass); the contract of
 * every call is stated in Comm's class documentation.
 */
abstract sealed class CommPointToPoint permits CommCollectives {
    /** The engine this communicator runs on. */
    final Engine engine;
    /** The engine's side of this communicator. */
    final CommState state;

    CommPointToPoint(Engine engine, CommState state) {
        this.engine = engine;
        this.state = state;
    }

    /** This process's rank in the communicator. */
    public int rank() {
        return state.rank();
    }

    /** Number of processes in the communicator (in the local group, for an intercommunicator). */
    public int size() {
        return state.localSize();
    }

    /** A name for messages: "WORLD", "SELF", or derived names such as "WORLD.dup1". */
    public String name() {
        return state.name();
    }

    /** The rank in the world communicator of this communicator's rank {@code rank}. */
    public int worldRank(int rank) {
        return state.worldRank(rank);
    }

    /** The engine's communicator state (the API's own classes only). */
    CommState state() {
        return state;
    }

    /**
     * The context id that keeps this communicator's messages apart from every other
     * communicator's (what MPJ Express's mpjdev layer calls a communicator's context); equal at
     * every member, different for every communicator alive at once.
     */
    public int contextId() {
        return state.context();
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

}
