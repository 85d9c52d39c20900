package org.railyard;

import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import org.railyard.types.Kind;
import org.railyard.error.ErrorClass;
import org.railyard.error.RailyardException;

/**
 * The element type of a buffer. The native API infers it from the buffer ({@code double[]} is
 * {@link #DOUBLE}, a {@link ByteBuffer} or {@link MemorySegment} is {@link #BYTE}); the explicit
 * form exists for the mpiJava facade and for reading a byte buffer as another type.
 */
public final class Datatype {
    public static final Datatype BYTE = new Datatype(Kind.BYTE);
    public static final Datatype BOOLEAN = new Datatype(Kind.BOOLEAN);
    public static final Datatype CHAR = new Datatype(Kind.CHAR);
    public static final Datatype SHORT = new Datatype(Kind.SHORT);
    public static final Datatype INT = new Datatype(Kind.INT);
    public static final Datatype LONG = new Datatype(Kind.LONG);
    public static final Datatype FLOAT = new Datatype(Kind.FLOAT);
    public static final Datatype DOUBLE = new Datatype(Kind.DOUBLE);

    private final Kind kind;

    private Datatype(Kind kind) {
        this.kind = kind;
    }

    /** The engine's view of this type. */
    public Kind kind() {
        return kind;
    }

    /** Bytes per element. */
    public int size() {
        return kind.size;
    }

    /** The type a buffer object carries. */
    public static Datatype of(Object buf) {
        return of(Kind.ofBuffer(buf));
    }

    static Datatype of(Kind k) {
        return switch (k) {
            case BYTE -> BYTE;
            case BOOLEAN -> BOOLEAN;
            case CHAR -> CHAR;
            case SHORT -> SHORT;
            case INT -> INT;
            case LONG -> LONG;
            case FLOAT -> FLOAT;
            case DOUBLE -> DOUBLE;
        };
    }

    static RailyardException mismatch(Object buf, Datatype t) {
        return new RailyardException(ErrorClass.TYPE, "datatype " + t + " does not match buffer of type "
                + buf.getClass().getSimpleName());
    }

    @Override
    public String toString() {
        return kind.name();
    }
}
