package org.railyard;

import org.railyard.engine.Engine;
import org.railyard.types.Kind;
import org.railyard.engine.request.Transfer;
import org.railyard.engine.coll.Collectives;
import org.railyard.engine.comm.CommState;
import org.railyard.error.ErrorClass;
import org.railyard.error.RailyardException;

/**
 * The collectives of {@link Comm}, blocking and non-blocking, each passed to the engine's
 * {@link org.railyard.engine.coll.Collectives} with the element types of its buffers. Part of
 * Comm's public API (Comm is its only subclass); the rules common to every collective are
 * stated in Comm's class documentation.
 */
abstract sealed class CommCollectives extends CommPointToPoint permits Comm {
    CommCollectives(Engine engine, CommState state) {
        super(engine, state);
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

    /** Like {@link Comm#reduce}, with the result delivered to every process. */
    public void allreduce(Object sendbuf, int sendoffset, Object recvbuf, int recvoffset, int count, Op op) {
        allreduce(sendbuf, sendoffset, recvbuf, recvoffset, count, Datatype.of(sendbuf), op);
    }

    public void allreduce(Object sendbuf, int sendoffset, Object recvbuf, int recvoffset, int count, Datatype type, Op op) {
        coll().allreduce(state, sendbuf, sendoffset, recvbuf, recvoffset, count, kind(type), op.reduction());
    }

    public Request iallreduce(Object sendbuf, int sendoffset, Object recvbuf, int recvoffset, int count, Op op) {
        return iallreduce(sendbuf, sendoffset, recvbuf, recvoffset, count, Datatype.of(sendbuf), op);
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

    /** Convenience: one long over the communicator, at every process; allocates nothing, as {@link Comm#allreduce(double, Op)}. */
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
        reduceScatter(sendbuf, sendoffset, recvbuf, recvoffset, recvcounts, Datatype.of(sendbuf), op);
    }

    public void reduceScatter(Object sendbuf, int sendoffset, Object recvbuf, int recvoffset, int[] recvcounts, Datatype type,
                              Op op) {
        coll().reduceScatter(state, sendbuf, sendoffset, recvbuf, recvoffset, recvcounts, kind(type), op.reduction());
    }

    public Request ireduceScatter(Object sendbuf, int sendoffset, Object recvbuf, int recvoffset, int[] recvcounts, Op op) {
        return ireduceScatter(sendbuf, sendoffset, recvbuf, recvoffset, recvcounts, Datatype.of(sendbuf), op);
    }

    public Request ireduceScatter(Object sendbuf, int sendoffset, Object recvbuf, int recvoffset, int[] recvcounts,
                                  Datatype type, Op op) {
        return wrapColl(coll().ireduceScatter(state, sendbuf, sendoffset, recvbuf, recvoffset, recvcounts, kind(type),
                op.reduction()));
    }

    /** {@link Comm#reduceScatter} with {@code recvcount} elements for every rank. */
    public void reduceScatterBlock(Object sendbuf, int sendoffset, Object recvbuf, int recvoffset, int recvcount, Op op) {
        reduceScatterBlock(sendbuf, sendoffset, recvbuf, recvoffset, recvcount, Datatype.of(sendbuf), op);
    }

    public void reduceScatterBlock(Object sendbuf, int sendoffset, Object recvbuf, int recvoffset, int recvcount,
                                   Datatype type, Op op) {
        coll().reduceScatterBlock(state, sendbuf, sendoffset, recvbuf, recvoffset, recvcount, kind(type), op.reduction());
    }

    public Request ireduceScatterBlock(Object sendbuf, int sendoffset, Object recvbuf, int recvoffset, int recvcount, Op op) {
        return ireduceScatterBlock(sendbuf, sendoffset, recvbuf, recvoffset, recvcount, Datatype.of(sendbuf), op);
    }

    public Request ireduceScatterBlock(Object sendbuf, int sendoffset, Object recvbuf, int recvoffset, int recvcount,
                                       Datatype type, Op op) {
        return wrapColl(coll().ireduceScatterBlock(state, sendbuf, sendoffset, recvbuf, recvoffset, recvcount, kind(type),
                op.reduction()));
    }

    /** Inclusive prefix reduction: rank r receives the reduction of ranks 0 to r, in rank order. */
    public void scan(Object sendbuf, int sendoffset, Object recvbuf, int recvoffset, int count, Op op) {
        scan(sendbuf, sendoffset, recvbuf, recvoffset, count, Datatype.of(sendbuf), op);
    }

    public void scan(Object sendbuf, int sendoffset, Object recvbuf, int recvoffset, int count, Datatype type, Op op) {
        coll().scan(state, sendbuf, sendoffset, recvbuf, recvoffset, count, kind(type), op.reduction());
    }

    public Request iscan(Object sendbuf, int sendoffset, Object recvbuf, int recvoffset, int count, Op op) {
        return iscan(sendbuf, sendoffset, recvbuf, recvoffset, count, Datatype.of(sendbuf), op);
    }

    public Request iscan(Object sendbuf, int sendoffset, Object recvbuf, int recvoffset, int count, Datatype type, Op op) {
        return wrapColl(coll().iscan(state, sendbuf, sendoffset, recvbuf, recvoffset, count, kind(type), op.reduction()));
    }

    /** Exclusive prefix reduction: rank r receives the reduction of ranks 0 to r - 1; rank 0's recvbuf is left as it was. */
    public void exscan(Object sendbuf, int sendoffset, Object recvbuf, int recvoffset, int count, Op op) {
        exscan(sendbuf, sendoffset, recvbuf, recvoffset, count, Datatype.of(sendbuf), op);
    }

    public void exscan(Object sendbuf, int sendoffset, Object recvbuf, int recvoffset, int count, Datatype type, Op op) {
        coll().exscan(state, sendbuf, sendoffset, recvbuf, recvoffset, count, kind(type), op.reduction());
    }

    public Request iexscan(Object sendbuf, int sendoffset, Object recvbuf, int recvoffset, int count, Op op) {
        return iexscan(sendbuf, sendoffset, recvbuf, recvoffset, count, Datatype.of(sendbuf), op);
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
        allgather(sendbuf, sendoffset, sendcount, Datatype.of(sendbuf), recvbuf, recvoffset, recvcount,
                Datatype.of(recvbuf));
    }

    public void allgather(Object sendbuf, int sendoffset, int sendcount, Datatype sendtype, Object recvbuf, int recvoffset,
                          int recvcount, Datatype recvtype) {
        coll().allgather(state, sendbuf, sendoffset, sendcount, kind(sendtype), recvbuf, recvoffset, recvcount, kind(recvtype));
    }

    public Request iallgather(Object sendbuf, int sendoffset, int sendcount, Object recvbuf, int recvoffset, int recvcount) {
        return iallgather(sendbuf, sendoffset, sendcount, Datatype.of(sendbuf), recvbuf, recvoffset, recvcount,
                Datatype.of(recvbuf));
    }

    public Request iallgather(Object sendbuf, int sendoffset, int sendcount, Datatype sendtype, Object recvbuf,
                              int recvoffset, int recvcount, Datatype recvtype) {
        return wrapColl(coll().iallgather(state, sendbuf, sendoffset, sendcount, kind(sendtype), recvbuf, recvoffset,
                recvcount, kind(recvtype)));
    }

    /** Everyone receives {@code recvcounts[r]} elements from each rank r at {@code recvoffset + displs[r]}. */
    public void allgatherv(Object sendbuf, int sendoffset, int sendcount, Object recvbuf, int recvoffset, int[] recvcounts,
                           int[] displs) {
        allgatherv(sendbuf, sendoffset, sendcount, Datatype.of(sendbuf), recvbuf, recvoffset, recvcounts, displs,
                Datatype.of(recvbuf));
    }

    public void allgatherv(Object sendbuf, int sendoffset, int sendcount, Datatype sendtype, Object recvbuf, int recvoffset,
                           int[] recvcounts, int[] displs, Datatype recvtype) {
        coll().allgatherv(state, sendbuf, sendoffset, sendcount, kind(sendtype), recvbuf, recvoffset, recvcounts, displs,
                kind(recvtype));
    }

    public Request iallgatherv(Object sendbuf, int sendoffset, int sendcount, Object recvbuf, int recvoffset,
                               int[] recvcounts, int[] displs) {
        return iallgatherv(sendbuf, sendoffset, sendcount, Datatype.of(sendbuf), recvbuf, recvoffset, recvcounts,
                displs, Datatype.of(recvbuf));
    }

    public Request iallgatherv(Object sendbuf, int sendoffset, int sendcount, Datatype sendtype, Object recvbuf,
                               int recvoffset, int[] recvcounts, int[] displs, Datatype recvtype) {
        return wrapColl(coll().iallgatherv(state, sendbuf, sendoffset, sendcount, kind(sendtype), recvbuf, recvoffset,
                recvcounts, displs, kind(recvtype)));
    }

    /** Block r of everyone's {@code sendbuf} goes to rank r, which stores the block from rank s at {@code recvoffset + s * recvcount}. */
    public void alltoall(Object sendbuf, int sendoffset, int sendcount, Object recvbuf, int recvoffset, int recvcount) {
        alltoall(sendbuf, sendoffset, sendcount, Datatype.of(sendbuf), recvbuf, recvoffset, recvcount,
                Datatype.of(recvbuf));
    }

    public void alltoall(Object sendbuf, int sendoffset, int sendcount, Datatype sendtype, Object recvbuf, int recvoffset,
                         int recvcount, Datatype recvtype) {
        coll().alltoall(state, sendbuf, sendoffset, sendcount, kind(sendtype), recvbuf, recvoffset, recvcount, kind(recvtype));
    }

    public Request ialltoall(Object sendbuf, int sendoffset, int sendcount, Object recvbuf, int recvoffset, int recvcount) {
        return ialltoall(sendbuf, sendoffset, sendcount, Datatype.of(sendbuf), recvbuf, recvoffset, recvcount,
                Datatype.of(recvbuf));
    }

    public Request ialltoall(Object sendbuf, int sendoffset, int sendcount, Datatype sendtype, Object recvbuf,
                             int recvoffset, int recvcount, Datatype recvtype) {
        return wrapColl(coll().ialltoall(state, sendbuf, sendoffset, sendcount, kind(sendtype), recvbuf, recvoffset,
                recvcount, kind(recvtype)));
    }

    /** Rank r receives {@code sendcounts[r]} elements at {@code sendoffset + sdispls[r]}; what rank s sends lands at {@code recvoffset + rdispls[s]}. */
    public void alltoallv(Object sendbuf, int sendoffset, int[] sendcounts, int[] sdispls, Object recvbuf, int recvoffset,
                          int[] recvcounts, int[] rdispls) {
        alltoallv(sendbuf, sendoffset, sendcounts, sdispls, Datatype.of(sendbuf), recvbuf, recvoffset, recvcounts,
                rdispls, Datatype.of(recvbuf));
    }

    public void alltoallv(Object sendbuf, int sendoffset, int[] sendcounts, int[] sdispls, Datatype sendtype, Object recvbuf,
                          int recvoffset, int[] recvcounts, int[] rdispls, Datatype recvtype) {
        coll().alltoallv(state, sendbuf, sendoffset, sendcounts, sdispls, kind(sendtype), recvbuf, recvoffset, recvcounts,
                rdispls, kind(recvtype));
    }

    public Request ialltoallv(Object sendbuf, int sendoffset, int[] sendcounts, int[] sdispls, Object recvbuf,
                              int recvoffset, int[] recvcounts, int[] rdispls) {
        return ialltoallv(sendbuf, sendoffset, sendcounts, sdispls, Datatype.of(sendbuf), recvbuf, recvoffset,
                recvcounts, rdispls, Datatype.of(recvbuf));
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
     * Topology communicators: sends {@code sendbuf} to every neighbour ({@link Comm#neighbours()});
     * block j of {@code recvbuf} ({@code recvcount} elements) comes from neighbour j. Blocks of
     * missing neighbours (past the edge of a non-periodic grid) are left untouched.
     */
    public void neighbourAllgather(Object sendbuf, int sendoffset, int sendcount, Object recvbuf, int recvoffset,
                                   int recvcount) {
        neighbourAllgather(sendbuf, sendoffset, sendcount, Datatype.of(sendbuf), recvbuf, recvoffset, recvcount,
                Datatype.of(recvbuf));
    }

    public void neighbourAllgather(Object sendbuf, int sendoffset, int sendcount, Datatype sendtype, Object recvbuf,
                                   int recvoffset, int recvcount, Datatype recvtype) {
        coll().neighbourAllgather(state, sendbuf, sendoffset, sendcount, kind(sendtype), recvbuf, recvoffset, recvcount,
                kind(recvtype));
    }

    public Request ineighbourAllgather(Object sendbuf, int sendoffset, int sendcount, Object recvbuf, int recvoffset,
                                       int recvcount) {
        return ineighbourAllgather(sendbuf, sendoffset, sendcount, Datatype.of(sendbuf), recvbuf, recvoffset,
                recvcount, Datatype.of(recvbuf));
    }

    public Request ineighbourAllgather(Object sendbuf, int sendoffset, int sendcount, Datatype sendtype, Object recvbuf,
                                       int recvoffset, int recvcount, Datatype recvtype) {
        return wrapColl(coll().ineighbourAllgather(state, sendbuf, sendoffset, sendcount, kind(sendtype), recvbuf, recvoffset,
                recvcount, kind(recvtype)));
    }

    /** Topology communicators: block j of {@code sendbuf} goes to neighbour j; block j of {@code recvbuf} comes from it. */
    public void neighbourAlltoall(Object sendbuf, int sendoffset, int sendcount, Object recvbuf, int recvoffset,
                                  int recvcount) {
        neighbourAlltoall(sendbuf, sendoffset, sendcount, Datatype.of(sendbuf), recvbuf, recvoffset, recvcount,
                Datatype.of(recvbuf));
    }

    public void neighbourAlltoall(Object sendbuf, int sendoffset, int sendcount, Datatype sendtype, Object recvbuf,
                                  int recvoffset, int recvcount, Datatype recvtype) {
        coll().neighbourAlltoall(state, sendbuf, sendoffset, sendcount, kind(sendtype), recvbuf, recvoffset, recvcount,
                kind(recvtype));
    }

    public Request ineighbourAlltoall(Object sendbuf, int sendoffset, int sendcount, Object recvbuf, int recvoffset,
                                      int recvcount) {
        return ineighbourAlltoall(sendbuf, sendoffset, sendcount, Datatype.of(sendbuf), recvbuf, recvoffset,
                recvcount, Datatype.of(recvbuf));
    }

    public Request ineighbourAlltoall(Object sendbuf, int sendoffset, int sendcount, Datatype sendtype, Object recvbuf,
                                      int recvoffset, int recvcount, Datatype recvtype) {
        return wrapColl(coll().ineighbourAlltoall(state, sendbuf, sendoffset, sendcount, kind(sendtype), recvbuf, recvoffset,
                recvcount, kind(recvtype)));
    }

    /**
     * Topology communicators: sends {@code sendcount} elements of {@code sendbuf} to every
     * neighbour ({@link Comm#neighbours()}); block j of {@code recvbuf}, {@code recvcounts[j]} elements
     * at {@code recvoffset + displs[j]}, comes from neighbour j, which must send that many. Blocks
     * of {@link Comm#PROC_NULL} neighbours (past the edge of a non-periodic grid) are left untouched;
     * a zero count receives nothing. The arrays need an entry per neighbour.
     */
    public void neighbourAllgatherv(Object sendbuf, int sendoffset, int sendcount, Object recvbuf, int recvoffset,
                                    int[] recvcounts, int[] displs) {
        neighbourAllgatherv(sendbuf, sendoffset, sendcount, Datatype.of(sendbuf), recvbuf, recvoffset, recvcounts,
                displs, Datatype.of(recvbuf));
    }

    /** {@link Comm#neighbourAllgatherv(Object, int, int, Object, int, int[], int[])} with explicit element types. */
    public void neighbourAllgatherv(Object sendbuf, int sendoffset, int sendcount, Datatype sendtype, Object recvbuf,
                                    int recvoffset, int[] recvcounts, int[] displs, Datatype recvtype) {
        coll().neighbourAllgatherv(state, sendbuf, sendoffset, sendcount, kind(sendtype), recvbuf, recvoffset, recvcounts,
                displs, kind(recvtype));
    }

    /** Non-blocking {@link Comm#neighbourAllgatherv(Object, int, int, Object, int, int[], int[])}. */
    public Request ineighbourAllgatherv(Object sendbuf, int sendoffset, int sendcount, Object recvbuf, int recvoffset,
                                        int[] recvcounts, int[] displs) {
        return ineighbourAllgatherv(sendbuf, sendoffset, sendcount, Datatype.of(sendbuf), recvbuf, recvoffset,
                recvcounts, displs, Datatype.of(recvbuf));
    }

    /** Non-blocking {@link Comm#neighbourAllgatherv(Object, int, int, Object, int, int[], int[])} with explicit element types. */
    public Request ineighbourAllgatherv(Object sendbuf, int sendoffset, int sendcount, Datatype sendtype, Object recvbuf,
                                        int recvoffset, int[] recvcounts, int[] displs, Datatype recvtype) {
        return wrapColl(coll().ineighbourAllgatherv(state, sendbuf, sendoffset, sendcount, kind(sendtype), recvbuf,
                recvoffset, recvcounts, displs, kind(recvtype)));
    }

    /**
     * Topology communicators: block j of {@code sendbuf}, {@code sendcounts[j]} elements at
     * {@code sendoffset + sdispls[j]}, goes to neighbour j; block j of {@code recvbuf},
     * {@code recvcounts[j]} elements at {@code recvoffset + rdispls[j]}, comes from it. Blocks of
     * {@link Comm#PROC_NULL} neighbours move nothing: nothing is sent and the receive block is left
     * untouched. The arrays need an entry per neighbour.
     */
    public void neighbourAlltoallv(Object sendbuf, int sendoffset, int[] sendcounts, int[] sdispls, Object recvbuf,
                                   int recvoffset, int[] recvcounts, int[] rdispls) {
        neighbourAlltoallv(sendbuf, sendoffset, sendcounts, sdispls, Datatype.of(sendbuf), recvbuf, recvoffset,
                recvcounts, rdispls, Datatype.of(recvbuf));
    }

    /** {@link Comm#neighbourAlltoallv(Object, int, int[], int[], Object, int, int[], int[])} with explicit element types. */
    public void neighbourAlltoallv(Object sendbuf, int sendoffset, int[] sendcounts, int[] sdispls, Datatype sendtype,
                                   Object recvbuf, int recvoffset, int[] recvcounts, int[] rdispls, Datatype recvtype) {
        coll().neighbourAlltoallv(state, sendbuf, sendoffset, sendcounts, sdispls, kind(sendtype), recvbuf, recvoffset,
                recvcounts, rdispls, kind(recvtype));
    }

    /** Non-blocking {@link Comm#neighbourAlltoallv(Object, int, int[], int[], Object, int, int[], int[])}. */
    public Request ineighbourAlltoallv(Object sendbuf, int sendoffset, int[] sendcounts, int[] sdispls, Object recvbuf,
                                       int recvoffset, int[] recvcounts, int[] rdispls) {
        return ineighbourAlltoallv(sendbuf, sendoffset, sendcounts, sdispls, Datatype.of(sendbuf), recvbuf,
                recvoffset, recvcounts, rdispls, Datatype.of(recvbuf));
    }

    /** Non-blocking {@link Comm#neighbourAlltoallv(Object, int, int[], int[], Object, int, int[], int[])} with explicit element types. */
    public Request ineighbourAlltoallv(Object sendbuf, int sendoffset, int[] sendcounts, int[] sdispls, Datatype sendtype,
                                       Object recvbuf, int recvoffset, int[] recvcounts, int[] rdispls, Datatype recvtype) {
        return wrapColl(coll().ineighbourAlltoallv(state, sendbuf, sendoffset, sendcounts, sdispls, kind(sendtype), recvbuf,
                recvoffset, recvcounts, rdispls, kind(recvtype)));
    }

    /**
     * Topology communicators: {@link Comm#neighbourAlltoallv} with a count, a displacement and a type
     * per neighbour on each side. As in {@link Comm#alltoallw}, displacements are in elements of that
     * block's type from the start of the buffer (not bytes as in MPI: buffers are addressed by
     * element); mixing types needs a {@link java.nio.ByteBuffer} or
     * {@link java.lang.foreign.MemorySegment}. Blocks of {@link Comm#PROC_NULL} neighbours move nothing
     * and their receive blocks are left untouched.
     */
    public void neighbourAlltoallw(Object sendbuf, int[] sendcounts, int[] sdispls, Datatype[] sendtypes, Object recvbuf,
                                   int[] recvcounts, int[] rdispls, Datatype[] recvtypes) {
        coll().neighbourAlltoallw(state, sendbuf, sendcounts, sdispls, kinds(sendtypes), recvbuf, recvcounts, rdispls,
                kinds(recvtypes));
    }

    /** Non-blocking {@link Comm#neighbourAlltoallw}. */
    public Request ineighbourAlltoallw(Object sendbuf, int[] sendcounts, int[] sdispls, Datatype[] sendtypes,
                                       Object recvbuf, int[] recvcounts, int[] rdispls, Datatype[] recvtypes) {
        return wrapColl(coll().ineighbourAlltoallw(state, sendbuf, sendcounts, sdispls, kinds(sendtypes), recvbuf,
                recvcounts, rdispls, kinds(recvtypes)));
    }
}
