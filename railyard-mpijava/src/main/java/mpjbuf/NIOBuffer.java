package mpjbuf;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * A {@link RawBuffer} over a {@link ByteBuffer} (heap or direct), as MPJ Express 0.44 has it.
 * Values are written in the byte buffer's order, which is this machine's order unless
 * {@link #setEncoding} says otherwise. All access is absolute: the byte buffer's position and
 * limit are not used.
 */
public class NIOBuffer implements RawBuffer {
    private ByteBuffer buffer;
    private int capacity;

    /** Storage of {@code capacity} bytes over {@code buffer}, which must hold at least that many. */
    public NIOBuffer(int capacity, ByteBuffer buffer) {
        if (buffer == null) {
            throw new NullPointerException("NIOBuffer: the byte buffer is null");
        }
        if (capacity < 0 || capacity > buffer.capacity()) {
            throw new java.lang.IllegalArgumentException("NIOBuffer: capacity " + capacity
                    + " is outside [0, " + buffer.capacity() + "], the byte buffer's capacity");
        }
        this.capacity = capacity;
        this.buffer = buffer.order(ByteOrder.nativeOrder());
    }

    /** Heap storage of {@code capacity} bytes. */
    NIOBuffer(int capacity) {
        this(capacity, ByteBuffer.allocate(capacity));
    }

    @Override
    public void copy(ByteBuffer src, int srcOffset, int length, int position) {
        buffer.put(position, src, srcOffset, length);
    }

    @Override
    public int getCapacity() {
        return capacity;
    }

    /** Replaces the storage by {@code buffer} (its whole capacity). */
    public void setBuffer(ByteBuffer buffer) {
        this.buffer = buffer.order(this.buffer.order());
        this.capacity = buffer.capacity();
    }

    /** The byte buffer underneath. */
    public ByteBuffer getBuffer() {
        return buffer;
    }

    /** The byte order values are written in. */
    public void setEncoding(ByteOrder order) {
        buffer.order(order);
    }

    @Override
    public void free() {
        buffer = ByteBuffer.allocate(0);
        capacity = 0;
    }

    /** Resets the byte buffer's position and limit (absolute access does not use them). */
    public void clear() {
        buffer.clear();
    }

    @Override
    public void putByte(int value, int position) {
        buffer.put(position, (byte) value);
    }

    @Override
    public int getByte(int position) {
        return buffer.get(position) & 0xff;
    }

    @Override
    public void putInt(int value, int position) {
        buffer.putInt(position, value);
    }

    @Override
    public int getInt(int position, boolean reverse) {
        int v = buffer.getInt(position);
        return reverse ? Integer.reverseBytes(v) : v;
    }

    // ---------------------------------------------------------------- the generic loops

    private void write(Values v, Object src, int srcOff, int n, int position) {
        for (int i = 0; i < n; i++) {
            v.put(buffer, position + i * v.width, src, srcOff + i);
        }
    }

    private int gather(Values v, Object src, int n, int offs, int[] indexes, int position) {
        for (int i = 0; i < n; i++) {
            v.put(buffer, position + i * v.width, src, indexes[offs + i]);
        }
        return n;
    }

    private void strGather(Values v, Object src, int srcOff, int rank, int exts, int strs, int[] shape, int position) {
        int[] at = {position};
        Values.strided(srcOff, rank, exts, strs, shape, i -> {
            v.put(buffer, at[0], src, i);
            at[0] += v.width;
        });
    }

    private void read(Values v, Object dst, int dstOff, int n, int position, boolean reverse) {
        for (int i = 0; i < n; i++) {
            v.get(buffer, position + i * v.width, dst, dstOff + i, reverse);
        }
    }

    private int scatter(Values v, Object dst, int n, int offs, int[] indexes, int position, boolean reverse) {
        for (int i = 0; i < n; i++) {
            v.get(buffer, position + i * v.width, dst, indexes[offs + i], reverse);
        }
        return n;
    }

    private void strScatter(Values v, Object dst, int dstOff, int rank, int exts, int strs, int[] shape, int position,
                            boolean reverse) {
        int[] at = {position};
        Values.strided(dstOff, rank, exts, strs, shape, i -> {
            v.get(buffer, at[0], dst, i, reverse);
            at[0] += v.width;
        });
    }

    // ---------------------------------------------------------------- byte

    @Override
    public void write(byte[] src, int srcOff, int numEls, int position) {
        write(Values.BYTE, src, srcOff, numEls, position);
    }

    @Override
    public int gather(byte[] src, int numEls, int offs, int[] indexes, int position) {
        return gather(Values.BYTE, src, numEls, offs, indexes, position);
    }

    @Override
    public void strGather(byte[] src, int srcOff, int rank, int exts, int strs, int[] shape, int position) {
        strGather(Values.BYTE, src, srcOff, rank, exts, strs, shape, position);
    }

    @Override
    public void read(byte[] dest, int dstOff, int numEls, int position, boolean reverse) {
        read(Values.BYTE, dest, dstOff, numEls, position, reverse);
    }

    @Override
    public int scatter(byte[] dest, int numEls, int offs, int[] indexes, int position, boolean reverse) {
        return scatter(Values.BYTE, dest, numEls, offs, indexes, position, reverse);
    }

    @Override
    public void strScatter(byte[] dest, int dstOff, int rank, int exts, int strs, int[] shape, int position, boolean reverse) {
        strScatter(Values.BYTE, dest, dstOff, rank, exts, strs, shape, position, reverse);
    }

    // ---------------------------------------------------------------- short

    @Override
    public void write(short[] src, int srcOff, int numEls, int position) {
        write(Values.SHORT, src, srcOff, numEls, position);
    }

    @Override
    public int gather(short[] src, int numEls, int offs, int[] indexes, int position) {
        return gather(Values.SHORT, src, numEls, offs, indexes, position);
    }

    @Override
    public void strGather(short[] src, int srcOff, int rank, int exts, int strs, int[] shape, int position) {
        strGather(Values.SHORT, src, srcOff, rank, exts, strs, shape, position);
    }

    @Override
    public void read(short[] dest, int dstOff, int numEls, int position, boolean reverse) {
        read(Values.SHORT, dest, dstOff, numEls, position, reverse);
    }

    @Override
    public int scatter(short[] dest, int numEls, int offs, int[] indexes, int position, boolean reverse) {
        return scatter(Values.SHORT, dest, numEls, offs, indexes, position, reverse);
    }

    @Override
    public void strScatter(short[] dest, int dstOff, int rank, int exts, int strs, int[] shape, int position, boolean reverse) {
        strScatter(Values.SHORT, dest, dstOff, rank, exts, strs, shape, position, reverse);
    }

    // ---------------------------------------------------------------- int

    @Override
    public void write(int[] src, int srcOff, int numEls, int position) {
        write(Values.INT, src, srcOff, numEls, position);
    }

    @Override
    public int gather(int[] src, int numEls, int offs, int[] indexes, int position) {
        return gather(Values.INT, src, numEls, offs, indexes, position);
    }

    @Override
    public void strGather(int[] src, int srcOff, int rank, int exts, int strs, int[] shape, int position) {
        strGather(Values.INT, src, srcOff, rank, exts, strs, shape, position);
    }

    @Override
    public void read(int[] dest, int dstOff, int numEls, int position, boolean reverse) {
        read(Values.INT, dest, dstOff, numEls, position, reverse);
    }

    @Override
    public int scatter(int[] dest, int numEls, int offs, int[] indexes, int position, boolean reverse) {
        return scatter(Values.INT, dest, numEls, offs, indexes, position, reverse);
    }

    @Override
    public void strScatter(int[] dest, int dstOff, int rank, int exts, int strs, int[] shape, int position, boolean reverse) {
        strScatter(Values.INT, dest, dstOff, rank, exts, strs, shape, position, reverse);
    }

    // ---------------------------------------------------------------- long

    @Override
    public void write(long[] src, int srcOff, int numEls, int position) {
        write(Values.LONG, src, srcOff, numEls, position);
    }

    @Override
    public int gather(long[] src, int numEls, int offs, int[] indexes, int position) {
        return gather(Values.LONG, src, numEls, offs, indexes, position);
    }

    @Override
    public void strGather(long[] src, int srcOff, int rank, int exts, int strs, int[] shape, int position) {
        strGather(Values.LONG, src, srcOff, rank, exts, strs, shape, position);
    }

    @Override
    public void read(long[] dest, int dstOff, int numEls, int position, boolean reverse) {
        read(Values.LONG, dest, dstOff, numEls, position, reverse);
    }

    @Override
    public int scatter(long[] dest, int numEls, int offs, int[] indexes, int position, boolean reverse) {
        return scatter(Values.LONG, dest, numEls, offs, indexes, position, reverse);
    }

    @Override
    public void strScatter(long[] dest, int dstOff, int rank, int exts, int strs, int[] shape, int position, boolean reverse) {
        strScatter(Values.LONG, dest, dstOff, rank, exts, strs, shape, position, reverse);
    }

    // ---------------------------------------------------------------- char

    @Override
    public void write(char[] src, int srcOff, int numEls, int position) {
        write(Values.CHAR, src, srcOff, numEls, position);
    }

    @Override
    public int gather(char[] src, int numEls, int offs, int[] indexes, int position) {
        return gather(Values.CHAR, src, numEls, offs, indexes, position);
    }

    @Override
    public void strGather(char[] src, int srcOff, int rank, int exts, int strs, int[] shape, int position) {
        strGather(Values.CHAR, src, srcOff, rank, exts, strs, shape, position);
    }

    @Override
    public void read(char[] dest, int dstOff, int numEls, int position, boolean reverse) {
        read(Values.CHAR, dest, dstOff, numEls, position, reverse);
    }

    @Override
    public int scatter(char[] dest, int numEls, int offs, int[] indexes, int position, boolean reverse) {
        return scatter(Values.CHAR, dest, numEls, offs, indexes, position, reverse);
    }

    @Override
    public void strScatter(char[] dest, int dstOff, int rank, int exts, int strs, int[] shape, int position, boolean reverse) {
        strScatter(Values.CHAR, dest, dstOff, rank, exts, strs, shape, position, reverse);
    }

    // ---------------------------------------------------------------- float

    @Override
    public void write(float[] src, int srcOff, int numEls, int position) {
        write(Values.FLOAT, src, srcOff, numEls, position);
    }

    @Override
    public int gather(float[] src, int numEls, int offs, int[] indexes, int position) {
        return gather(Values.FLOAT, src, numEls, offs, indexes, position);
    }

    @Override
    public void strGather(float[] src, int srcOff, int rank, int exts, int strs, int[] shape, int position) {
        strGather(Values.FLOAT, src, srcOff, rank, exts, strs, shape, position);
    }

    @Override
    public void read(float[] dest, int dstOff, int numEls, int position, boolean reverse) {
        read(Values.FLOAT, dest, dstOff, numEls, position, reverse);
    }

    @Override
    public int scatter(float[] dest, int numEls, int offs, int[] indexes, int position, boolean reverse) {
        return scatter(Values.FLOAT, dest, numEls, offs, indexes, position, reverse);
    }

    @Override
    public void strScatter(float[] dest, int dstOff, int rank, int exts, int strs, int[] shape, int position, boolean reverse) {
        strScatter(Values.FLOAT, dest, dstOff, rank, exts, strs, shape, position, reverse);
    }

    // ---------------------------------------------------------------- double

    @Override
    public void write(double[] src, int srcOff, int numEls, int position) {
        write(Values.DOUBLE, src, srcOff, numEls, position);
    }

    @Override
    public int gather(double[] src, int numEls, int offs, int[] indexes, int position) {
        return gather(Values.DOUBLE, src, numEls, offs, indexes, position);
    }

    @Override
    public void strGather(double[] src, int srcOff, int rank, int exts, int strs, int[] shape, int position) {
        strGather(Values.DOUBLE, src, srcOff, rank, exts, strs, shape, position);
    }

    @Override
    public void read(double[] dest, int dstOff, int numEls, int position, boolean reverse) {
        read(Values.DOUBLE, dest, dstOff, numEls, position, reverse);
    }

    @Override
    public int scatter(double[] dest, int numEls, int offs, int[] indexes, int position, boolean reverse) {
        return scatter(Values.DOUBLE, dest, numEls, offs, indexes, position, reverse);
    }

    @Override
    public void strScatter(double[] dest, int dstOff, int rank, int exts, int strs, int[] shape, int position, boolean reverse) {
        strScatter(Values.DOUBLE, dest, dstOff, rank, exts, strs, shape, position, reverse);
    }

    // ---------------------------------------------------------------- boolean

    @Override
    public void write(boolean[] src, int srcOff, int numEls, int position) {
        write(Values.BOOLEAN, src, srcOff, numEls, position);
    }

    @Override
    public int gather(boolean[] src, int numEls, int offs, int[] indexes, int position) {
        return gather(Values.BOOLEAN, src, numEls, offs, indexes, position);
    }

    @Override
    public void strGather(boolean[] src, int srcOff, int rank, int exts, int strs, int[] shape, int position) {
        strGather(Values.BOOLEAN, src, srcOff, rank, exts, strs, shape, position);
    }

    @Override
    public void read(boolean[] dest, int dstOff, int numEls, int position, boolean reverse) {
        read(Values.BOOLEAN, dest, dstOff, numEls, position, reverse);
    }

    @Override
    public int scatter(boolean[] dest, int numEls, int offs, int[] indexes, int position, boolean reverse) {
        return scatter(Values.BOOLEAN, dest, numEls, offs, indexes, position, reverse);
    }

    @Override
    public void strScatter(boolean[] dest, int dstOff, int rank, int exts, int strs, int[] shape, int position, boolean reverse) {
        strScatter(Values.BOOLEAN, dest, dstOff, rank, exts, strs, shape, position, reverse);
    }
}
