package org.railyard.engine.rma;

import static org.assertj.core.api.Assertions.assertThat;

import java.lang.foreign.Arena;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.railyard.testkit.Await;

/** The lock words of {@link SharedSync} over one segment, origins as threads: writers first, and a dead holder's share reclaimed. */
class SharedSyncTest {
    private static final Duration BOUND = Duration.ofSeconds(30);
    private static final int N = 4;

    private Arena arena;
    /** The lock words of {@link #N} members, fresh for each test. */
    private SharedSync sync;

    @BeforeEach
    void map() {
        arena = Arena.ofShared();
        sync = new SharedSync(arena.allocate(SharedSync.bytes(N), 64), N);
    }

    @AfterEach
    void unmap() {
        arena.close();
    }

    @Test
    void aWaitingWriterHoldsBackNewSharedLockersUntilItHadItsTurn() throws Exception {
        assertThat(sync.tryLock(0, 1, false)).as("first shared locker").isTrue();
        assertThat(sync.tryLock(0, 2, false)).as("shared lockers coexist").isTrue();
        CompletableFuture<Void> writer = CompletableFuture.runAsync(() -> sync.lock(0, 3, true, t -> { }, "w"));
        Await.awaitUntil(() -> sync.held(0, 3) == SharedSync.WAITING, BOUND, "the writer's announcement");
        assertThat(sync.holders(0)).contains("rank 3 waits for it exclusively").contains("rank 1 holds it shared");
        assertThat(sync.tryLock(0, 0, false)).as("a new shared locker while a writer waits").isFalse();
        sync.unlock(0, 1);
        assertThat(sync.held(0, 3)).as("one shared holder is left").isEqualTo(SharedSync.WAITING);
        sync.unlock(0, 2);
        writer.get(BOUND.toSeconds(), TimeUnit.SECONDS);
        assertThat(sync.held(0, 3)).isEqualTo(SharedSync.EXCLUSIVE);
        assertThat(sync.tryLock(0, 0, false)).as("a shared locker while the writer holds it").isFalse();
        sync.unlock(0, 3);
        assertThat(sync.tryLock(0, 0, false)).as("after the writer's turn").isTrue();
        assertThat(sync.tryLock(1, 0, false)).as("another target's lock is its own").isTrue();
    }

    @Test
    void aDeadHoldersShareIsReleasedOnceByTheFirstSurvivor() {
        sync.announceExclusive(2, 1);
        assertThat(sync.tryLock(2, 1, true)).isTrue();
        sync.announceExclusive(2, 0);
        assertThat(sync.tryLock(2, 0, true)).as("held by rank 1").isFalse();
        assertThat(sync.reclaim(2, 1)).as("the first survivor").isTrue();
        assertThat(sync.reclaim(2, 1)).as("a second survivor").isFalse();
        assertThat(sync.tryLock(2, 0, true)).as("after the reclaim").isTrue();
        // a writer that died while waiting stops holding back shared lockers once reclaimed
        sync.unlock(2, 0);
        sync.announceExclusive(2, 3);
        assertThat(sync.tryLock(2, 1, false)).isFalse();
        assertThat(sync.reclaim(2, 3)).isTrue();
        assertThat(sync.tryLock(2, 1, false)).isTrue();
        assertThat(sync.holders(2)).isEqualTo("rank 1 holds it shared");
    }

    @Test
    void noMomentOfALockersPathLeavesAShareNobodyCanRelease() {
        // a writer that took the word while a shared holder was in, then died before its record said EXCLUSIVE
        assertThat(sync.tryLock(0, 2, false)).isTrue();
        sync.announceExclusive(0, 1);
        assertThat(sync.tryLock(0, 1, true)).as("the shared holder is still in").isFalse();
        sync.unlock(0, 2);
        assertThat(sync.held(0, 1)).isEqualTo(SharedSync.WAITING);
        sync.announceExclusive(0, 3);
        assertThat(sync.tryLock(0, 3, true)).as("rank 1 owns the word").isFalse();
        assertThat(sync.reclaim(0, 1)).isTrue();
        assertThat(sync.tryLock(0, 3, true)).as("after rank 1's share was reclaimed").isTrue();
        sync.unlock(0, 3);
        // a shared holder that died keeps a writer out until its record is reclaimed
        assertThat(sync.tryLock(0, 0, false)).isTrue();
        sync.announceExclusive(0, 2);
        assertThat(sync.tryLock(0, 2, true)).isFalse();
        assertThat(sync.reclaim(0, 0)).isTrue();
        assertThat(sync.tryLock(0, 2, true)).as("after the dead shared holder's record was reclaimed").isTrue();
        sync.unlock(0, 2);
        assertThat(sync.holders(0)).isEqualTo("nobody holds it");
        assertThat(sync.tryLock(0, 1, false)).as("the word is free again").isTrue();
    }

    @Test
    void postsAndCompletesAreCountedPerPair() {
        sync.post(1, 2);
        sync.post(1, 2);
        sync.complete(3, 1);
        assertThat(sync.posts(1, 2)).isEqualTo(2);
        assertThat(sync.posts(2, 1)).isZero();
        assertThat(sync.completes(1, 3)).isEqualTo(1);
        assertThat(sync.completes(3, 1)).isZero();
    }
}
