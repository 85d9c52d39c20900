package mpjbuf;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * A buffer of packed data, with the public API of MPJ Express 0.44's {@code mpjbuf.Buffer}: what
 * {@code mpi.Comm.Pack} writes and {@code Unpack} reads, what a program sends and receives with
 * {@code MPI.PACKED}, and what a program may fill and read itself, section by section.
 *
 * <h2>Layout</h2>
 * A buffer is a sequence of <em>sections</em>, each a header and the values of one {@link Type}:
 * <pre>
 *   0      1          4              8
 *   +------+----------+--------------+------------------------------+
 *   | type | (unused) | values (int) | values, {@code width} bytes each |
 *   +------+----------+--------------+------------------------------+
 * </pre>
 * Headers start at multiples of {@link #ALIGNMENT_UNIT}; a header takes {@link #SECTION_OVERHEAD}
 * bytes. The values of a <em>static</em> section follow its header in the <em>static</em> part
 * (a {@link RawBuffer}, written in {@link #getEncoding()} order); those of a <em>dynamic</em>
 * section ({@link Type#OBJECT}, {@code *_DYNAMIC}) are written with Java serialization to the
 * <em>dynamic</em> part, a byte array that has no size limit, and only their header is static.
 * {@link #getSize()} is the number of static bytes written.
 *
 * <h2>States</h2>
 * A new buffer is <em>writable</em>: {@link #putSectionHeader} starts a section, {@code write},
 * {@code gather} and {@code strGather} append values of its type. {@link #commit()} makes it
 * <em>readable</em> from the start: {@link #getSectionHeader()} enters the next section,
 * {@code read}, {@code scatter} and {@code strScatter} take its values in order (at most
 * {@link #getRemaining()}). {@link #clear()} empties it for writing again; {@link #free()} ends it.
 * A receive of {@code MPI.PACKED} leaves the buffer readable.
 *
 * <h2>Strided access</h2>
 * {@code strGather(src, srcOff, rank, exts, strs, shape)} takes a region of {@code rank}
 * dimensions: dimension {@code d} has {@code shape[exts + d]} elements {@code shape[strs + d]}
 * array slots apart, dimension 0 outermost, starting at {@code srcOff}; {@code strScatter} puts
 * values back in the same order. {@code gather(src, numEls, offs, indexes)} takes
 * {@code src[indexes[offs]] ... src[indexes[offs + numEls - 1]]}.
 *
 * <h2>Where the facade differs from MPJ Express</h2>
 * The static part grows when a write or a header does not fit (a larger heap storage replaces
 * it, keeping the content), where MPJ Express throws {@link BufferOverflowException}: packing
 * never fails for want of room. {@link #getCapacity()} is the real capacity of the static part
 * (MPJ Express reports 0 for a buffer made by {@link #Buffer(int)}). A section's value count is
 * stored as soon as values are written, so a buffer may be sent without {@link #commit()}, and
 * {@link #getDynamicBuffer()} of a buffer being written returns the objects written so far.
 * Errors of arguments (a negative offset, a range past the array) are
 * {@link ArrayIndexOutOfBoundsException}s, as in MPJ Express.
 */
public class Buffer {
    /** Bytes of a section header. */
    public static final int SECTION_OVERHEAD = 8;
    /** Section headers start at multiples of this many bytes. */
    public static final int ALIGNMENT_UNIT = 8;

    private static final ByteOrder LOCAL = ByteOrder.nativeOrder();

    private RawBuffer staticBuffer;
    private int bufoffset;
    private int capacity;
    /** Static bytes written (or received). */
    private int size;
    private boolean writable = true;
    private boolean freed;
    private ByteOrder encoding = LOCAL;

    /** The section being written or read, its header's position, and its value count. */
    Type current;
    private int header;
    private int sectionSize;
    /** Reading: the next static byte, and the values of the current section not yet read. */
    private int readPtr;
    private int remaining;

    final DynamicPart dynamic = new DynamicPart();

    /** A buffer whose static part holds {@code capacity} bytes (it grows when needed). */
    public Buffer(int capacity) {
        if (capacity < 0) {
            throw new java.lang.IllegalArgumentException("buffer capacity " + capacity + " is negative");
        }
        this.staticBuffer = new NIOBuffer(capacity);
        this.capacity = capacity;
    }

    /** A buffer over {@code capacity} bytes of {@code staticBuffer} from byte {@code offset}. */
    public Buffer(RawBuffer staticBuffer, int offset, int capacity) {
        if (staticBuffer == null) {
            throw new NullPointerException("Buffer: the static buffer is null");
        }
        if (offset < 0 || capacity < 0 || (long) offset + capacity > staticBuffer.getCapacity()) {
            throw new java.lang.IllegalArgumentException("Buffer: " + capacity + " bytes from offset " + offset
                    + " do not fit a static buffer of " + staticBuffer.getCapacity() + " bytes");
        }
        this.staticBuffer = staticBuffer;
        this.bufoffset = offset;
        this.capacity = capacity;
    }

    /** Where this buffer starts in its static buffer. */
    public int offset() {
        return bufoffset;
    }

    /**
     * Fills the buffer from received data: {@code staticLength} bytes of {@code src} from
     * {@code srcOffset} into the static part at byte {@code position} of it, which becomes
     * {@link #getSize()}; and, if {@code dynamicLength} is positive, {@code dynamic} as the dynamic part.
     */
    public void copy(ByteBuffer src, int srcOffset, int staticLength, int position, byte[] dynamic, int dynamicLength) {
        ensure(position + staticLength);
        staticBuffer.copy(src, srcOffset, staticLength, bufoffset + position);
        setSize(staticLength);
        if (dynamicLength > 0) {
            setDynamicBuffer(dynamic);
        }
    }

    /** Ends the buffer: its storage is released and every later call fails with {@link WrongStateException}. */
    public void free() {
        dynamic.clear();
        staticBuffer.free();
        freed = true;
    }

    /** Ends writing (or restarts reading): the buffer reads back from its first section. */
    public void commit() throws BufferException {
        checkLive();
        if (writable) {
            dynamic.commit();
        } else {
            dynamic.closeStreams();
        }
        current = null;
        readPtr = 0;
        remaining = 0;
        writable = false;
    }

    /** Empties the buffer for writing, in this machine's byte order. */
    public void clear() throws BufferException {
        checkLive();
        dynamic.clear();
        setEncoding(LOCAL);
        current = null;
        size = 0;
        header = 0;
        sectionSize = 0;
        readPtr = 0;
        remaining = 0;
        writable = true;
    }

    // ---------------------------------------------------------------- sections

    /** Starts a section of {@code type} at the next aligned position. */
    public void putSectionHeader(Type type) throws BufferException {
        checkWritable();
        if (type == null || type == Type.UNDEFINED) {
            throw new IllegalArgumentException("section type " + type + " cannot hold values");
        }
        int at = align(size);
        ensure(at + SECTION_OVERHEAD);
        staticBuffer.putByte(type.getCode(), bufoffset + at);
        staticBuffer.putInt(0, bufoffset + at + 4);
        size = at + SECTION_OVERHEAD;
        header = at;
        current = type;
        sectionSize = 0;
    }

    /** Enters the next section (the previous one must have been read whole) and returns its type. */
    public Type getSectionHeader() throws BufferException {
        checkReadable();
        if (remaining != 0) {
            throw new SectionSizeMismatchException("the section before was not read whole: " + remaining
                    + " of its values remain");
        }
        int at = align(readPtr);
        if (at + SECTION_OVERHEAD > size) {
            throw new BufferUnderflowException("no section after byte " + readPtr + ": the buffer holds " + size + " bytes");
        }
        int code = staticBuffer.getByte(bufoffset + at);
        if (code >= Type.UNDEFINED.getCode()) {
            throw new TypeMismatchException("byte " + at + " is not a section header (type code " + code + ")");
        }
        Type type = Type.getType(code);
        int n = staticBuffer.getInt(bufoffset + at + 4, swap());
        if (n < 0 || (long) at + SECTION_OVERHEAD + (long) n * type.width > size) {
            throw new BufferUnderflowException("the " + type + " section at byte " + at + " claims " + n
                    + " values, more than the " + size + " bytes of the buffer hold");
        }
        readPtr = at + SECTION_OVERHEAD;
        current = type;
        sectionSize = n;
        remaining = n;
        return type;
    }

    /** Number of values of the current section (written so far, or in all when reading). */
    public int getSectionSize() throws BufferException {
        checkLive();
        if (current == null) {
            throw new WrongStateException("no current section: call putSectionHeader or getSectionHeader first");
        }
        return sectionSize;
    }

    /** Values of the current section not read yet. */
    public int getRemaining() throws BufferException {
        checkReadable();
        return remaining;
    }

    // ---------------------------------------------------------------- writing, generically

    private static int align(int at) {
        return (at + ALIGNMENT_UNIT - 1) / ALIGNMENT_UNIT * ALIGNMENT_UNIT;
    }

    /** Makes the static part hold at least {@code bytes} bytes, growing it into heap storage. */
    private void ensure(long bytes) {
        if (bytes <= capacity) {
            return;
        }
        if (bytes > Integer.MAX_VALUE - 8) {
            throw new java.lang.IllegalArgumentException("a buffer of " + bytes + " bytes is more than an array holds");
        }
        int grown = (int) Math.max(bytes, Math.min(Integer.MAX_VALUE - 8, Math.max(64L, capacity * 2L)));
        NIOBuffer bigger = new NIOBuffer(grown);
        bigger.setEncoding(encoding);
        byte[] kept = new byte[size];
        staticBuffer.read(kept, 0, size, bufoffset, false);
        bigger.write(kept, 0, size, 0);
        staticBuffer = bigger;
        bufoffset = 0;
        capacity = grown;
    }

    private boolean swap() {
        return !(staticBuffer instanceof NIOBuffer) && encoding != LOCAL;
    }

    private void checkLive() throws WrongStateException {
        if (freed) {
            throw new WrongStateException("the buffer was freed");
        }
    }

    private void checkWritable() throws WrongStateException {
        checkLive();
        if (!writable) {
            throw new WrongStateException("the buffer is committed (readable); clear() it to write again");
        }
    }

    private void checkReadable() throws WrongStateException {
        checkLive();
        if (writable) {
            throw new WrongStateException("the buffer is being written; commit() it to read");
        }
    }

    /**
     * Accounts {@code n} values of {@code v} to the current section: the static position to
     * write them at, or -1 if the section is dynamic (the caller writes them to the stream).
     */
    int reserve(Values v, int n) throws BufferException {
        checkWritable();
        if (current == null) {
            throw new WrongStateException("no section: call putSectionHeader first");
        }
        int at = -1;
        if (current == v.staticType) {
            ensure(size + (long) n * v.width);
            at = bufoffset + size;
            size += n * v.width;
        } else if (current != v.dynamicType) {
            throw new TypeMismatchException("values of type " + v + " do not belong in a " + current + " section");
        }
        sectionSize += n;
        staticBuffer.putInt(sectionSize, bufoffset + header + 4);
        return at;
    }

    // ---------------------------------------------------------------- reading, generically

    /** Takes {@code n} values of {@code v} from the current section: their static position, or -1 if dynamic. */
    int take(Values v, int n) throws BufferException {
        checkReadable();
        if (current == null) {
            throw new WrongStateException("no section: call getSectionHeader first");
        }
        if (current != v.staticType && current != v.dynamicType) {
            throw new TypeMismatchException("values of type " + v + " cannot be read from a " + current + " section");
        }
        if (n > remaining) {
            throw new SectionSizeMismatchException("reading " + n + " values past the end of the " + current
                    + " section, which has " + remaining + " left");
        }
        remaining -= n;
        if (current == v.staticType) {
            int at = bufoffset + readPtr;
            readPtr += n * v.width;
            return at;
        }
        return -1;
    }

    // ---------------------------------------------------------------- byte: write, gather, strGather, read, scatter, strScatter

    public void write(byte[] source, int srcOff, int numEls) throws BufferException {
        TypedCall.write(this, Values.BYTE, source, source.length, srcOff, numEls,
                p -> staticBuffer.write(source, srcOff, numEls, p));
    }

    public void gather(byte[] source, int numEls, int offs, int[] indexes) throws BufferException {
        TypedCall.gather(this, Values.BYTE, source, source.length, numEls, offs, indexes,
                p -> staticBuffer.gather(source, numEls, offs, indexes, p));
    }

    public void strGather(byte[] source, int srcOff, int rank, int exts, int strs, int[] shape) throws BufferException {
        TypedCall.strGather(this, Values.BYTE, source, source.length, srcOff, rank, exts, strs, shape,
                p -> staticBuffer.strGather(source, srcOff, rank, exts, strs, shape, p));
    }

    public void read(byte[] dest, int dstOff, int numEls) throws BufferException {
        TypedCall.read(this, Values.BYTE, dest, dest.length, dstOff, numEls,
                p -> staticBuffer.read(dest, dstOff, numEls, p, swap()));
    }

    public void scatter(byte[] dest, int numEls, int offs, int[] indexes) throws BufferException {
        TypedCall.scatter(this, Values.BYTE, dest, dest.length, numEls, offs, indexes,
                p -> staticBuffer.scatter(dest, numEls, offs, indexes, p, swap()));
    }

    public void strScatter(byte[] dest, int dstOff, int rank, int exts, int strs, int[] shape) throws BufferException {
        TypedCall.strScatter(this, Values.BYTE, dest, dest.length, dstOff, rank, exts, strs, shape,
                p -> staticBuffer.strScatter(dest, dstOff, rank, exts, strs, shape, p, swap()));
    }

    // ---------------------------------------------------------------- short: write, gather, strGather, read, scatter, strScatter

    public void write(short[] source, int srcOff, int numEls) throws BufferException {
        TypedCall.write(this, Values.SHORT, source, source.length, srcOff, numEls,
                p -> staticBuffer.write(source, srcOff, numEls, p));
    }

    public void gather(short[] source, int numEls, int offs, int[] indexes) throws BufferException {
        TypedCall.gather(this, Values.SHORT, source, source.length, numEls, offs, indexes,
                p -> staticBuffer.gather(source, numEls, offs, indexes, p));
    }

    public void strGather(short[] source, int srcOff, int rank, int exts, int strs, int[] shape) throws BufferException {
        TypedCall.strGather(this, Values.SHORT, source, source.length, srcOff, rank, exts, strs, shape,
                p -> staticBuffer.strGather(source, srcOff, rank, exts, strs, shape, p));
    }

    public void read(short[] dest, int dstOff, int numEls) throws BufferException {
        TypedCall.read(this, Values.SHORT, dest, dest.length, dstOff, numEls,
                p -> staticBuffer.read(dest, dstOff, numEls, p, swap()));
    }

    public void scatter(short[] dest, int numEls, int offs, int[] indexes) throws BufferException {
        TypedCall.scatter(this, Values.SHORT, dest, dest.length, numEls, offs, indexes,
                p -> staticBuffer.scatter(dest, numEls, offs, indexes, p, swap()));
    }

    public void strScatter(short[] dest, int dstOff, int rank, int exts, int strs, int[] shape) throws BufferException {
        TypedCall.strScatter(this, Values.SHORT, dest, dest.length, dstOff, rank, exts, strs, shape,
                p -> staticBuffer.strScatter(dest, dstOff, rank, exts, strs, shape, p, swap()));
    }

    // ---------------------------------------------------------------- int: write, gather, strGather, read, scatter, strScatter

    public void write(int[] source, int srcOff, int numEls) throws BufferException {
        TypedCall.write(this, Values.INT, source, source.length, srcOff, numEls,
                p -> staticBuffer.write(source, srcOff, numEls, p));
    }

    public void gather(int[] source, int numEls, int offs, int[] indexes) throws BufferException {
        TypedCall.gather(this, Values.INT, source, source.length, numEls, offs, indexes,
                p -> staticBuffer.gather(source, numEls, offs, indexes, p));
    }

    public void strGather(int[] source, int srcOff, int rank, int exts, int strs, int[] shape) throws BufferException {
        TypedCall.strGather(this, Values.INT, source, source.length, srcOff, rank, exts, strs, shape,
                p -> staticBuffer.strGather(source, srcOff, rank, exts, strs, shape, p));
    }

    public void read(int[] dest, int dstOff, int numEls) throws BufferException {
        TypedCall.read(this, Values.INT, dest, dest.length, dstOff, numEls,
                p -> staticBuffer.read(dest, dstOff, numEls, p, swap()));
    }

    public void scatter(int[] dest, int numEls, int offs, int[] indexes) throws BufferException {
        TypedCall.scatter(this, Values.INT, dest, dest.length, numEls, offs, indexes,
                p -> staticBuffer.scatter(dest, numEls, offs, indexes, p, swap()));
    }

    public void strScatter(int[] dest, int dstOff, int rank, int exts, int strs, int[] shape) throws BufferException {
        TypedCall.strScatter(this, Values.INT, dest, dest.length, dstOff, rank, exts, strs, shape,
                p -> staticBuffer.strScatter(dest, dstOff, rank, exts, strs, shape, p, swap()));
    }

    // ---------------------------------------------------------------- long: write, gather, strGather, read, scatter, strScatter

    public void write(long[] source, int srcOff, int numEls) throws BufferException {
        TypedCall.write(this, Values.LONG, source, source.length, srcOff, numEls,
                p -> staticBuffer.write(source, srcOff, numEls, p));
    }

    public void gather(long[] source, int numEls, int offs, int[] indexes) throws BufferException {
        TypedCall.gather(this, Values.LONG, source, source.length, numEls, offs, indexes,
                p -> staticBuffer.gather(source, numEls, offs, indexes, p));
    }

    public void strGather(long[] source, int srcOff, int rank, int exts, int strs, int[] shape) throws BufferException {
        TypedCall.strGather(this, Values.LONG, source, source.length, srcOff, rank, exts, strs, shape,
                p -> staticBuffer.strGather(source, srcOff, rank, exts, strs, shape, p));
    }

    public void read(long[] dest, int dstOff, int numEls) throws BufferException {
        TypedCall.read(this, Values.LONG, dest, dest.length, dstOff, numEls,
                p -> staticBuffer.read(dest, dstOff, numEls, p, swap()));
    }

    public void scatter(long[] dest, int numEls, int offs, int[] indexes) throws BufferException {
        TypedCall.scatter(this, Values.LONG, dest, dest.length, numEls, offs, indexes,
                p -> staticBuffer.scatter(dest, numEls, offs, indexes, p, swap()));
    }

    public void strScatter(long[] dest, int dstOff, int rank, int exts, int strs, int[] shape) throws BufferException {
        TypedCall.strScatter(this, Values.LONG, dest, dest.length, dstOff, rank, exts, strs, shape,
                p -> staticBuffer.strScatter(dest, dstOff, rank, exts, strs, shape, p, swap()));
    }

    // ---------------------------------------------------------------- char: write, gather, strGather, read, scatter, strScatter

    public void write(char[] source, int srcOff, int numEls) throws BufferException {
        TypedCall.write(this, Values.CHAR, source, source.length, srcOff, numEls,
                p -> staticBuffer.write(source, srcOff, numEls, p));
    }

    public void gather(char[] source, int numEls, int offs, int[] indexes) throws BufferException {
        TypedCall.gather(this, Values.CHAR, source, source.length, numEls, offs, indexes,
                p -> staticBuffer.gather(source, numEls, offs, indexes, p));
    }

    public void strGather(char[] source, int srcOff, int rank, int exts, int strs, int[] shape) throws BufferException {
        TypedCall.strGather(this, Values.CHAR, source, source.length, srcOff, rank, exts, strs, shape,
                p -> staticBuffer.strGather(source, srcOff, rank, exts, strs, shape, p));
    }

    public void read(char[] dest, int dstOff, int numEls) throws BufferException {
        TypedCall.read(this, Values.CHAR, dest, dest.length, dstOff, numEls,
                p -> staticBuffer.read(dest, dstOff, numEls, p, swap()));
    }

    public void scatter(char[] dest, int numEls, int offs, int[] indexes) throws BufferException {
        TypedCall.scatter(this, Values.CHAR, dest, dest.length, numEls, offs, indexes,
                p -> staticBuffer.scatter(dest, numEls, offs, indexes, p, swap()));
    }

    public void strScatter(char[] dest, int dstOff, int rank, int exts, int strs, int[] shape) throws BufferException {
        TypedCall.strScatter(this, Values.CHAR, dest, dest.length, dstOff, rank, exts, strs, shape,
                p -> staticBuffer.strScatter(dest, dstOff, rank, exts, strs, shape, p, swap()));
    }

    // ---------------------------------------------------------------- float: write, gather, strGather, read, scatter, strScatter

    public void write(float[] source, int srcOff, int numEls) throws BufferException {
        TypedCall.write(this, Values.FLOAT, source, source.length, srcOff, numEls,
                p -> staticBuffer.write(source, srcOff, numEls, p));
    }

    public void gather(float[] source, int numEls, int offs, int[] indexes) throws BufferException {
        TypedCall.gather(this, Values.FLOAT, source, source.length, numEls, offs, indexes,
                p -> staticBuffer.gather(source, numEls, offs, indexes, p));
    }

    public void strGather(float[] source, int srcOff, int rank, int exts, int strs, int[] shape) throws BufferException {
        TypedCall.strGather(this, Values.FLOAT, source, source.length, srcOff, rank, exts, strs, shape,
                p -> staticBuffer.strGather(source, srcOff, rank, exts, strs, shape, p));
    }

    public void read(float[] dest, int dstOff, int numEls) throws BufferException {
        TypedCall.read(this, Values.FLOAT, dest, dest.length, dstOff, numEls,
                p -> staticBuffer.read(dest, dstOff, numEls, p, swap()));
    }

    public void scatter(float[] dest, int numEls, int offs, int[] indexes) throws BufferException {
        TypedCall.scatter(this, Values.FLOAT, dest, dest.length, numEls, offs, indexes,
                p -> staticBuffer.scatter(dest, numEls, offs, indexes, p, swap()));
    }

    public void strScatter(float[] dest, int dstOff, int rank, int exts, int strs, int[] shape) throws BufferException {
        TypedCall.strScatter(this, Values.FLOAT, dest, dest.length, dstOff, rank, exts, strs, shape,
                p -> staticBuffer.strScatter(dest, dstOff, rank, exts, strs, shape, p, swap()));
    }

    // ---------------------------------------------------------------- double: write, gather, strGather, read, scatter, strScatter

    public void write(double[] source, int srcOff, int numEls) throws BufferException {
        TypedCall.write(this, Values.DOUBLE, source, source.length, srcOff, numEls,
                p -> staticBuffer.write(source, srcOff, numEls, p));
    }

    public void gather(double[] source, int numEls, int offs, int[] indexes) throws BufferException {
        TypedCall.gather(this, Values.DOUBLE, source, source.length, numEls, offs, indexes,
                p -> staticBuffer.gather(source, numEls, offs, indexes, p));
    }

    public void strGather(double[] source, int srcOff, int rank, int exts, int strs, int[] shape) throws BufferException {
        TypedCall.strGather(this, Values.DOUBLE, source, source.length, srcOff, rank, exts, strs, shape,
                p -> staticBuffer.strGather(source, srcOff, rank, exts, strs, shape, p));
    }

    public void read(double[] dest, int dstOff, int numEls) throws BufferException {
        TypedCall.read(this, Values.DOUBLE, dest, dest.length, dstOff, numEls,
                p -> staticBuffer.read(dest, dstOff, numEls, p, swap()));
    }

    public void scatter(double[] dest, int numEls, int offs, int[] indexes) throws BufferException {
        TypedCall.scatter(this, Values.DOUBLE, dest, dest.length, numEls, offs, indexes,
                p -> staticBuffer.scatter(dest, numEls, offs, indexes, p, swap()));
    }

    public void strScatter(double[] dest, int dstOff, int rank, int exts, int strs, int[] shape) throws BufferException {
        TypedCall.strScatter(this, Values.DOUBLE, dest, dest.length, dstOff, rank, exts, strs, shape,
                p -> staticBuffer.strScatter(dest, dstOff, rank, exts, strs, shape, p, swap()));
    }

    // ---------------------------------------------------------------- boolean: write, gather, strGather, read, scatter, strScatter

    public void write(boolean[] source, int srcOff, int numEls) throws BufferException {
        TypedCall.write(this, Values.BOOLEAN, source, source.length, srcOff, numEls,
                p -> staticBuffer.write(source, srcOff, numEls, p));
    }

    public void gather(boolean[] source, int numEls, int offs, int[] indexes) throws BufferException {
        TypedCall.gather(this, Values.BOOLEAN, source, source.length, numEls, offs, indexes,
                p -> staticBuffer.gather(source, numEls, offs, indexes, p));
    }

    public void strGather(boolean[] source, int srcOff, int rank, int exts, int strs, int[] shape) throws BufferException {
        TypedCall.strGather(this, Values.BOOLEAN, source, source.length, srcOff, rank, exts, strs, shape,
                p -> staticBuffer.strGather(source, srcOff, rank, exts, strs, shape, p));
    }

    public void read(boolean[] dest, int dstOff, int numEls) throws BufferException {
        TypedCall.read(this, Values.BOOLEAN, dest, dest.length, dstOff, numEls,
                p -> staticBuffer.read(dest, dstOff, numEls, p, swap()));
    }

    public void scatter(boolean[] dest, int numEls, int offs, int[] indexes) throws BufferException {
        TypedCall.scatter(this, Values.BOOLEAN, dest, dest.length, numEls, offs, indexes,
                p -> staticBuffer.scatter(dest, numEls, offs, indexes, p, swap()));
    }

    public void strScatter(boolean[] dest, int dstOff, int rank, int exts, int strs, int[] shape) throws BufferException {
        TypedCall.strScatter(this, Values.BOOLEAN, dest, dest.length, dstOff, rank, exts, strs, shape,
                p -> staticBuffer.strScatter(dest, dstOff, rank, exts, strs, shape, p, swap()));
    }

    // ---------------------------------------------------------------- Object: write, gather, strGather, read, scatter, strScatter

    public void write(Object[] source, int srcOff, int numEls) throws BufferException {
        TypedCall.write(this, Values.OBJECT, source, source.length, srcOff, numEls, null);
    }

    public void gather(Object[] source, int numEls, int offs, int[] indexes) throws BufferException {
        TypedCall.gather(this, Values.OBJECT, source, source.length, numEls, offs, indexes, null);
    }

    public void strGather(Object[] source, int srcOff, int rank, int exts, int strs, int[] shape) throws BufferException {
        TypedCall.strGather(this, Values.OBJECT, source, source.length, srcOff, rank, exts, strs, shape,
                null);
    }

    public void read(Object[] dest, int dstOff, int numEls) throws BufferException {
        TypedCall.read(this, Values.OBJECT, dest, dest.length, dstOff, numEls, null);
    }

    public void scatter(Object[] dest, int numEls, int offs, int[] indexes) throws BufferException {
        TypedCall.scatter(this, Values.OBJECT, dest, dest.length, numEls, offs, indexes, null);
    }

    public void strScatter(Object[] dest, int dstOff, int rank, int exts, int strs, int[] shape) throws BufferException {
        TypedCall.strScatter(this, Values.OBJECT, dest, dest.length, dstOff, rank, exts, strs, shape,
                null);
    }

    // ---------------------------------------------------------------- the parts

    /** The static part. */
    public RawBuffer getStaticBuffer() {
        return staticBuffer;
    }

    /** Replaces the static part (from {@link #offset()} on); the content is taken as it is. */
    public void setStaticBuffer(RawBuffer staticBuffer) {
        if (staticBuffer == null) {
            throw new NullPointerException("setStaticBuffer: the static buffer is null");
        }
        this.staticBuffer = staticBuffer;
        this.capacity = Math.max(0, staticBuffer.getCapacity() - bufoffset);
    }

    /** The byte order of the static values (this machine's, or the sender's after a receive). */
    public ByteOrder getEncoding() {
        return encoding;
    }

    /** Sets the byte order the static values are written and read in. */
    public void setEncoding(ByteOrder encoding) {
        this.encoding = encoding;
        if (staticBuffer instanceof NIOBuffer nio) {
            nio.setEncoding(encoding);
        }
    }

    /** Static bytes written (or received). */
    public int getSize() {
        return size;
    }

    /** Sets the number of static bytes that hold data (the static part grows if it is smaller). */
    public void setSize(int size) {
        if (size < 0) {
            throw new java.lang.IllegalArgumentException("buffer size " + size + " is negative");
        }
        ensure(size);
        this.size = size;
    }

    /** Bytes the static part holds without growing. */
    public int getCapacity() {
        return capacity;
    }

    /**
     * The dynamic part: the serialized values of the dynamic sections, or null if there are none.
     * While the buffer is being written, a copy of what was written so far.
     */
    public byte[] getDynamicBuffer() {
        return dynamic.bytes();
    }

    /** Replaces the dynamic part (as a receive does); reading it starts over. */
    public void setDynamicBuffer(byte[] dynamic) {
        this.dynamic.set(dynamic);
    }

    /** True until {@link #commit()}, and again after {@link #clear()}. */
    public boolean isWritable() {
        return writable;
    }

    @Override
    public String toString() {
        return "Buffer[" + (freed ? "freed" : (writable ? "writable" : "readable") + ", size=" + size + ", capacity="
                + capacity + (current == null ? "" : ", section " + current + " of " + sectionSize))
                + (dynamic.isEmpty() ? "" : ", with a dynamic part") + "]";
    }
}
