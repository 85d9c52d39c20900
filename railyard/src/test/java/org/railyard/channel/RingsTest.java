package org.railyard.channel;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** Growing a ring: {@link Rings#unwrapped} alone, and the queues built on it past their first capacity. */
class RingsTest {
    @Test
    void aWrappedRingComesOutInOrderFromIndexZero() {
        long[] ring = {40, 50, 60, 10, 20, 30};
        assertThat(Rings.unwrapped(ring, 3, 6, 12)).containsExactly(10, 20, 30, 40, 50, 60, 0, 0, 0, 0, 0, 0);
        assertThat(Rings.unwrapped(ring, 3, 2, 8)).containsExactly(10, 20, 0, 0, 0, 0, 0, 0);
        assertThat(Rings.unwrapped(ring, 5, 0, 6)).containsOnly(0L);
    }

    @Test
    void theElementTypeIsKeptForPrimitivesAndReferences() {
        int[] ints = {3, 1, 2};
        assertThat(Rings.unwrapped(ints, 1, 3, 4)).containsExactly(1, 2, 3, 0);
        String[] names = {"c", "a", "b"};
        String[] grown = Rings.unwrapped(names, 1, 3, 6);
        assertThat(grown).containsExactly("a", "b", "c", null, null, null);
        assertThat(grown.getClass()).isEqualTo(String[].class);
    }

    @Test
    void aLongQueueGrowsWhileWrappedAndKeepsItsOrder() {
        LongQueue q = new LongQueue();
        long next = 0;
        long expected = 0;
        for (int i = 0; i < 200; i++) {
            q.add(next++);
        }
        for (int i = 0; i < 150; i++) {
            assertThat(q.poll()).isEqualTo(expected++);
        }
        // the head is now well inside the array: the next adds wrap, then outgrow it twice
        for (int i = 0; i < 1000; i++) {
            q.add(next++);
        }
        assertThat(q.size()).isEqualTo(1050);
        while (!q.isEmpty()) {
            assertThat(q.poll()).isEqualTo(expected++);
        }
        assertThat(expected).isEqualTo(next);
    }
}
