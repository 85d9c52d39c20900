package org.railyard;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.railyard.WindowPaths.at;
import static org.railyard.WindowPaths.window;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.railyard.engine.EngineJob;
import org.railyard.engine.rma.Rma;
import org.railyard.error.ErrorClass;
import org.railyard.error.RailyardException;

/**
 * Passive-target locks and post/start/complete/wait, on a mapped window (allocated on shm: the
 * words of the mapping's header, no message) and on the message path (a window over a heap array):
 * exclusive locks serialize read-modify-write sequences, shared locks overlap, lockAll excludes an
 * exclusive locker and a timeout names the holder, a writer is not starved by shared lockers, PSCW
 * with groups, and a holder that dies does not block the others.
 */
class WindowSyncTest {
    /** "array": a window over a heap array (messages); "alloc": allocated, mapped on shm. */
    @ParameterizedTest
    @CsvSource({"alloc,4", "array,3"})
    void exclusiveLocksSerializeReadModifyWrite(String path, int n) throws Exception {
        int rounds = 300;
        EngineJob.run(n, "shm", e -> {
            Comm w = new Comm(e, e.world());
            try (Window win = window(w, path, 2)) {
                int[] v = new int[1];
                int[] inside = new int[1];
                for (int i = 0; i < rounds; i++) {
                    win.lock(Window.LOCK_EXCLUSIVE, 0);
                    // nobody else is inside: the count of holders at slot 1 was 0
                    win.fetchAndOp(new int[] {1}, 0, inside, 0, 0, 1, Op.SUM);
                    win.flush(0);
                    assertThat(inside[0]).as("holders inside the exclusive lock").isZero();
                    win.get(v, 0, 1, 0, 0);
                    win.flush(0);
                    v[0]++;
                    win.put(v, 0, 1, 0, 0);
                    win.fetchAndOp(new int[] {-1}, 0, inside, 0, 0, 1, Op.SUM);
                    win.unlock(0);
                }
                w.barrier();
                if (w.rank() == 0) {
                    assertThat(at(win, 0)).as("counter over %s", path).isEqualTo(n * rounds);
                }
                w.barrier();
            }
        });
    }

    /** Without the exclusive lock the same sequence loses updates: every rank holds the shared lock at once. */
    @ParameterizedTest
    @CsvSource({"alloc,4", "array,3"})
    void sharedLocksOverlapAndLoseTheReadModifyWrite(String path, int n) throws Exception {
        EngineJob.run(n, "shm", e -> {
            Comm w = new Comm(e, e.world());
            try (Window win = window(w, path, 1)) {
                int[] v = new int[1];
                win.lock(Window.LOCK_SHARED, 0);
                // every rank is inside the shared epoch at once (else this barrier would not pass)
                w.barrier();
                win.get(v, 0, 1, 0, 0);
                win.flush(0);
                w.barrier();
                v[0]++;
                win.put(v, 0, 1, 0, 0);
                win.unlock(0);
                w.barrier();
                if (w.rank() == 0) {
                    assertThat(at(win, 0)).as("each rank read 0 and wrote 1").isEqualTo(1);
                }
                w.barrier();
            }
        });
    }

    /**
     * On both paths the writer that gave up withdraws: on the message path its LOCK leaves the
     * target's queue (else the writers-first rule of the LockTable would hold every later shared
     * request back). The mapped path's message also names the holder.
     */
    @ParameterizedTest
    @org.junit.jupiter.params.provider.ValueSource(strings = {"alloc", "array"})
    void lockAllExcludesAnExclusiveLockerWhoseTimeoutNamesTheHolder(String path) throws Exception {
        String before = System.getProperty(Rma.TIMEOUT_PROP);
        System.setProperty(Rma.TIMEOUT_PROP, "1");
        try {
            WorldJob.run(3, "shm", (w, me) -> {
                try (Window win = window(w, path, 3)) {
                    if (me == 0) {
                        win.lockAll();
                        for (int t = 0; t < 3; t++) {
                            win.put(new int[] {10 + t}, 0, 1, t, 0);
                        }
                        win.flushAll();
                        w.send(new int[] {1}, 0, 1, 1, 5);
                        w.recv(new int[1], 0, 1, 1, 6);
                        win.unlockAll();
                        w.send(new int[] {1}, 0, 1, 1, 7);
                    } else if (me == 1) {
                        w.recv(new int[1], 0, 1, 0, 5);
                        assertThatThrownBy(() -> win.lock(Window.LOCK_EXCLUSIVE, 2))
                                .isInstanceOfSatisfying(RailyardException.class,
                                        x -> assertThat(x.errorClass()).isEqualTo(ErrorClass.TIMEOUT))
                                .hasMessageContaining("rank 2")
                                .hasMessageContaining(path.equals("alloc") ? "rank 0 holds it shared" : "the lock of rank 2");
                        // the writer that gave up no longer holds shared lockers back
                        win.lock(Window.LOCK_SHARED, 2);
                        win.unlock(2);
                        w.send(new int[] {1}, 0, 1, 0, 6);
                        w.recv(new int[1], 0, 1, 0, 7);
                        win.lock(Window.LOCK_EXCLUSIVE, 2);
                        int[] got = new int[1];
                        win.get(got, 0, 1, 2, 0);
                        win.unlock(2);
                        assertThat(got[0]).as("rank 0's put under lockAll").isEqualTo(12);
                    }
                    w.barrier();
                }
            });
        } finally {
            if (before == null) {
                System.clearProperty(Rma.TIMEOUT_PROP);
            } else {
                System.setProperty(Rma.TIMEOUT_PROP, before);
            }
        }
    }

    /** Ranks 1.. take shared locks of rank 0 back to back until the writer (rank 1) got it once. */
    @ParameterizedTest
    @CsvSource({"alloc,4", "array,3"})
    void aWriterIsNotStarvedBySharedLockers(String path, int n) throws Exception {
        WorldJob.run(n, "shm", (w, me) -> {
            try (Window win = window(w, path, 1)) {
                if (me == 1) {
                    win.lock(Window.LOCK_EXCLUSIVE, 0);
                    win.put(new int[] {1}, 0, 1, 0, 0);
                    win.unlock(0);
                } else if (me > 1) {
                    int[] stop = new int[1];
                    long readers = 0;
                    while (stop[0] == 0) {
                        win.lock(Window.LOCK_SHARED, 0);
                        win.get(stop, 0, 1, 0, 0);
                        win.unlock(0);
                        readers++;
                    }
                    assertThat(readers).isPositive();
                }
                w.barrier();
            }
        });
    }

    /** Rank 0 exposes to every other rank at once; then every rank accesses every other at once. */
    @ParameterizedTest
    @CsvSource({"alloc,4", "array,3"})
    void postStartCompleteWaitWithGroups(String path, int n) throws Exception {
        WorldJob.run(n, "shm", (w, me) -> {
            try (Window win = window(w, path, n)) {
                Group all = w.group();
                Group others = all.excl(me);
                for (int round = 1; round <= 3; round++) {
                    if (me == 0) {
                        win.post(others, 0);
                        if (round == 2) {
                            org.railyard.testkit.Await.awaitUntil(win::test, java.time.Duration.ofSeconds(60), "test() of the exposure epoch");
                        } else {
                            win.waitFor();
                        }
                        for (int r = 1; r < n; r++) {
                            assertThat(at(win, r)).as("round %d from %d", round, r).isEqualTo(100 * round + r);
                        }
                    } else {
                        win.start(all.incl(0), 0);
                        win.put(new int[] {100 * round + me}, 0, 1, 0, me);
                        win.complete();
                    }
                    w.barrier();
                }
                // everyone exposes to and accesses every other rank in the same epoch
                win.post(others, 0);
                win.start(others, 0);
                for (int t = 0; t < n; t++) {
                    if (t != me) {
                        win.put(new int[] {1000 + me}, 0, 1, t, me);
                    }
                }
                win.complete();
                win.waitFor();
                for (int r = 0; r < n; r++) {
                    if (r != me) {
                        assertThat(at(win, r)).as("from %d", r).isEqualTo(1000 + r);
                    }
                }
                w.barrier();
            }
        });
    }

    /** Rank 2 dies holding rank 0's lock exclusively; rank 1's exclusive lock of rank 0 goes through. */
    @Test
    void aHolderThatDiesDoesNotBlockTheOthers() throws Exception {
        EngineJob.run(3, "shm", e -> {
            Comm w = new Comm(e, e.world());
            int me = w.rank();
            Window win = window(w, "alloc", 1);
            if (me == 2) {
                win.lock(Window.LOCK_EXCLUSIVE, 0);
                win.put(new int[] {7}, 0, 1, 0, 0);
                w.send(new int[] {1}, 0, 1, 1, 5);
                // dies holding the lock: the engine closes without unlocking or freeing the window
                e.close();
                return;
            }
            if (me == 1) {
                w.recv(new int[1], 0, 1, 2, 5);
                win.lock(Window.LOCK_EXCLUSIVE, 0);
                int[] got = new int[1];
                win.get(got, 0, 1, 0, 0);
                win.put(new int[] {got[0] + 1}, 0, 1, 0, 0);
                win.unlock(0);
                w.send(new int[] {1}, 0, 1, 0, 6);
            } else {
                w.recv(new int[1], 0, 1, 1, 6);
                assertThat(at(win, 0)).as("rank 2's put, then rank 1's increment").isEqualTo(8);
            }
        });
    }
}
