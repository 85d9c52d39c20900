package org.railyard.mpijava.ranks;

import java.util.Arrays;
import mpi.Datatype;
import mpi.MPI;
import mpi.Prequest;
import mpi.Request;
import mpi.Status;
import mpjbuf.Buffer;

/**
 * {@code mpi.Datatype}: the constructors, bounds and extents (holes, LB/UB markers, negative
 * strides), derived types on the wire in every point-to-point form and in broadcasts and
 * reductions, and {@code Pack}/{@code Unpack} with {@code mpjbuf.Buffer} and byte arrays.
 * Ranks pass messages around a ring; prints "done".
 */
public class DatatypeRank extends Ring {
    private static final int HOLE = -99;
    public static void main(String[] args) throws Exception {
        start(args);
        bounds();
        vectorsOnTheWire();
        structWithMarkers();
        nonBlockingAndPersistent();
        partialReceives();
        collectives();
        packing();
        freeing();
        finish();
    }

    private static void shape(Datatype t, int size, int extent, int lb, int ub, String what) {
        Check.equal(t.Size() + " " + t.Extent() + " " + t.Lb() + " " + t.Ub(), size + " " + extent + " " + lb + " " + ub,
                what + ": size extent lb ub");
    }

    private static void bounds() {
        shape(MPI.INT, 1, 1, 0, 1, "INT");
        shape(MPI.DOUBLE, 1, 1, 0, 1, "DOUBLE");
        shape(MPI.OBJECT, 1, 1, 0, 1, "OBJECT");
        Check.equal(MPI.INT.getByteSize() + " " + MPI.CHAR.getByteSize() + " " + MPI.DOUBLE.getByteSize() + " "
                + MPI.BOOLEAN.getByteSize() + " " + MPI.OBJECT.getByteSize(), "4 2 8 1 0", "getByteSize of base types");
        Check.equal(Datatype.Contiguous(3, MPI.DOUBLE).getByteSize(), 24, "getByteSize of 3 doubles");
        Check.equal(Datatype.Vector(2, 2, 5, MPI.SHORT).getByteSize(), 8, "getByteSize counts data, not holes");
        shape(MPI.INT2, 2, 2, 0, 2, "INT2");
        shape(MPI.DOUBLE2, 2, 2, 0, 2, "DOUBLE2");
        shape(MPI.LB, 0, 0, 0, 0, "LB");
        shape(MPI.UB, 0, 0, 0, 0, "UB");
        shape(Datatype.Contiguous(3, MPI.INT), 3, 3, 0, 3, "Contiguous");
        shape(Datatype.Contiguous(0, MPI.INT), 0, 0, 0, 0, "empty Contiguous");
        Datatype v = Datatype.Vector(3, 2, 4, MPI.INT);
        shape(v, 6, 10, 0, 10, "Vector(3,2,4)");
        shape(Datatype.Hvector(3, 2, 4, MPI.INT), 6, 10, 0, 10, "Hvector(3,2,4)");
        shape(Datatype.Vector(2, 1, 2, v), 12, 30, 0, 30, "Vector of Vector");
        shape(Datatype.Hvector(2, 1, 3, v), 12, 13, 0, 13, "Hvector of Vector: stride in slots");
        shape(Datatype.Vector(3, 1, -2, MPI.INT), 3, 5, -4, 1, "negative stride");
        shape(Datatype.Indexed(new int[] {2, 1}, new int[] {5, 0}, MPI.INT), 3, 7, 0, 7, "Indexed");
        shape(Datatype.Indexed(new int[] {1, 1}, new int[] {1, 0}, Datatype.Contiguous(2, MPI.INT)), 4, 4, 0, 4,
                "Indexed of Contiguous: displacements in extents");
        shape(Datatype.Hindexed(new int[] {1, 1}, new int[] {3, 0}, Datatype.Contiguous(2, MPI.INT)), 4, 5, 0, 5,
                "Hindexed: displacements in slots");
        shape(Datatype.Struct(new int[] {1, 2, 1}, new int[] {-2, 0, 7}, new Datatype[] {MPI.LB, MPI.INT, MPI.UB}),
                2, 9, -2, 7, "Struct with LB and UB");
        shape(Datatype.Struct(new int[] {2, 1}, new int[] {0, 4}, new Datatype[] {MPI.DOUBLE, MPI.DOUBLE}), 3, 5, 0, 5,
                "Struct of one base type");
        Check.fails(() -> Datatype.Struct(new int[] {1, 1}, new int[] {0, 1}, new Datatype[] {MPI.INT, MPI.DOUBLE}),
                "cannot share one Java buffer", "Struct of two base types");
        Check.fails(() -> Datatype.Vector(-1, 1, 1, MPI.INT), "negative", "negative count");
        Check.fails(() -> Datatype.Indexed(new int[] {1}, new int[] {0, 1}, MPI.INT), "one entry per block",
                "mismatched arrays");
        // A sticky marker survives nesting: the vector of a resized type steps by the marked extent.
        Datatype resized = Datatype.Struct(new int[] {1, 1}, new int[] {0, 3}, new Datatype[] {MPI.INT, MPI.UB});
        shape(resized, 1, 3, 0, 3, "INT resized to 3");
        shape(Datatype.Contiguous(2, resized), 2, 6, 0, 6, "Contiguous of the resized INT");
    }

    private static int[] holes(int n) {
        int[] a = new int[n];
        Arrays.fill(a, HOLE);
        return a;
    }

    private static void vectorsOnTheWire() {
        Datatype v = Datatype.Vector(3, 2, 4, MPI.INT); // slots 0 1 _ _ 4 5 _ _ 8 9
        v.Commit();
        int[] src = new int[24];
        for (int i = 0; i < src.length; i++) {
            src[i] = me * 1000 + i;
        }
        // Vector out, plain ints in: the packed values arrive in type-map order.
        int[] plain = new int[6];
        world.Sendrecv(src, 1, 1, v, right, 1, plain, 0, 6, MPI.INT, left, 1);
        int b = left * 1000;
        Check.equal(plain, new int[] {b + 1, b + 2, b + 5, b + 6, b + 9, b + 10}, "vector sent, ints received");
        // Plain ints out, two vectors in (element 1 starts one extent, 10 slots, after element 0).
        int[] into = holes(22);
        int[] twelve = new int[12];
        for (int i = 0; i < 12; i++) {
            twelve[i] = me * 100 + i;
        }
        Status s = world.Sendrecv(twelve, 0, 12, MPI.INT, right, 2, into, 1, 2, v, left, 2);
        int c = left * 100;
        Check.equal(into, new int[] {HOLE, c, c + 1, HOLE, HOLE, c + 2, c + 3, HOLE, HOLE, c + 4, c + 5,
            c + 6, c + 7, HOLE, HOLE, c + 8, c + 9, HOLE, HOLE, c + 10, c + 11, HOLE}, "ints sent, vectors received, holes kept");
        Check.equal(s.Get_count(v), 2, "count in vectors");
        Check.equal(s.Get_elements(v), 12, "elements of a vector receive");
        // Negative stride: the elements go in reverse slot order.
        Datatype rev = Datatype.Vector(4, 1, -1, MPI.INT);
        int[] r = new int[4];
        world.Sendrecv(new int[] {me, 1, 2, 3}, 3, 1, rev, right, 3, r, 0, 4, MPI.INT, left, 3);
        Check.equal(r, new int[] {3, 2, 1, left}, "negative stride reads backwards");
        // Indexed with blocks out of order, into Hindexed of doubles.
        Datatype idx = Datatype.Indexed(new int[] {2, 1}, new int[] {5, 0}, MPI.DOUBLE);
        double[] d = {10 + me, 11, 12, 13, 14, 15 + me, 16, 17};
        double[] got = new double[3];
        world.Sendrecv(d, 0, 1, idx, right, 4, got, 0, 3, MPI.DOUBLE, left, 4);
        Check.equal(got, new double[] {15 + left, 16, 10 + left}, "Indexed sends blocks in type-map order");
        // The same type both ends, with a count of 3 and an offset: Sendrecv_replace.
        Datatype hv = Datatype.Hvector(2, 1, 3, MPI.LONG); // slots 0 and 3, extent 4
        long[] l = new long[14];
        for (int i = 0; i < l.length; i++) {
            l[i] = me * 100 + i;
        }
        world.Sendrecv_replace(l, 2, 3, hv, right, 5, left, 5);
        long[] want = new long[14];
        for (int i = 0; i < 14; i++) {
            want[i] = me * 100 + i;
        }
        for (int e = 0; e < 3; e++) {
            want[2 + 4 * e] = left * 100 + 2 + 4 * e;
            want[5 + 4 * e] = left * 100 + 5 + 4 * e;
        }
        Check.equal(l, want, "Sendrecv_replace with a strided type");
    }

    private static void structWithMarkers() {
        // Two ints at slots 0 and 1 with an extent of 5 set by UB: every element skips 3 slots.
        Datatype t = Datatype.Struct(new int[] {2, 1}, new int[] {0, 5}, new Datatype[] {MPI.INT, MPI.UB});
        int[] src = new int[15];
        for (int i = 0; i < 15; i++) {
            src[i] = me * 50 + i;
        }
        int[] dst = holes(15);
        world.Sendrecv(src, 0, 3, t, right, 10, dst, 0, 3, t, left, 10);
        int b = left * 50;
        Check.equal(dst, new int[] {b, b + 1, HOLE, HOLE, HOLE, b + 5, b + 6, HOLE, HOLE, HOLE, b + 10, b + 11, HOLE, HOLE,
            HOLE}, "struct with UB: stride of 5");
        // LB two slots below the data: lb -2, ub 1, extent 3; element i's value is at offset + 3i.
        Datatype low = Datatype.Struct(new int[] {1, 1}, new int[] {-2, 0}, new Datatype[] {MPI.LB, MPI.INT});
        int[] two = holes(6);
        world.Sendrecv(new int[] {me, me + 1}, 0, 2, MPI.INT, right, 11, two, 2, 2, low, left, 11);
        Check.equal(two, new int[] {HOLE, HOLE, left, HOLE, HOLE, left + 1}, "LB marker sets the extent");
    }

    private static void nonBlockingAndPersistent() {
        Datatype v = Datatype.Vector(2, 1, 3, MPI.FLOAT); // slots 0, 3
        float[] out = {me, -1, -1, me + 0.5f, 7, 8};
        float[] in = new float[6];
        Arrays.fill(in, -9f);
        Request r = world.Irecv(in, 1, 1, v, left, 20);
        Request s = world.Isend(out, 0, 1, v, right, 20);
        out[0] = 1234; // Isend of a type with holes packed the data at the call
        Request.Waitall(new Request[] {r, s});
        Check.equal(Arrays.toString(in), Arrays.toString(new float[] {-9, left, -9, -9, left + 0.5f, -9}),
                "Irecv into a vector");
        Prequest ps = world.Send_init(out, 2, 1, v, right, 21); // slots 2 and 5
        Prequest pr = world.Recv_init(in, 0, 1, v, left, 21); // slots 0 and 3
        for (int round = 0; round < 2; round++) {
            out[2] = me + round;
            out[5] = 100 + round;
            Prequest.Startall(new Prequest[] {pr, ps});
            Request.Waitall(new Request[] {ps, pr});
            Check.equal(in[0] + "," + in[3], (float) (left + round) + "," + (float) (100 + round), "persistent vector " + round);
        }
    }

    private static void partialReceives() {
        Datatype pair = Datatype.Contiguous(2, MPI.INT);
        int[] big = new int[10];
        // Three ints arrive where up to five pairs fit: 1 whole pair and a half, so Get_count is UNDEFINED.
        world.Send(new int[] {1, 2, 3}, 0, 3, MPI.INT, right, 30);
        Status s = world.Recv(big, 0, 5, pair, left, 30);
        Check.equal(s.Get_count(pair), MPI.UNDEFINED, "partial element");
        Check.equal(s.Get_elements(pair), 3, "elements of a partial receive");
        Check.equal(s.Get_count(MPI.INT), 3, "count as ints");
        // The same through a type with holes: only the slots of what arrived are written.
        Datatype v = Datatype.Vector(2, 1, 2, MPI.INT); // slots 0 and 2, extent 3
        int[] into = holes(6);
        world.Send(new int[] {5, 6, 7}, 0, 3, MPI.INT, right, 31);
        Status t = world.Recv(into, 0, 2, v, left, 31);
        Check.equal(into, new int[] {5, HOLE, 6, 7, HOLE, HOLE}, "partial receive into a vector");
        Check.equal(t.Get_count(v), MPI.UNDEFINED, "1.5 vectors");
        // Zero elements of a derived type.
        world.Send(big, 0, 0, v, right, 32);
        Check.equal(world.Recv(big, 0, 0, v, left, 32).Get_count(v), 0, "zero vectors");
    }

    private static void collectives() {
        Datatype v = Datatype.Vector(2, 1, 2, MPI.INT); // slots 0, 2
        for (int root = 0; root < np; root++) {
            int[] buf = holes(4);
            if (me == root) {
                buf = new int[] {root, -1, root + 1, -1};
            }
            world.Bcast(buf, 0, 1, v, root);
            Check.equal(buf, me == root ? new int[] {root, -1, root + 1, -1} : new int[] {root, HOLE, root + 1, HOLE},
                    "Bcast of a vector from " + root);
        }
        int[] mine = {me, 0, 10 * me, 0, 7, 0};
        int[] sum = holes(6);
        world.Reduce(mine, 0, sum, 0, 1, Datatype.Vector(3, 1, 2, MPI.INT), MPI.SUM, np - 1);
        int s = np * (np - 1) / 2;
        if (me == np - 1) {
            Check.equal(sum, new int[] {s, HOLE, 10 * s, HOLE, 7 * np, HOLE}, "Reduce of a vector");
        }
        double[] dsum = new double[6];
        Arrays.fill(dsum, -1);
        Datatype every2nd = Datatype.Struct(new int[] {1, 1}, new int[] {0, 2}, new Datatype[] {MPI.DOUBLE, MPI.UB});
        world.Allreduce(new double[] {me, 9, me, 9}, 0, dsum, 1, 2, every2nd, MPI.MAX);
        Check.equal(dsum, new double[] {-1, np - 1, -1, np - 1, -1, -1}, "Allreduce of a strided type, count 2");
        long[] pairs = new long[4];
        world.Allreduce(new long[] {me, 1, 2, me}, 0, pairs, 0, 2, MPI.LONG2, MPI.SUM);
        Check.equal(pairs, new long[] {s, np, 2L * np, s}, "SUM over a pair type");
    }

    private static void packing() throws Exception {
        int[] ints = {me, me + 1, me + 2};
        double[] doubles = {me * 0.5, 3.25};
        Object[] objects = {"rank " + me, Arrays.asList(1, 2, 3)};
        int size = world.Pack_size(3, MPI.INT) + world.Pack_size(2, MPI.DOUBLE);
        Check.equal(size, (8 + 16) + (8 + 16), "Pack_size: a section header and the values, rounded up to 8 bytes");
        Check.that(world.Pack_size(1, MPI.OBJECT) > 8, "Pack_size of objects is an estimate with room for an object");
        Buffer buf = new Buffer(size); // too small for the objects' section header: Pack grows it
        int pos = world.Pack(ints, 0, 3, MPI.INT, buf, 0);
        pos = world.Pack(doubles, 0, 2, MPI.DOUBLE, buf, pos);
        pos = world.Pack(objects, 0, 2, MPI.OBJECT, buf, pos);
        Check.equal(buf.getSize(), pos, "the buffer size follows the packing");
        world.Send(buf, 0, 1, MPI.PACKED, right, 40);
        Buffer in = new Buffer(4096);
        Status st = world.Recv(in, 0, 1, MPI.PACKED, left, 40);
        Check.equal(in.getSize(), buf.getSize(), "a packed receive sets the buffer size");
        Check.that(st.Get_count(MPI.BYTE) > in.getSize(), "the message also carries the objects");
        int[] i2 = new int[3];
        double[] d2 = new double[2];
        Object[] o2 = new Object[2];
        int at = world.Unpack(in, 0, i2, 0, 3, MPI.INT);
        at = world.Unpack(in, at, d2, 0, 2, MPI.DOUBLE);
        at = world.Unpack(in, at, o2, 0, 2, MPI.OBJECT);
        Check.equal(at, size + world.Pack_size(2, MPI.OBJECT), "Unpack returns position + Pack_size, as in MPJ Express");
        Check.equal(i2, new int[] {left, left + 1, left + 2}, "unpacked ints");
        Check.equal(d2, new double[] {left * 0.5, 3.25}, "unpacked doubles");
        Check.equal(o2, new Object[] {"rank " + left, Arrays.asList(1, 2, 3)}, "unpacked objects");
        Check.fails(() -> world.Unpack(in, in.getSize(), i2, 0, 1, MPI.INT), "no section", "unpacking past the end");
        // The byte-array form (mpiJava 1.2) packs bare values in Railyard's wire form: they can be received as ints.
        byte[] raw = new byte[16];
        int p = world.Pack(new int[] {me, 0, me + 1, 0}, 0, 1, Datatype.Vector(2, 1, 2, MPI.INT), raw, 0);
        Check.equal(p, 8, "byte-array Pack of a vector");
        world.Send(raw, 0, p, MPI.PACKED, right, 41);
        int[] asInts = new int[2];
        world.Recv(asInts, 0, 2, MPI.INT, left, 41);
        Check.equal(asInts, new int[] {left, left + 1}, "packed bytes received as ints");
        int[] back = holes(3);
        world.Unpack(raw, 0, back, 0, 1, Datatype.Vector(2, 1, 2, MPI.INT));
        Check.equal(back, new int[] {me, HOLE, me + 1}, "byte-array Unpack into a vector");
        Check.fails(() -> world.Pack(new int[8], 0, 8, MPI.INT, new byte[8], 0), "do not fit", "Pack overflow");
        // A packed buffer broadcast whole: the receivers' buffers grow to the root's size.
        Buffer shared = new Buffer(me == 0 ? 64 : 1);
        if (me == 0) {
            world.Pack(new Object[] {"from the root"}, 0, 1, MPI.OBJECT, shared, 0);
        }
        world.Bcast(shared, 0, 1, MPI.PACKED, 0);
        Object[] msg = new Object[1];
        world.Unpack(shared, 0, msg, 0, 1, MPI.OBJECT);
        Check.equal(msg[0], "from the root", "Bcast of a packed buffer");
        buf.clear();
        Check.equal(buf.getSize(), 0, "clear empties the buffer");
    }

    private static void freeing() {
        Datatype t = Datatype.Contiguous(2, MPI.INT);
        Datatype built = Datatype.Vector(2, 1, 3, t);
        t.free();
        Check.fails(t::Size, "freed", "a freed type");
        Check.fails(() -> world.Send(new int[2], 0, 1, t, right, 50), "freed", "sending a freed type");
        Check.equal(built.Size(), 4, "types built from a freed type still work");
        Check.fails(() -> MPI.INT.free(), "cannot be freed", "predefined types stay");
    }
}
