package mpi;

import org.railyard.error.RailyardException;

/**
 * A communicator within one group: point-to-point ({@link Comm}) plus the collectives and the
 * constructors of new communicators and topologies.
 *
 * <h2>How it maps to Railyard</h2>
 * Every collective is the collective of the wrapped {@link org.railyard.Comm} (Railyard chooses
 * the algorithm by size and process count); the facade only adapts buffers:
 * <ul>
 *   <li>basic and contiguous types go in place; a type with holes is gathered into a packed array
 *       before and scattered from one after, block by block for the {@code v} variants
 *       (displacements count extents of the type, as in MPI);</li>
 *   <li>{@link MPI#OBJECT} data is serialized: a broadcast sends the bytes with Railyard's
 *       {@code bcast}; the gathers, scatters and all-to-alls move the serialized blocks with
 *       their {@code v} byte variants after exchanging the lengths; a reduction over objects
 *       gathers the serialized contributions and folds them with the user function in rank
 *       order;</li>
 *   <li>{@link Op}s become Railyard operations ({@code Op.of} of a reduction whose items are
 *       whole elements of the datatype), so a non-commutative user operation is applied in
 *       rank order and never split inside an element.</li>
 * </ul>
 * {@code Split}, {@code Create}, {@code Create_cart}, {@code Create_graph} and {@code clone} are
 * Railyard's {@code split}, {@code create}, {@code createCart}, {@code createGraph} and {@code dup}.
 */
public class Intracomm extends Comm {

    Intracomm(org.railyard.Comm nat) {
        super(nat);
    }

    /** See {@link Comm#Compare(Comm, Comm)}. */
    public static int Compare(Comm comm1, Comm comm2) throws MPIException {
        return Comm.Compare(comm1, comm2);
    }

    /**
     * Collective: one new communicator per {@code color}, ranks ordered by {@code key} then by
     * rank here. A process passing {@link MPI#UNDEFINED} gets null ({@link MPI#COMM_NULL}).
     */
    public Intracomm Split(int colour, int key) throws MPIException {
        try {
            org.railyard.Comm c = nat.split(colour, key);
            return c == null ? null : new Intracomm(c);
        } catch (RailyardException e) {
            throw MPIException.of(e);
        }
    }

    /** Collective: a duplicate with the same group and a new context. */
    @Override
    public Object clone() throws MPIException {
        return Dup();
    }

    /** Collective: a duplicate with the same group and a new context (what {@link #clone()} returns, typed). */
    public Intracomm Dup() throws MPIException {
        try {
            return new Intracomm(nat.dup());
        } catch (RailyardException e) {
            throw MPIException.of(e);
        }
    }

    /**
     * Collective: a communicator of the members of {@code group} (a subset of this communicator's
     * group, the same at every process), in group order; null at processes not in it.
     */
    public Intracomm Create(Group group) throws MPIException {
        try {
            org.railyard.Comm c = nat.create(group.nat);
            return c == null ? null : new Intracomm(c);
        } catch (RailyardException e) {
            throw MPIException.of(e);
        }
    }

    /**
     * Collective: a communicator with a Cartesian topology of {@code dims} (periodic where
     * {@code periods} says) over the first {@code prod(dims)} processes, which keep their ranks
     * (a valid placement whatever {@code reorder} says); null at the others.
     */
    public Cartcomm Create_cart(int[] dims, boolean[] periods, boolean reorder) throws MPIException {
        try {
            org.railyard.Comm c = nat.createCart(dims, periods, reorder);
            return c == null ? null : new Cartcomm(c);
        } catch (RailyardException e) {
            throw MPIException.of(e);
        }
    }

    /**
     * Collective: a communicator with a graph topology (cumulative {@code index}, flat
     * {@code edges}) over the first {@code index.length} processes, which keep their ranks; null
     * at the others.
     */
    public Graphcomm Create_graph(int[] index, int[] edges, boolean reorder) {
        try {
            org.railyard.Comm c = nat.createGraph(index, edges, reorder);
            return c == null ? null : new Graphcomm(c);
        } catch (RailyardException e) {
            throw MPIException.of(e);
        }
    }

    // ---------------------------------------------------------------- barrier, broadcast

    /** Returns once every process of the communicator has called it. */
    public void Barrier() throws MPIException {
        try {
            nat.barrier();
        } catch (RailyardException e) {
            throw MPIException.of(e);
        }
    }

    /** Copies {@code count} elements from the root's buffer into every process's. */
    public void Bcast(Object buf, int offset, int count, Datatype type, int root) throws MPIException {
        try {
            type.checkForMessage();
            if (type.base == Datatype.B_PACKED && buf instanceof mpjbuf.Buffer b) {
                // A packed buffer travels whole, whatever its size: the root's size first.
                int[] size = {b.getSize()};
                nat.bcast(size, 0, 1, root);
                b.ensureCapacity(size[0]);
                b.setSize(size[0]);
                nat.bcast(b.array(), 0, size[0], root);
                return;
            }
            type.checkBuffer(buf, offset, count, "Bcast");
            int n = values(count, type);
            boolean isRoot = nat.rank() == root;
            if (type.isObject()) {
                byte[] payload = isRoot ? Collective.serialize(buf, offset, count, type) : null;
                int[] len = {payload == null ? 0 : payload.length};
                nat.bcast(len, 0, 1, root);
                if (!isRoot) {
                    payload = new byte[len[0]];
                }
                nat.bcast(payload, 0, payload.length, root);
                if (!isRoot) {
                    Collective.deserialize(payload, 0, payload.length, n, buf, offset, type);
                }
            } else if (type.contiguous) {
                nat.bcast(buf, offset, n, type.nativeType, root);
            } else {
                Object packed = isRoot ? type.gather(buf, offset, count) : type.newBaseArray(n);
                nat.bcast(packed, 0, n, type.nativeType, root);
                if (!isRoot) {
                    type.scatter(packed, 0, n, buf, offset);
                }
            }
        } catch (RailyardException e) {
            throw MPIException.of(e);
        }
    }

    // ---------------------------------------------------------------- reductions

    /**
     * Combines the {@code count} elements of every process's {@code sendbuf} with {@code op}, in
     * rank order, into {@code recvbuf} at the root ({@code recvbuf} is not used elsewhere).
     */
    public void Reduce(Object sendbuf, int sendoffset, Object recvbuf, int recvoffset, int count, Datatype datatype,
                       Op op, int root) throws MPIException {
        try {
            datatype.checkForMessage();
            datatype.checkBuffer(sendbuf, sendoffset, count, "Reduce");
            boolean isRoot = nat.rank() == root;
            if (isRoot) {
                datatype.checkBuffer(recvbuf, recvoffset, count, "Reduce");
            }
            if (datatype.isObject()) {
                Collective.reduceObjects(this, sendbuf, sendoffset, recvbuf, recvoffset, count, datatype, op, root);
                return;
            }
            int n = values(count, datatype);
            org.railyard.Op red = op.nativeOp(datatype);
            Object s = datatype.contiguous ? sendbuf : datatype.gather(sendbuf, sendoffset, count);
            int so = datatype.contiguous ? sendoffset : 0;
            Object r = datatype.contiguous || !isRoot ? recvbuf : datatype.newBaseArray(n);
            int ro = datatype.contiguous ? recvoffset : 0;
            nat.reduce(s, so, r, ro, n, datatype.nativeType, red, root);
            if (isRoot && !datatype.contiguous) {
                datatype.scatter(r, 0, n, recvbuf, recvoffset);
            }
        } catch (RailyardException e) {
            throw MPIException.of(e);
        }
    }

    /** Like {@link #Reduce}, with the result delivered to every process. */
    public void Allreduce(Object sendbuf, int sendoffset, Object recvbuf, int recvoffset, int count, Datatype datatype,
                          Op op) throws MPIException {
        try {
            datatype.checkForMessage();
            datatype.checkBuffer(sendbuf, sendoffset, count, "Allreduce");
            datatype.checkBuffer(recvbuf, recvoffset, count, "Allreduce");
            if (datatype.isObject()) {
                Collective.reduceObjects(this, sendbuf, sendoffset, recvbuf, recvoffset, count, datatype, op, 0);
                Bcast(recvbuf, recvoffset, count, datatype, 0);
                return;
            }
            int n = values(count, datatype);
            org.railyard.Op red = op.nativeOp(datatype);
            if (datatype.contiguous) {
                nat.allreduce(sendbuf, sendoffset, recvbuf, recvoffset, n, datatype.nativeType, red);
            } else {
                Object r = datatype.newBaseArray(n);
                nat.allreduce(datatype.gather(sendbuf, sendoffset, count), 0, r, 0, n, datatype.nativeType, red);
                datatype.scatter(r, 0, n, recvbuf, recvoffset);
            }
        } catch (RailyardException e) {
            throw MPIException.of(e);
        }
    }

    /**
     * Inclusive prefix reduction: rank r gets {@code sendbuf} of ranks 0 to r combined with
     * {@code op}, in rank order.
     */
    public void Scan(Object sendbuf, int sendoffset, Object recvbuf, int recvoffset, int count, Datatype datatype, Op op)
            throws MPIException {
        try {
            datatype.checkForMessage();
            datatype.checkBuffer(sendbuf, sendoffset, count, "Scan");
            datatype.checkBuffer(recvbuf, recvoffset, count, "Scan");
            if (datatype.isObject()) {
                Collective.scanObjects(this, sendbuf, sendoffset, recvbuf, recvoffset, count, datatype, op);
                return;
            }
            int n = values(count, datatype);
            org.railyard.Op red = op.nativeOp(datatype);
            Run s = Run.send(sendbuf, sendoffset, count, datatype);
            Run r = Run.recv(recvbuf, recvoffset, count, datatype);
            nat.scan(s.buf, s.off, r.buf, r.off, n, datatype.nativeType, red);
            r.finish(recvbuf, recvoffset, count, datatype);
        } catch (RailyardException e) {
            throw MPIException.of(e);
        }
    }

    /**
     * Combines everyone's {@code sendbuf} (of {@code sum(recvcounts)} elements) with {@code op}
     * and leaves block r ({@code recvcounts[r]} elements, in rank order) in rank r's {@code recvbuf}.
     */
    public void Reduce_scatter(Object sendbuf, int sendoffset, Object recvbuf, int recvoffset, int[] recvcounts,
                               Datatype datatype, Op op) throws MPIException {
        try {
            int p = nat.size();
            int me = nat.rank();
            checkCounts(recvcounts, null, p, "Reduce_scatter");
            int total = sum(recvcounts, p);
            datatype.checkForMessage();
            datatype.checkBuffer(sendbuf, sendoffset, total, "Reduce_scatter");
            datatype.checkBuffer(recvbuf, recvoffset, recvcounts[me], "Reduce_scatter");
            if (datatype.isObject()) {
                Collective.reduceScatterObjects(this, sendbuf, sendoffset, recvbuf, recvoffset, recvcounts, datatype, op);
                return;
            }
            org.railyard.Op red = op.nativeOp(datatype);
            int[] n = scaled(recvcounts, datatype.size(), p);
            Run s = Run.send(sendbuf, sendoffset, total, datatype);
            Run r = Run.recv(recvbuf, recvoffset, recvcounts[me], datatype);
            nat.reduceScatter(s.buf, s.off, r.buf, r.off, n, datatype.nativeType, red);
            r.finish(recvbuf, recvoffset, recvcounts[me], datatype);
        } catch (RailyardException e) {
            throw MPIException.of(e);
        }
    }

    // ---------------------------------------------------------------- gather, scatter, all-to-all

    /**
     * Everyone sends {@code sendcount} elements; the root receives them in rank order, block r at
     * element {@code recvoffset + r * recvcount} of {@code recvbuf}. The receive arguments matter
     * only at the root.
     */
    public void Gather(Object sendbuf, int sendoffset, int sendcount, Datatype sendtype, Object recvbuf, int recvoffset,
                       int recvcount, Datatype recvtype, int root) throws MPIException {
        try {
            int p = nat.size();
            boolean isRoot = nat.rank() == root;
            checkSend(sendbuf, sendoffset, sendcount, sendtype, "Gather");
            if (isRoot) {
                checkRecv(recvbuf, recvoffset, blocks(p, recvcount), recvtype, sendtype, "Gather");
            }
            if (sendtype.isObject()) {
                Collective.gatherObjects(this, sendbuf, sendoffset, sendcount, sendtype, recvbuf, recvoffset,
                        regular(p, recvcount), null, recvtype, root);
                return;
            }
            Run s = Run.send(sendbuf, sendoffset, sendcount, sendtype);
            int rn = isRoot ? values(recvcount, recvtype) : 0;
            Run r = isRoot ? Run.recv(recvbuf, recvoffset, blocks(p, recvcount), recvtype) : Run.NONE;
            nat.gather(s.buf, s.off, s.n, sendtype.nativeType, r.buf, r.off, rn,
                    isRoot ? recvtype.nativeType : sendtype.nativeType, root);
            if (isRoot) {
                r.finish(recvbuf, recvoffset, blocks(p, recvcount), recvtype);
            }
        } catch (RailyardException e) {
            throw MPIException.of(e);
        }
    }

    /**
     * Like {@link #Gather}, with {@code recvcounts[r]} elements from rank r placed at element
     * {@code recvoffset + displs[r]} of {@code recvbuf} (displacements in extents of {@code recvtype}).
     */
    public void Gatherv(Object sendbuf, int sendoffset, int sendcount, Datatype sendtype, Object recvbuf, int recvoffset,
                        int[] recvcount, int[] displs, Datatype recvtype, int root) throws MPIException {
        try {
            int p = nat.size();
            boolean isRoot = nat.rank() == root;
            checkSend(sendbuf, sendoffset, sendcount, sendtype, "Gatherv");
            if (isRoot) {
                checkBlocks(recvbuf, recvoffset, recvcount, displs, recvtype, sendtype, p, "Gatherv");
            }
            if (sendtype.isObject()) {
                Collective.gatherObjects(this, sendbuf, sendoffset, sendcount, sendtype, recvbuf, recvoffset, recvcount,
                        displs, recvtype, root);
                return;
            }
            Run s = Run.send(sendbuf, sendoffset, sendcount, sendtype);
            Blocks r = isRoot ? Blocks.recv(recvbuf, recvoffset, recvcount, displs, recvtype, p) : Blocks.NONE;
            nat.gatherv(s.buf, s.off, s.n, sendtype.nativeType, r.buf, r.off, r.counts, r.displs,
                    isRoot ? recvtype.nativeType : sendtype.nativeType, root);
            if (isRoot) {
                r.finish(recvbuf, recvoffset, recvcount, displs, recvtype, p);
            }
        } catch (RailyardException e) {
            throw MPIException.of(e);
        }
    }

    /**
     * The root sends block r ({@code sendcount} elements at element {@code sendoffset + r *
     * sendcount}) to rank r. The send arguments matter only at the root.
     */
    public void Scatter(Object sendbuf, int sendoffset, int sendcount, Datatype sendtype, Object recvbuf, int recvoffset,
                        int recvcount, Datatype recvtype, int root) throws MPIException {
        try {
            int p = nat.size();
            boolean isRoot = nat.rank() == root;
            checkSend(recvbuf, recvoffset, recvcount, recvtype, "Scatter");
            if (isRoot) {
                checkRecv(sendbuf, sendoffset, blocks(p, sendcount), sendtype, recvtype, "Scatter");
            }
            if (recvtype.isObject()) {
                Collective.scatterObjects(this, sendbuf, sendoffset, regular(p, sendcount), null, sendtype, recvbuf,
                        recvoffset, recvcount, recvtype, root);
                return;
            }
            Run s = isRoot ? Run.send(sendbuf, sendoffset, blocks(p, sendcount), sendtype) : Run.NONE;
            int sn = isRoot ? values(sendcount, sendtype) : 0;
            Run r = Run.recv(recvbuf, recvoffset, recvcount, recvtype);
            nat.scatter(s.buf, s.off, sn, isRoot ? sendtype.nativeType : recvtype.nativeType, r.buf, r.off,
                    values(recvcount, recvtype), recvtype.nativeType, root);
            r.finish(recvbuf, recvoffset, recvcount, recvtype);
        } catch (RailyardException e) {
            throw MPIException.of(e);
        }
    }

    /**
     * Like {@link #Scatter}, rank r getting {@code sendcount[r]} elements at element
     * {@code sendoffset + displs[r]} of the root's {@code sendbuf} (displacements in extents of {@code sendtype}).
     */
    public void Scatterv(Object sendbuf, int sendoffset, int[] sendcount, int[] displs, Datatype sendtype, Object recvbuf,
                         int recvoffset, int recvcount, Datatype recvtype, int root) throws MPIException {
        try {
            int p = nat.size();
            boolean isRoot = nat.rank() == root;
            checkSend(recvbuf, recvoffset, recvcount, recvtype, "Scatterv");
            if (isRoot) {
                checkBlocks(sendbuf, sendoffset, sendcount, displs, sendtype, recvtype, p, "Scatterv");
            }
            if (recvtype.isObject()) {
                Collective.scatterObjects(this, sendbuf, sendoffset, sendcount, displs, sendtype, recvbuf, recvoffset,
                        recvcount, recvtype, root);
                return;
            }
            Blocks s = isRoot ? Blocks.send(sendbuf, sendoffset, sendcount, displs, sendtype, p) : Blocks.NONE;
            Run r = Run.recv(recvbuf, recvoffset, recvcount, recvtype);
            nat.scatterv(s.buf, s.off, s.counts, s.displs, isRoot ? sendtype.nativeType : recvtype.nativeType, r.buf,
                    r.off, values(recvcount, recvtype), recvtype.nativeType, root);
            r.finish(recvbuf, recvoffset, recvcount, recvtype);
        } catch (RailyardException e) {
            throw MPIException.of(e);
        }
    }

    /** Like {@link #Gather}, with the result at every process. */
    public void Allgather(Object sendbuf, int sendoffset, int sendcount, Datatype sendtype, Object recvbuf, int recvoffset,
                          int recvcount, Datatype recvtype) throws MPIException {
        try {
            int p = nat.size();
            checkSend(sendbuf, sendoffset, sendcount, sendtype, "Allgather");
            checkRecv(recvbuf, recvoffset, blocks(p, recvcount), recvtype, sendtype, "Allgather");
            if (sendtype.isObject()) {
                Collective.allgatherObjects(this, sendbuf, sendoffset, sendcount, sendtype, recvbuf, recvoffset,
                        regular(p, recvcount), null, recvtype);
                return;
            }
            if (sendtype.contiguous && recvtype.contiguous) {
                // the user's arrays as they are: nothing to pack, nothing allocated per call
                nat.allgather(sendbuf, sendoffset, values(sendcount, sendtype), sendtype.nativeType, recvbuf, recvoffset,
                        values(recvcount, recvtype), recvtype.nativeType);
                return;
            }
            Run s = Run.send(sendbuf, sendoffset, sendcount, sendtype);
            Run r = Run.recv(recvbuf, recvoffset, blocks(p, recvcount), recvtype);
            nat.allgather(s.buf, s.off, s.n, sendtype.nativeType, r.buf, r.off, values(recvcount, recvtype),
                    recvtype.nativeType);
            r.finish(recvbuf, recvoffset, blocks(p, recvcount), recvtype);
        } catch (RailyardException e) {
            throw MPIException.of(e);
        }
    }

    /** Like {@link #Gatherv}, with the result at every process. */
    public void Allgatherv(Object sendbuf, int sendoffset, int sendcount, Datatype sendtype, Object recvbuf,
                           int recvoffset, int[] recvcount, int[] displs, Datatype recvtype) throws MPIException {
        try {
            int p = nat.size();
            checkSend(sendbuf, sendoffset, sendcount, sendtype, "Allgatherv");
            checkBlocks(recvbuf, recvoffset, recvcount, displs, recvtype, sendtype, p, "Allgatherv");
            if (sendtype.isObject()) {
                Collective.allgatherObjects(this, sendbuf, sendoffset, sendcount, sendtype, recvbuf, recvoffset, recvcount,
                        displs, recvtype);
                return;
            }
            Run s = Run.send(sendbuf, sendoffset, sendcount, sendtype);
            Blocks r = Blocks.recv(recvbuf, recvoffset, recvcount, displs, recvtype, p);
            nat.allgatherv(s.buf, s.off, s.n, sendtype.nativeType, r.buf, r.off, r.counts, r.displs, recvtype.nativeType);
            r.finish(recvbuf, recvoffset, recvcount, displs, recvtype, p);
        } catch (RailyardException e) {
            throw MPIException.of(e);
        }
    }

    /**
     * Block r of everyone's {@code sendbuf} ({@code sendcount} elements at element
     * {@code sendoffset + r * sendcount}) goes to rank r, which places the block from rank q at
     * element {@code recvoffset + q * recvcount}.
     */
    public void Alltoall(Object sendbuf, int sendoffset, int sendcount, Datatype sendtype, Object recvbuf, int recvoffset,
                         int recvcount, Datatype recvtype) throws MPIException {
        try {
            int p = nat.size();
            checkRecv(sendbuf, sendoffset, blocks(p, sendcount), sendtype, recvtype, "Alltoall");
            checkRecv(recvbuf, recvoffset, blocks(p, recvcount), recvtype, sendtype, "Alltoall");
            if (sendtype.isObject()) {
                Collective.alltoallObjects(this, sendbuf, sendoffset, regular(p, sendcount), null, sendtype, recvbuf,
                        recvoffset, regular(p, recvcount), null, recvtype);
                return;
            }
            if (sendtype.contiguous && recvtype.contiguous) {
                // the user's arrays as they are: nothing to pack, nothing allocated per call
                nat.alltoall(sendbuf, sendoffset, values(sendcount, sendtype), sendtype.nativeType, recvbuf, recvoffset,
                        values(recvcount, recvtype), recvtype.nativeType);
                return;
            }
            Run s = Run.send(sendbuf, sendoffset, blocks(p, sendcount), sendtype);
            Run r = Run.recv(recvbuf, recvoffset, blocks(p, recvcount), recvtype);
            nat.alltoall(s.buf, s.off, values(sendcount, sendtype), sendtype.nativeType, r.buf, r.off,
                    values(recvcount, recvtype), recvtype.nativeType);
            r.finish(recvbuf, recvoffset, blocks(p, recvcount), recvtype);
        } catch (RailyardException e) {
            throw MPIException.of(e);
        }
    }

    /**
     * Rank r gets {@code sendcount[r]} elements at element {@code sendoffset + sdispls[r]}; what
     * rank q sends here lands at element {@code recvoffset + rdispls[q]} (displacements in extents
     * of each side's type).
     */
    public void Alltoallv(Object sendbuf, int sendoffset, int[] sendcount, int[] sdispls, Datatype sendtype, Object recvbuf,
                          int recvoffset, int[] recvcount, int[] rdispls, Datatype recvtype) throws MPIException {
        try {
            int p = nat.size();
            checkBlocks(sendbuf, sendoffset, sendcount, sdispls, sendtype, recvtype, p, "Alltoallv");
            checkBlocks(recvbuf, recvoffset, recvcount, rdispls, recvtype, sendtype, p, "Alltoallv");
            if (sendtype.isObject()) {
                Collective.alltoallObjects(this, sendbuf, sendoffset, sendcount, sdispls, sendtype, recvbuf, recvoffset,
                        recvcount, rdispls, recvtype);
                return;
            }
            Blocks s = Blocks.send(sendbuf, sendoffset, sendcount, sdispls, sendtype, p);
            Blocks r = Blocks.recv(recvbuf, recvoffset, recvcount, rdispls, recvtype, p);
            nat.alltoallv(s.buf, s.off, s.counts, s.displs, sendtype.nativeType, r.buf, r.off, r.counts, r.displs,
                    recvtype.nativeType);
            r.finish(recvbuf, recvoffset, recvcount, rdispls, recvtype, p);
        } catch (RailyardException e) {
            throw MPIException.of(e);
        }
    }

    // ---------------------------------------------------------------- adapting buffers

    /**
     * A run of consecutive elements as Railyard sees it: the user's array in place for a dense
     * type, else a packed array of the base values.
     */
    static final class Run {
        static final Run NONE = new Run(null, 0, 0);
        final Object buf;
        final int off;
        final int n;

        private Run(Object buf, int off, int n) {
            this.buf = buf;
            this.off = off;
            this.n = n;
        }

        static Run send(Object buf, int offset, int count, Datatype t) {
            int n = values(count, t);
            return t.contiguous ? new Run(buf, offset, n) : new Run(t.gather(buf, offset, count), 0, n);
        }

        static Run recv(Object buf, int offset, int count, Datatype t) {
            int n = values(count, t);
            return t.contiguous ? new Run(buf, offset, n) : new Run(t.newBaseArray(n), 0, n);
        }

        /** Scatters a packed receive into the user's slots. */
        void finish(Object userBuf, int offset, int count, Datatype t) {
            if (!t.contiguous) {
                t.scatter(buf, 0, n, userBuf, offset);
            }
        }
    }

    /**
     * Blocks of the v variants as Railyard sees them: counts and displacements in base values,
     * over the user's array for a dense type, else over a packed array (blocks back to back).
     */
    static final class Blocks {
        static final Blocks NONE = new Blocks(null, 0, null, null);
        final Object buf;
        final int off;
        final int[] counts;
        final int[] displs;

        private Blocks(Object buf, int off, int[] counts, int[] displs) {
            this.buf = buf;
            this.off = off;
            this.counts = counts;
            this.displs = displs;
        }

        static Blocks send(Object buf, int offset, int[] counts, int[] displs, Datatype t, int p) {
            if (t.contiguous) {
                return new Blocks(buf, offset, scaled(counts, t.size(), p), scaled(displs, t.size(), p));
            }
            int[] c = scaled(counts, t.size(), p);
            int[] d = prefix(c, p);
            Object packed = t.newBaseArray(d[p]);
            for (int r = 0; r < p; r++) {
                System.arraycopy(t.gather(buf, offset + displs[r] * t.extent(), counts[r]), 0, packed, d[r], c[r]);
            }
            return new Blocks(packed, 0, c, java.util.Arrays.copyOf(d, p));
        }

        static Blocks recv(Object buf, int offset, int[] counts, int[] displs, Datatype t, int p) {
            if (t.contiguous) {
                return new Blocks(buf, offset, scaled(counts, t.size(), p), scaled(displs, t.size(), p));
            }
            int[] c = scaled(counts, t.size(), p);
            int[] d = prefix(c, p);
            return new Blocks(t.newBaseArray(d[p]), 0, c, java.util.Arrays.copyOf(d, p));
        }

        void finish(Object userBuf, int offset, int[] userCounts, int[] userDispls, Datatype t, int p) {
            if (!t.contiguous) {
                for (int r = 0; r < p; r++) {
                    t.scatter(buf, displs[r], counts[r], userBuf, offset + userDispls[r] * t.extent());
                }
            }
        }
    }

    static int[] scaled(int[] a, int by, int p) {
        int[] out = new int[p];
        for (int i = 0; i < p; i++) {
            out[i] = Math.multiplyExact(a[i], by);
        }
        return out;
    }

    /** Prefix sums: out[r] is the sum of a[0..r), out[p] the total. */
    static int[] prefix(int[] a, int p) {
        int[] out = new int[p + 1];
        for (int i = 0; i < p; i++) {
            out[i + 1] = Math.addExact(out[i], a[i]);
        }
        return out;
    }

    static int sum(int[] a, int p) {
        return prefix(a, p)[p];
    }

    /** {@code p} blocks of {@code count} elements, as one count. */
    static int blocks(int p, int count) {
        long n = (long) p * count;
        if (n > Integer.MAX_VALUE) {
            throw MPIException.error(p + " blocks of " + count + " elements are more than 2^31 elements");
        }
        return (int) n;
    }

    /** Counts and displacements of {@code p} regular blocks of {@code count} elements. */
    static int[] regular(int p, int count) {
        int[] c = new int[p];
        java.util.Arrays.fill(c, count);
        return c;
    }

    private static void checkSend(Object buf, int offset, int count, Datatype t, String what) {
        t.checkForMessage();
        t.checkBuffer(buf, offset, count, what);
    }

    private static void checkRecv(Object buf, int offset, int count, Datatype t, Datatype other, String what) {
        t.checkForMessage();
        if (t.isObject() != other.isObject()) {
            throw MPIException.error(what + ": MPI.OBJECT data must be sent and received as MPI.OBJECT");
        }
        t.checkBuffer(buf, offset, count, what);
    }

    private static void checkCounts(int[] counts, int[] displs, int p, String what) {
        if (counts == null || counts.length < p || (displs != null && displs.length < p)) {
            throw MPIException.error(what + ": counts and displacements need one entry per process (" + p + ")");
        }
        for (int r = 0; r < p; r++) {
            if (counts[r] < 0) {
                throw MPIException.error(what + ": count " + counts[r] + " for rank " + r + " is negative");
            }
        }
    }

    private static void checkBlocks(Object buf, int offset, int[] counts, int[] displs, Datatype t, Datatype other, int p,
                                    String what) {
        checkCounts(counts, displs, p, what);
        for (int r = 0; r < p; r++) {
            checkRecv(buf, offset + (displs == null ? 0 : displs[r] * t.extent()), counts[r], t, other, what + " block of rank " + r);
        }
    }

}
