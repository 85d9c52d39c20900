package org.railyard.engine.rma;

import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import org.railyard.types.Kind;

/**
 * Values between a buffer laid out by a {@link Shape} and a packed Java array of its kind. A
 * buffer is a Java primitive array of the kind, or a {@link ByteBuffer} / {@link MemorySegment}
 * read as that kind; {@code off} counts elements of the kind from the buffer's start.
 */
final class Packing {
    private Packing() {
    }

    /** Copies the values of {@code count} elements of {@code s} at {@code buf[off..]} into {@code packed} from 0. */
    static void gather(Object buf, int off, Shape s, int count, Object packed) {
        Kind k = s.kind;
        MemorySegment seg = segment(buf);
        int[] at = {0};
        s.forEachRun(count, (first, len) -> {
            if (seg == null) {
                System.arraycopy(buf, (int) (off + first), packed, at[0], (int) len);
            } else {
                k.copyIn(seg, (off + first) * k.size, packed, at[0], 0, len * k.size);
            }
            at[0] += (int) len;
        });
    }

    /** The inverse of {@link #gather}: {@code packed} from 0 into {@code count} elements of {@code s} at {@code buf[off..]}. */
    static void scatter(Object packed, Object buf, int off, Shape s, int count) {
        Kind k = s.kind;
        MemorySegment seg = segment(buf);
        int[] at = {0};
        s.forEachRun(count, (first, len) -> {
            if (seg == null) {
                System.arraycopy(packed, at[0], buf, (int) (off + first), (int) len);
            } else {
                k.copyOut(packed, at[0], 0, seg, (off + first) * k.size, len * k.size);
            }
            at[0] += (int) len;
        });
    }

    /** The buffer as a segment, or null for a Java array. */
    static MemorySegment segment(Object buf) {
        return switch (buf) {
            case MemorySegment m -> m;
            case ByteBuffer b -> MemorySegment.ofBuffer(b);
            default -> null;
        };
    }
}
