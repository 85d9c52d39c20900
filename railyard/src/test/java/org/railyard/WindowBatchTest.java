package org.railyard;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.railyard.WindowPaths.longAt;
import static org.railyard.WindowPaths.window;

import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.railyard.engine.EngineJob;
import org.railyard.error.ErrorClass;
import org.railyard.error.RailyardException;
import org.railyard.testkit.Await;

/**
 * Small operations to a remote target travel together (one header message holds several, up to a
 * size bound, with the flush, unlock or complete that ends them): the target must still apply
 * them in the order they were issued, a flush in the middle must complete what came before it,
 * a request form completes once its bytes are copied, and a target that fails with operations
 * batched for it ends the epoch with PEER_FAILED. Windows over arrays (the message path) on shm,
 * and allocated windows over tcp.
 */
class WindowBatchTest {
    /** More small operations than one header message holds, so that batches fill and leave on their own. */
    private static final int OPS = 300;

    /** A test run on both paths ({@link WindowPaths}): a window over an array on shm, an allocated one on tcp. */
    @Target(ElementType.METHOD)
    @Retention(RetentionPolicy.RUNTIME)
    @ParameterizedTest
    @CsvSource({"array,shm", "alloc,tcp"})
    private @interface BothPaths {
    }

    /** What rank 0 does with its window. */
    private interface WindowAction {
        void run(Window win) throws Exception;
    }

    /** What each of the two ranks runs with its window. */
    private interface WindowBody {
        void run(Comm w, int me, Window win) throws Exception;
    }

    /**
     * Runs two ranks over {@code transports}, each with its part of a window of {@code longs} longs
     * by {@code path} after a first fence; closes the window.
     */
    private static void withWindow(String path, String transports, int longs, WindowBody body) throws Exception {
        WorldJob.run(2, transports, (w, me) -> {
            try (Window win = window(w, path, new long[longs])) {
                win.fence();
                body.run(w, me, win);
            }
        });
    }

    @BothPaths
    void smallOperationsKeepTheirOrderAcrossBatchesAndAFlushInTheMiddle(String path, String transports)
            throws Exception {
        withWindow(path, transports, 8, (w, me, win) -> {
            if (me == 1) {
                win.lock(Window.LOCK_EXCLUSIVE, 0);
                // slot 0: put, sum, replace interleaved: only the issue order gives the expected value
                long expect = 0;
                for (int i = 0; i < OPS; i++) {
                    switch (i % 3) {
                        case 0 -> {
                            win.put(new long[] {i}, 0, 1, 0, 0);
                            expect = i;
                        }
                        case 1 -> {
                            win.accumulate(new long[] {i}, 0, 1, 0, 0, Op.SUM);
                            expect += i;
                        }
                        default -> {
                            win.accumulate(new long[] {2 * i}, 0, 1, 0, 0, Op.REPLACE);
                            expect = 2 * i;
                        }
                    }
                    // slot 1 counts the operations; slots 2..3 a two-value put, the last one wins
                    win.accumulate(new long[] {1}, 0, 1, 0, 1, Op.SUM);
                    win.put(new long[] {i, -i}, 0, 2, 0, 2);
                }
                win.flush(0);
                // remote completion: the target's memory holds everything issued before the flush
                w.send(new long[] {expect}, 0, 1, 0, 1);
                w.recv(new long[1], 0, 1, 0, 2);
                for (int i = 0; i < OPS; i++) {
                    win.accumulate(new long[] {1}, 0, 1, 0, 4, Op.SUM);
                }
                win.put(new long[] {77}, 0, 1, 0, 5);
                win.unlock(0);
            } else {
                long[] expect = new long[1];
                w.recv(expect, 0, 1, 1, 1);
                assertThat(longAt(win, 0)).as("slot 0 after the flush").isEqualTo(expect[0]);
                assertThat(longAt(win, 1)).as("operations counted by the flush").isEqualTo(OPS);
                assertThat(longAt(win, 2)).isEqualTo(OPS - 1);
                assertThat(longAt(win, 3)).isEqualTo(-(OPS - 1));
                w.send(new long[1], 0, 1, 1, 2);
            }
            win.fence();
            if (me == 0) {
                assertThat(longAt(win, 4)).as("accumulates after the flush, completed by unlock").isEqualTo(OPS);
                assertThat(longAt(win, 5)).isEqualTo(77);
            }
            win.fence();
        });
    }

    @BothPaths
    void aRequestCompletesWhenItsBytesAreCopiedAndFenceAndCompleteEndTheBatches(String path, String transports)
            throws Exception {
        withWindow(path, transports, 4, (w, me, win) -> {
            if (me == 1) {
                long[] buf = {5, 6};
                Request r = win.rput(buf, 0, 2, 0, 0);
                assertThat(r.await(Duration.ofSeconds(60))).as("rput complete within 60 s").isNotNull();
                // the origin buffer is free once the request is done: the target gets 5 and 6
                buf[0] = -1;
                buf[1] = -1;
            }
            win.fence();
            if (me == 0) {
                assertThat(new long[] {longAt(win, 0), longAt(win, 1)}).containsExactly(5, 6);
            }
            // PSCW: the access epoch's complete carries the batched accumulates
            Group world = w.group();
            if (me == 1) {
                win.start(world.incl(0), 0);
                for (int i = 0; i < OPS; i++) {
                    win.accumulate(new long[] {i}, 0, 1, 0, 2, Op.SUM);
                }
                win.complete();
            } else {
                win.post(world.incl(1), 0);
                win.waitFor();
                assertThat(longAt(win, 2)).isEqualTo((long) OPS * (OPS - 1) / 2);
            }
            win.fence();
        });
    }

    @BothPaths
    void aTargetThatFailsWithOperationsBatchedEndsTheEpochWithPeerFailed(String path, String transports)
            throws Exception {
        targetFailsWithAnEpochOpen(path, transports, win -> {
            for (int i = 0; i < 20; i++) {
                win.put(new long[] {i}, 0, 1, 1, 0);
                win.accumulate(new long[] {1}, 0, 1, 1, 1, Op.SUM);
            }
        }, win -> assertThatThrownBy(() -> win.unlock(1)).isInstanceOfSatisfying(RailyardException.class, x -> {
            assertThat(x.errorClass()).isEqualTo(ErrorClass.PEER_FAILED);
            assertThat(x.getMessage()).contains("rank 1");
        }));
    }

    /**
     * An rget to a target that has failed ends with PEER_FAILED and nothing hangs: at the call when
     * the origin knows of the failure already, else at the wait on its request once the batch it
     * joined is dropped or its reply fails.
     */
    @BothPaths
    void anRgetToAFailedTargetFailsWithPeerFailed(String path, String transports) throws Exception {
        targetFailsWithAnEpochOpen(path, transports, win -> { }, win ->
            assertThatThrownBy(() -> win.rget(new long[1], 0, 1, 1, 2).await(Duration.ofSeconds(60)))
                    .isInstanceOfSatisfying(RailyardException.class,
                            x -> assertThat(x.errorClass()).isEqualTo(ErrorClass.PEER_FAILED)));
    }

    /**
     * Rank 0 locks rank 1 exclusively and runs {@code before}; rank 1 then closes its engine, and
     * once it has, rank 0 runs {@code after}. The RMA timeout is 60 s meanwhile.
     */
    private static void targetFailsWithAnEpochOpen(String path, String transports, WindowAction before,
                                                   WindowAction after) throws Exception {
        String old = System.getProperty("railyard.rma.timeout");
        System.setProperty("railyard.rma.timeout", "60");
        AtomicBoolean closed = new AtomicBoolean();
        try {
            EngineJob.run(2, transports, e -> {
                Comm w = new Comm(e, e.world());
                int me = w.rank();
                long[] mem = new long[4];
                Window win = window(w, path, mem);
                if (me == 0) {
                    win.lock(Window.LOCK_EXCLUSIVE, 1);
                    before.run(win);
                    w.send(new int[] {1}, 0, 1, 1, 3);
                    // nothing batched has left yet; rank 1 closes its engine before the unlock sends it all
                    Await.awaitUntil(closed::get, Duration.ofSeconds(60), "rank 1's engine closed");
                    after.run(win);
                } else {
                    w.recv(new int[1], 0, 1, 0, 3);
                    e.close();
                    closed.set(true);
                }
            });
        } finally {
            if (old == null) {
                System.clearProperty("railyard.rma.timeout");
            } else {
                System.setProperty("railyard.rma.timeout", old);
            }
        }
    }

    /**
     * Operations with a result (get, fetchAndOp, compareAndSwap, getAccumulate) issued back to back
     * travel in batches too, their results coming back in one reply per batch: each result must
     * land in its own buffer, in issue order against the puts and accumulates around it, across
     * batch boundaries (more operations than one batch holds) and across a flush in the middle.
     */
    @BothPaths
    void operationsWithAResultReturnTheRightValuesInOrderAcrossBatchesAndAFlush(String path, String transports)
            throws Exception {
        withWindow(path, transports, 8, (w, me, win) -> {
            if (me == 1) {
                long[] fetched = new long[OPS];
                long[] swapped = new long[OPS];
                long[] got = new long[OPS];
                long[] pairs = new long[2 * OPS];
                win.lock(Window.LOCK_EXCLUSIVE, 0);
                for (int i = 0; i < OPS; i++) {
                    // slot 0: a counter read by fetchAndOp; slot 1: a compare-and-swap chain
                    win.fetchAndOp(new long[] {1}, 0, fetched, i, 0, 0, Op.SUM);
                    win.compareAndSwap(new long[] {i + 1}, 0, new long[] {i}, 0, swapped, i, 0, 1);
                    // slot 2: put then get: the get sees the put issued just before it
                    win.put(new long[] {1000 + i}, 0, 1, 0, 2);
                    win.get(got, i, 1, 0, 2);
                    // slots 3..4: a two-value getAccumulate after an accumulate
                    win.accumulate(new long[] {1, 2}, 0, 2, 0, 3, Op.SUM);
                    win.getAccumulate(new long[] {10, 20}, 0, 2, pairs, 2 * i, 0, 3, Op.SUM);
                    if (i == OPS / 2) {
                        win.flush(0);
                        // remote completion of everything before: these results are in already
                        for (int j = 0; j <= i; j++) {
                            assertThat(fetched[j]).as("fetchAndOp %d before the flush", j).isEqualTo(j);
                            assertThat(got[j]).as("get %d before the flush", j).isEqualTo(1000 + j);
                        }
                    }
                }
                win.unlock(0);
                for (int i = 0; i < OPS; i++) {
                    assertThat(fetched[i]).as("fetchAndOp %d", i).isEqualTo(i);
                    assertThat(swapped[i]).as("compareAndSwap %d", i).isEqualTo(i);
                    assertThat(got[i]).as("get %d", i).isEqualTo(1000 + i);
                    // before op i: i accumulates of (1, 2) and i getAccumulates of (10, 20), plus this one's accumulate
                    assertThat(pairs[2 * i]).as("getAccumulate %d, first value", i).isEqualTo(11L * i + 1);
                    assertThat(pairs[2 * i + 1]).as("getAccumulate %d, second value", i).isEqualTo(22L * i + 2);
                }
            }
            win.fence();
            if (me == 0) {
                assertThat(longAt(win, 0)).isEqualTo(OPS);
                assertThat(longAt(win, 1)).isEqualTo(OPS);
                assertThat(longAt(win, 3)).isEqualTo(11L * OPS);
                assertThat(longAt(win, 4)).isEqualTo(22L * OPS);
            }
            // fence ends the batches too: a get issued in a fence epoch has its value after the next fence
            long[] last = new long[1];
            if (me == 1) {
                win.get(last, 0, 1, 0, 0);
            }
            win.fence();
            if (me == 1) {
                assertThat(last[0]).as("get completed by fence").isEqualTo(OPS);
            }
            win.fence();
        });
    }

    /**
     * Request forms with a result (rget, rgetAccumulate) join the batch too, between puts and
     * accumulates (rput, raccumulate) to the same places: waited on without any flush or unlock,
     * each completes (its batch leaves at the next progress pass) with the value of the operations
     * issued before it, in its own buffer.
     */
    @BothPaths
    void requestFormsInABatchCompleteWithoutAFlushAndTheirValuesLandInOrder(String path, String transports)
            throws Exception {
        // used by rank 1 only
        Request[] gets = new Request[OPS];
        Request[] getAccs = new Request[OPS];
        long[] got = new long[OPS];
        long[] pairs = new long[2 * OPS];
        withWindow(path, transports, 8, (w, me, win) -> {
            if (me == 1) {
                win.lock(Window.LOCK_EXCLUSIVE, 0);
                for (int i = 0; i < OPS; i++) {
                    // slot 2: rput then rget; slots 3..4: raccumulate then rgetAccumulate
                    win.rput(new long[] {2000 + i}, 0, 1, 0, 2);
                    gets[i] = win.rget(got, i, 1, 0, 2);
                    win.raccumulate(new long[] {1, 2}, 0, 2, 0, 3, Op.SUM);
                    getAccs[i] = win.rgetAccumulate(new long[] {10, 20}, 0, 2, pairs, 2 * i, 0, 3, Op.SUM);
                    if (i % 50 == 49) {
                        // no flush: the requests alone must bring the values
                        for (int j = i - 49; j <= i; j++) {
                            assertThat(gets[j].await(Duration.ofSeconds(60))).as("rget %d done", j).isNotNull();
                            assertThat(getAccs[j].await(Duration.ofSeconds(60))).as("rgetAccumulate %d done", j)
                                    .isNotNull();
                            assertThat(got[j]).as("rget %d", j).isEqualTo(2000 + j);
                            assertThat(pairs[2 * j]).as("rgetAccumulate %d, first value", j).isEqualTo(11L * j + 1);
                            assertThat(pairs[2 * j + 1]).as("rgetAccumulate %d, second value", j)
                                    .isEqualTo(22L * j + 2);
                        }
                    }
                }
                win.unlock(0);
            }
            win.fence();
            if (me == 0) {
                assertThat(longAt(win, 2)).isEqualTo(2000 + OPS - 1);
                assertThat(longAt(win, 3)).isEqualTo(11L * OPS);
                assertThat(longAt(win, 4)).isEqualTo(22L * OPS);
            }
            win.fence();
        });
    }
}
