package org.railyard;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.railyard.WindowPaths.at;
import static org.railyard.WindowPaths.window;

import java.util.SplittableRandom;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.railyard.engine.EngineJob;
import org.railyard.error.ErrorClass;
import org.railyard.error.RailyardException;
import org.railyard.testkit.Await;

/**
 * Active-target synchronisation over many epochs: a fence is a barrier (no rank leaves fence k
 * before every rank entered it, and every put of epoch k is visible after it), post/start/
 * complete/wait with groups that overlap, and a member that dies inside a fence, a start or a
 * wait makes the others fail with PEER_FAILED naming it, well before the RMA timeout. Mapped
 * windows (allocated on shm: the header's words) and the message path (a window over an array).
 */
class WindowEpochsTest {
    private static final int EPOCHS = 200;

    /** Busy for a seeded, varying while (up to about 200 us), so that ranks enter each fence at different times. */
    private static void stagger(SplittableRandom rnd) {
        long until = System.nanoTime() + (rnd.nextInt(8) == 0 ? rnd.nextLong(200_000) : rnd.nextLong(2_000));
        while (System.nanoTime() - until < 0) {
            Thread.onSpinWait();
        }
    }

    /** What each rank runs: its world communicator, its rank, and its random source for {@link #stagger}. */
    private interface StaggeredBody {
        void run(Comm w, int me, SplittableRandom rnd) throws Exception;
    }

    /** Runs {@code n} ranks on shm, each with a random source of its own, seeded from {@code seed}, n and its rank. */
    private static void staggered(int n, long seed, StaggeredBody body) throws Exception {
        WorldJob.run(n, "shm", (w, me) -> body.run(w, me, new SplittableRandom(seed * n + me)));
    }

    /**
     * Every rank puts an epoch-stamped value into its slot of every other rank's bank {@code k % 2}
     * in epoch {@code k}, then fences: after fence {@code k} each rank's bank holds epoch k's value
     * from every other rank. A rank that left fence k before a slow rank's put (a barrier that lets
     * a fast rank through early) would read the value of epoch k - 2. Epoch k + 1 writes the other
     * bank, and epoch k + 2 cannot start before this rank entered fence k + 1.
     */
    @ParameterizedTest
    @CsvSource({"alloc,4", "alloc,2", "array,3"})
    void fenceIsABarrierOverManyEpochsWithRanksEnteringAtDifferentTimes(String path, int n) throws Exception {
        staggered(n, 24, (w, me, rnd) -> {
            try (Window win = window(w, path, 2 * n)) {
                win.fence(Window.MODE_NOPRECEDE);
                for (int k = 1; k <= EPOCHS; k++) {
                    stagger(rnd);
                    int bank = (k % 2) * n;
                    for (int t = 0; t < n; t++) {
                        if (t != me) {
                            win.put(new int[] {1000 * k + me}, 0, 1, t, bank + me);
                        }
                    }
                    stagger(rnd);
                    win.fence(0);
                    for (int r = 0; r < n; r++) {
                        if (r != me) {
                            assertThat(at(win, bank + r)).as("rank %d, epoch %d, from rank %d", me, k, r)
                                    .isEqualTo(1000 * k + r);
                        }
                    }
                }
                win.fence(Window.MODE_NOSUCCEED);
                // neither ends nor opens an epoch: no operation is allowed after it
                win.fence(Window.MODE_NOPRECEDE | Window.MODE_NOSUCCEED);
                assertThatThrownBy(() -> win.put(new int[1], 0, 1, (me + 1) % n, 0))
                        .isInstanceOfSatisfying(RailyardException.class,
                                x -> assertThat(x.errorClass()).isEqualTo(ErrorClass.RMA_SYNC));
                w.barrier();
            }
        });
    }

    /**
     * Each rank exposes its window to the next two ranks and accesses the previous two, in the same
     * rounds: every rank is at once a target of two overlapping origin groups and an origin of two
     * overlapping target groups. After waitFor the values of this round from both origins are there.
     */
    @ParameterizedTest
    @CsvSource({"alloc,4", "alloc,3", "array,4"})
    void postStartCompleteWaitWithOverlappingGroups(String path, int n) throws Exception {
        staggered(n, 31, (w, me, rnd) -> {
            Group all = w.group();
            int a = (me + 1) % n;
            int b = (me + 2) % n;
            int pa = (me + n - 1) % n;
            int pb = (me + n - 2) % n;
            Group origins = all.incl(a, b);
            Group targets = all.incl(pa, pb);
            try (Window win = window(w, path, n)) {
                for (int round = 1; round <= EPOCHS; round++) {
                    win.post(origins, 0);
                    stagger(rnd);
                    win.start(targets, 0);
                    win.put(new int[] {100 * round + me}, 0, 1, pa, me);
                    win.put(new int[] {100 * round + me}, 0, 1, pb, me);
                    win.complete();
                    win.waitFor();
                    assertThat(at(win, a)).as("rank %d, round %d, from %d", me, round, a).isEqualTo(100 * round + a);
                    assertThat(at(win, b)).as("rank %d, round %d, from %d", me, round, b).isEqualTo(100 * round + b);
                }
                w.barrier();
            }
        });
    }

    /**
     * Rank 2 closes its engine (it dies) instead of entering the synchronisation call named by
     * {@code where}; ranks 0 and 1 must fail with PEER_FAILED naming rank 2, long before the RMA
     * timeout (set to 120 s here); the survivors stay until both have failed, so rank 2 is the
     * only member gone. On the message path (array) the fence is the communicator's
     * barrier, which may name instead the other survivor, gone after its own failure: there only
     * PEER_FAILED is checked.
     */
    @ParameterizedTest
    @CsvSource({"fence,alloc", "waitFor,alloc", "start,alloc", "fence,array"})
    void aMemberThatDiesInsideASynchronisationIsFoundWithinTheBound(String where, String path) throws Exception {
        String old = System.getProperty("railyard.rma.timeout");
        System.setProperty("railyard.rma.timeout", "120");
        AtomicBoolean closed = new AtomicBoolean();
        // the survivors leave only once both have failed: a survivor that finalized early would be a
        // second member gone, and the other's failure could name it instead of rank 2
        CountDownLatch failedBoth = new CountDownLatch(2);
        try {
            EngineJob.run(3, "shm", e -> {
                Comm w = new Comm(e, e.world());
                int me = w.rank();
                Window win = window(w, path, 4);
                Group all = w.group();
                win.fence(Window.MODE_NOPRECEDE);
                win.put(new int[] {me}, 0, 1, (me + 1) % 3, me);
                if (!where.equals("fence")) {
                    win.fence(Window.MODE_NOSUCCEED);
                }
                w.barrier();
                if (me == 2) {
                    e.close();
                    closed.set(true);
                    return;
                }
                Consumer<Window> call = switch (where) {
                    case "fence" -> x -> x.fence(0);
                    case "waitFor" -> x -> {
                        x.post(all.incl(2), 0);
                        x.waitFor();
                    };
                    default -> x -> x.start(all.incl(2), 0);
                };
                if (me == 0) {
                    // one survivor enters only after the death, the other before it
                    Await.awaitUntil(closed::get, java.time.Duration.ofSeconds(60), "rank 2's engine closed");
                }
                long start = System.nanoTime();
                assertThatThrownBy(() -> call.accept(win)).isInstanceOfSatisfying(RailyardException.class, x -> {
                    assertThat(x.errorClass()).as(x.getMessage()).isEqualTo(ErrorClass.PEER_FAILED);
                    if (path.equals("alloc")) {
                        assertThat(x.getMessage()).contains("rank 2");
                    }
                });
                assertThat((System.nanoTime() - start) / 1_000_000_000L).as("seconds to find the death").isLessThan(60);
                failedBoth.countDown();
                Await.awaitUntil(() -> failedBoth.getCount() == 0, java.time.Duration.ofSeconds(60),
                        "the other survivor's failure");
            });
        } finally {
            if (old == null) {
                System.clearProperty("railyard.rma.timeout");
            } else {
                System.setProperty("railyard.rma.timeout", old);
            }
        }
    }
}
