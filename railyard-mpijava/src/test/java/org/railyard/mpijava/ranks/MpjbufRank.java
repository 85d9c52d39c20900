package org.railyard.mpijava.ranks;

import java.util.Arrays;
import java.util.List;
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

    /** One section per type, written three ways, sent around the ring and read back three ways. */
    private static void sections(int me, int right, int left) throws Exception {
        Buffer b = new Buffer(BufferFactory.create(64), 0, 64); // small: the buffer grows
        int[] idx = {4, 0, 2};
        int[] shape = {2, 2, 3, 1}; // 2 x 2 elements, strides 3 and 1: indices 0, 1, 3, 4 (index 5 is in no write)
        byte[] by = {(byte) me, 1, 2, 3, 4, 0};
        short[] sh = {(short) me, 11, 12, 13, 14, 0};
        int[] in = {me, 21, 22, 23, 24, 0};
        long[] lo = {me, 31, 32, 33, Long.MAX_VALUE, 0};
        char[] ch = {(char) ('a' + me), 'b', 'c', 'd', 'e', 0};
        float[] fl = {me, 0.5f, 1.5f, 2.5f, 3.5f, 0};
        double[] db = {me, -0.5, 1e300, 2, 3, 0};
        boolean[] bo = {me % 2 == 0, true, false, true, true, false};
        Object[] ob = {"o" + me, 1, 2.0, List.of(3), "x", null};
        b.putSectionHeader(Type.BYTE);
        b.write(by, 1, 3);
        b.gather(by, 3, 0, idx);
        b.strGather(by, 0, 2, 0, 2, shape);
        Check.equal(b.getSectionSize(), 10, "values written to the BYTE section");
        b.putSectionHeader(Type.SHORT);
        b.write(sh, 1, 3);
        b.gather(sh, 3, 0, idx);
        b.strGather(sh, 0, 2, 0, 2, shape);
        b.putSectionHeader(Type.INT);
        b.write(in, 1, 3);
        b.gather(in, 3, 0, idx);
        b.strGather(in, 0, 2, 0, 2, shape);
        b.putSectionHeader(Type.LONG);
        b.write(lo, 1, 3);
        b.gather(lo, 3, 0, idx);
        b.strGather(lo, 0, 2, 0, 2, shape);
        b.putSectionHeader(Type.CHAR);
        b.write(ch, 1, 3);
        b.gather(ch, 3, 0, idx);
        b.strGather(ch, 0, 2, 0, 2, shape);
        b.putSectionHeader(Type.FLOAT);
        b.write(fl, 1, 3);
        b.gather(fl, 3, 0, idx);
        b.strGather(fl, 0, 2, 0, 2, shape);
        b.putSectionHeader(Type.DOUBLE);
        b.write(db, 1, 3);
        b.gather(db, 3, 0, idx);
        b.strGather(db, 0, 2, 0, 2, shape);
        b.putSectionHeader(Type.BOOLEAN);
        b.write(bo, 1, 3);
        b.gather(bo, 3, 0, idx);
        b.strGather(bo, 0, 2, 0, 2, shape);
        b.putSectionHeader(Type.OBJECT);
        b.write(ob, 0, 3);
        b.gather(ob, 3, 0, idx);
        b.strGather(ob, 0, 2, 0, 2, shape);
        b.putSectionHeader(Type.INT_DYNAMIC);
        b.write(in, 0, 2);
        b.commit();
        Check.that(b.getStaticBuffer().getCapacity() >= b.getSize(), "the static part grew to hold the sections");
        MPI.COMM_WORLD.Send(b, 0, 1, MPI.PACKED, right, 2);
        Buffer r = new Buffer(8);
        MPI.COMM_WORLD.Recv(r, 0, 1, MPI.PACKED, left, 2);
        Check.that(!r.isWritable(), "a received buffer is readable");
        byte[] by2 = new byte[6];
        Check.equal(r.getSectionHeader(), Type.BYTE, "BYTE section");
        Check.equal(r.getSectionSize(), 10, "BYTE section size");
        r.read(by2, 1, 3);
        r.scatter(by2, 3, 0, idx);
        r.strScatter(by2, 0, 2, 0, 2, shape);
        Check.equal(r.getRemaining(), 0, "the BYTE section is read whole");
        byte[] byL = {(byte) left, 1, 2, 3, 4, 0};
        Check.that(Arrays.equals(by2, byL), "bytes " + Arrays.toString(by2));

        short[] sh2 = new short[6];
        Check.equal(r.getSectionHeader(), Type.SHORT, "SHORT section");
        r.read(sh2, 1, 3);
        r.scatter(sh2, 3, 0, idx);
        r.strScatter(sh2, 0, 2, 0, 2, shape);
        Check.that(Arrays.equals(sh2, new short[] {(short) left, 11, 12, 13, 14, 0}), "shorts " + Arrays.toString(sh2));

        int[] in2 = new int[6];
        Check.equal(r.getSectionHeader(), Type.INT, "INT section");
        Check.equal(r.getRemaining(), 10, "INT values to read");
        r.read(in2, 1, 3);
        r.scatter(in2, 3, 0, idx);
        r.strScatter(in2, 0, 2, 0, 2, shape);
        Check.equal(in2, new int[] {left, 21, 22, 23, 24, 0}, "ints");

        long[] lo2 = new long[6];
        Check.equal(r.getSectionHeader(), Type.LONG, "LONG section");
        r.read(lo2, 1, 3);
        r.scatter(lo2, 3, 0, idx);
        r.strScatter(lo2, 0, 2, 0, 2, shape);
        Check.equal(lo2, new long[] {left, 31, 32, 33, Long.MAX_VALUE, 0}, "longs");

        char[] ch2 = new char[6];
        Check.equal(r.getSectionHeader(), Type.CHAR, "CHAR section");
        r.read(ch2, 1, 3);
        r.scatter(ch2, 3, 0, idx);
        r.strScatter(ch2, 0, 2, 0, 2, shape);
        Check.equal(new String(ch2), (char) ('a' + left) + "bcde\0", "chars");

        float[] fl2 = new float[6];
        Check.equal(r.getSectionHeader(), Type.FLOAT, "FLOAT section");
        r.read(fl2, 1, 3);
        r.scatter(fl2, 3, 0, idx);
        r.strScatter(fl2, 0, 2, 0, 2, shape);
        Check.that(Arrays.equals(fl2, new float[] {left, 0.5f, 1.5f, 2.5f, 3.5f, 0}), "floats " + Arrays.toString(fl2));

        double[] db2 = new double[6];
        Check.equal(r.getSectionHeader(), Type.DOUBLE, "DOUBLE section");
        r.read(db2, 1, 3);
        r.scatter(db2, 3, 0, idx);
        r.strScatter(db2, 0, 2, 0, 2, shape);
        Check.equal(db2, new double[] {left, -0.5, 1e300, 2, 3, 0}, "doubles");

        boolean[] bo2 = new boolean[6];
        Check.equal(r.getSectionHeader(), Type.BOOLEAN, "BOOLEAN section");
        r.read(bo2, 1, 3);
        r.scatter(bo2, 3, 0, idx);
        r.strScatter(bo2, 0, 2, 0, 2, shape);
        Check.equal(bo2, new boolean[] {left % 2 == 0, true, false, true, true, false}, "booleans");

        Object[] ob2 = new Object[6];
        Check.equal(r.getSectionHeader(), Type.OBJECT, "OBJECT section");
        Check.equal(r.getSectionSize(), 10, "OBJECT section size");
        r.read(ob2, 0, 3);
        r.scatter(ob2, 3, 0, idx);
        r.strScatter(ob2, 0, 2, 0, 2, shape);
        Check.equal(ob2, new Object[] {"o" + left, 1, 2.0, List.of(3), "x", null}, "objects");

        Check.equal(r.getSectionHeader(), Type.INT_DYNAMIC, "INT_DYNAMIC section");
        int[] dyn = new int[2];
        r.read(dyn, 0, 2);
        Check.equal(dyn, new int[] {left, 21}, "ints of a dynamic section");
        Check.that(r.getDynamicBuffer() != null, "the received buffer has its dynamic part");
        r.clear();
        r.free();
        b.free();
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
