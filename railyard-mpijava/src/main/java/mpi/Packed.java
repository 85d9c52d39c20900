package mpi;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;
import mpjbuf.BufferException;

/**
 * {@link MPI#PACKED} data in an {@link mpjbuf.Buffer}: how {@link Comm#Pack} fills one, how
 * {@link Comm#Unpack} reads it, and how a buffer travels as one Railyard message.
 *
 * <h2>Pack and Unpack</h2>
 * As in MPJ Express 0.44: each {@code Pack} call writes one section of the datatype's base type
 * ({@code mpjbuf.Type.INT} for {@code MPI.INT} and every type built on it, {@code OBJECT} for
 * objects), starting at the first aligned byte at or after {@code position}, and returns the
 * buffer's size after it. {@code Unpack} reads the buffer's sections in order, one per call (its
 * {@code position} argument is not used to find the data, as in MPJ Express; it returns
 * {@code position + Pack_size(outcount, datatype)}, as MPJ Express does). A buffer still being
 * written is committed by the first {@code Unpack}, so that a process can unpack what it packed.
 *
 * <h2>On the wire</h2>
 * <pre>
 *   0             size          size + dyn                size + dyn + 12
 *   +-------------+-------------+----------+----------+-------+
 *   | static part | dynamic part| size     | dyn      | order |   (little-endian ints)
 *   +-------------+-------------+----------+----------+-------+
 * </pre>
 * {@code order} is 0 for little-endian static values, 1 for big-endian. A receive puts the
 * parts back, sets the buffer's encoding, and leaves it readable (committed). A blocking receive
 * sizes itself to the message (it probes first); a non-blocking one takes up to the buffer's
 * capacity plus {@link #DYNAMIC_ROOM} bytes of objects.
 */
final class Packed {
    private Packed() {
    }

    static final int TRAILER = 12;
    /** Room a non-blocking receive leaves for the dynamic part beyond the buffer's capacity. */
    static final int DYNAMIC_ROOM = 64 * 1024;
    private static final ValueLayout.OfInt LE_INT = ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);

    /** The message carrying {@code b}'s content. */
    static byte[] message(mpjbuf.Buffer b) {
        int size = b.getSize();
        byte[] dyn = b.getDynamicBuffer();
        int dl = dyn == null ? 0 : dyn.length;
        byte[] m = new byte[size + dl + TRAILER];
        b.getStaticBuffer().read(m, 0, size, b.offset(), false);
        if (dl > 0) {
            System.arraycopy(dyn, 0, m, size, dl);
        }
        MemorySegment t = MemorySegment.ofArray(m);
        t.set(LE_INT, size + dl, size);
        t.set(LE_INT, size + dl + 4, dl);
        t.set(LE_INT, size + dl + 8, b.getEncoding() == ByteOrder.BIG_ENDIAN ? 1 : 0);
        return m;
    }

    /** Bytes a receive into {@code b} posts when it cannot size itself to the message. */
    static int receiveRoom(mpjbuf.Buffer b) {
        return (int) Math.min(Integer.MAX_VALUE - 64, (long) b.getCapacity() + DYNAMIC_ROOM + TRAILER);
    }

    /** Fills {@code b} from the first {@code length} bytes of a received message. */
    static void land(mpjbuf.Buffer b, byte[] m, int length) {
        MemorySegment t = MemorySegment.ofArray(m);
        int size = length >= TRAILER ? t.get(LE_INT, length - TRAILER) : -1;
        int dl = length >= TRAILER ? t.get(LE_INT, length - TRAILER + 4) : -1;
        int order = length >= TRAILER ? t.get(LE_INT, length - TRAILER + 8) : -1;
        if (size < 0 || dl < 0 || (order & ~1) != 0 || (long) size + dl + TRAILER != length) {
            throw MPIException.error("MPI.PACKED: a message of " + length + " bytes is not a packed mpjbuf.Buffer "
                    + "(was it sent from a byte[] or with another datatype?)");
        }
        try {
            b.clear();
        } catch (BufferException e) {
            throw MPIException.error("MPI.PACKED: cannot receive into the buffer: " + e.getMessage(), e);
        }
        b.setEncoding(order == 1 ? ByteOrder.BIG_ENDIAN : ByteOrder.LITTLE_ENDIAN);
        b.setSize(size);
        b.getStaticBuffer().write(m, 0, size, b.offset());
        b.setDynamicBuffer(dl == 0 ? null : java.util.Arrays.copyOfRange(m, size, size + dl));
        try {
            b.commit();
        } catch (BufferException e) {
            throw MPIException.error("MPI.PACKED: " + e.getMessage(), e);
        }
    }

    // ---------------------------------------------------------------- Pack and Unpack

    /** The section type of a datatype's values. */
    static mpjbuf.Type sectionOf(Datatype type) {
        return switch (type.base) {
            case Datatype.B_BYTE, Datatype.B_PACKED -> mpjbuf.Type.BYTE;
            case Datatype.B_CHAR -> mpjbuf.Type.CHAR;
            case Datatype.B_SHORT -> mpjbuf.Type.SHORT;
            case Datatype.B_BOOLEAN -> mpjbuf.Type.BOOLEAN;
            case Datatype.B_INT -> mpjbuf.Type.INT;
            case Datatype.B_LONG -> mpjbuf.Type.LONG;
            case Datatype.B_FLOAT -> mpjbuf.Type.FLOAT;
            case Datatype.B_DOUBLE -> mpjbuf.Type.DOUBLE;
            default -> mpjbuf.Type.OBJECT;
        };
    }

    /** Writes {@code count} elements of {@code type} from {@code buf} at {@code offset} as one section. */
    static int pack(Object buf, int offset, int count, Datatype type, mpjbuf.Buffer out, int position) {
        type.checkForMessage();
        type.checkBuffer(buf, offset, count, "Pack");
        if (position < 0) {
            throw MPIException.error("Pack: position " + position + " is negative");
        }
        int n = Comm.values(count, type);
        Object values = type.contiguous ? buf : type.gather(buf, offset, count);
        int from = type.contiguous ? offset : 0;
        try {
            out.setSize(Math.max(position, 0));
            out.putSectionHeader(sectionOf(type));
            switch (values) {
                case byte[] a -> out.write(a, from, n);
                case char[] a -> out.write(a, from, n);
                case short[] a -> out.write(a, from, n);
                case boolean[] a -> out.write(a, from, n);
                case int[] a -> out.write(a, from, n);
                case long[] a -> out.write(a, from, n);
                case float[] a -> out.write(a, from, n);
                case double[] a -> out.write(a, from, n);
                case Object[] a -> out.write(a, from, n);
                default -> throw MPIException.error("Pack: a buffer of " + values.getClass().getSimpleName());
            }
        } catch (BufferException e) {
            throw MPIException.error("Pack: " + e.getMessage(), e);
        }
        return out.getSize();
    }

    /** Reads the buffer's next section into {@code count} elements of {@code type} at {@code offset}. */
    static void unpack(mpjbuf.Buffer in, Object buf, int offset, int count, Datatype type) {
        type.checkForMessage();
        type.checkBuffer(buf, offset, count, "Unpack");
        int n = Comm.values(count, type);
        Object values = type.contiguous ? buf : type.newBaseArray(n);
        int to = type.contiguous ? offset : 0;
        try {
            if (in.isWritable()) {
                in.commit();
            }
            mpjbuf.Type section = in.getSectionHeader();
            if (section != sectionOf(type)) {
                throw MPIException.error("Unpack: the next packed section holds " + section + " values, not the "
                        + type.baseName() + " values of " + type);
            }
            int have = in.getSectionSize();
            if (have != n) {
                throw MPIException.error("Unpack: the next packed section holds " + have + " values; " + count
                        + " elements of " + type + " are " + n);
            }
            switch (values) {
                case byte[] a -> in.read(a, to, n);
                case char[] a -> in.read(a, to, n);
                case short[] a -> in.read(a, to, n);
                case boolean[] a -> in.read(a, to, n);
                case int[] a -> in.read(a, to, n);
                case long[] a -> in.read(a, to, n);
                case float[] a -> in.read(a, to, n);
                case double[] a -> in.read(a, to, n);
                case Object[] a -> in.read(a, to, n);
                default -> throw MPIException.error("Unpack: a buffer of " + values.getClass().getSimpleName());
            }
        } catch (BufferException e) {
            throw MPIException.error("Unpack: " + e.getMessage(), e);
        }
        if (!type.contiguous) {
            type.scatter(values, 0, n, buf, offset);
        }
    }
}
