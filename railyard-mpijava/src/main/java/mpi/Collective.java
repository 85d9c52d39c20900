package mpi;

import java.util.Arrays;

/**
 * The collectives of {@link Intracomm} over {@link MPI#OBJECT} data, built from Railyard's
 * collectives on bytes: every block is serialized on its own, the block lengths travel first (an
 * int per block, with the plain collective), then the bytes with the {@code v} variant, and each
 * receiver deserializes its blocks into its slots. Reductions of objects gather the serialized
 * contributions and apply the user function in rank order ({@code in} from the lower rank), as
 * Railyard's reductions do for primitive values.
 */
final class Collective {
    private static final org.railyard.Datatype INT = org.railyard.Datatype.INT;
    private static final org.railyard.Datatype BYTE = org.railyard.Datatype.BYTE;

    private Collective() {
    }

    /** The serialized objects of {@code count} elements of {@code type} at {@code offset}, exactly as long as needed. */
    static byte[] serialize(Object buf, int offset, int count, Datatype type) {
        ObjectMessages.Outgoing o = ObjectMessages.encode(buf, offset, count, type);
        return Arrays.copyOf(o.payload, o.length);
    }

    /** Reads {@code n} objects serialized in {@code len} bytes at {@code off} into the slots of the elements at {@code offset}. */
    static void deserialize(byte[] data, int off, int len, int n, Object buf, int offset, Datatype type) {
        if (type.contiguous) {
            ObjectMessages.decode(data, off, len, n, (Object[]) buf, offset);
        } else {
            Object[] tmp = new Object[n];
            ObjectMessages.decode(data, off, len, n, tmp, 0);
            type.scatter(tmp, 0, n, buf, offset);
        }
    }

    /** Serialized blocks back to back: their lengths and byte displacements. */
    private record Serialized(byte[] bytes, int[] lens, int[] displs) {
    }

    /** Element displacements of the blocks: the given ones, or blocks back to back when null. */
    private static int[] elementDispls(int[] counts, int[] displs, int p) {
        return displs != null ? displs : Arrays.copyOf(Intracomm.prefix(counts, p), p);
    }

    private static Serialized serializeBlocks(Object buf, int offset, int[] counts, int[] displs, Datatype t, int p) {
        int[] d = elementDispls(counts, displs, p);
        byte[][] parts = new byte[p][];
        int[] lens = new int[p];
        for (int r = 0; r < p; r++) {
            parts[r] = serialize(buf, offset + d[r] * t.extent(), counts[r], t);
            lens[r] = parts[r].length;
        }
        int[] at = Intracomm.prefix(lens, p);
        byte[] all = new byte[at[p]];
        for (int r = 0; r < p; r++) {
            System.arraycopy(parts[r], 0, all, at[r], lens[r]);
        }
        return new Serialized(all, lens, Arrays.copyOf(at, p));
    }

    private static void deserializeBlocks(byte[] all, int[] lens, int[] at, Object buf, int offset, int[] counts,
                                          int[] displs, Datatype t, int p) {
        int[] d = elementDispls(counts, displs, p);
        for (int r = 0; r < p; r++) {
            deserialize(all, at[r], lens[r], counts[r] * t.size(), buf, offset + d[r] * t.extent(), t);
        }
    }

    // ---------------------------------------------------------------- data movement

    static void gatherObjects(Intracomm comm, Object sbuf, int soff, int scount, Datatype stype, Object rbuf, int roff,
                              int[] rcounts, int[] rdispls, Datatype rtype, int root) {
        org.railyard.Comm c = comm.nat;
        int p = c.size();
        boolean isRoot = c.rank() == root;
        byte[] mine = serialize(sbuf, soff, scount, stype);
        int[] lens = isRoot ? new int[p] : null;
        c.gather(new int[] {mine.length}, 0, 1, INT, lens, 0, 1, INT, root);
        int[] at = isRoot ? Intracomm.prefix(lens, p) : null;
        byte[] all = isRoot ? new byte[at[p]] : null;
        c.gatherv(mine, 0, mine.length, BYTE, all, 0, lens, isRoot ? Arrays.copyOf(at, p) : null, BYTE, root);
        if (isRoot) {
            deserializeBlocks(all, lens, at, rbuf, roff, rcounts, rdispls, rtype, p);
        }
    }

    static void scatterObjects(Intracomm comm, Object sbuf, int soff, int[] scounts, int[] sdispls, Datatype stype,
                               Object rbuf, int roff, int rcount, Datatype rtype, int root) {
        org.railyard.Comm c = comm.nat;
        int p = c.size();
        boolean isRoot = c.rank() == root;
        Serialized s = isRoot ? serializeBlocks(sbuf, soff, scounts, sdispls, stype, p) : null;
        int[] len = new int[1];
        c.scatter(isRoot ? s.lens : null, 0, 1, INT, len, 0, 1, INT, root);
        byte[] mine = new byte[len[0]];
        c.scatterv(isRoot ? s.bytes : null, 0, isRoot ? s.lens : null, isRoot ? s.displs : null, BYTE, mine, 0, mine.length,
                BYTE, root);
        deserialize(mine, 0, mine.length, rcount * rtype.size(), rbuf, roff, rtype);
    }

    static void allgatherObjects(Intracomm comm, Object sbuf, int soff, int scount, Datatype stype, Object rbuf, int roff,
                                 int[] rcounts, int[] rdispls, Datatype rtype) {
        org.railyard.Comm c = comm.nat;
        int p = c.size();
        byte[] mine = serialize(sbuf, soff, scount, stype);
        int[] lens = new int[p];
        c.allgather(new int[] {mine.length}, 0, 1, INT, lens, 0, 1, INT);
        int[] at = Intracomm.prefix(lens, p);
        byte[] all = new byte[at[p]];
        c.allgatherv(mine, 0, mine.length, BYTE, all, 0, lens, Arrays.copyOf(at, p), BYTE);
        deserializeBlocks(all, lens, at, rbuf, roff, rcounts, rdispls, rtype, p);
    }

    static void alltoallObjects(Intracomm comm, Object sbuf, int soff, int[] scounts, int[] sdispls, Datatype stype,
                                Object rbuf, int roff, int[] rcounts, int[] rdispls, Datatype rtype) {
        org.railyard.Comm c = comm.nat;
        int p = c.size();
        Serialized s = serializeBlocks(sbuf, soff, scounts, sdispls, stype, p);
        int[] lens = new int[p];
        c.alltoall(s.lens, 0, 1, INT, lens, 0, 1, INT);
        int[] at = Intracomm.prefix(lens, p);
        byte[] all = new byte[at[p]];
        c.alltoallv(s.bytes, 0, s.lens, s.displs, BYTE, all, 0, lens, Arrays.copyOf(at, p), BYTE);
        deserializeBlocks(all, lens, at, rbuf, roff, rcounts, rdispls, rtype, p);
    }

    // ---------------------------------------------------------------- reductions

    /** What a user function sees for {@code type}: the type itself if dense, else its contiguous image. */
    private static Datatype seen(Datatype type) {
        return type.contiguous ? type : Datatype.Contiguous(type.size(), MPI.OBJECT);
    }

    private static void checkOp(Op op) {
        if (!op.isUser()) {
            throw MPIException.error("MPI." + op + " does not apply to MPI.OBJECT: reduce objects with an Op of your own");
        }
        op.reduction(MPI.OBJECT); // fails for a freed operation
    }

    /** The packed values ({@code count * type.Size()} objects) of every rank, decoded at the root; null elsewhere. */
    private static Object[][] contributionsAtRoot(Intracomm comm, Object sbuf, int soff, int count, Datatype type, int root) {
        org.railyard.Comm cs = comm.nat;
        int p = cs.size();
        int n = count * type.size();
        Object[] packed = new Object[p * n];
        Datatype image = Datatype.Contiguous(n, MPI.OBJECT);
        gatherObjects(comm, sbuf, soff, count, type, packed, 0, Intracomm.regular(p, 1), null, image, root);
        if (cs.rank() != root) {
            return null;
        }
        Object[][] v = new Object[p][];
        for (int r = 0; r < p; r++) {
            v[r] = Arrays.copyOfRange(packed, r * n, (r + 1) * n);
        }
        return v;
    }

    /** Folds {@code v[0..last]} in rank order: v[0] op (v[1] op (... op v[last])). */
    private static Object[] fold(Object[][] v, int last, int count, Datatype type, Op op) {
        Datatype seen = seen(type);
        Object[] acc = v[last];
        for (int r = last - 1; r >= 0; r--) {
            op.function.Call(v[r], 0, acc, 0, count, seen);
        }
        return acc;
    }

    static void reduceObjects(Intracomm comm, Object sbuf, int soff, Object rbuf, int roff, int count, Datatype type, Op op,
                              int root) {
        checkOp(op);
        Object[][] v = contributionsAtRoot(comm, sbuf, soff, count, type, root);
        if (v != null) {
            type.scatter(fold(v, v.length - 1, count, type, op), 0, count * type.size(), rbuf, roff);
        }
    }

    static void scanObjects(Intracomm comm, Object sbuf, int soff, Object rbuf, int roff, int count, Datatype type, Op op) {
        checkOp(op);
        org.railyard.Comm cs = comm.nat;
        int p = cs.size();
        int n = count * type.size();
        Object[] packed = new Object[p * n];
        allgatherObjects(comm, sbuf, soff, count, type, packed, 0, Intracomm.regular(p, 1), null,
                Datatype.Contiguous(n, MPI.OBJECT));
        Object[][] v = new Object[cs.rank() + 1][];
        for (int r = 0; r <= cs.rank(); r++) {
            v[r] = Arrays.copyOfRange(packed, r * n, (r + 1) * n);
        }
        type.scatter(fold(v, cs.rank(), count, type, op), 0, n, rbuf, roff);
    }

    static void reduceScatterObjects(Intracomm comm, Object sbuf, int soff, Object rbuf, int roff, int[] rcounts,
                                     Datatype type, Op op) {
        checkOp(op);
        org.railyard.Comm cs = comm.nat;
        int p = cs.size();
        int total = Intracomm.sum(rcounts, p);
        Object[][] v = contributionsAtRoot(comm, sbuf, soff, total, type, 0);
        Object[] acc = v == null ? null : fold(v, p - 1, total, type, op);
        // The folded values are packed: rank r's block is rcounts[r] elements of the contiguous image.
        Datatype image = Datatype.Contiguous(type.size(), MPI.OBJECT);
        scatterObjects(comm, acc, 0, rcounts, null, image, rbuf, roff, rcounts[cs.rank()], type, 0);
    }
}
