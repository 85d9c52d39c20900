package org.railyard.util;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** When {@link BackoffIdle} hands a wait to its sleeper (the doorbell) instead of a timed park. */
class BackoffIdleTest {
    /** The bounds the sleeper was asked for, in order; it always sleeps (returns true). */
    private final List<Long> asked = new ArrayList<>();
    private final BackoffIdle.Sleeper sleeper = (nanos, done) -> asked.add(nanos);

    private void idleTimes(BackoffIdle idle, int n) {
        for (int i = 0; i < n; i++) {
            idle.idle(0);
        }
    }

    @Test
    void withoutSleepFirstTheSleeperIsAskedOnlyOnceTheParksReachedTheirBound() {
        BackoffIdle idle = new BackoffIdle(2, 1, 1_000, 8_000, sleeper);
        idleTimes(idle, 3); // two spins, one yield
        assertThat(asked).isEmpty();
        idleTimes(idle, 3); // parks of 1, 2 and 4 us
        assertThat(asked).isEmpty();
        idleTimes(idle, 2);
        assertThat(asked).containsExactly(8_000L, 8_000L);
    }

    @Test
    void withSleepFirstEveryParkGoesToTheSleeperFromTheFirstWithTheParksInterval() {
        BackoffIdle idle = new BackoffIdle(2, 1, 1_000, 8_000, sleeper, true);
        idleTimes(idle, 3);
        assertThat(asked).as("spins and yields come first all the same").isEmpty();
        idleTimes(idle, 5);
        assertThat(asked).containsExactly(1_000L, 2_000L, 4_000L, 8_000L, 8_000L);
    }

    @Test
    void workStartsTheWaitOverWithItsSpins() {
        BackoffIdle idle = new BackoffIdle(1, 0, 1_000, 8_000, sleeper, true);
        idleTimes(idle, 3);
        assertThat(asked).containsExactly(1_000L, 2_000L);
        idle.idle(1);
        idleTimes(idle, 2);
        assertThat(asked).containsExactly(1_000L, 2_000L, 1_000L);
    }
}
