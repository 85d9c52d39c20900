package org.railyard.engine.rma;

import java.lang.foreign.MemorySegment;

/**
 * The last origin array of floats or doubles read as a segment, and that segment, so that a run of
 * block accumulates from one array makes no new segment per call ({@link RealExtremes} reads the
 * array's values as integers through it). Not thread-safe: {@link SharedAccess} keeps one per target
 * and uses it only while holding that target's accumulate lock exclusively. It keeps the last array
 * reachable until another array replaces it or the window is freed.
 */
final class ArrayView {
    private Object array;
    private MemorySegment segment;

    /** A segment over all of {@code a}, a {@code float[]} or {@code double[]}. */
    MemorySegment of(Object a) {
        if (a != array) {
            segment = switch (a) {
                case float[] f -> MemorySegment.ofArray(f);
                case double[] d -> MemorySegment.ofArray(d);
                default -> throw new IllegalArgumentException("not an array of floats or doubles: " + a.getClass());
            };
            array = a;
        }
        return segment;
    }
}
