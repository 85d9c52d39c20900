package org.railyard.types;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import org.railyard.error.ErrorClass;
import org.railyard.error.RailyardException;

/**
 * Element kinds the engine moves, with their wire layout (little endian, whatever the host). A
 * buffer is a Java primitive array of the kind, or, for {@link #BYTE} (and any kind read through
 * it), a {@link ByteBuffer} or {@link MemorySegment}.
 */
public enum Kind {
    BYTE(1, ValueLayout.JAVA_BYTE),
    BOOLEAN(1, ValueLayout.JAVA_BYTE),
    CHAR(2, ValueLayout.JAVA_CHAR_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN)),
    SHORT(2, ValueLayout.JAVA_SHORT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN)),
    INT(4, ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN)),
    LONG(8, ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN)),
    FLOAT(4, ValueLayout.JAVA_FLOAT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN)),
    DOUBLE(8, ValueLayout.JAVA_DOUBLE_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN));

    /** Bytes per element on the wire. */
    public final int size;
    /** Layout of one element on the wire. */
    public final ValueLayout wire;

    Kind(int size, ValueLayout wire) {
        this.size = size;
        this.wire = wire;
    }

    /*
     * The buffer tests below are instanceof chains, not switches on type patterns: such a switch is
     * linked at its first run by generating a class, in every rank's JVM, and until the JIT has
     * compiled the caller it dispatches through a method handle on every message.
     */

    /** The kind a buffer object carries; throws a BUFFER error naming the class otherwise. */
    public static Kind ofBuffer(Object buf) {
        if (buf instanceof byte[]) {
            return BYTE;
        } else if (buf instanceof double[]) {
            return DOUBLE;
        } else if (buf instanceof int[]) {
            return INT;
        } else if (buf instanceof long[]) {
            return LONG;
        } else if (buf instanceof float[]) {
            return FLOAT;
        } else if (buf instanceof short[]) {
            return SHORT;
        } else if (buf instanceof char[]) {
            return CHAR;
        } else if (buf instanceof boolean[]) {
            return BOOLEAN;
        } else if (buf instanceof ByteBuffer || buf instanceof MemorySegment) {
            return BYTE;
        } else if (buf == null) {
            throw new RailyardException(ErrorClass.BUFFER, "buffer is null");
        }
        throw new RailyardException(ErrorClass.BUFFER, "buffer of class " + buf.getClass().getName()
                + " is not supported: use a primitive array, a ByteBuffer or a MemorySegment");
    }

    /**
     * Capacity of a buffer in elements of this kind, after checking the buffer can hold this kind
     * (a primitive array must be of this kind exactly; byte buffers hold any kind).
     */
    public long capacity(Object buf) {
        if (buf instanceof ByteBuffer b) {
            return b.capacity() / size;
        } else if (buf instanceof MemorySegment s) {
            return s.byteSize() / size;
        }
        Kind k = ofBuffer(buf);
        if (k != this) {
            throw new RailyardException(ErrorClass.TYPE, "datatype " + this + " does not match a buffer of type "
                    + buf.getClass().getSimpleName());
        }
        return java.lang.reflect.Array.getLength(buf);
    }

    /** A thread that never runs: a segment it may access is not confined to one thread. */
    private static final Thread ANOTHER_THREAD = Thread.ofPlatform().unstarted(() -> { });

    /**
     * Checks (buf, offset, count) names a valid range; messages name the argument and its range.
     * A segment confined to one thread is refused.
     */
    public void checkRange(Object buf, int offset, int count) {
        if (buf instanceof MemorySegment s && !s.isAccessibleBy(ANOTHER_THREAD)) {
            throw new RailyardException(ErrorClass.BUFFER, "a MemorySegment of a confined arena is not accepted: the "
                    + "library's progress thread moves the bytes of a message or collective when it can, and only the "
                    + "thread that made the arena may touch them; allocate it from Arena.ofShared(), Arena.ofAuto() or "
                    + "Arena.global()");
        }
        long cap = capacity(buf);
        if (count < 0) {
            throw new RailyardException(ErrorClass.COUNT, "count " + count + " is negative");
        }
        if (offset < 0 || offset > cap) {
            throw new RailyardException(ErrorClass.BUFFER, "offset " + offset + " is out of range [0, " + cap
                    + "] for a buffer of " + cap + " " + this + " elements");
        }
        if ((long) offset + count > cap) {
            throw new RailyardException(ErrorClass.COUNT, "count " + count + " at offset " + offset
                    + " exceeds the buffer of " + cap + " " + this + " elements (at most " + (cap - offset) + ")");
        }
    }

    /**
     * Copies {@code len} bytes of a message held in {@code buf} (starting at element {@code offset},
     * then {@code msgOff} bytes in) to {@code dst} at {@code dstOff}. {@code msgOff} and {@code len}
     * are multiples of the element size, except that {@code len} may end the message.
     */
    public void copyOut(Object buf, int offset, long msgOff, MemorySegment dst, long dstOff, long len) {
        if (len == 0) {
            return;
        }
        if (buf instanceof MemorySegment s) {
            MemorySegment.copy(s, (long) offset * size + msgOff, dst, dstOff, len);
        } else if (buf instanceof ByteBuffer b) {
            MemorySegment.copy(MemorySegment.ofBuffer(b), (long) offset * size + msgOff, dst, dstOff, len);
        } else if (buf instanceof boolean[] a) {
            int first = offset + (int) msgOff;
            for (int i = 0; i < len; i++) {
                dst.set(ValueLayout.JAVA_BYTE, dstOff + i, a[first + i] ? (byte) 1 : (byte) 0);
            }
        } else {
            MemorySegment.copy(buf, offset + (int) (msgOff / size), dst, wire, dstOff, (int) (len / size));
        }
    }

    /** The inverse of {@link #copyOut}: {@code len} bytes from {@code src} into the message held in {@code buf}. */
    public void copyIn(MemorySegment src, long srcOff, Object buf, int offset, long msgOff, long len) {
        if (len == 0) {
            return;
        }
        if (buf instanceof MemorySegment s) {
            MemorySegment.copy(src, srcOff, s, (long) offset * size + msgOff, len);
        } else if (buf instanceof ByteBuffer b) {
            MemorySegment.copy(src, srcOff, MemorySegment.ofBuffer(b), (long) offset * size + msgOff, len);
        } else if (buf instanceof boolean[] a) {
            int first = offset + (int) msgOff;
            for (int i = 0; i < len; i++) {
                a[first + i] = src.get(ValueLayout.JAVA_BYTE, srcOff + i) != 0;
            }
        } else {
            MemorySegment.copy(src, wire, srcOff, buf, offset + (int) (msgOff / size), (int) (len / size));
        }
    }

    /** A new Java array of this kind. */
    public Object newArray(int n) {
        return switch (this) {
            case BYTE -> new byte[n];
            case BOOLEAN -> new boolean[n];
            case CHAR -> new char[n];
            case SHORT -> new short[n];
            case INT -> new int[n];
            case LONG -> new long[n];
            case FLOAT -> new float[n];
            case DOUBLE -> new double[n];
        };
    }

    /** Copies {@code count} elements of {@code buf} from {@code offset} into a new Java array of this kind. */
    public Object toArray(Object buf, int offset, int count) {
        Object a = newArray(count);
        if (buf.getClass() == a.getClass()) {
            System.arraycopy(buf, offset, a, 0, count);
        } else {
            MemorySegment src = buf instanceof ByteBuffer b ? MemorySegment.ofBuffer(b) : (MemorySegment) buf;
            copyIn(src, (long) offset * size, a, 0, 0, (long) count * size);
        }
        return a;
    }

    /** Copies {@code count} elements of the Java array {@code a} into {@code buf} at {@code offset}. */
    public void fromArray(Object a, Object buf, int offset, int count) {
        if (buf.getClass() == a.getClass()) {
            System.arraycopy(a, 0, buf, offset, count);
        } else {
            MemorySegment dst = buf instanceof ByteBuffer b ? MemorySegment.ofBuffer(b) : (MemorySegment) buf;
            copyOut(a, 0, 0, dst, (long) offset * size, (long) count * size);
        }
    }
}
