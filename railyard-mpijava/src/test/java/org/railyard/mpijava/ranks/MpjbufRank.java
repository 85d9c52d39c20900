package org.railyard.mpijava.ranks;

import java.lang.reflect.Array;
import java.lang.reflect.InvocationTargetException;
import java.util.List;
import java.util.function.IntFunction;
import mpi.MPI;
import mpjbuf.Buffer;
import mpjbuf.BufferException;
import mpjbuf.BufferFactory;
import mpjbuf.RawBuffer;
import mpjbuf.SectionSizeMismatchException;
import mpjbuf.Type;
import mpjbuf.TypeMismatchException;
import mpjbuf.WrongStateException;
import mpjdev.*;

/**
 * Issue 26, item 5, as programs written for MPJ Express use its buffers: {@code Pack} and
 * {@code Unpack} with an {@code mpjbuf.Buffer} made over {@code BufferFactory.create}, and a
 * buffer filled section by section with the eight primitive types and objects ({@code write},
 * {@code gather}, {@code strGather}), sent as {@code MPI.PACKED} around a ring and read back with
 * {@code getSectionHeader}, {@code getSectionSize}, {@code read}, {@code scatter},
 * {@code strScatter}; and the {@code mpjdev} parts programs touch. Any number of ranks; prints "done".
 */
public class MpjbufRank {
    public static void main(String[] args) throws Exception {
        MPI.Init(args);
        int me = MPI.COMM_WORLD.Rank();
        int np = MPI.COMM_WORLD.Size();
        int right = (me + 1) % np;
        int left = (me - 1 + np) % np;
        Check.equal(MPJDev.getSendOverhead(), 0, "MPJDev.getSendOverhead()");
        Check.equal(MPJDev.getRecvOverhead(), 0, "MPJDev.getRecvOverhead()");
        Check.equal(MPI.COMM_WORLD.mpjdevComm.size(), np, "mpjdevComm.size()");
        Check.equal(MPI.COMM_WORLD.mpjdevComm.id(), me, "mpjdevComm.id()");
        Check.that(MPJDev.WORLD == MPI.COMM_WORLD.mpjdevComm, "MPJDev.WORLD");
        packAndUnpack(me, right, left);
        sections(me, right, left);
        states();
        MPI.Finalize();
        System.out.println("done");
    }

    private static void packAndUnpack(int me, int right, int left) throws Exception {
        int[] ints = {me, me + 1, me + 2, me + 3, me + 4};
        double[] doubles = {me * 0.5, -1, 2.25};
        Object[] objects = {"rank " + me, List.of(me, 7)};
        int size = MPI.COMM_WORLD.Pack_size(5, MPI.INT) + MPI.COMM_WORLD.Pack_size(3, MPI.DOUBLE)
                + MPI.COMM_WORLD.Pack_size(2, MPI.OBJECT);
        RawBuffer raw = BufferFactory.create(size);
        Buffer out = new Buffer(raw, 0, size);
        Check.that(out.getStaticBuffer() == raw, "getStaticBuffer() is the storage given");
        int pos = MPI.COMM_WORLD.Pack(ints, 0, 5, MPI.INT, out, 0);
        Check.equal(pos, 8 + 20, "position after 5 ints: a section header and the values");
        pos = MPI.COMM_WORLD.Pack(doubles, 0, 3, MPI.DOUBLE, out, pos);
        Check.equal(pos, 32 + 8 + 24, "position after 3 doubles: aligned to 8, header, values");
        pos = MPI.COMM_WORLD.Pack(objects, 0, 2, MPI.OBJECT, out, pos);
        Check.equal(out.getSize(), pos, "the buffer size follows the packing");
        Check.that(out.getStaticBuffer() == raw, "Pack within Pack_size needs no more storage");
        MPI.COMM_WORLD.Send(out, 0, 1, MPI.PACKED, right, 1);
        Buffer in = new Buffer(size);
        MPI.COMM_WORLD.Recv(in, 0, 1, MPI.PACKED, left, 1);
        int[] i2 = new int[5];
        double[] d2 = new double[3];
        Object[] o2 = new Object[2];
        int at = MPI.COMM_WORLD.Unpack(in, 0, i2, 0, 5, MPI.INT);
        at = MPI.COMM_WORLD.Unpack(in, at, d2, 0, 3, MPI.DOUBLE);
        MPI.COMM_WORLD.Unpack(in, at, o2, 0, 2, MPI.OBJECT);
        Check.equal(i2, new int[] {left, left + 1, left + 2, left + 3, left + 4}, "unpacked ints");
        Check.equal(d2, new double[] {left * 0.5, -1, 2.25}, "unpacked doubles");
        Check.equal(o2, new Object[] {"rank " + left, List.of(left, 7)}, "unpacked objects");
        Check.fails(() -> MPI.COMM_WORLD.Unpack(in, 0, i2, 0, 1, MPI.INT), "", "unpacking past the last section");
        // The sender unpacks what it packed (the first Unpack commits the buffer).
        int[] mine = new int[5];
        MPI.COMM_WORLD.Unpack(out, 0, mine, 0, 5, MPI.INT);
        Check.equal(mine, ints, "unpacking a buffer packed here");
        BufferFactory.destroy(out.getStaticBuffer());
        Check.equal(raw.getCapacity(), 0, "destroy releases the storage");
    }

    /**
     * A section of one type: {@code values(k)} is what rank k writes into it (six elements, the
     * last in no write); {@code first} is where the plain write and read start.
     */
    private record Section(Type type, int first, IntFunction<Object> values) {
    }

    /** One section per type of mpjbuf's typed overloads (the eight primitive types and objects). */
    private static final List<Section> SECTIONS = List.of(
            new Section(Type.BYTE, 1, k -> new byte[] {(byte) k, 1, 2, 3, 4, 0}),
            new Section(Type.SHORT, 1, k -> new short[] {(short) k, 11, 12, 13, 14, 0}),
            new Section(Type.INT, 1, k -> new int[] {k, 21, 22, 23, 24, 0}),
            new Section(Type.LONG, 1, k -> new long[] {k, 31, 32, 33, Long.MAX_VALUE, 0}),
            new Section(Type.CHAR, 1, k -> new char[] {(char) ('a' + k), 'b', 'c', 'd', 'e', 0}),
            new Section(Type.FLOAT, 1, k -> new float[] {k, 0.5f, 1.5f, 2.5f, 3.5f, 0}),
            new Section(Type.DOUBLE, 1, k -> new double[] {k, -0.5, 1e300, 2, 3, 0}),
            new Section(Type.BOOLEAN, 1, k -> new boolean[] {k % 2 == 0, true, false, true, true, false}),
            new Section(Type.OBJECT, 0, k -> new Object[] {"o" + k, 1, 2.0, List.of(3), "x", null}));
    /** The indexed step's indices. */
    private static final int[] IDX = {4, 0, 2};
    /** The strided step's shape: 2 x 2 elements, strides 3 and 1: indices 0, 1, 3, 4 (index 5 is in no write). */
    private static final int[] SHAPE = {2, 2, 3, 1};

    /**
     * One section per type, written three ways (write, gather, strGather), sent around the ring and
     * read back three ways (read, scatter, strScatter): each call is the overload of Buffer for the
     * section's array class.
     */
    private static void sections(int me, int right, int left) throws Exception {
        Buffer b = new Buffer(BufferFactory.create(64), 0, 64); // small: the buffer grows
        for (Section s : SECTIONS) {
            Object values = s.values.apply(me);
            b.putSectionHeader(s.type);
            typed(b, "write", values, s.first, 3);
            typed(b, "gather", values, 3, 0, IDX);
            typed(b, "strGather", values, 0, 2, 0, 2, SHAPE);
            Check.equal(b.getSectionSize(), 10, "values written to the " + s.type + " section");
        }
        int[] ints = {me, 21};
        b.putSectionHeader(Type.INT_DYNAMIC);
        b.write(ints, 0, 2);
        b.commit();
        Check.that(b.getStaticBuffer().getCapacity() >= b.getSize(), "the static part grew to hold the sections");
        MPI.COMM_WORLD.Send(b, 0, 1, MPI.PACKED, right, 2);
        Buffer r = new Buffer(8);
        MPI.COMM_WORLD.Recv(r, 0, 1, MPI.PACKED, left, 2);
        Check.that(!r.isWritable(), "a received buffer is readable");
        for (Section s : SECTIONS) {
            Object expected = s.values.apply(left);
            Object got = Array.newInstance(expected.getClass().getComponentType(), 6);
            Check.equal(r.getSectionHeader(), s.type, s.type + " section");
            Check.equal(r.getSectionSize(), 10, s.type + " section size");
            Check.equal(r.getRemaining(), 10, s.type + " values to read");
            typed(r, "read", got, s.first, 3);
            typed(r, "scatter", got, 3, 0, IDX);
            typed(r, "strScatter", got, 0, 2, 0, 2, SHAPE);
            Check.equal(r.getRemaining(), 0, "the " + s.type + " section is read whole");
            Check.equal(got, expected, s.type + " values");
        }
        Check.equal(r.getSectionHeader(), Type.INT_DYNAMIC, "INT_DYNAMIC section");
        int[] dyn = new int[2];
        r.read(dyn, 0, 2);
        Check.equal(dyn, new int[] {left, 21}, "ints of a dynamic section");
        Check.that(r.getDynamicBuffer() != null, "the received buffer has its dynamic part");
        r.clear();
        r.free();
        b.free();
    }

    /** Calls Buffer's overload {@code name} for the class of {@code array}, the other arguments ints and an int[] last. */
    private static void typed(Buffer b, String name, Object array, Object... rest) throws BufferException {
        Class<?>[] types = new Class<?>[rest.length + 1];
        Object[] args = new Object[rest.length + 1];
        types[0] = array.getClass();
        args[0] = array;
        for (int i = 0; i < rest.length; i++) {
            types[i + 1] = rest[i] instanceof int[] ? int[].class : int.class;
            args[i + 1] = rest[i];
        }
        try {
            Buffer.class.getMethod(name, types).invoke(b, args);
        } catch (InvocationTargetException e) {
            if (e.getCause() instanceof BufferException be) {
                throw be;
            }
            throw new IllegalStateException(name + " on " + types[0].getSimpleName(), e.getCause());
        } catch (ReflectiveOperationException e) {
            throw new IllegalStateException("Buffer has no " + name + " for " + types[0].getSimpleName(), e);
        }
    }

    @FunctionalInterface
    private interface Step {
        void run() throws BufferException;
    }

    /** MPJ Express's state and type rules. */
    private static void states() throws Exception {
        Buffer b = new Buffer(32);
        expect(() -> b.write(new int[1], 0, 1), WrongStateException.class, "a write before a section header");
        b.putSectionHeader(Type.INT);
        expect(() -> b.write(new double[1], 0, 1), TypeMismatchException.class, "doubles in an INT section");
        b.write(new int[] {1, 2}, 0, 2);
        expect(() -> b.getSectionHeader(), WrongStateException.class, "reading a buffer being written");
        b.commit();
        expect(() -> b.putSectionHeader(Type.INT), WrongStateException.class, "writing a committed buffer");
        b.getSectionHeader();
        int[] one = new int[3];
        expect(() -> b.read(one, 0, 3), SectionSizeMismatchException.class, "reading past the section");
        b.read(one, 0, 1);
        expect(() -> b.getSectionHeader(), SectionSizeMismatchException.class, "a new section before the last was read");
        b.clear();
        Check.that(b.isWritable() && b.getSize() == 0, "clear empties the buffer for writing");
        b.free();
        expect(() -> b.commit(), WrongStateException.class, "a freed buffer");
    }

    private static void expect(Step s, Class<? extends BufferException> type, String what) {
        try {
            s.run();
        } catch (BufferException e) {
            Check.that(type.isInstance(e), what + ": expected " + type.getSimpleName() + " but got " + e);
            return;
        }
        throw new AssertionError(what + ": expected " + type.getSimpleName());
    }
}
