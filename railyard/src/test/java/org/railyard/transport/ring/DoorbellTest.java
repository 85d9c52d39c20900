package org.railyard.transport.ring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;
import static org.railyard.testkit.Await.awaitUntil;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Two threads of one process asleep on the same bell words (a rank's waiting thread and its
 * progress agent do this): a ring must wake whoever is still asleep, whatever the other did.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class DoorbellTest {
    /** Longer than any wait below: a sleeper that reaches it was not rung. */
    private static final long LONG_SLEEP = TimeUnit.SECONDS.toNanos(30);

    @Test
    void aSleeperWhoseBoundRunsOutLeavesTheWordArmedForTheOneStillAsleep() throws Exception {
        Doorbell bell = new Doorbell(true);
        assumeTrue(bell.enabled(), "futexes are not available here");
        try (Arena arena = Arena.ofShared()) {
            MemorySegment word = arena.allocate(ValueLayout.JAVA_INT);
            bell.add(word);
            CountDownLatch longLooked = new CountDownLatch(1);
            Thread longSleeper = Thread.ofPlatform().start(() -> bell.sleep(LONG_SLEEP, () -> {
                longLooked.countDown();
                return 0;
            }));
            assertThat(longLooked.await(20, TimeUnit.SECONDS)).as("the long sleeper reached its last look").isTrue();
            // the short sleeper arms the same word and leaves when its 200 ms run out
            Thread shortSleeper = Thread.ofPlatform().start(() -> bell.sleep(TimeUnit.MILLISECONDS.toNanos(200), () -> 0));
            shortSleeper.join(Duration.ofSeconds(20));
            assertThat(shortSleeper.isAlive()).as("the short sleeper's bound ran out").isFalse();
            assertThat(word.get(ValueLayout.JAVA_INT, 0)).as("the word of the sleeper still asleep").isEqualTo(1);

            Doorbell.ring(word);
            awaitUntil(() -> !longSleeper.isAlive(), Duration.ofSeconds(20),
                    "the ring to wake the thread still asleep (it sleeps up to 30 s otherwise)");
            assertThat(bell.counts()).as("sleeps, and sleeps a ring ended").containsExactly(2, 1);
            assertThat(word.get(ValueLayout.JAVA_INT, 0)).as("the word once nobody sleeps").isZero();
        }
    }

    @Test
    void theLastSleeperToLeaveDisarmsAndASleeperAfterItArmsAgain() {
        Doorbell bell = new Doorbell(true);
        assumeTrue(bell.enabled(), "futexes are not available here");
        try (Arena arena = Arena.ofShared()) {
            MemorySegment word = arena.allocate(ValueLayout.JAVA_INT);
            bell.add(word);
            int[] seen = new int[1];
            assertThat(bell.sleep(TimeUnit.MILLISECONDS.toNanos(1), () -> {
                seen[0] = word.get(ValueLayout.JAVA_INT, 0);
                return 1;
            })).isTrue();
            assertThat(seen[0]).as("the word during the last look").isEqualTo(1);
            assertThat(word.get(ValueLayout.JAVA_INT, 0)).as("after the only sleeper left").isZero();
            assertThat(bell.sleep(TimeUnit.MILLISECONDS.toNanos(1), () -> 0)).isTrue();
            assertThat(word.get(ValueLayout.JAVA_INT, 0)).as("after a sleep that timed out").isZero();
            assertThat(bell.counts()[0]).as("sleeps (a last look that found work does not sleep)").isEqualTo(1);
        }
    }
}
