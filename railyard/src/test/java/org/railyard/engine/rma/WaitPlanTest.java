package org.railyard.engine.rma;

import static org.assertj.core.api.Assertions.assertThat;

import java.lang.foreign.Arena;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.Test;
import org.railyard.testkit.Await;
import org.railyard.util.Config;
import org.railyard.util.IdlePlan;
import org.railyard.util.WaitPlan;

/** The waits of a mapped window follow the engine's rule for a crowded node ({@link IdlePlan}). */
class WaitPlanTest {
    private static final Duration BOUND = Duration.ofSeconds(30);

    @Test
    void moreRanksThanProcessorsDoNotPollAndACrowdedNodeDoesNotYield() {
        WaitPlan spare = WaitPlan.of(1, 2);
        WaitPlan full = WaitPlan.of(2, 2);
        WaitPlan over = WaitPlan.of(3, 2);
        WaitPlan crowded = WaitPlan.of(IdlePlan.CROWDED_SHARE * 2, 2);
        assertThat(spare.spinNanos()).as("a processor to spare").isEqualTo(Config.RMA_SPIN_DEFAULT * 1000);
        assertThat(full.spinNanos()).as("one rank per processor").isEqualTo(Config.RMA_SPIN_DEFAULT * 1000);
        assertThat(over.spins()).as("3 ranks on 2 processors").isFalse();
        assertThat(crowded.spins()).as("16 ranks on 2 processors").isFalse();
        assertThat(spare.yields()).isEqualTo(WaitPlan.YIELDS);
        assertThat(over.yields()).as("more ranks than processors, not crowded yet").isEqualTo(WaitPlan.YIELDS);
        assertThat(crowded.yields()).as("crowded").isZero();
        // the same decision as the engine's waiters
        for (int ranks = 1; ranks <= 40; ranks++) {
            for (int processors = 1; processors <= 4; processors++) {
                WaitPlan p = WaitPlan.of(ranks, processors);
                assertThat(p.spins()).as(ranks + " ranks on " + processors).isEqualTo(IdlePlan.spins(ranks, processors) > 0);
                assertThat(p.yields() > 0).as(ranks + " ranks on " + processors)
                        .isEqualTo(IdlePlan.yields(ranks, processors) > 0);
            }
        }
        assertThat(over.describe()).isEqualTo("no polling, 16 yields, then sleep (3 ranks on 2 processors)");
        assertThat(full.describe()).startsWith("poll " + Config.RMA_SPIN_DEFAULT + " us, 16 yields");
    }

    @Test
    void aGivenSpinTimeHoldsWhateverTheNode() {
        assertThat(WaitPlan.of(3, 2, micros -> 7).spinNanos()).isEqualTo(7_000);
        assertThat(WaitPlan.of(1, 2, micros -> 7).spinNanos()).isEqualTo(7_000);
        assertThat(WaitPlan.of(1, 2, micros -> -3).spins()).as("a negative time polls not at all").isFalse();
    }

    /**
     * A lock wait under each plan, counted in tries before the first sleep: a held lock, a waiter
     * whose {@code between} (run after each sleep) records the tries so far, then the release.
     */
    @Test
    void aWaitOnACrowdedNodeSleepsAtOnceAndOnAnUncrowdedOnePollsFirst() throws Exception {
        assertThat(triesBeforeFirstSleep(WaitPlan.of(IdlePlan.CROWDED_SHARE * 2, 2)))
                .as("crowded: no polls, no yields, the look before the sleep").isEqualTo(1);
        assertThat(triesBeforeFirstSleep(WaitPlan.of(3, 2)))
                .as("more ranks than processors: no polls, the yields").isEqualTo(1 + WaitPlan.YIELDS);
        assertThat(triesBeforeFirstSleep(WaitPlan.of(1, 2)))
                .as("a processor to spare: polls until the clock was read twice, then the yields")
                .isGreaterThanOrEqualTo(2 * WaitPlan.SPINS_PER_LOOK + WaitPlan.YIELDS + 1);
    }

    private static int triesBeforeFirstSleep(WaitPlan plan) throws Exception {
        try (Arena arena = Arena.ofShared()) {
            SharedSync sync = new SharedSync(arena.allocate(SharedSync.bytes(2), 64), 2, plan);
            sync.announceExclusive(0, 1);
            assertThat(sync.tryLock(0, 1, true)).isTrue();
            AtomicInteger tries = new AtomicInteger();
            AtomicInteger atFirstSleep = new AtomicInteger(-1);
            // origin 0's exclusive tries, counted: SharedSync.lock with a counting try
            CompletableFuture<Void> waiter = CompletableFuture.runAsync(() -> {
                sync.announceExclusive(0, 0);
                sync.awaitBell(0, () -> {
                    tries.incrementAndGet();
                    return sync.tryLock(0, 0, true);
                }, () -> atFirstSleep.compareAndSet(-1, tries.get()), () -> "the lock of rank 0");
            });
            Await.awaitUntil(() -> atFirstSleep.get() >= 0, BOUND, "the waiter's first sleep");
            sync.unlock(0, 1);
            waiter.get(BOUND.toSeconds(), TimeUnit.SECONDS);
            assertThat(sync.held(0, 0)).isEqualTo(SharedSync.EXCLUSIVE);
            // the try after the sleep that ended in between() is not counted: minus one
            return atFirstSleep.get() - 1;
        }
    }
}
