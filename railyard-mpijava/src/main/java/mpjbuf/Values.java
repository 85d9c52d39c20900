package mpjbuf;

import java.io.IOException;
import java.io.ObjectInputStream;
import java.io.ObjectOutputStream;
import java.nio.ByteBuffer;

/**
 * One primitive type (or Object) as a buffer moves it: its width in the static part, how a value
 * is stored there (in the {@link ByteBuffer}'s order, swapped on read when asked), and how it is
 * written to and read from the dynamic part. Every typed method of {@link NIOBuffer} and
 * {@link Buffer} is one of a few generic loops over these.
 */
enum Values {
    BYTE(1, Type.BYTE, Type.BYTE_DYNAMIC) {
        void put(ByteBuffer b, int at, Object a, int i) {
            b.put(at, ((byte[]) a)[i]);
        }

        void get(ByteBuffer b, int at, Object a, int i, boolean swap) {
            ((byte[]) a)[i] = b.get(at);
        }

        void write(ObjectOutputStream out, Object a, int i) throws IOException {
            out.writeByte(((byte[]) a)[i]);
        }

        void read(ObjectInputStream in, Object a, int i) throws IOException {
            ((byte[]) a)[i] = in.readByte();
        }
    },
    CHAR(2, Type.CHAR, Type.CHAR_DYNAMIC) {
        void put(ByteBuffer b, int at, Object a, int i) {
            b.putChar(at, ((char[]) a)[i]);
        }

        void get(ByteBuffer b, int at, Object a, int i, boolean swap) {
            char v = b.getChar(at);
            ((char[]) a)[i] = swap ? Character.reverseBytes(v) : v;
        }

        void write(ObjectOutputStream out, Object a, int i) throws IOException {
            out.writeChar(((char[]) a)[i]);
        }

        void read(ObjectInputStream in, Object a, int i) throws IOException {
            ((char[]) a)[i] = in.readChar();
        }
    },
    SHORT(2, Type.SHORT, Type.SHORT_DYNAMIC) {
        void put(ByteBuffer b, int at, Object a, int i) {
            b.putShort(at, ((short[]) a)[i]);
        }

        void get(ByteBuffer b, int at, Object a, int i, boolean swap) {
            short v = b.getShort(at);
            ((short[]) a)[i] = swap ? Short.reverseBytes(v) : v;
        }

        void write(ObjectOutputStream out, Object a, int i) throws IOException {
            out.writeShort(((short[]) a)[i]);
        }

        void read(ObjectInputStream in, Object a, int i) throws IOException {
            ((short[]) a)[i] = in.readShort();
        }
    },
    BOOLEAN(1, Type.BOOLEAN, Type.BOOLEAN_DYNAMIC) {
        void put(ByteBuffer b, int at, Object a, int i) {
            b.put(at, (byte) (((boolean[]) a)[i] ? 1 : 0));
        }

        void get(ByteBuffer b, int at, Object a, int i, boolean swap) {
            ((boolean[]) a)[i] = b.get(at) != 0;
        }

        void write(ObjectOutputStream out, Object a, int i) throws IOException {
            out.writeBoolean(((boolean[]) a)[i]);
        }

        void read(ObjectInputStream in, Object a, int i) throws IOException {
            ((boolean[]) a)[i] = in.readBoolean();
        }
    },
    INT(4, Type.INT, Type.INT_DYNAMIC) {
        void put(ByteBuffer b, int at, Object a, int i) {
            b.putInt(at, ((int[]) a)[i]);
        }

        void get(ByteBuffer b, int at, Object a, int i, boolean swap) {
            int v = b.getInt(at);
            ((int[]) a)[i] = swap ? Integer.reverseBytes(v) : v;
        }

        void write(ObjectOutputStream out, Object a, int i) throws IOException {
            out.writeInt(((int[]) a)[i]);
        }

        void read(ObjectInputStream in, Object a, int i) throws IOException {
            ((int[]) a)[i] = in.readInt();
        }
    },
    LONG(8, Type.LONG, Type.LONG_DYNAMIC) {
        void put(ByteBuffer b, int at, Object a, int i) {
            b.putLong(at, ((long[]) a)[i]);
        }

        void get(ByteBuffer b, int at, Object a, int i, boolean swap) {
            long v = b.getLong(at);
            ((long[]) a)[i] = swap ? Long.reverseBytes(v) : v;
        }

        void write(ObjectOutputStream out, Object a, int i) throws IOException {
            out.writeLong(((long[]) a)[i]);
        }

        void read(ObjectInputStream in, Object a, int i) throws IOException {
            ((long[]) a)[i] = in.readLong();
        }
    },
    FLOAT(4, Type.FLOAT, Type.FLOAT_DYNAMIC) {
        void put(ByteBuffer b, int at, Object a, int i) {
            b.putInt(at, Float.floatToRawIntBits(((float[]) a)[i]));
        }

        void get(ByteBuffer b, int at, Object a, int i, boolean swap) {
            int v = b.getInt(at);
            ((float[]) a)[i] = Float.intBitsToFloat(swap ? Integer.reverseBytes(v) : v);
        }

        void write(ObjectOutputStream out, Object a, int i) throws IOException {
            out.writeFloat(((float[]) a)[i]);
        }

        void read(ObjectInputStream in, Object a, int i) throws IOException {
            ((float[]) a)[i] = in.readFloat();
        }
    },
    DOUBLE(8, Type.DOUBLE, Type.DOUBLE_DYNAMIC) {
        void put(ByteBuffer b, int at, Object a, int i) {
            b.putLong(at, Double.doubleToRawLongBits(((double[]) a)[i]));
        }

        void get(ByteBuffer b, int at, Object a, int i, boolean swap) {
            long v = b.getLong(at);
            ((double[]) a)[i] = Double.longBitsToDouble(swap ? Long.reverseBytes(v) : v);
        }

        void write(ObjectOutputStream out, Object a, int i) throws IOException {
            out.writeDouble(((double[]) a)[i]);
        }

        void read(ObjectInputStream in, Object a, int i) throws IOException {
            ((double[]) a)[i] = in.readDouble();
        }
    },
    /** Objects: only in the dynamic part (section type {@link Type#OBJECT}). */
    OBJECT(0, null, Type.OBJECT) {
        void put(ByteBuffer b, int at, Object a, int i) {
            throw new UnsupportedOperationException("objects have no static form");
        }

        void get(ByteBuffer b, int at, Object a, int i, boolean swap) {
            throw new UnsupportedOperationException("objects have no static form");
        }

        void write(ObjectOutputStream out, Object a, int i) throws IOException {
            out.writeObject(((Object[]) a)[i]);
        }

        void read(ObjectInputStream in, Object a, int i) throws IOException {
            try {
                ((Object[]) a)[i] = in.readObject();
            } catch (ClassNotFoundException e) {
                throw new IOException("class " + e.getMessage() + " of a packed object is not on this process's class path", e);
            }
        }
    };

    /** Bytes per value in the static part. */
    final int width;
    /** The section type of the static form (null for objects) and of the dynamic form. */
    final Type staticType;
    final Type dynamicType;

    Values(int width, Type staticType, Type dynamicType) {
        this.width = width;
        this.staticType = staticType;
        this.dynamicType = dynamicType;
    }

    abstract void put(ByteBuffer b, int at, Object array, int index);

    abstract void get(ByteBuffer b, int at, Object array, int index, boolean swap);

    abstract void write(ObjectOutputStream out, Object array, int index) throws IOException;

    abstract void read(ObjectInputStream in, Object array, int index) throws IOException;

    /** Number of elements a strided region of {@code rank} dimensions covers: the product of its extents. */
    static int stridedCount(int rank, int exts, int[] shape) {
        long n = 1;
        for (int d = 0; d < rank; d++) {
            n *= shape[exts + d];
        }
        if (n < 0 || n > Integer.MAX_VALUE) {
            throw new java.lang.IllegalArgumentException("a strided region of " + n + " elements");
        }
        return (int) n;
    }

    /**
     * Visits the array indices of a strided region in order (dimension 0 outermost): {@code rank}
     * dimensions, dimension {@code d} with {@code shape[exts + d]} elements {@code shape[strs + d]}
     * apart, starting at {@code first}.
     */
    static void strided(int first, int rank, int exts, int strs, int[] shape, java.util.function.IntConsumer visit) {
        if (rank == 0) {
            visit.accept(first);
            return;
        }
        int n = shape[exts];
        int stride = shape[strs];
        for (int i = 0; i < n; i++) {
            strided(first + i * stride, rank - 1, exts + 1, strs + 1, shape, visit);
        }
    }
}
