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
        org.railyard.Comm c = MPIException.call(() -> nat.split(colour == MPI.UNDEFINED ? org.railyard.Comm.UNDEFINED : colour, key));
        return c == null ? null : new Intracomm(c);
    }

    /** Collective: a duplicate with the same group and a new context. */
    @Override
    public Object clone() throws MPIException {
        return Dup();
    }

    /** Collective: a duplicate with the same group and a new context (what {@link #clone()} returns, typed). */
    public Intracomm Dup() throws MPIException {
        return MPIException.call(() -> new Intracomm(nat.dup()));
    }

    /**
     * Collective: a communicator of the members of {@code group} (a subset of this communicator's
     * group, the same at every process), in group order; null at processes not in it.
     */
    public Intracomm Create(Group group) throws MPIException {
        org.railyard.Comm c = MPIException.call(() -> nat.create(group.nat));
        return c == null ? null : new Intracomm(c);
    }

    /**
     * Collective: a communicator with a Cartesian topology of {@code dims} (periodic where
     * {@code periods} says) over the first {@code prod(dims)} processes, which keep their ranks
     * (a valid placement whatever {@code reorder} says); null at the others.
     */
    public Cartcomm Create_cart(int[] dims, boolean[] periods, boolean reorder) throws MPIException {
        org.railyard.Comm c = MPIException.call(() -> nat.createCart(dims, periods, reorder));
        return c == null ? null : new Cartcomm(c);
    }

    /**
     * Collective: a communicator with a graph topology (cumulative {@code index}, flat
     * {@code edges}) over the first {@code index.length} processes, which keep their ranks; null
     * at the others.
     */
    public Graphcomm Create_graph(int[] index, int[] edges, boolean reorder) {
        org.railyard.Comm c = MPIException.call(() -> nat.createGraph(index, edges, reorder));
        return c == null ? null : new Graphcomm(c);
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
                // A packed buffer travels whole, whatever its size: the root's message length first.
                boolean isRoot = nat.rank() == root;
                byte[] m = isRoot ? Packed.message(b) : null;
                int[] size = {isRoot ? m.length : 0};
                nat.bcast(size, 0, 1, root);
                m = isRoot ? m : new byte[size[0]];
                nat.bcast(m, 0, size[0], root);
                if (!isRoot) {
                    Packed.land(b, m, size[0]);
                }
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
            Object r = space(recvbuf, n, datatype);
            nat.scan(area(sendbuf, sendoffset, count, datatype), at(sendoffset, datatype), r, at(recvoffset, datatype), n,
                    datatype.nativeType, red);
            unpack(r, n, recvbuf, recvoffset, datatype);
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
            Object r = space(recvbuf, n[me], datatype);
            nat.reduceScatter(area(sendbuf, sendoffset, total, datatype), at(sendoffset, datatype), r,
                    at(recvoffset, datatype), n, datatype.nativeType, red);
            unpack(r, n[me], recvbuf, recvoffset, datatype);
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
            int rn = isRoot ? values(recvcount, recvtype) : 0;
            int all = isRoot ? values(blocks(p, recvcount), recvtype) : 0;
            Object r = isRoot ? space(recvbuf, all, recvtype) : null;
            nat.gather(area(sendbuf, sendoffset, sendcount, sendtype), at(sendoffset, sendtype), values(sendcount, sendtype),
                    sendtype.nativeType, r, isRoot ? at(recvoffset, recvtype) : 0, rn,
                    isRoot ? recvtype.nativeType : sendtype.nativeType, root);
            if (isRoot) {
                unpack(r, all, recvbuf, recvoffset, recvtype);
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
            int[] rc = isRoot ? scaled(recvcount, recvtype.size(), p) : null;
            int[] rd = isRoot ? baseDispls(rc, displs, recvtype, p) : null;
            Object r = isRoot ? space(recvbuf, sum(rc, p), recvtype) : null;
            nat.gatherv(area(sendbuf, sendoffset, sendcount, sendtype), at(sendoffset, sendtype), values(sendcount, sendtype),
                    sendtype.nativeType, r, isRoot ? at(recvoffset, recvtype) : 0, rc, rd,
                    isRoot ? recvtype.nativeType : sendtype.nativeType, root);
            if (isRoot) {
                unpackBlocks(r, rc, rd, recvbuf, recvoffset, displs, recvtype, p);
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
            int sn = isRoot ? values(sendcount, sendtype) : 0;
            int rn = values(recvcount, recvtype);
            Object r = space(recvbuf, rn, recvtype);
            nat.scatter(isRoot ? area(sendbuf, sendoffset, blocks(p, sendcount), sendtype) : null,
                    isRoot ? at(sendoffset, sendtype) : 0, sn, isRoot ? sendtype.nativeType : recvtype.nativeType, r,
                    at(recvoffset, recvtype), rn, recvtype.nativeType, root);
            unpack(r, rn, recvbuf, recvoffset, recvtype);
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
            int[] sc = isRoot ? scaled(sendcount, sendtype.size(), p) : null;
            int[] sd = isRoot ? baseDispls(sc, displs, sendtype, p) : null;
            int rn = values(recvcount, recvtype);
            Object r = space(recvbuf, rn, recvtype);
            nat.scatterv(isRoot ? packBlocks(sendbuf, sendoffset, sendcount, displs, sc, sd, sendtype, p) : null,
                    isRoot ? at(sendoffset, sendtype) : 0, sc, sd, isRoot ? sendtype.nativeType : recvtype.nativeType, r,
                    at(recvoffset, recvtype), rn, recvtype.nativeType, root);
            unpack(r, rn, recvbuf, recvoffset, recvtype);
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
            int all = values(blocks(p, recvcount), recvtype);
            Object r = space(recvbuf, all, recvtype);
            nat.allgather(area(sendbuf, sendoffset, sendcount, sendtype), at(sendoffset, sendtype),
                    values(sendcount, sendtype), sendtype.nativeType, r, at(recvoffset, recvtype),
                    values(recvcount, recvtype), recvtype.nativeType);
            unpack(r, all, recvbuf, recvoffset, recvtype);
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
            int[] rc = scaled(recvcount, recvtype.size(), p);
            int[] rd = baseDispls(rc, displs, recvtype, p);
            Object r = space(recvbuf, sum(rc, p), recvtype);
            nat.allgatherv(area(sendbuf, sendoffset, sendcount, sendtype), at(sendoffset, sendtype),
                    values(sendcount, sendtype), sendtype.nativeType, r, at(recvoffset, recvtype), rc, rd, recvtype.nativeType);
            unpackBlocks(r, rc, rd, recvbuf, recvoffset, displs, recvtype, p);
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
            int all = values(blocks(p, recvcount), recvtype);
            Object r = space(recvbuf, all, recvtype);
            nat.alltoall(area(sendbuf, sendoffset, blocks(p, sendcount), sendtype), at(sendoffset, sendtype),
                    values(sendcount, sendtype), sendtype.nativeType, r, at(recvoffset, recvtype),
                    values(recvcount, recvtype), recvtype.nativeType);
            unpack(r, all, recvbuf, recvoffset, recvtype);
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
            int[] sc = scaled(sendcount, sendtype.size(), p);
            int[] sd = baseDispls(sc, sdispls, sendtype, p);
            int[] rc = scaled(recvcount, recvtype.size(), p);
            int[] rd = baseDispls(rc, rdispls, recvtype, p);
            Object r = space(recvbuf, sum(rc, p), recvtype);
            nat.alltoallv(packBlocks(sendbuf, sendoffset, sendcount, sdispls, sc, sd, sendtype, p), at(sendoffset, sendtype),
                    sc, sd, sendtype.nativeType, r, at(recvoffset, recvtype), rc, rd, recvtype.nativeType);
            unpackBlocks(r, rc, rd, recvbuf, recvoffset, rdispls, recvtype, p);
        } catch (RailyardException e) {
            throw MPIException.of(e);
        }
    }

    // ---------------------------------------------------------------- adapting buffers

    // A dense type passes the user's array and offset as they are. Any other type goes through an
    // array of its base values, packed before a send and unpacked after a receive. These helpers
    // return plain values, not holder objects, so that a dense call allocates nothing.

    /** What Railyard sends for {@code count} elements at {@code offset}: the user's array, or its base values packed. */
    static Object area(Object buf, int offset, int count, Datatype t) {
        return t.contiguous ? buf : t.gather(buf, offset, count);
    }

    /** Where Railyard receives {@code n} base values: the user's array, or a new packed array. */
    static Object space(Object buf, int n, Datatype t) {
        return t.contiguous ? buf : t.newBaseArray(n);
    }

    /** The offset in {@link #area} or {@link #space}: the user's, or 0 in a packed array. */
    static int at(int offset, Datatype t) {
        return t.contiguous ? offset : 0;
    }

    /** Scatters {@code n} packed base values received into {@code space} to the user's slots. */
    static void unpack(Object space, int n, Object buf, int offset, Datatype t) {
        if (!t.contiguous) {
            t.scatter(space, 0, n, buf, offset);
        }
    }

    /**
     * Displacements of a v collective in base values: the user's, scaled, for a dense type; else
     * the blocks back to back in rank order, as {@link #packBlocks} lays them out.
     */
    static int[] baseDispls(int[] baseCounts, int[] displs, Datatype t, int p) {
        return t.contiguous ? scaled(displs, t.size(), p) : java.util.Arrays.copyOf(prefix(baseCounts, p), p);
    }

    /** What Railyard sends for the blocks of a v collective: the user's array, or the blocks packed at {@code baseDispls}. */
    static Object packBlocks(Object buf, int offset, int[] counts, int[] displs, int[] baseCounts, int[] baseDispls,
                             Datatype t, int p) {
        if (t.contiguous) {
            return buf;
        }
        Object packed = t.newBaseArray(sum(baseCounts, p));
        for (int r = 0; r < p; r++) {
            System.arraycopy(t.gather(buf, offset + displs[r] * t.extent(), counts[r]), 0, packed, baseDispls[r],
                    baseCounts[r]);
        }
        return packed;
    }

    /** Scatters the packed blocks received into {@code space} to the user's blocks at {@code displs}. */
    static void unpackBlocks(Object space, int[] baseCounts, int[] baseDispls, Object buf, int offset, int[] displs,
                             Datatype t, int p) {
        if (!t.contiguous) {
            for (int r = 0; r < p; r++) {
                t.scatter(space, baseDispls[r], baseCounts[r], buf, offset + displs[r] * t.extent());
            }
        }
    }

    /**
     * Counts or displacements in base values: {@code a} itself for a type of one base value (the
     * predefined types), which the engine reads and never keeps past the call; else a new array.
     */
    static int[] scaled(int[] a, int by, int p) {
        if (by == 1) {
            return a;
        }
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
        int total = 0;
        for (int i = 0; i < p; i++) {
            total = Math.addExact(total, a[i]);
        }
        return total;
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
        checkRecv(buf, offset, count, t, other, what, -1);
    }

    /** As above, for the block of rank {@code block} (none if negative); the message is made only on failure. */
    private static void checkRecv(Object buf, int offset, int count, Datatype t, Datatype other, String what, int block) {
        t.checkForMessage();
        if (t.isObject() != other.isObject()) {
            throw MPIException.error(Datatype.where(what, block) + ": MPI.OBJECT data must be sent and received as MPI.OBJECT");
        }
        t.checkBuffer(buf, offset, count, what, block);
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
            checkRecv(buf, offset + (displs == null ? 0 : displs[r] * t.extent()), counts[r], t, other, what, r);
        }
    }

}
