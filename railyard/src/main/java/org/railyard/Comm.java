package org.railyard;

import org.railyard.engine.Engine;
import org.railyard.engine.Kind;
import org.railyard.engine.Transfer;
import org.railyard.engine.coll.Collectives;
import org.railyard.engine.comm.CartTopology;
import org.railyard.engine.comm.CommState;
import org.railyard.engine.comm.Communicators;
import org.railyard.engine.comm.GraphTopology;
import org.railyard.engine.comm.Topology;
import org.railyard.error.ErrorClass;
import org.railyard.error.RailyardException;

/**
 * A communicator: a group of processes, each with a rank in [0, size), and a private matching
 * context so that messages of one communicator never match receives of another.
 *
 * <p>Buffers are Java primitive arrays, {@link java.nio.ByteBuffer}s (addressed absolutely from
 * index 0; position and limit are ignored) or {@link java.lang.foreign.MemorySegment}s of an arena
 * any thread may use ({@code Arena.ofShared()}, {@code ofAuto()}, {@code global()}: the library's
 * progress thread, or another thread's wait, may move a message's bytes; a segment of
 * {@code Arena.ofConfined()} is refused with a BUFFER error). Offsets and counts are in elements
 * of the buffer's type, inferred from the buffer ({@code double[]} moves doubles), or given
 * explicitly with a {@link Datatype}. Messages are typed by bytes: a receive accepts any message
 * whose length fits its buffer.
 *
 * <p>Ranks are in [0, size) or {@link #PROC_NULL} (the call does nothing); receives and probes also
 * take {@link #ANY_SOURCE}. Tags are in [0, {@link #TAG_UB}]; receives also take {@link #ANY_TAG}.
 * A message longer than the receive buffer fails the receive with
 * {@link org.railyard.error.ErrorClass#TRUNCATE}. Messages between one pair of processes on one
 * communicator are received in the order they were sent.
 *
 * <p>Collectives: every member calls each collective of a communicator, in the same order. Each
 * has a blocking form and a non-blocking one ({@code ibcast}, ...) returning a {@link Request};
 * several may be outstanding on one communicator, and they progress while the program computes
 * (the engine's progress agent advances them), not only while it waits. The algorithm is chosen
 * by message size and process count and can be printed: see
 * {@link org.railyard.engine.coll.Collectives}. Send and receive arguments that MPI calls significant
 * only at the root (the receive side of gather, the send side of scatter) may be null elsewhere.
 * Counts of the v-variants are per rank; displacements are in elements from the offset.
 *
 * <p>An intercommunicator ({@link #isInter()}, from {@link #createIntercomm}) joins two groups:
 * point-to-point ranks name the remote group, {@link #size()} and {@link #rank()} are about the
 * local group, and barrier, bcast, allreduce, allgather(v), alltoall(v, w), gather(v),
 * scatter(v), reduce and reduce_scatter(_block) work across the groups: each process gets what the
 * other group gave (the root of bcast, gather, scatter and reduce passes {@link #ROOT}, the rest of
 * its group {@link #PROC_NULL}, and the other group the root's rank there; reduce_scatter spreads
 * the reduction of the other group's vectors over this group, its counts being per process of
 * this group). Scan, exscan and the neighbourhood collectives, which MPI defines within one
 * group only, are refused there.
 *
 * <p>Threads: every method may be called from several threads at once (the engine serialises
 * them; see {@link Railyard}), except that two threads must not start collectives on the same
 * communicator at the same time, as in MPI.
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
    /** The root argument of an intercommunicator broadcast at the root itself. */
    public static final int ROOT = Collectives.ROOT;

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

    private Collectives coll() {
        return engine.collectives();
    }

    private Request wrapColl(Transfer t) {
        return new Request(engine, t);
    }

    private static Kind kind(Datatype t) {
        if (t == null) {
            throw new RailyardException(ErrorClass.TYPE, "datatype is null");
        }
        return t.kind();
    }

    /**
     * The kind of {@code buf}, or of {@code other} when {@code buf} is null: the root of an
     * intercommunicator gather or reduce has nothing to send, that of a scatter nothing to
     * receive, and the rest of the root's group neither. With both null, the collective's own
     * checks name the missing buffer where it matters.
     */
    private static Kind kindOf(Object buf, Object other) {
        return buf == null && other == null ? Kind.BYTE : Kind.ofBuffer(buf != null ? buf : other);
    }

    private static Kind kindOr(Object buf, Kind dflt) {
        return buf == null ? dflt : Kind.ofBuffer(buf);
    }

    /** Returns once every process of the communicator has called it. */
    public void barrier() {
        coll().barrier(state);
    }

    /** Non-blocking barrier: completes once every process has started it. */
    public Request ibarrier() {
        return wrapColl(coll().ibarrier(state));
    }

    /** Copies {@code count} elements of root's buffer into everyone's. */
    public void bcast(Object buf, int offset, int count, int root) {
        coll().bcast(state, buf, kindOr(buf, Kind.BYTE), offset, count, root);
    }

    public void bcast(Object buf, int offset, int count, Datatype type, int root) {
        coll().bcast(state, buf, kind(type), offset, count, root);
    }

    public Request ibcast(Object buf, int offset, int count, int root) {
        return wrapColl(coll().ibcast(state, buf, kindOr(buf, Kind.BYTE), offset, count, root));
    }

    public Request ibcast(Object buf, int offset, int count, Datatype type, int root) {
        return wrapColl(coll().ibcast(state, buf, kind(type), offset, count, root));
    }

    /** Combines everyone's {@code sendbuf} element-wise with {@code op}, in rank order, into root's {@code recvbuf}. */
    public void reduce(Object sendbuf, int sendoffset, Object recvbuf, int recvoffset, int count, Op op, int root) {
        coll().reduce(state, sendbuf, sendoffset, recvbuf, recvoffset, count, kindOf(sendbuf, recvbuf), op.reduction(), root);
    }

    public void reduce(Object sendbuf, int sendoffset, Object recvbuf, int recvoffset, int count, Datatype type, Op op, int root) {
        coll().reduce(state, sendbuf, sendoffset, recvbuf, recvoffset, count, kind(type), op.reduction(), root);
    }

    public Request ireduce(Object sendbuf, int sendoffset, Object recvbuf, int recvoffset, int count, Op op, int root) {
        return wrapColl(coll().ireduce(state, sendbuf, sendoffset, recvbuf, recvoffset, count, kindOf(sendbuf, recvbuf),
                op.reduction(), root));
    }

    public Request ireduce(Object sendbuf, int sendoffset, Object recvbuf, int recvoffset, int count, Datatype type, Op op,
                           int root) {
        return wrapColl(coll().ireduce(state, sendbuf, sendoffset, recvbuf, recvoffset, count, kind(type), op.reduction(), root));
    }

    /** Like {@link #reduce}, with the result delivered to every process. */
    public void allreduce(Object sendbuf, int sendoffset, Object recvbuf, int recvoffset, int count, Op op) {
        coll().allreduce(state, sendbuf, sendoffset, recvbuf, recvoffset, count, Kind.ofBuffer(sendbuf), op.reduction());
    }

    public void allreduce(Object sendbuf, int sendoffset, Object recvbuf, int recvoffset, int count, Datatype type, Op op) {
        coll().allreduce(state, sendbuf, sendoffset, recvbuf, recvoffset, count, kind(type), op.reduction());
    }

    public Request iallreduce(Object sendbuf, int sendoffset, Object recvbuf, int recvoffset, int count, Op op) {
        return wrapColl(coll().iallreduce(state, sendbuf, sendoffset, recvbuf, recvoffset, count, Kind.ofBuffer(sendbuf),
                op.reduction()));
    }

    public Request iallreduce(Object sendbuf, int sendoffset, Object recvbuf, int recvoffset, int count, Datatype type, Op op) {
        return wrapColl(coll().iallreduce(state, sendbuf, sendoffset, recvbuf, recvoffset, count, kind(type), op.reduction()));
    }

    /**
     * Convenience: the sum (or other op) of one double over the communicator, at every process.
     * Allocates nothing: the value and the result go through two elements kept per thread.
     */
    public double allreduce(double value, Op op) {
        double[] v = ONE_DOUBLE.get();
        v[0] = value;
        allreduce(v, 0, v, 1, 1, op);
        return v[1];
    }

    /** Convenience: one long over the communicator, at every process; allocates nothing, as {@link #allreduce(double, Op)}. */
    public long allreduce(long value, Op op) {
        long[] v = ONE_LONG.get();
        v[0] = value;
        allreduce(v, 0, v, 1, 1, op);
        return v[1];
    }

    /** The two elements (value, result) of the one-value allreduces, per thread. */
    private static final ThreadLocal<double[]> ONE_DOUBLE = ThreadLocal.withInitial(() -> new double[2]);
    private static final ThreadLocal<long[]> ONE_LONG = ThreadLocal.withInitial(() -> new long[2]);

    /**
     * Reduces everyone's {@code sendbuf} of {@code sum(recvcounts)} elements, then scatters it:
     * rank r receives block r, {@code recvcounts[r]} elements, into {@code recvbuf}.
     */
    public void reduceScatter(Object sendbuf, int sendoffset, Object recvbuf, int recvoffset, int[] recvcounts, Op op) {
        coll().reduceScatter(state, sendbuf, sendoffset, recvbuf, recvoffset, recvcounts, Kind.ofBuffer(sendbuf), op.reduction());
    }

    public void reduceScatter(Object sendbuf, int sendoffset, Object recvbuf, int recvoffset, int[] recvcounts, Datatype type,
                              Op op) {
        coll().reduceScatter(state, sendbuf, sendoffset, recvbuf, recvoffset, recvcounts, kind(type), op.reduction());
    }

    public Request ireduceScatter(Object sendbuf, int sendoffset, Object recvbuf, int recvoffset, int[] recvcounts, Op op) {
        return wrapColl(coll().ireduceScatter(state, sendbuf, sendoffset, recvbuf, recvoffset, recvcounts,
                Kind.ofBuffer(sendbuf), op.reduction()));
    }

    public Request ireduceScatter(Object sendbuf, int sendoffset, Object recvbuf, int recvoffset, int[] recvcounts,
                                  Datatype type, Op op) {
        return wrapColl(coll().ireduceScatter(state, sendbuf, sendoffset, recvbuf, recvoffset, recvcounts, kind(type),
                op.reduction()));
    }

    /** {@link #reduceScatter} with {@code recvcount} elements for every rank. */
    public void reduceScatterBlock(Object sendbuf, int sendoffset, Object recvbuf, int recvoffset, int recvcount, Op op) {
        coll().reduceScatterBlock(state, sendbuf, sendoffset, recvbuf, recvoffset, recvcount, Kind.ofBuffer(sendbuf),
                op.reduction());
    }

    public void reduceScatterBlock(Object sendbuf, int sendoffset, Object recvbuf, int recvoffset, int recvcount,
                                   Datatype type, Op op) {
        coll().reduceScatterBlock(state, sendbuf, sendoffset, recvbuf, recvoffset, recvcount, kind(type), op.reduction());
    }

    public Request ireduceScatterBlock(Object sendbuf, int sendoffset, Object recvbuf, int recvoffset, int recvcount, Op op) {
        return wrapColl(coll().ireduceScatterBlock(state, sendbuf, sendoffset, recvbuf, recvoffset, recvcount,
                Kind.ofBuffer(sendbuf), op.reduction()));
    }

    public Request ireduceScatterBlock(Object sendbuf, int sendoffset, Object recvbuf, int recvoffset, int recvcount,
                                       Datatype type, Op op) {
        return wrapColl(coll().ireduceScatterBlock(state, sendbuf, sendoffset, recvbuf, recvoffset, recvcount, kind(type),
                op.reduction()));
    }

    /** Inclusive prefix reduction: rank r receives the reduction of ranks 0 to r, in rank order. */
    public void scan(Object sendbuf, int sendoffset, Object recvbuf, int recvoffset, int count, Op op) {
        coll().scan(state, sendbuf, sendoffset, recvbuf, recvoffset, count, Kind.ofBuffer(sendbuf), op.reduction());
    }

    public void scan(Object sendbuf, int sendoffset, Object recvbuf, int recvoffset, int count, Datatype type, Op op) {
        coll().scan(state, sendbuf, sendoffset, recvbuf, recvoffset, count, kind(type), op.reduction());
    }

    public Request iscan(Object sendbuf, int sendoffset, Object recvbuf, int recvoffset, int count, Op op) {
        return wrapColl(coll().iscan(state, sendbuf, sendoffset, recvbuf, recvoffset, count, Kind.ofBuffer(sendbuf),
                op.reduction()));
    }

    public Request iscan(Object sendbuf, int sendoffset, Object recvbuf, int recvoffset, int count, Datatype type, Op op) {
        return wrapColl(coll().iscan(state, sendbuf, sendoffset, recvbuf, recvoffset, count, kind(type), op.reduction()));
    }

    /** Exclusive prefix reduction: rank r receives the reduction of ranks 0 to r - 1; rank 0's recvbuf is left as it was. */
    public void exscan(Object sendbuf, int sendoffset, Object recvbuf, int recvoffset, int count, Op op) {
        coll().exscan(state, sendbuf, sendoffset, recvbuf, recvoffset, count, Kind.ofBuffer(sendbuf), op.reduction());
    }

    public void exscan(Object sendbuf, int sendoffset, Object recvbuf, int recvoffset, int count, Datatype type, Op op) {
        coll().exscan(state, sendbuf, sendoffset, recvbuf, recvoffset, count, kind(type), op.reduction());
    }

    public Request iexscan(Object sendbuf, int sendoffset, Object recvbuf, int recvoffset, int count, Op op) {
        return wrapColl(coll().iexscan(state, sendbuf, sendoffset, recvbuf, recvoffset, count, Kind.ofBuffer(sendbuf),
                op.reduction()));
    }

    public Request iexscan(Object sendbuf, int sendoffset, Object recvbuf, int recvoffset, int count, Datatype type, Op op) {
        return wrapColl(coll().iexscan(state, sendbuf, sendoffset, recvbuf, recvoffset, count, kind(type), op.reduction()));
    }

    /** Root receives everyone's {@code sendcount} elements, rank r's at {@code recvoffset + r * recvcount}. */
    public void gather(Object sendbuf, int sendoffset, int sendcount, Object recvbuf, int recvoffset, int recvcount, int root) {
        Kind sk = kindOf(sendbuf, recvbuf);
        coll().gather(state, sendbuf, sendoffset, sendcount, sk, recvbuf, recvoffset, recvcount, kindOr(recvbuf, sk), root);
    }

    public void gather(Object sendbuf, int sendoffset, int sendcount, Datatype sendtype, Object recvbuf, int recvoffset,
                       int recvcount, Datatype recvtype, int root) {
        coll().gather(state, sendbuf, sendoffset, sendcount, kind(sendtype), recvbuf, recvoffset, recvcount,
                recvtype == null ? kind(sendtype) : recvtype.kind(), root);
    }

    public Request igather(Object sendbuf, int sendoffset, int sendcount, Object recvbuf, int recvoffset, int recvcount,
                           int root) {
        Kind sk = kindOf(sendbuf, recvbuf);
        return wrapColl(coll().igather(state, sendbuf, sendoffset, sendcount, sk, recvbuf, recvoffset, recvcount,
                kindOr(recvbuf, sk), root));
    }

    public Request igather(Object sendbuf, int sendoffset, int sendcount, Datatype sendtype, Object recvbuf, int recvoffset,
                           int recvcount, Datatype recvtype, int root) {
        return wrapColl(coll().igather(state, sendbuf, sendoffset, sendcount, kind(sendtype), recvbuf, recvoffset, recvcount,
                recvtype == null ? kind(sendtype) : recvtype.kind(), root));
    }

    /** Root receives {@code sendcount} elements from each rank r at {@code recvoffset + displs[r]}, {@code recvcounts[r]} expected. */
    public void gatherv(Object sendbuf, int sendoffset, int sendcount, Object recvbuf, int recvoffset, int[] recvcounts,
                        int[] displs, int root) {
        Kind sk = Kind.ofBuffer(sendbuf);
        coll().gatherv(state, sendbuf, sendoffset, sendcount, sk, recvbuf, recvoffset, recvcounts, displs, kindOr(recvbuf, sk),
                root);
    }

    public void gatherv(Object sendbuf, int sendoffset, int sendcount, Datatype sendtype, Object recvbuf, int recvoffset,
                        int[] recvcounts, int[] displs, Datatype recvtype, int root) {
        coll().gatherv(state, sendbuf, sendoffset, sendcount, kind(sendtype), recvbuf, recvoffset, recvcounts, displs,
                recvtype == null ? kind(sendtype) : recvtype.kind(), root);
    }

    public Request igatherv(Object sendbuf, int sendoffset, int sendcount, Object recvbuf, int recvoffset, int[] recvcounts,
                            int[] displs, int root) {
        Kind sk = Kind.ofBuffer(sendbuf);
        return wrapColl(coll().igatherv(state, sendbuf, sendoffset, sendcount, sk, recvbuf, recvoffset, recvcounts, displs,
                kindOr(recvbuf, sk), root));
    }

    public Request igatherv(Object sendbuf, int sendoffset, int sendcount, Datatype sendtype, Object recvbuf, int recvoffset,
                            int[] recvcounts, int[] displs, Datatype recvtype, int root) {
        return wrapColl(coll().igatherv(state, sendbuf, sendoffset, sendcount, kind(sendtype), recvbuf, recvoffset, recvcounts,
                displs, recvtype == null ? kind(sendtype) : recvtype.kind(), root));
    }

    /** Each rank r receives root's {@code sendcount} elements at {@code sendoffset + r * sendcount}. */
    public void scatter(Object sendbuf, int sendoffset, int sendcount, Object recvbuf, int recvoffset, int recvcount, int root) {
        Kind rk = kindOf(recvbuf, sendbuf);
        coll().scatter(state, sendbuf, sendoffset, sendcount, kindOr(sendbuf, rk), recvbuf, recvoffset, recvcount, rk, root);
    }

    public void scatter(Object sendbuf, int sendoffset, int sendcount, Datatype sendtype, Object recvbuf, int recvoffset,
                        int recvcount, Datatype recvtype, int root) {
        coll().scatter(state, sendbuf, sendoffset, sendcount, sendtype == null ? kind(recvtype) : sendtype.kind(), recvbuf,
                recvoffset, recvcount, kind(recvtype), root);
    }

    public Request iscatter(Object sendbuf, int sendoffset, int sendcount, Object recvbuf, int recvoffset, int recvcount,
                            int root) {
        Kind rk = kindOf(recvbuf, sendbuf);
        return wrapColl(coll().iscatter(state, sendbuf, sendoffset, sendcount, kindOr(sendbuf, rk), recvbuf, recvoffset,
                recvcount, rk, root));
    }

    public Request iscatter(Object sendbuf, int sendoffset, int sendcount, Datatype sendtype, Object recvbuf, int recvoffset,
                            int recvcount, Datatype recvtype, int root) {
        return wrapColl(coll().iscatter(state, sendbuf, sendoffset, sendcount,
                sendtype == null ? kind(recvtype) : sendtype.kind(), recvbuf, recvoffset, recvcount, kind(recvtype), root));
    }

    /** Each rank r receives {@code sendcounts[r]} elements of root's buffer at {@code sendoffset + displs[r]}. */
    public void scatterv(Object sendbuf, int sendoffset, int[] sendcounts, int[] displs, Object recvbuf, int recvoffset,
                         int recvcount, int root) {
        Kind rk = Kind.ofBuffer(recvbuf);
        coll().scatterv(state, sendbuf, sendoffset, sendcounts, displs, kindOr(sendbuf, rk), recvbuf, recvoffset, recvcount,
                rk, root);
    }

    public void scatterv(Object sendbuf, int sendoffset, int[] sendcounts, int[] displs, Datatype sendtype, Object recvbuf,
                         int recvoffset, int recvcount, Datatype recvtype, int root) {
        coll().scatterv(state, sendbuf, sendoffset, sendcounts, displs, sendtype == null ? kind(recvtype) : sendtype.kind(),
                recvbuf, recvoffset, recvcount, kind(recvtype), root);
    }

    public Request iscatterv(Object sendbuf, int sendoffset, int[] sendcounts, int[] displs, Object recvbuf, int recvoffset,
                             int recvcount, int root) {
        Kind rk = Kind.ofBuffer(recvbuf);
        return wrapColl(coll().iscatterv(state, sendbuf, sendoffset, sendcounts, displs, kindOr(sendbuf, rk), recvbuf,
                recvoffset, recvcount, rk, root));
    }

    public Request iscatterv(Object sendbuf, int sendoffset, int[] sendcounts, int[] displs, Datatype sendtype,
                             Object recvbuf, int recvoffset, int recvcount, Datatype recvtype, int root) {
        return wrapColl(coll().iscatterv(state, sendbuf, sendoffset, sendcounts, displs,
                sendtype == null ? kind(recvtype) : sendtype.kind(), recvbuf, recvoffset, recvcount, kind(recvtype), root));
    }

    /** Everyone receives everyone's {@code sendcount} elements, rank r's at {@code recvoffset + r * recvcount}. */
    public void allgather(Object sendbuf, int sendoffset, int sendcount, Object recvbuf, int recvoffset, int recvcount) {
        coll().allgather(state, sendbuf, sendoffset, sendcount, Kind.ofBuffer(sendbuf), recvbuf, recvoffset, recvcount,
                Kind.ofBuffer(recvbuf));
    }

    public void allgather(Object sendbuf, int sendoffset, int sendcount, Datatype sendtype, Object recvbuf, int recvoffset,
                          int recvcount, Datatype recvtype) {
        coll().allgather(state, sendbuf, sendoffset, sendcount, kind(sendtype), recvbuf, recvoffset, recvcount, kind(recvtype));
    }

    public Request iallgather(Object sendbuf, int sendoffset, int sendcount, Object recvbuf, int recvoffset, int recvcount) {
        return wrapColl(coll().iallgather(state, sendbuf, sendoffset, sendcount, Kind.ofBuffer(sendbuf), recvbuf, recvoffset,
                recvcount, Kind.ofBuffer(recvbuf)));
    }

    public Request iallgather(Object sendbuf, int sendoffset, int sendcount, Datatype sendtype, Object recvbuf,
                              int recvoffset, int recvcount, Datatype recvtype) {
        return wrapColl(coll().iallgather(state, sendbuf, sendoffset, sendcount, kind(sendtype), recvbuf, recvoffset,
                recvcount, kind(recvtype)));
    }

    /** Everyone receives {@code recvcounts[r]} elements from each rank r at {@code recvoffset + displs[r]}. */
    public void allgatherv(Object sendbuf, int sendoffset, int sendcount, Object recvbuf, int recvoffset, int[] recvcounts,
                           int[] displs) {
        coll().allgatherv(state, sendbuf, sendoffset, sendcount, Kind.ofBuffer(sendbuf), recvbuf, recvoffset, recvcounts,
                displs, Kind.ofBuffer(recvbuf));
    }

    public void allgatherv(Object sendbuf, int sendoffset, int sendcount, Datatype sendtype, Object recvbuf, int recvoffset,
                           int[] recvcounts, int[] displs, Datatype recvtype) {
        coll().allgatherv(state, sendbuf, sendoffset, sendcount, kind(sendtype), recvbuf, recvoffset, recvcounts, displs,
                kind(recvtype));
    }

    public Request iallgatherv(Object sendbuf, int sendoffset, int sendcount, Object recvbuf, int recvoffset,
                               int[] recvcounts, int[] displs) {
        return wrapColl(coll().iallgatherv(state, sendbuf, sendoffset, sendcount, Kind.ofBuffer(sendbuf), recvbuf, recvoffset,
                recvcounts, displs, Kind.ofBuffer(recvbuf)));
    }

    public Request iallgatherv(Object sendbuf, int sendoffset, int sendcount, Datatype sendtype, Object recvbuf,
                               int recvoffset, int[] recvcounts, int[] displs, Datatype recvtype) {
        return wrapColl(coll().iallgatherv(state, sendbuf, sendoffset, sendcount, kind(sendtype), recvbuf, recvoffset,
                recvcounts, displs, kind(recvtype)));
    }

    /** Block r of everyone's {@code sendbuf} goes to rank r, which stores the block from rank s at {@code recvoffset + s * recvcount}. */
    public void alltoall(Object sendbuf, int sendoffset, int sendcount, Object recvbuf, int recvoffset, int recvcount) {
        coll().alltoall(state, sendbuf, sendoffset, sendcount, Kind.ofBuffer(sendbuf), recvbuf, recvoffset, recvcount,
                Kind.ofBuffer(recvbuf));
    }

    public void alltoall(Object sendbuf, int sendoffset, int sendcount, Datatype sendtype, Object recvbuf, int recvoffset,
                         int recvcount, Datatype recvtype) {
        coll().alltoall(state, sendbuf, sendoffset, sendcount, kind(sendtype), recvbuf, recvoffset, recvcount, kind(recvtype));
    }

    public Request ialltoall(Object sendbuf, int sendoffset, int sendcount, Object recvbuf, int recvoffset, int recvcount) {
        return wrapColl(coll().ialltoall(state, sendbuf, sendoffset, sendcount, Kind.ofBuffer(sendbuf), recvbuf, recvoffset,
                recvcount, Kind.ofBuffer(recvbuf)));
    }

    public Request ialltoall(Object sendbuf, int sendoffset, int sendcount, Datatype sendtype, Object recvbuf,
                             int recvoffset, int recvcount, Datatype recvtype) {
        return wrapColl(coll().ialltoall(state, sendbuf, sendoffset, sendcount, kind(sendtype), recvbuf, recvoffset,
                recvcount, kind(recvtype)));
    }

    /** Rank r receives {@code sendcounts[r]} elements at {@code sendoffset + sdispls[r]}; what rank s sends lands at {@code recvoffset + rdispls[s]}. */
    public void alltoallv(Object sendbuf, int sendoffset, int[] sendcounts, int[] sdispls, Object recvbuf, int recvoffset,
                          int[] recvcounts, int[] rdispls) {
        coll().alltoallv(state, sendbuf, sendoffset, sendcounts, sdispls, Kind.ofBuffer(sendbuf), recvbuf, recvoffset,
                recvcounts, rdispls, Kind.ofBuffer(recvbuf));
    }

    public void alltoallv(Object sendbuf, int sendoffset, int[] sendcounts, int[] sdispls, Datatype sendtype, Object recvbuf,
                          int recvoffset, int[] recvcounts, int[] rdispls, Datatype recvtype) {
        coll().alltoallv(state, sendbuf, sendoffset, sendcounts, sdispls, kind(sendtype), recvbuf, recvoffset, recvcounts,
                rdispls, kind(recvtype));
    }

    public Request ialltoallv(Object sendbuf, int sendoffset, int[] sendcounts, int[] sdispls, Object recvbuf,
                              int recvoffset, int[] recvcounts, int[] rdispls) {
        return wrapColl(coll().ialltoallv(state, sendbuf, sendoffset, sendcounts, sdispls, Kind.ofBuffer(sendbuf), recvbuf,
                recvoffset, recvcounts, rdispls, Kind.ofBuffer(recvbuf)));
    }

    public Request ialltoallv(Object sendbuf, int sendoffset, int[] sendcounts, int[] sdispls, Datatype sendtype,
                              Object recvbuf, int recvoffset, int[] recvcounts, int[] rdispls, Datatype recvtype) {
        return wrapColl(coll().ialltoallv(state, sendbuf, sendoffset, sendcounts, sdispls, kind(sendtype), recvbuf,
                recvoffset, recvcounts, rdispls, kind(recvtype)));
    }

    /**
     * The most general exchange: a count, a displacement and a type per peer. Displacements are in
     * elements of that peer's type from the start of the buffer (not bytes as in MPI: buffers are
     * addressed by element); mixing types needs a {@link java.nio.ByteBuffer} or
     * {@link java.lang.foreign.MemorySegment}.
     */
    public void alltoallw(Object sendbuf, int[] sendcounts, int[] sdispls, Datatype[] sendtypes, Object recvbuf,
                          int[] recvcounts, int[] rdispls, Datatype[] recvtypes) {
        coll().alltoallw(state, sendbuf, sendcounts, sdispls, kinds(sendtypes), recvbuf, recvcounts, rdispls, kinds(recvtypes));
    }

    public Request ialltoallw(Object sendbuf, int[] sendcounts, int[] sdispls, Datatype[] sendtypes, Object recvbuf,
                              int[] recvcounts, int[] rdispls, Datatype[] recvtypes) {
        return wrapColl(coll().ialltoallw(state, sendbuf, sendcounts, sdispls, kinds(sendtypes), recvbuf, recvcounts, rdispls,
                kinds(recvtypes)));
    }

    private static Kind[] kinds(Datatype[] types) {
        if (types == null) {
            throw new RailyardException(ErrorClass.TYPE, "datatypes are null");
        }
        Kind[] k = new Kind[types.length];
        for (int i = 0; i < k.length; i++) {
            k[i] = kind(types[i]);
        }
        return k;
    }

    /**
     * Topology communicators: sends {@code sendbuf} to every neighbour ({@link #neighbours()});
     * block j of {@code recvbuf} ({@code recvcount} elements) comes from neighbour j. Blocks of
     * missing neighbours (past the edge of a non-periodic grid) are left untouched.
     */
    public void neighbourAllgather(Object sendbuf, int sendoffset, int sendcount, Object recvbuf, int recvoffset,
                                   int recvcount) {
        coll().neighbourAllgather(state, sendbuf, sendoffset, sendcount, Kind.ofBuffer(sendbuf), recvbuf, recvoffset,
                recvcount, Kind.ofBuffer(recvbuf));
    }

    public void neighbourAllgather(Object sendbuf, int sendoffset, int sendcount, Datatype sendtype, Object recvbuf,
                                   int recvoffset, int recvcount, Datatype recvtype) {
        coll().neighbourAllgather(state, sendbuf, sendoffset, sendcount, kind(sendtype), recvbuf, recvoffset, recvcount,
                kind(recvtype));
    }

    public Request ineighbourAllgather(Object sendbuf, int sendoffset, int sendcount, Object recvbuf, int recvoffset,
                                       int recvcount) {
        return wrapColl(coll().ineighbourAllgather(state, sendbuf, sendoffset, sendcount, Kind.ofBuffer(sendbuf), recvbuf,
                recvoffset, recvcount, Kind.ofBuffer(recvbuf)));
    }

    public Request ineighbourAllgather(Object sendbuf, int sendoffset, int sendcount, Datatype sendtype, Object recvbuf,
                                       int recvoffset, int recvcount, Datatype recvtype) {
        return wrapColl(coll().ineighbourAllgather(state, sendbuf, sendoffset, sendcount, kind(sendtype), recvbuf, recvoffset,
                recvcount, kind(recvtype)));
    }

    /** Topology communicators: block j of {@code sendbuf} goes to neighbour j; block j of {@code recvbuf} comes from it. */
    public void neighbourAlltoall(Object sendbuf, int sendoffset, int sendcount, Object recvbuf, int recvoffset,
                                  int recvcount) {
        coll().neighbourAlltoall(state, sendbuf, sendoffset, sendcount, Kind.ofBuffer(sendbuf), recvbuf, recvoffset,
                recvcount, Kind.ofBuffer(recvbuf));
    }

    public void neighbourAlltoall(Object sendbuf, int sendoffset, int sendcount, Datatype sendtype, Object recvbuf,
                                  int recvoffset, int recvcount, Datatype recvtype) {
        coll().neighbourAlltoall(state, sendbuf, sendoffset, sendcount, kind(sendtype), recvbuf, recvoffset, recvcount,
                kind(recvtype));
    }

    public Request ineighbourAlltoall(Object sendbuf, int sendoffset, int sendcount, Object recvbuf, int recvoffset,
                                      int recvcount) {
        return wrapColl(coll().ineighbourAlltoall(state, sendbuf, sendoffset, sendcount, Kind.ofBuffer(sendbuf), recvbuf,
                recvoffset, recvcount, Kind.ofBuffer(recvbuf)));
    }

    public Request ineighbourAlltoall(Object sendbuf, int sendoffset, int sendcount, Datatype sendtype, Object recvbuf,
                                      int recvoffset, int recvcount, Datatype recvtype) {
        return wrapColl(coll().ineighbourAlltoall(state, sendbuf, sendoffset, sendcount, kind(sendtype), recvbuf, recvoffset,
                recvcount, kind(recvtype)));
    }

    /**
     * Topology communicators: sends {@code sendcount} elements of {@code sendbuf} to every
     * neighbour ({@link #neighbours()}); block j of {@code recvbuf}, {@code recvcounts[j]} elements
     * at {@code recvoffset + displs[j]}, comes from neighbour j, which must send that many. Blocks
     * of {@link #PROC_NULL} neighbours (past the edge of a non-periodic grid) are left untouched;
     * a zero count receives nothing. The arrays need an entry per neighbour.
     */
    public void neighbourAllgatherv(Object sendbuf, int sendoffset, int sendcount, Object recvbuf, int recvoffset,
                                    int[] recvcounts, int[] displs) {
        coll().neighbourAllgatherv(state, sendbuf, sendoffset, sendcount, Kind.ofBuffer(sendbuf), recvbuf, recvoffset,
                recvcounts, displs, Kind.ofBuffer(recvbuf));
    }

    /** {@link #neighbourAllgatherv(Object, int, int, Object, int, int[], int[])} with explicit element types. */
    public void neighbourAllgatherv(Object sendbuf, int sendoffset, int sendcount, Datatype sendtype, Object recvbuf,
                                    int recvoffset, int[] recvcounts, int[] displs, Datatype recvtype) {
        coll().neighbourAllgatherv(state, sendbuf, sendoffset, sendcount, kind(sendtype), recvbuf, recvoffset, recvcounts,
                displs, kind(recvtype));
    }

    /** Non-blocking {@link #neighbourAllgatherv(Object, int, int, Object, int, int[], int[])}. */
    public Request ineighbourAllgatherv(Object sendbuf, int sendoffset, int sendcount, Object recvbuf, int recvoffset,
                                        int[] recvcounts, int[] displs) {
        return wrapColl(coll().ineighbourAllgatherv(state, sendbuf, sendoffset, sendcount, Kind.ofBuffer(sendbuf), recvbuf,
                recvoffset, recvcounts, displs, Kind.ofBuffer(recvbuf)));
    }

    /** Non-blocking {@link #neighbourAllgatherv(Object, int, int, Object, int, int[], int[])} with explicit element types. */
    public Request ineighbourAllgatherv(Object sendbuf, int sendoffset, int sendcount, Datatype sendtype, Object recvbuf,
                                        int recvoffset, int[] recvcounts, int[] displs, Datatype recvtype) {
        return wrapColl(coll().ineighbourAllgatherv(state, sendbuf, sendoffset, sendcount, kind(sendtype), recvbuf,
                recvoffset, recvcounts, displs, kind(recvtype)));
    }

    /**
     * Topology communicators: block j of {@code sendbuf}, {@code sendcounts[j]} elements at
     * {@code sendoffset + sdispls[j]}, goes to neighbour j; block j of {@code recvbuf},
     * {@code recvcounts[j]} elements at {@code recvoffset + rdispls[j]}, comes from it. Blocks of
     * {@link #PROC_NULL} neighbours move nothing: nothing is sent and the receive block is left
     * untouched. The arrays need an entry per neighbour.
     */
    public void neighbourAlltoallv(Object sendbuf, int sendoffset, int[] sendcounts, int[] sdispls, Object recvbuf,
                                   int recvoffset, int[] recvcounts, int[] rdispls) {
        coll().neighbourAlltoallv(state, sendbuf, sendoffset, sendcounts, sdispls, Kind.ofBuffer(sendbuf), recvbuf,
                recvoffset, recvcounts, rdispls, Kind.ofBuffer(recvbuf));
    }

    /** {@link #neighbourAlltoallv(Object, int, int[], int[], Object, int, int[], int[])} with explicit element types. */
    public void neighbourAlltoallv(Object sendbuf, int sendoffset, int[] sendcounts, int[] sdispls, Datatype sendtype,
                                   Object recvbuf, int recvoffset, int[] recvcounts, int[] rdispls, Datatype recvtype) {
        coll().neighbourAlltoallv(state, sendbuf, sendoffset, sendcounts, sdispls, kind(sendtype), recvbuf, recvoffset,
                recvcounts, rdispls, kind(recvtype));
    }

    /** Non-blocking {@link #neighbourAlltoallv(Object, int, int[], int[], Object, int, int[], int[])}. */
    public Request ineighbourAlltoallv(Object sendbuf, int sendoffset, int[] sendcounts, int[] sdispls, Object recvbuf,
                                       int recvoffset, int[] recvcounts, int[] rdispls) {
        return wrapColl(coll().ineighbourAlltoallv(state, sendbuf, sendoffset, sendcounts, sdispls, Kind.ofBuffer(sendbuf),
                recvbuf, recvoffset, recvcounts, rdispls, Kind.ofBuffer(recvbuf)));
    }

    /** Non-blocking {@link #neighbourAlltoallv(Object, int, int[], int[], Object, int, int[], int[])} with explicit element types. */
    public Request ineighbourAlltoallv(Object sendbuf, int sendoffset, int[] sendcounts, int[] sdispls, Datatype sendtype,
                                       Object recvbuf, int recvoffset, int[] recvcounts, int[] rdispls, Datatype recvtype) {
        return wrapColl(coll().ineighbourAlltoallv(state, sendbuf, sendoffset, sendcounts, sdispls, kind(sendtype), recvbuf,
                recvoffset, recvcounts, rdispls, kind(recvtype)));
    }

    /**
     * Topology communicators: {@link #neighbourAlltoallv} with a count, a displacement and a type
     * per neighbour on each side. As in {@link #alltoallw}, displacements are in elements of that
     * block's type from the start of the buffer (not bytes as in MPI: buffers are addressed by
     * element); mixing types needs a {@link java.nio.ByteBuffer} or
     * {@link java.lang.foreign.MemorySegment}. Blocks of {@link #PROC_NULL} neighbours move nothing
     * and their receive blocks are left untouched.
     */
    public void neighbourAlltoallw(Object sendbuf, int[] sendcounts, int[] sdispls, Datatype[] sendtypes, Object recvbuf,
                                   int[] recvcounts, int[] rdispls, Datatype[] recvtypes) {
        coll().neighbourAlltoallw(state, sendbuf, sendcounts, sdispls, kinds(sendtypes), recvbuf, recvcounts, rdispls,
                kinds(recvtypes));
    }

    /** Non-blocking {@link #neighbourAlltoallw}. */
    public Request ineighbourAlltoallw(Object sendbuf, int[] sendcounts, int[] sdispls, Datatype[] sendtypes,
                                       Object recvbuf, int[] recvcounts, int[] rdispls, Datatype[] recvtypes) {
        return wrapColl(coll().ineighbourAlltoallw(state, sendbuf, sendcounts, sdispls, kinds(sendtypes), recvbuf,
                recvcounts, rdispls, kinds(recvtypes)));
    }

    // ---------------------------------------------------------------- persistent operations

    /** A persistent {@link #isend}: each {@link Persistent#start} sends the buffer's current contents. */
    public Persistent sendInit(Object buf, int offset, int count, int dest, int tag) {
        return Persistent.of("sendInit to " + dest + " tag " + tag + " on " + name(),
                () -> isend(buf, offset, count, dest, tag));
    }

    /** A persistent {@link #irecv}. */
    public Persistent recvInit(Object buf, int offset, int count, int source, int tag) {
        return Persistent.of("recvInit from " + source + " tag " + tag + " on " + name(),
                () -> irecv(buf, offset, count, source, tag));
    }

    /** A persistent {@link #ibarrier} (collective: every process starts its instances in the same order). */
    public Persistent barrierInit() {
        return Persistent.of("barrierInit on " + name(), this::ibarrier);
    }

    /** A persistent {@link #ibcast} (collective). */
    public Persistent bcastInit(Object buf, int offset, int count, int root) {
        return Persistent.of("bcastInit on " + name(), () -> ibcast(buf, offset, count, root));
    }

    /** A persistent {@link #ireduce} (collective). */
    public Persistent reduceInit(Object sendbuf, int sendoffset, Object recvbuf, int recvoffset, int count, Op op, int root) {
        return Persistent.of("reduceInit on " + name(), () -> ireduce(sendbuf, sendoffset, recvbuf, recvoffset, count, op, root));
    }

    /** A persistent {@link #iallreduce} (collective). */
    public Persistent allreduceInit(Object sendbuf, int sendoffset, Object recvbuf, int recvoffset, int count, Op op) {
        return Persistent.of("allreduceInit on " + name(), () -> iallreduce(sendbuf, sendoffset, recvbuf, recvoffset, count, op));
    }

    /** A persistent {@link #iallgather} (collective). */
    public Persistent allgatherInit(Object sendbuf, int sendoffset, int sendcount, Object recvbuf, int recvoffset,
                                    int recvcount) {
        return Persistent.of("allgatherInit on " + name(),
                () -> iallgather(sendbuf, sendoffset, sendcount, recvbuf, recvoffset, recvcount));
    }

    /** A persistent {@link #iscan} (collective). */
    public Persistent scanInit(Object sendbuf, int sendoffset, Object recvbuf, int recvoffset, int count, Op op) {
        return Persistent.of("scanInit on " + name(), () -> iscan(sendbuf, sendoffset, recvbuf, recvoffset, count, op));
    }

    /** A persistent {@link #iexscan} (collective). */
    public Persistent exscanInit(Object sendbuf, int sendoffset, Object recvbuf, int recvoffset, int count, Op op) {
        return Persistent.of("exscanInit on " + name(), () -> iexscan(sendbuf, sendoffset, recvbuf, recvoffset, count, op));
    }

    /** A persistent {@link #igather} (collective). */
    public Persistent gatherInit(Object sendbuf, int sendoffset, int sendcount, Object recvbuf, int recvoffset, int recvcount,
                                 int root) {
        return Persistent.of("gatherInit on " + name(),
                () -> igather(sendbuf, sendoffset, sendcount, recvbuf, recvoffset, recvcount, root));
    }

    /** A persistent {@link #iscatter} (collective). */
    public Persistent scatterInit(Object sendbuf, int sendoffset, int sendcount, Object recvbuf, int recvoffset,
                                  int recvcount, int root) {
        return Persistent.of("scatterInit on " + name(),
                () -> iscatter(sendbuf, sendoffset, sendcount, recvbuf, recvoffset, recvcount, root));
    }

    /** A persistent {@link #ialltoall} (collective). */
    public Persistent alltoallInit(Object sendbuf, int sendoffset, int sendcount, Object recvbuf, int recvoffset,
                                   int recvcount) {
        return Persistent.of("alltoallInit on " + name(),
                () -> ialltoall(sendbuf, sendoffset, sendcount, recvbuf, recvoffset, recvcount));
    }

    /** A persistent {@link #issend}: each instance completes once the receive has matched it. */
    public Persistent ssendInit(Object buf, int offset, int count, int dest, int tag) {
        return Persistent.of("ssendInit to " + dest + " tag " + tag + " on " + name(),
                () -> issend(buf, offset, count, dest, tag));
    }

    // The vector forms below keep their own copies of the count and displacement arrays, taken
    // here: an instance started later moves what the call named, even if the caller reuses them.

    /** A persistent {@link #igatherv} (collective). */
    public Persistent gathervInit(Object sendbuf, int sendoffset, int sendcount, Object recvbuf, int recvoffset,
                                  int[] recvcounts, int[] displs, int root) {
        int[] rc = copy(recvcounts);
        int[] rd = copy(displs);
        return Persistent.of("gathervInit on " + name(),
                () -> igatherv(sendbuf, sendoffset, sendcount, recvbuf, recvoffset, rc, rd, root));
    }

    /** A persistent {@link #iscatterv} (collective). */
    public Persistent scattervInit(Object sendbuf, int sendoffset, int[] sendcounts, int[] displs, Object recvbuf,
                                   int recvoffset, int recvcount, int root) {
        int[] sc = copy(sendcounts);
        int[] sd = copy(displs);
        return Persistent.of("scattervInit on " + name(),
                () -> iscatterv(sendbuf, sendoffset, sc, sd, recvbuf, recvoffset, recvcount, root));
    }

    /** A persistent {@link #iallgatherv} (collective). */
    public Persistent allgathervInit(Object sendbuf, int sendoffset, int sendcount, Object recvbuf, int recvoffset,
                                     int[] recvcounts, int[] displs) {
        int[] rc = copy(recvcounts);
        int[] rd = copy(displs);
        return Persistent.of("allgathervInit on " + name(),
                () -> iallgatherv(sendbuf, sendoffset, sendcount, recvbuf, recvoffset, rc, rd));
    }

    /** A persistent {@link #ialltoallv} (collective). */
    public Persistent alltoallvInit(Object sendbuf, int sendoffset, int[] sendcounts, int[] sdispls, Object recvbuf,
                                    int recvoffset, int[] recvcounts, int[] rdispls) {
        int[] sc = copy(sendcounts);
        int[] sd = copy(sdispls);
        int[] rc = copy(recvcounts);
        int[] rd = copy(rdispls);
        return Persistent.of("alltoallvInit on " + name(),
                () -> ialltoallv(sendbuf, sendoffset, sc, sd, recvbuf, recvoffset, rc, rd));
    }

    /** A persistent {@link #ialltoallw} (collective). */
    public Persistent alltoallwInit(Object sendbuf, int[] sendcounts, int[] sdispls, Datatype[] sendtypes, Object recvbuf,
                                    int[] recvcounts, int[] rdispls, Datatype[] recvtypes) {
        int[] sc = copy(sendcounts);
        int[] sd = copy(sdispls);
        Datatype[] st = copy(sendtypes);
        int[] rc = copy(recvcounts);
        int[] rd = copy(rdispls);
        Datatype[] rt = copy(recvtypes);
        return Persistent.of("alltoallwInit on " + name(), () -> ialltoallw(sendbuf, sc, sd, st, recvbuf, rc, rd, rt));
    }

    /** A persistent {@link #ireduceScatter} (collective). */
    public Persistent reduceScatterInit(Object sendbuf, int sendoffset, Object recvbuf, int recvoffset, int[] recvcounts,
                                        Op op) {
        int[] rc = copy(recvcounts);
        return Persistent.of("reduceScatterInit on " + name(),
                () -> ireduceScatter(sendbuf, sendoffset, recvbuf, recvoffset, rc, op));
    }

    /** A persistent {@link #ireduceScatterBlock} (collective). */
    public Persistent reduceScatterBlockInit(Object sendbuf, int sendoffset, Object recvbuf, int recvoffset,
                                             int recvcount, Op op) {
        return Persistent.of("reduceScatterBlockInit on " + name(),
                () -> ireduceScatterBlock(sendbuf, sendoffset, recvbuf, recvoffset, recvcount, op));
    }

    /** A persistent {@link #ineighbourAllgather} (collective over the topology's neighbours). */
    public Persistent neighbourAllgatherInit(Object sendbuf, int sendoffset, int sendcount, Object recvbuf,
                                             int recvoffset, int recvcount) {
        return Persistent.of("neighbourAllgatherInit on " + name(),
                () -> ineighbourAllgather(sendbuf, sendoffset, sendcount, recvbuf, recvoffset, recvcount));
    }

    /** A persistent {@link #ineighbourAllgatherv} (collective over the topology's neighbours). */
    public Persistent neighbourAllgathervInit(Object sendbuf, int sendoffset, int sendcount, Object recvbuf,
                                              int recvoffset, int[] recvcounts, int[] displs) {
        int[] rc = copy(recvcounts);
        int[] rd = copy(displs);
        return Persistent.of("neighbourAllgathervInit on " + name(),
                () -> ineighbourAllgatherv(sendbuf, sendoffset, sendcount, recvbuf, recvoffset, rc, rd));
    }

    /** A persistent {@link #ineighbourAlltoall} (collective over the topology's neighbours). */
    public Persistent neighbourAlltoallInit(Object sendbuf, int sendoffset, int sendcount, Object recvbuf,
                                            int recvoffset, int recvcount) {
        return Persistent.of("neighbourAlltoallInit on " + name(),
                () -> ineighbourAlltoall(sendbuf, sendoffset, sendcount, recvbuf, recvoffset, recvcount));
    }

    /** A persistent {@link #ineighbourAlltoallv} (collective over the topology's neighbours). */
    public Persistent neighbourAlltoallvInit(Object sendbuf, int sendoffset, int[] sendcounts, int[] sdispls,
                                             Object recvbuf, int recvoffset, int[] recvcounts, int[] rdispls) {
        int[] sc = copy(sendcounts);
        int[] sd = copy(sdispls);
        int[] rc = copy(recvcounts);
        int[] rd = copy(rdispls);
        return Persistent.of("neighbourAlltoallvInit on " + name(),
                () -> ineighbourAlltoallv(sendbuf, sendoffset, sc, sd, recvbuf, recvoffset, rc, rd));
    }

    /** A persistent {@link #ineighbourAlltoallw} (collective over the topology's neighbours). */
    public Persistent neighbourAlltoallwInit(Object sendbuf, int[] sendcounts, int[] sdispls, Datatype[] sendtypes,
                                             Object recvbuf, int[] recvcounts, int[] rdispls, Datatype[] recvtypes) {
        int[] sc = copy(sendcounts);
        int[] sd = copy(sdispls);
        Datatype[] st = copy(sendtypes);
        int[] rc = copy(recvcounts);
        int[] rd = copy(rdispls);
        Datatype[] rt = copy(recvtypes);
        return Persistent.of("neighbourAlltoallwInit on " + name(),
                () -> ineighbourAlltoallw(sendbuf, sc, sd, st, recvbuf, rc, rd, rt));
    }

    /** A copy of a count or displacement array (null stays null, for the check at start to name). */
    private static int[] copy(int[] a) {
        return a == null ? null : a.clone();
    }

    private static Datatype[] copy(Datatype[] a) {
        return a == null ? null : a.clone();
    }

    // ---------------------------------------------------------------- communicators

    /**
     * Collective: a new communicator with the same group (groups, for an intercommunicator) and
     * topology, and a fresh context.
     */
    public Comm dup() {
        return new Comm(engine, engine.communicators().dup(state));
    }

    /**
     * Collective: splits into one communicator per {@code color}, ranks ordered by {@code key} then
     * by rank here. A process passing {@link #UNDEFINED} gets null.
     */
    public Comm split(int color, int key) {
        if (state.isInter()) {
            throw new RailyardException(ErrorClass.COMM, "split of intercommunicator " + name() + " is not supported");
        }
        CommState s = engine.communicators().split(state, color, key);
        return s == null ? null : new Comm(engine, s);
    }

    /**
     * Collective: one communicator per node, holding the processes of this communicator that run
     * on this process's node, ordered by {@code key} then by rank here (MPI's
     * {@code MPI_Comm_split_type(MPI_COMM_TYPE_SHARED)}): the processes that can share memory.
     */
    public Comm splitShared(int key) {
        return new Comm(engine, engine.communicators().splitShared(state, key));
    }

    /** Color for {@link #split} of a process that wants no new communicator. */
    public static final int UNDEFINED = Engine.UNDEFINED;

    // ---------------------------------------------------------------- groups, comparison, intercommunicators

    /** The group of this communicator (the local group, for an intercommunicator). */
    public Group group() {
        return new Group(state.localGroup(), engine.rank());
    }

    /** True for an intercommunicator. */
    public boolean isInter() {
        return state.isInter();
    }

    /** An intercommunicator's remote group. */
    public Group remoteGroup() {
        requireInter("remoteGroup");
        return new Group(state.group(), engine.rank());
    }

    /** Size of an intercommunicator's remote group. */
    public int remoteSize() {
        requireInter("remoteSize");
        return state.size();
    }

    private void requireInter(String what) {
        if (!state.isInter()) {
            throw new RailyardException(ErrorClass.COMM, what + " needs an intercommunicator; " + name() + " is not one");
        }
    }

    /**
     * {@link Group#IDENT} for the same communicator, {@link Group#CONGRUENT} for the same group(s)
     * in the same order with another context, {@link Group#SIMILAR} for the same members in
     * another order, {@link Group#UNEQUAL} otherwise.
     */
    public static int compare(Comm a, Comm b) {
        if (a.state == b.state) {
            return Group.IDENT;
        }
        if (a.isInter() != b.isInter()) {
            return Group.UNEQUAL;
        }
        int local = Group.compare(a.group(), b.group());
        int remote = a.isInter() ? Group.compare(a.remoteGroup(), b.remoteGroup()) : Group.IDENT;
        int worst = Math.max(local, remote);
        return worst == Group.IDENT ? Group.CONGRUENT : worst;
    }

    /**
     * Collective: a communicator over {@code group}, a subset of this communicator's processes,
     * ranked in the group's order; every member passes the same group, and those outside it get
     * null.
     */
    public Comm create(Group group) {
        CommState s = engine.communicators().create(state, group.worldRanks());
        return s == null ? null : new Comm(engine, s);
    }

    /**
     * Collective over this (local) intracommunicator and, through the leaders, the remote group:
     * an intercommunicator to the group whose leader is {@code remoteLeader} in {@code peer}.
     * The two leaders ({@code localLeader} here) talk over {@code peer} with {@code tag}.
     */
    public Comm createIntercomm(int localLeader, Comm peer, int remoteLeader, int tag) {
        return new Comm(engine, engine.communicators().intercommCreate(state, localLeader, peer.state, remoteLeader, tag));
    }

    /**
     * Collective over both groups of an intercommunicator: an intracommunicator over their union,
     * the group passing {@code high = false} first (if both pass the same, the group whose first
     * process has the lower world rank).
     */
    public Comm merge(boolean high) {
        return new Comm(engine, engine.communicators().merge(state, high));
    }

    // ---------------------------------------------------------------- topologies

    /**
     * Collective: a communicator with a Cartesian topology of {@code dims} (periodic where
     * {@code periods} says) over the first {@code prod(dims)} processes; the others get null.
     * Without {@code reorder} they keep their order; with it, processes spread over several nodes
     * are ranked node by node, so that each node holds consecutive rows of the grid and most
     * neighbours share a node ({@link #cartMap} tells the rank beforehand).
     */
    public Comm createCart(int[] dims, boolean[] periods, boolean reorder) {
        CommState s = engine.communicators().cart(state, dims, periods, reorder);
        return s == null ? null : new Comm(engine, s);
    }

    /**
     * Local: the rank this process would get in {@code createCart(dims, periods, true)} on this
     * communicator, or {@link #UNDEFINED} when the grid leaves it out (MPI's {@code MPI_Cart_map}).
     */
    public int cartMap(int[] dims, boolean[] periods) {
        return engine.communicators().cartMap(state, dims, periods);
    }

    /**
     * Collective: a communicator with a graph topology (MPI's cumulative {@code index} and flat
     * {@code edges}) over the first {@code index.length} processes; the others get null. With
     * {@code reorder}, processes spread over several nodes are ranked node by node when that
     * puts fewer edges between nodes ({@link #graphMap} tells the rank beforehand).
     */
    public Comm createGraph(int[] index, int[] edges, boolean reorder) {
        CommState s = engine.communicators().graph(state, index, edges, reorder);
        return s == null ? null : new Comm(engine, s);
    }

    /**
     * Local: the rank this process would get in {@code createGraph(index, edges, true)} on this
     * communicator, or {@link #UNDEFINED} when the graph leaves it out (MPI's {@code MPI_Graph_map}).
     */
    public int graphMap(int[] index, int[] edges) {
        return engine.communicators().graphMap(state, index, edges);
    }

    /**
     * Collective: a communicator over the same processes with a distributed graph topology, each
     * process naming its own edges: the processes it receives from ({@code sources}) and those it
     * sends to ({@code destinations}) in the neighbourhood collectives, in block order. The edges
     * must agree across processes; if they do not, every process gets an ARG error. Reordering
     * is allowed by MPI but never done.
     */
    public Comm distGraphCreateAdjacent(int[] sources, int[] destinations, boolean reorder) {
        return new Comm(engine, engine.communicators().distGraph(state, sources, destinations, reorder));
    }

    /**
     * Collective: a communicator over the same processes with a distributed graph topology whose
     * edges any process may give ({@code MPI_Dist_graph_create}): this process gives
     * {@code degrees[i]} edges from process {@code sources[i]}, to the next {@code degrees[i]}
     * entries of {@code destinations}; a process may give none. Each process then knows its own
     * {@link #sources()} and {@link #destinations()}, in the order of the edges' givers (by rank,
     * then as each gave them). A malformed list (a rank out of range, a negative degree, degrees
     * that do not add up to the destinations given) fails on its process with RANK or ARG, and on
     * the others with ARG. Reordering is allowed by MPI but never done.
     */
    public Comm distGraphCreate(int[] sources, int[] degrees, int[] destinations, boolean reorder) {
        return new Comm(engine, engine.communicators().distGraph(state, sources, degrees, destinations, reorder));
    }

    /** Distributed graph (or any topology): the processes this one receives from in the neighbourhood collectives. */
    public int[] sources() {
        return topologyOrFail().sources(rank());
    }

    /** Distributed graph (or any topology): the processes this one sends to in the neighbourhood collectives. */
    public int[] destinations() {
        return topologyOrFail().destinations(rank());
    }

    private Topology topologyOrFail() {
        Topology t = state.topology();
        if (t == null) {
            throw new RailyardException(ErrorClass.COMM, name() + " has no topology");
        }
        return t;
    }

    /** The topology, or null. */
    public Topology topology() {
        return state.topology();
    }

    /** The Cartesian topology; a COMM error if there is none. */
    public CartTopology cart() {
        if (state.topology() instanceof CartTopology c) {
            return c;
        }
        throw new RailyardException(ErrorClass.COMM, name() + " has no Cartesian topology");
    }

    /** The graph topology; a COMM error if there is none. */
    public GraphTopology graph() {
        if (state.topology() instanceof GraphTopology g) {
            return g;
        }
        throw new RailyardException(ErrorClass.COMM, name() + " has no graph topology");
    }

    /** Coordinates of {@code rank} in the Cartesian grid. */
    public int[] cartCoords(int rank) {
        return cart().coords(rank);
    }

    /** The rank at {@code coords} (wrapping in periodic dimensions). */
    public int cartRank(int[] coords) {
        return cart().rank(coords);
    }

    /** {@code {source, dest}} for a shift of {@code disp} along {@code dim} from this process; PROC_NULL off the grid. */
    public int[] cartShift(int dim, int disp) {
        return cart().shift(rank(), dim, disp);
    }

    /** Collective: the sub-grid through this process that keeps the dimensions flagged in {@code remainDims}. */
    public Comm cartSub(boolean[] remainDims) {
        return new Comm(engine, engine.communicators().cartSub(state, remainDims));
    }

    /** This process's neighbours in the topology, in the block order of the neighbourhood collectives. */
    public int[] neighbours() {
        Topology t = state.topology();
        if (t == null) {
            throw new RailyardException(ErrorClass.COMM, name() + " has no topology");
        }
        return t.neighbours(rank());
    }

    /** Balanced grid dimensions: fills the zeros of {@code dims} so the product is {@code nnodes}; see {@link CartTopology#dimsCreate}. */
    public static int[] dimsCreate(int nnodes, int[] dims) {
        return CartTopology.dimsCreate(nnodes, dims);
    }

    /** Marks the communicator unusable; later calls on it fail with a COMM error. */
    public void free() {
        engine.communicators().free(state);
    }

    @Override
    public String toString() {
        return "Comm[" + name() + ", rank " + rank() + " of " + size() + "]";
    }
}
