package org.railyard.channel;

import java.lang.reflect.Array;

/**
 * Growing the channel's rings: queues kept in arrays (parallel arrays, one per field, for a queue
 * of records) whose entries run from a head index and wrap around at the end of the array.
 */
final class Rings {
    private Rings() {
    }

    /**
     * A new array of {@code capacity} elements, of the element type of {@code ring}, that holds the
     * {@code count} entries of {@code ring} from index {@code head} on (wrapping around at its end)
     * in their order from index 0: the grown ring's head is 0. Needs {@code 0 <= head <
     * ring.length} and {@code count <= ring.length <= capacity}.
     *
     * @param ring an array (of primitives or references)
     */
    @SuppressWarnings("unchecked")
    static <A> A unwrapped(A ring, int head, int count, int capacity) {
        A grown = (A) Array.newInstance(ring.getClass().componentType(), capacity);
        int first = Math.min(count, Array.getLength(ring) - head);
        System.arraycopy(ring, head, grown, 0, first);
        System.arraycopy(ring, 0, grown, first, count - first);
        return grown;
    }
}
