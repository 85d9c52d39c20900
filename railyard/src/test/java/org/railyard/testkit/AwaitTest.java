package org.railyard.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/** The test kit itself: a wait ends when its condition comes true, and fails naming it when not. */
class AwaitTest {

    @Test
    void aConditionAnotherThreadMakesTrueEndsTheWait() throws Exception {
        AtomicInteger value = new AtomicInteger();
        CountDownLatch polled = new CountDownLatch(1);
        Thread setter = Thread.ofPlatform().start(() -> {
            try {
                polled.await();
            } catch (InterruptedException e) {
                return;
            }
            value.set(42);
        });
        Await.awaitUntil(() -> {
            polled.countDown();
            return value.get() == 42;
        }, Duration.ofSeconds(60), "the other thread's value");
        assertThat(Await.awaitValue(() -> value.get() == 42 ? "seen" : null, Duration.ofSeconds(1), "a value")).isEqualTo("seen");
        setter.join();
    }

    @Test
    void aConditionThatNeverHoldsFailsNamingWhatAndTheState() {
        AtomicInteger polls = new AtomicInteger();
        assertThatThrownBy(() -> Await.awaitUntil(() -> polls.incrementAndGet() < 0, Duration.ofMillis(50),
                () -> "a negative count, polled " + (polls.get() > 1 ? "several times" : "once")))
                .isInstanceOf(AssertionError.class).hasMessage("not within 50 ms: a negative count, polled several times");
        assertThat(Await.valueWithin(Duration.ofMillis(10), () -> null)).isEmpty();
    }

    @Test
    void aConditionThatThrowsEndsTheWaitWithItsFailure() {
        assertThatThrownBy(() -> Await.awaitUntil(() -> {
            throw new IllegalStateException("broken");
        }, Duration.ofSeconds(60), "never")).isInstanceOf(IllegalStateException.class).hasMessage("broken");
        assertThatThrownBy(() -> Await.awaitUntil(() -> {
            throw new java.io.IOException("gone");
        }, Duration.ofSeconds(60), "never")).isInstanceOf(AssertionError.class).hasMessageContaining("gone");
    }

    /** Where each call's array goes, so that no compiler can remove the allocation. */
    private static volatile Object sink;

    @Test
    void anAllocationInEveryCallShowsInTheLeastWindow() throws Exception {
        Allocation.Windows w = Allocation.perCall(3, 1000, () -> { }, () -> sink = new long[8]);
        assertThat(w.least()).as("%s", w).isGreaterThanOrEqualTo(64);
        assertThat(w.perCall()).hasSize(3);
        assertThatThrownBy(() -> Allocation.perCall(1, 10, () -> { }, () -> { }))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("at least 2 windows");
    }

    @Test
    void windowsUntilTheGoalStillShowAnAllocationInEveryCall() throws Exception {
        // a per-call allocation never reaches the goal: every window of the most is measured
        Allocation.Windows every = Allocation.perCallUntil(2, 6, 1000, 16, () -> { }, mine -> mine,
                () -> sink = new long[8]);
        assertThat(every.perCall()).as("%s", every).hasSize(6);
        assertThat(every.least()).as("%s", every).isGreaterThanOrEqualTo(64);
        // allocations in the first windows only (a state not yet reached): it stops at the first clean one
        int[] calls = {0};
        Allocation.Windows settling = Allocation.perCallUntil(2, 20, 100, 16, () -> { }, mine -> mine, () -> {
            if (calls[0]++ < 300) {
                sink = new long[8];
            }
        });
        assertThat(settling.perCall()).as("%s", settling).hasSize(4);
        assertThat(settling.least()).as("%s", settling).isLessThan(16);
        // the job's verdict decides: another rank not done keeps this one measuring
        int[] asked = {0};
        Allocation.Windows agreed = Allocation.perCallUntil(2, 8, 100, 16, () -> { }, mine -> ++asked[0] >= 3, () -> { });
        assertThat(agreed.perCall()).as("%s", agreed).hasSize(4);
        assertThatThrownBy(() -> Allocation.perCallUntil(3, 2, 10, 16, () -> { }, mine -> mine, () -> { }))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("at least 2 windows");
    }
}
