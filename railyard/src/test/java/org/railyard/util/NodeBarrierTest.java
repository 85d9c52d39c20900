package org.railyard.util;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/** The node barrier's wait: what ends it, and what a look between its sleeps may say. */
class NodeBarrierTest {
    private static final WaitPlan NO_POLLS = new WaitPlan(0, 0, 2, 2);
    private static final long SLICE_NANOS = 1_000_000;

    @Test
    void aFailureSeenAfterTheBarrierPassedDoesNotFailTheWait() {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment words = arena.allocate(NodeBarrier.BYTES, 64);
            NodeBarrier mine = new NodeBarrier(words, 2);
            NodeBarrier other = new NodeBarrier(words, 2);
            int gen = mine.arrive();
            assertThat(mine.passed(gen)).isFalse();
            AtomicInteger looks = new AtomicInteger();
            // the other member arrives, passes and ends while this one looks: the look then finds it gone
            mine.await(gen, NO_POLLS, SLICE_NANOS, () -> {
                looks.incrementAndGet();
                other.arrive();
                throw new IllegalStateException("rank 1 failed: its process is gone");
            });
            assertThat(looks).hasValue(1);
            assertThat(mine.passed(gen)).isTrue();
        }
    }

    @Test
    void aFailureSeenBeforeTheBarrierPassedEndsTheWait() {
        try (Arena arena = Arena.ofConfined()) {
            NodeBarrier mine = new NodeBarrier(arena.allocate(NodeBarrier.BYTES, 64), 2);
            int gen = mine.arrive();
            assertThatThrownBy(() -> mine.await(gen, NO_POLLS, SLICE_NANOS, () -> {
                throw new IllegalStateException("rank 1 failed: its process is gone");
            })).isInstanceOf(IllegalStateException.class).hasMessageContaining("rank 1 failed");
            assertThat(mine.passed(gen)).isFalse();
        }
    }
}
