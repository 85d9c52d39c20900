package org.railyard;

import static org.assertj.core.api.Assertions.assertThat;
import static org.railyard.WindowPaths.window;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.Random;
import java.util.function.Function;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Accumulates against a reference, derived types at both ends, PSCW, requests, dynamic windows
 * and a compare-and-swap spin lock: each over the remote path (an array window, or tcp) and the
 * mapped path (an allocated window on shm).
 */
class WindowOpsTest {
    private static final Op[] OPS = {Op.SUM, Op.PROD, Op.MIN, Op.MAX, Op.LAND, Op.LOR, Op.LXOR, Op.BAND, Op.BOR,
        Op.BXOR, Op.REPLACE, Op.NO_OP};

    /** A window of {@code ints} ints over the chosen path: "array" (remote), "alloc" (mapped on shm, remote on tcp). */
    private static int[] read(Window win, int ints) {
        if (win.buffer() instanceof int[] a) {
            return a.clone();
        }
        return win.memory().toArray(ValueLayout.JAVA_INT);
    }

    private static void write(Window win, int[] v) {
        if (win.buffer() instanceof int[] a) {
            System.arraycopy(v, 0, a, 0, v.length);
        } else {
            MemorySegment.copy(v, 0, win.memory(), ValueLayout.JAVA_INT, 0, v.length);
        }
    }

    /** The reference: {@code target = origin op target}, element by element, in long arithmetic cut to int. */
    private static int ref(Op op, int origin, int target) {
        if (op == Op.SUM) return origin + target;
        if (op == Op.PROD) return origin * target;
        if (op == Op.MIN) return Math.min(origin, target);
        if (op == Op.MAX) return Math.max(origin, target);
        if (op == Op.LAND) return (origin != 0 && target != 0) ? 1 : 0;
        if (op == Op.LOR) return (origin != 0 || target != 0) ? 1 : 0;
        if (op == Op.LXOR) return ((origin != 0) != (target != 0)) ? 1 : 0;
        if (op == Op.BAND) return origin & target;
        if (op == Op.BOR) return origin | target;
        if (op == Op.BXOR) return origin ^ target;
        if (op == Op.REPLACE) return origin;
        return target;
    }

    @ParameterizedTest
    @CsvSource({"array,shm,3", "alloc,shm,3", "alloc,tcp,2"})
    void accumulateWithEveryOpMatchesTheReference(String path, String transports, int n) throws Exception {
        WorldJob.run(n, transports, (w, me) -> {
            int len = 16;
            try (Window win = window(w, path, len)) {
                for (Op op : OPS) {
                    Random rnd = new Random(op.toString().hashCode());
                    int[] start = new int[len];
                    int[][] contrib = new int[n][len];
                    for (int i = 0; i < len; i++) {
                        start[i] = rnd.nextInt(7) - 3;
                    }
                    for (int r = 0; r < n; r++) {
                        for (int i = 0; i < len; i++) {
                            contrib[r][i] = rnd.nextInt(7) - 3;
                        }
                    }
                    write(win, start);
                    win.fence();
                    // every rank accumulates its vector into rank 0, one after the other (order matters for REPLACE)
                    for (int r = 0; r < n; r++) {
                        if (r == me) {
                            win.lock(Window.LOCK_EXCLUSIVE, 0);
                            win.accumulate(contrib[me], 0, len, 0, 0, op);
                            win.unlock(0);
                        }
                        w.barrier();
                    }
                    win.fence();
                    if (me == 0) {
                        int[] expect = start.clone();
                        for (int r = 0; r < n; r++) {
                            for (int i = 0; i < len; i++) {
                                expect[i] = ref(op, contrib[r][i], expect[i]);
                            }
                        }
                        assertThat(read(win, len)).as("%s over %s %s", op, path, transports).containsExactly(expect);
                    }
                    win.fence();
                }
                // getAccumulate returns the old values and applies the new
                win.fence();
                write(win, new int[len]);
                win.fence();
                int[] old = new int[2];
                win.lockAll();
                win.getAccumulate(new int[] {1, 2}, 0, 2, old, 0, (me + 1) % n, 4, Op.SUM);
                win.unlockAll();
                win.fence();
                assertThat(old[0] >= 0 && old[0] < n && old[1] == 2 * old[0]).isTrue();
                int[] now = read(win, len);
                assertThat(now[4]).isEqualTo(1);
                assertThat(now[5]).isEqualTo(2);
                win.fence();
            }
        });
    }

    @ParameterizedTest
    @CsvSource({"array,shm,2", "alloc,shm,3", "alloc,tcp,2"})
    void derivedTypesAtBothEnds(String path, String transports, int n) throws Exception {
        WorldJob.run(n, transports, (w, me) -> {
            int len = 64;
            Layout vector = Layout.vector(4, 2, 5, Datatype.INT);            // 8 values spread over 17
            Layout indexed = Layout.indexed(new int[] {3, 1, 4}, new int[] {0, 10, 20}, Datatype.INT); // 8 values
            Layout struct = Layout.struct(new int[] {2, 1}, new int[] {1, 30}, new Layout[] {Layout.of(Datatype.INT), Layout.contiguous(6, Datatype.INT)});
            Function<Layout, int[]> positions = t -> {
                int[] p = new int[t.size()];
                int k = 0;
                for (int r = 0; r < t.runCount(); r++) {
                    for (int j = 0; j < t.runLength(r); j++) {
                        p[k++] = t.runDisp(r) + j;
                    }
                }
                return p;
            };
            Layout[] types = {vector, indexed, struct};
            try (Window win = window(w, path, len)) {
                for (Layout origin : types) {
                    for (Layout target : types) {
                        int[] src = new int[len];
                        for (int i = 0; i < len; i++) {
                            src[i] = 1000 * me + i;
                        }
                        write(win, new int[len]);
                        win.fence();
                        int t = (me + 1) % n;
                        win.put(src, 2, 1, origin, t, 1, 1, target);
                        win.fence();
                        int[] got = read(win, len);
                        int from = (me + n - 1) % n;
                        int[] po = positions.apply(origin);
                        int[] pt = positions.apply(target);
                        int[] expect = new int[len];
                        for (int i = 0; i < po.length; i++) {
                            expect[1 + pt[i]] = 1000 * from + 2 + po[i];
                        }
                        assertThat(got).as("put %s -> %s", origin, target).containsExactly(expect);
                        // and back: get the target layout into the origin layout
                        int[] back = new int[len];
                        win.get(back, 2, 1, origin, t, 1, 1, target);
                        win.fence();
                        for (int i = 0; i < po.length; i++) {
                            assertThat(back[2 + po[i]]).isEqualTo(1000 * me + 2 + po[i]);
                        }
                        win.fence();
                    }
                }
            }
        });
    }

    @ParameterizedTest
    @CsvSource({"array,shm,4", "alloc,shm,3", "array,tcp,3"})
    void postStartCompleteWaitAndRequests(String path, String transports, int n) throws Exception {
        WorldJob.run(n, transports, (w, me) -> {
            try (Window win = window(w, path, n)) {
                Group all = w.group();
                Group next = all.incl((me + 1) % n);
                Group prev = all.incl((me + n - 1) % n);
                for (int round = 1; round <= 3; round++) {
                    win.post(prev, 0);
                    win.start(next, 0);
                    Request r = win.rput(new int[] {round * 10 + me}, 0, 1, (me + 1) % n, me);
                    r.await();
                    win.complete();
                    if (round == 2) {
                        while (!win.test()) {
                            Thread.onSpinWait();
                        }
                    } else {
                        win.waitFor();
                    }
                    int from = (me + n - 1) % n;
                    assertThat(read(win, n)[from]).isEqualTo(round * 10 + from);
                    w.barrier();
                }
                win.fence();
                int[] got = new int[1];
                Request g = win.rget(got, 0, 1, (me + 1) % n, me);
                g.await();
                win.fence();
                assertThat(got[0]).isEqualTo(30 + me);
                win.fence(Window.MODE_NOSUCCEED);
            }
        });
    }

    @ParameterizedTest
    @CsvSource({"shm,3", "tcp,2"})
    void dynamicWindowReachesAttachedMemory(String transports, int n) throws Exception {
        WorldJob.run(n, transports, (w, me) -> {
            try (Arena arena = Arena.ofShared(); Window win = Window.createDynamic(w)) {
                MemorySegment seg = arena.allocate(64, 8);
                long addr = win.attach(seg);
                long[] addrs = new long[n];
                w.allgather(new long[] {addr}, 0, 1, addrs, 0, 1);
                win.fence();
                int t = (me + 1) % n;
                win.put(new long[] {me + 5L}, 0, 1, t, addrs[t] + 16);
                win.fence();
                assertThat(seg.get(ValueLayout.JAVA_LONG, 16)).isEqualTo((me + n - 1) % n + 5L);
                win.fence();
                win.detach(seg);
                w.barrier();
            }
        });
    }

    @ParameterizedTest
    @CsvSource({"array,shm,4", "alloc,shm,4", "alloc,tcp,3"})
    void compareAndSwapSpinLockProtectsASharedList(String path, String transports, int n) throws Exception {
        // word 0: the lock (0 free, rank+1 held); word 1: list length; words 2..: the list
        int per = 25;
        WorldJob.run(n, transports, (w, me) -> {
            int len = 2 + n * per;
            try (Window win = window(w, path, len)) {
                win.lockAll();
                int[] mine = {me + 1};
                int[] free = {0};
                int[] seen = new int[1];
                for (int i = 0; i < per; i++) {
                    do {
                        win.compareAndSwap(mine, 0, free, 0, seen, 0, 0, 0);
                        win.flush(0);
                    } while (seen[0] != 0);
                    int[] length = new int[1];
                    win.get(length, 0, 1, 0, 1);
                    win.flush(0);
                    // a non-atomic read-modify-write: only the lock keeps the list whole
                    win.put(new int[] {me * 1000 + i}, 0, 1, 0, 2 + length[0]);
                    win.put(new int[] {length[0] + 1}, 0, 1, 0, 1);
                    win.flush(0);
                    win.compareAndSwap(free, 0, mine, 0, seen, 0, 0, 0);
                    win.flush(0);
                    assertThat(seen[0]).isEqualTo(me + 1);
                }
                win.unlockAll();
                w.barrier();
                if (me == 0) {
                    int[] v = read(win, len);
                    assertThat(v[1]).isEqualTo(n * per);
                    java.util.Set<Integer> items = new java.util.HashSet<>();
                    for (int i = 0; i < n * per; i++) {
                        items.add(v[2 + i]);
                    }
                    assertThat(items).hasSize(n * per);
                }
                w.barrier();
            }
        });
    }

    @ParameterizedTest
    @CsvSource({"alloc,shm,4", "array,shm,3", "alloc,tcp,2"})
    void blockAccumulatesAndSingleAtomicsToOnePlaceLoseNothing(String path, String transports, int n) throws Exception {
        // every rank adds ones to a block of rank 0's ints while fetch-and-adding one of them and
        // getAccumulating two others: on the mapped path the block holds the lock exclusively and
        // the single updates share it, so any disagreement between the two loses increments
        int len = 3000;
        int rounds = 150;
        WorldJob.run(n, transports, (w, me) -> {
            try (Window win = window(w, path, len)) {
                int[] ones = new int[len];
                java.util.Arrays.fill(ones, 1);
                int[] one = {1};
                int[] fetched = new int[1];
                int[] two = new int[2];
                w.barrier();
                win.lockAll();
                for (int i = 0; i < rounds; i++) {
                    win.accumulate(ones, 0, len, 0, 0, Op.SUM);
                    win.fetchAndOp(one, 0, fetched, 0, 0, 7, Op.SUM);
                    win.getAccumulate(ones, 0, 2, two, 0, 0, len - 2, Op.SUM);
                    if (i % 16 == 0) {
                        win.flush(0);
                    }
                }
                win.unlockAll();
                w.barrier();
                int[] v = me == 0 ? read(win, len) : null;
                // every rank leaves the window before rank 0 judges, so a failure cannot leave them waiting
                w.barrier();
                for (int i = 0; me == 0 && i < len; i++) {
                    int expect = n * rounds * (i == 7 || i >= len - 2 ? 2 : 1);
                    assertThat(v[i]).as("int %d over %s %s", i, path, transports).isEqualTo(expect);
                }
            }
        });
    }

    @ParameterizedTest
    @CsvSource({"alloc,shm,3", "array,shm,3"})
    void eachFenceSeparatesTheEpochsBeforeAndAfterIt(String path, String transports, int n) throws Exception {
        // rank r puts the round number into slot r of its right neighbour, then reads its own
        // memory after the fence: a fence that let a member through early shows an older round
        WorldJob.run(n, transports, (w, me) -> {
            int left = (me + n - 1) % n;
            try (Window win = window(w, path, n)) {
                win.fence();
                String wrong = null;
                for (int round = 1; round <= 400; round++) {
                    win.put(new int[] {round}, 0, 1, (me + 1) % n, me);
                    win.fence();
                    int seen = read(win, n)[left];
                    if (seen != round && wrong == null) {
                        wrong = "round " + round + " at rank " + me + ": found " + seen;
                    }
                    win.fence();
                }
                // judged after the loop: every rank takes part in every fence whatever it saw
                assertThat(wrong).as("over %s %s", path, transports).isNull();
            }
        });
    }
}
