package org.railyard;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.railyard.engine.EngineJob;
import org.railyard.error.ErrorClass;
import org.railyard.error.RailyardException;

/** One-sided communication in one JVM: engines over real transports, each rank a thread. */
class WindowTest {
    @ParameterizedTest
    @CsvSource({"1,shm", "2,shm", "3,tcp", "4,shm"})
    void fencePutGetAccumulateOverAnArrayWindow(int n, String transports) throws Exception {
        WorldJob.run(n, transports, (w, me) -> {
            long[] mem = new long[n];
            try (Window win = Window.create(w, mem, 8)) {
                win.fence();
                // everyone puts its rank into slot me of every member
                for (int t = 0; t < n; t++) {
                    win.put(new long[] {me + 100}, 0, 1, t, me);
                }
                win.fence();
                for (int r = 0; r < n; r++) {
                    assertThat(mem[r]).isEqualTo(r + 100);
                }
                long[] got = new long[n];
                win.get(got, 0, n, (me + 1) % n, 0);
                win.fence();
                for (int r = 0; r < n; r++) {
                    assertThat(got[r]).isEqualTo(r + 100);
                }
                for (int t = 0; t < n; t++) {
                    win.accumulate(new long[] {me}, 0, 1, t, 0, Op.SUM);
                }
                win.fence();
                assertThat(mem[0]).isEqualTo(100 + (long) n * (n - 1) / 2);
            }
        });
    }

    @ParameterizedTest
    @CsvSource({"2,shm", "3,tcp", "4,shm"})
    void fetchAndOpCounterUnderLockAll(int n, String transports) throws Exception {
        EngineJob.run(n, transports, e -> {
            Comm w = new Comm(e, e.world());
            try (Window win = Window.allocate(w, 8, 8)) {
                int rounds = 200;
                long[] one = {1};
                long[] old = new long[1];
                win.lockAll();
                for (int i = 0; i < rounds; i++) {
                    win.fetchAndOp(one, 0, old, 0, Datatype.LONG, 0, 0, Op.SUM);
                    win.flush(0);
                }
                win.unlockAll();
                w.barrier();
                if (w.rank() == 0) {
                    win.lock(Window.LOCK_SHARED, 0);
                    long[] v = new long[1];
                    win.get(v, 0, 1, Datatype.LONG, 0, 0, 1, Datatype.LONG);
                    win.unlock(0);
                    assertThat(v[0]).isEqualTo((long) rounds * n);
                }
                w.barrier();
            }
        });
    }

    @ParameterizedTest
    @CsvSource({"3,shm", "3,tcp"})
    void passiveLockPutUnlockOnAHeapWindow(int n, String transports) throws Exception {
        WorldJob.run(n, transports, (w, me) -> {
            int[] mem = new int[4 * n];
            try (Window win = Window.create(w, mem, 4)) {
                for (int t = 0; t < n; t++) {
                    win.lock(Window.LOCK_EXCLUSIVE, t);
                    win.put(new int[] {me, me, me, me}, 0, 4, t, 4L * me);
                    win.unlock(t);
                }
                w.barrier();
                for (int r = 0; r < n; r++) {
                    assertThat(mem[4 * r + 3]).isEqualTo(r);
                }
                w.barrier();
            }
        });
    }

    @ParameterizedTest
    @CsvSource({"3,shm"})
    void sharedWindowIsLoadedDirectly(int n, String transports) throws Exception {
        WorldJob.run(n, transports, (w, me) -> {
            try (Window win = Window.allocateShared(w, 16, 1)) {
                win.fence();
                win.put(new long[] {me + 7}, 0, 1, (me + 1) % n, 8);
                win.fence();
                MemorySegment mine = win.memory();
                assertThat(mine.get(ValueLayout.JAVA_LONG, 8)).isEqualTo((me + n - 1) % n + 7);
                assertThat(win.sharedQuery((me + 1) % n).get(ValueLayout.JAVA_LONG, 8)).isEqualTo(me + 7);
                win.fence();
            }
        });
    }

    /**
     * The node's memory is the shm transport's to share: over tcp alone a shared window cannot be
     * mapped, and every member fails alike with an error (no member waits for the others), while a
     * window that needs no mapping still works.
     */
    @Test
    void aSharedWindowNeedsATransportThatSharesTheNodesMemory() throws Exception {
        EngineJob.run(2, "tcp", e -> {
            Comm w = new Comm(e, e.world());
            assertThatThrownBy(() -> Window.allocateShared(w, 16, 1)).isInstanceOfSatisfying(RailyardException.class,
                    x -> assertThat(x.errorClass()).isEqualTo(ErrorClass.IO)).hasMessageContaining("could not map one segment");
            try (Window win = Window.allocate(w, 16, 1)) {
                win.fence();
                win.put(new long[] {w.rank() + 5}, 0, 1, 1 - w.rank(), 0);
                win.fence();
                assertThat(win.memory().get(ValueLayout.JAVA_LONG, 0)).isEqualTo(1 - w.rank() + 5);
                win.fence();
            }
        });
    }
}
