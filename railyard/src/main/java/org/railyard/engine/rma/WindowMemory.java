package org.railyard.engine.rma;

import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import org.railyard.types.Kind;
import org.railyard.wire.RmaHeader;

/**
 * The memory one process exposes in a window, as its target side reaches it: a Java array of one
 * kind, a segment (an allocated or mapped one, a user segment, a byte buffer seen as one), or, for
 * a dynamic window, the segments attached so far, addressed by their addresses. A byte range is
 * checked ({@link #check}) and then named as a buffer and an element offset ({@link #buf},
 * {@link #off}) that the message layer and {@link Packing} accept.
 */
final class WindowMemory {
    /** The array of an array window, else null. */
    final Object array;
    /** The kind of {@link #array}, else null. */
    final Kind arrayKind;
    /** The segment of a segment window, else null. */
    final MemorySegment seg;
    final boolean dynamic;
    private final List<MemorySegment> attached = new ArrayList<>();

    private WindowMemory(Object array, Kind arrayKind, MemorySegment seg, boolean dynamic) {
        this.array = array;
        this.arrayKind = arrayKind;
        this.seg = seg;
        this.dynamic = dynamic;
    }

    static WindowMemory of(Object buffer) {
        return switch (buffer) {
            case null -> new WindowMemory(null, null, MemorySegment.NULL, false);
            case MemorySegment m -> new WindowMemory(null, null, m, false);
            case ByteBuffer b -> new WindowMemory(null, null, MemorySegment.ofBuffer(b.duplicate().clear()), false);
            default -> new WindowMemory(buffer, Kind.ofBuffer(buffer), null, false);
        };
    }

    static WindowMemory dynamicMemory() {
        return new WindowMemory(null, null, null, true);
    }

    /** Bytes exposed (0 for a dynamic window). */
    long bytes() {
        if (dynamic) {
            return 0;
        }
        return array != null ? arrayKind.capacity(array) * arrayKind.size : seg.byteSize();
    }

    void attach(MemorySegment m) {
        synchronized (attached) {
            attached.add(m);
        }
    }

    boolean detach(MemorySegment m) {
        synchronized (attached) {
            for (int i = 0; i < attached.size(); i++) {
                MemorySegment a = attached.get(i);
                if (a.address() == m.address() && a.byteSize() == m.byteSize()) {
                    attached.remove(i);
                    return true;
                }
            }
            return false;
        }
    }

    /** 0 if {@code bytes} bytes from {@code first}, read as {@code k}, lie in this memory; else a {@link RmaHeader} error code. */
    int check(long first, long bytes, Kind k) {
        if (first < 0 || bytes < 0) {
            return RmaHeader.ERR_RANGE;
        }
        if (dynamic) {
            return attachedAt(first, bytes) != null || bytes == 0 ? 0 : RmaHeader.ERR_RANGE;
        }
        if (first + bytes > bytes()) {
            return RmaHeader.ERR_RANGE;
        }
        if (array != null && (k != arrayKind || first % k.size != 0)) {
            return RmaHeader.ERR_TYPE;
        }
        return 0;
    }

    /** The buffer that holds the checked range from {@code first}: the array, or a segment slice starting there. */
    Object buf(long first, long bytes) {
        if (array != null) {
            return array;
        }
        if (dynamic) {
            MemorySegment a = attachedAt(first, bytes);
            return a == null ? MemorySegment.NULL : a.asSlice(first - a.address(), bytes);
        }
        return seg.asSlice(first, bytes);
    }

    /** The element offset of the range in {@link #buf}. */
    int off(long first, Kind k) {
        return array != null ? (int) (first / k.size) : 0;
    }

    private MemorySegment attachedAt(long addr, long bytes) {
        synchronized (attached) {
            for (MemorySegment a : attached) {
                if (addr >= a.address() && addr + bytes <= a.address() + a.byteSize()) {
                    return a;
                }
            }
            return null;
        }
    }
}
