package mpjbuf;

import java.util.Arrays;

/**
 * The buffer of packed data that MPJ Express's {@code mpi.Comm.Pack} and {@code Unpack} take, and
 * that a program sends and receives with {@code MPI.PACKED}.
 *
 * <p>In Railyard it is a plain byte array with a size (the bytes packed so far): {@code Pack}
 * appends at a position and moves the size to the end of what it wrote, growing the array if the
 * capacity given to the constructor is too small (the objects of {@code MPI.OBJECT} have no size
 * known in advance); a send of {@code MPI.PACKED} sends the first {@link #getSize()} bytes; a
 * receive fills the array and sets the size to the length of the message. The packed form is
 * Railyard's wire form (little-endian values), so packed data may be received as the types that
 * were packed, and the other way round.
 *
 * <p>Only the part of MPJ Express's class that a program uses is here: the constructor, the
 * size and capacity, {@link #commit()}, {@link #clear()} and {@link #free()}. Its section and raw
 * buffer machinery is MPJ Express's own device layer and has no counterpart.
 */
public class Buffer {
    private byte[] bytes;
    private int size;
    private boolean readable;

    /** A buffer able to hold {@code capacity} packed bytes (more are made room for on demand). */
    public Buffer(int capacity) {
        if (capacity < 0) {
            throw new IllegalArgumentException("buffer capacity " + capacity + " is negative");
        }
        this.bytes = new byte[capacity];
    }

    /** Number of bytes packed in (or received into) the buffer. */
    public int getSize() {
        return size;
    }

    /** Sets the number of meaningful bytes, at most the capacity. */
    public void setSize(int size) {
        if (size < 0 || size > bytes.length) {
            throw new IllegalArgumentException("size " + size + " is outside [0, " + bytes.length + "]");
        }
        this.size = size;
    }

    /** Bytes the buffer holds without growing. */
    public int getCapacity() {
        return bytes.length;
    }

    /** Ends writing: the buffer now reads back what was packed. */
    public void commit() throws BufferException {
        readable = true;
    }

    /** Empties the buffer for a new round of packing. */
    public void clear() throws BufferException {
        size = 0;
        readable = false;
    }

    /** Drops the storage; the buffer is empty, with capacity 0, afterwards. */
    public void free() {
        bytes = new byte[0];
        size = 0;
        readable = false;
    }

    /** True until {@link #commit()} (and again after {@link #clear()}). */
    public boolean isWritable() {
        return !readable;
    }

    /** The storage, for the mpi package (and for programs that want to look at the packed bytes). */
    public byte[] array() {
        return bytes;
    }

    /** Makes room for {@code capacity} bytes, keeping the content. */
    public void ensureCapacity(int capacity) {
        if (capacity > bytes.length) {
            bytes = Arrays.copyOf(bytes, Math.max(capacity, (int) Math.min(Integer.MAX_VALUE - 8, bytes.length * 2L)));
        }
    }

    @Override
    public String toString() {
        return "Buffer[size=" + size + ", capacity=" + bytes.length + "]";
    }
}
