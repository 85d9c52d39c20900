package org.railyard.systest.ranks;

import static org.railyard.systest.ranks.RankSupport.require;
import static org.railyard.systest.ranks.RankSupport.requireEquals;

import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import org.railyard.Comm;
import org.railyard.Datatype;
import org.railyard.Op;
import org.railyard.Railyard;
import org.railyard.Window;
import org.railyard.error.ErrorClass;
import org.railyard.error.RailyardException;

/**
 * One-sided communication between real processes. Modes (first argument):
 * <ul>
 *   <li>{@code modes}: every synchronisation mode on an allocated window and on a window over a
 *       heap array: fence, post/start/complete/wait, exclusive and shared locks, lockAll with
 *       flush, and a put and get of 4 MiB between fences; each checked value by value, then
 *       {@code OK rma modes rank R};</li>
 *   <li>{@code counter N}: every rank adds 1 to a counter at rank 0 with fetchAndOp, N times,
 *       flushing each; the counter ends at N times the ranks, and each rank's fetched values rise;
 *       {@code OK counter rank R value V};</li>
 *   <li>{@code passive BOUND_MS}: rank 0 computes without calling the library until its window
 *       (a heap array) holds a stop word; every other rank locks it, puts, unlocks, each within
 *       BOUND_MS; the last sets the stop word; rank 0 then finds every put;
 *       {@code OK passive rank R max-ms M};</li>
 *   <li>{@code bigput MIB}: rank 0 puts MIB MiB from a native segment into rank 1's window (a
 *       native segment, so the put crosses the channel whatever the nodes), between fences;
 *       meanwhile every 100 ms rank 0 prints {@code PROGRESS <bytes sent> <ms> r<rail>=<bytes>:<state>...}
 *       from the channel's counters (the format of the stream benchmark); rank 1 then checks every
 *       long and prints {@code RESULT bigput ok} or the first wrong one;</li>
 *   <li>{@code die}: rank 0 locks rank 2 exclusively; rank 1 asks for a shared lock of rank 2,
 *       which waits, and rank 2 halts; rank 0's unlock and rank 1's lock fail with PEER_FAILED
 *       ({@code RESULT ... FAILED PEER_FAILED ...}); ranks 0 and 1 go on with a lock, put and
 *       unlock between them; {@code OK die rank R}.</li>
 * </ul>
 */
public final class RmaRanks {
    private static final VarHandle LONGS = MethodHandles.arrayElementVarHandle(long[].class);

    private RmaRanks() {
    }

    public static void main(String[] args) {
        try (Railyard ry = Railyard.init(args)) {
            Comm world = ry.world();
            switch (args[0]) {
                case "modes" -> {
                    modes(world, true);
                    modes(world, false);
                    System.out.println("OK rma modes rank " + world.rank());
                }
                case "counter" -> counter(world, Integer.parseInt(args[1]));
                case "passive" -> passive(world, Long.parseLong(args[1]));
                case "die" -> die(world);
                case "bigput" -> bigPut(world, Long.parseLong(args[1]) << 20);
                default -> throw new IllegalArgumentException("mode " + args[0]);
            }
        }
    }

    private static long value(int from, int round, int i) {
        return from * 1_000_000L + round * 1000L + i;
    }

    /** Every synchronisation mode, on an allocated window ({@code allocated}) or one over a long[]. */
    private static void modes(Comm w, boolean allocated) {
        int me = w.rank();
        int n = w.size();
        long[] heap = new long[2 * n];
        Window win = allocated ? Window.allocate(w, 16L * n, 8) : Window.create(w, heap, 8);
        String what = allocated ? "allocated" : "heap";
        int next = (me + 1) % n;
        int prev = (me + n - 1) % n;
        // fence: each rank puts into its slot at the next rank, and gets it back
        for (int round = 0; round < 3; round++) {
            win.fence();
            win.put(new long[] {value(me, round, 0)}, 0, 1, next, me);
            win.fence();
            requireEquals(value(prev, round, 0), read(win, heap, prev), what + " fence put from " + prev);
            long[] back = new long[1];
            win.get(back, 0, 1, next, me);
            win.fence();
            requireEquals(value(me, round, 0), back[0], what + " fence get from " + next);
        }
        // post / start / complete / wait along the ring
        for (int round = 0; round < 3; round++) {
            win.post(w.group().incl(prev), 0);
            win.start(w.group().incl(next), 0);
            win.put(new long[] {value(me, round, 1)}, 0, 1, next, n + me);
            win.complete();
            win.waitFor();
            requireEquals(value(prev, round, 1), read(win, heap, n + prev), what + " pscw put from " + prev);
        }
        w.barrier();
        // exclusive locks: every rank accumulates into slot 0 of every rank
        for (int t = 0; t < n; t++) {
            win.lock(Window.LOCK_EXCLUSIVE, t);
            win.accumulate(new long[] {me + 1}, 0, 1, t, 0, Op.SUM);
            win.unlock(t);
        }
        w.barrier();
        // slot 0 held the last fence put of rank 0 where rank 0 is the previous rank, else nothing
        long base = prev == 0 ? value(0, 2, 0) : 0;
        requireEquals(base + (long) n * (n + 1) / 2, read(win, heap, 0), what + " exclusive sums");
        // shared locks: everyone reads every rank's slot n + prev
        for (int t = 0; t < n; t++) {
            win.lock(Window.LOCK_SHARED, t);
            long[] got = new long[1];
            win.get(got, 0, 1, t, n + (t + n - 1) % n);
            win.unlock(t);
            requireEquals(value((t + n - 1) % n, 2, 1), got[0], what + " shared-lock get at " + t);
        }
        // lockAll and flush: fetch-and-add at every rank, seen at once after flush
        w.barrier();
        win.lockAll();
        for (int t = 0; t < n; t++) {
            long[] old = new long[1];
            int from = (t + n - 1) % n;
            win.fetchAndOp(null, 0, old, 0, Datatype.LONG, t, n + from, Op.NO_OP);
            win.flush(t);
            requireEquals(value(from, 2, 1), old[0], what + " lockAll fetch at " + t);
        }
        win.unlockAll();
        w.barrier();
        win.fence(Window.MODE_NOPRECEDE);
        win.fence(Window.MODE_NOSUCCEED);
        win.free();
        // 4 MiB each way between fences (a rendezvous, striped over the rails of a multi-rail channel)
        int len = 1 << 19;
        long[] big = new long[len];
        Window bw = allocated ? Window.allocate(w, 8L * len, 8) : Window.create(w, big, 8);
        long[] src = new long[len];
        for (int i = 0; i < len; i++) {
            src[i] = value(me, 9, i);
        }
        bw.fence();
        bw.put(src, 0, len, next, 0);
        bw.fence();
        long[] got = new long[len];
        bw.get(got, 0, len, prev, 0);
        bw.fence(Window.MODE_NOSUCCEED);
        // the previous rank's window holds what its own previous rank put
        int twoBack = (prev + n - 1) % n;
        for (int i = 0; i < len; i++) {
            if (got[i] != value(twoBack, 9, i)) {
                throw new AssertionError(what + " 4 MiB put/get: value " + i + " is " + got[i] + ", expected "
                        + value(twoBack, 9, i));
            }
        }
        bw.free();
    }

    private static long read(Window win, long[] heap, int slot) {
        if (win.buffer() == heap) {
            return (long) LONGS.getAcquire(heap, slot);
        }
        return win.memory().getAtIndex(ValueLayout.JAVA_LONG, slot);
    }

    private static void counter(Comm w, int count) {
        int me = w.rank();
        try (Window win = Window.allocate(w, me == 0 ? 8 : 0, 8)) {
            long[] one = {1};
            long[] old = new long[1];
            long last = -1;
            win.lockAll();
            for (int i = 0; i < count; i++) {
                win.fetchAndOp(one, 0, old, 0, Datatype.LONG, 0, 0, Op.SUM);
                win.flush(0);
                require(old[0] > last, "fetched " + old[0] + " after " + last);
                last = old[0];
            }
            win.unlockAll();
            w.barrier();
            long v = 0;
            if (me == 0) {
                win.lock(Window.LOCK_SHARED, 0);
                long[] got = new long[1];
                win.get(got, 0, 1, 0, 0);
                win.unlock(0);
                v = got[0];
                requireEquals((long) count * w.size(), v, "counter");
            }
            w.barrier();
            System.out.println("OK counter rank " + me + " value " + v);
        }
    }

    private static void passive(Comm w, long boundMs) {
        int me = w.rank();
        int n = w.size();
        long[] heap = new long[n + 1];
        Window win = Window.create(w, me == 0 ? heap : null, 8);
        Comm others = w.split(me == 0 ? 1 : 0, me);
        w.barrier();
        long maxMs = 0;
        if (me == 0) {
            // compute, never calling the library, until the stop word (slot n) is set
            long deadline = System.nanoTime() + 120_000_000_000L;
            double x = 1;
            while ((long) LONGS.getAcquire(heap, n) == 0) {
                for (int i = 0; i < 10_000; i++) {
                    x = Math.sin(x) + 1.0001;
                }
                require(System.nanoTime() < deadline, "the stop word never came (x=" + x + ")");
            }
            for (int r = 1; r < n; r++) {
                requireEquals(value(r, 0, 7), (long) LONGS.getAcquire(heap, r), "put of rank " + r);
            }
        } else {
            for (int round = 0; round < 5; round++) {
                long t0 = System.nanoTime();
                win.lock(Window.LOCK_EXCLUSIVE, 0);
                win.put(new long[] {value(me, 0, 7)}, 0, 1, 0, me);
                win.unlock(0);
                long ms = (System.nanoTime() - t0) / 1_000_000;
                maxMs = Math.max(maxMs, ms);
                require(ms <= boundMs, "lock/put/unlock to a computing target took " + ms + " ms, bound " + boundMs);
            }
            others.barrier();
            if (me == n - 1) {
                win.lock(Window.LOCK_EXCLUSIVE, 0);
                win.put(new long[] {1}, 0, 1, 0, n);
                win.unlock(0);
            }
        }
        w.barrier();
        win.free();
        System.out.println("OK passive rank " + me + " max-ms " + maxMs);
    }

    private static void die(Comm w) {
        int me = w.rank();
        try {
            Window win = Window.create(w, new long[4], 8);
            if (me == 0) {
                win.lock(Window.LOCK_EXCLUSIVE, 2);
                win.put(new long[] {5}, 0, 1, 2, 0);
                win.flush(2);
                w.send(new int[] {1}, 0, 1, 1, 7);
                // rank 2 never sends: this receive ends when its process does
                result("death", () -> w.recv(new int[1], 0, 1, 2, 9));
                result("unlock", () -> win.unlock(2));
            } else if (me == 1) {
                w.recv(new int[1], 0, 1, 0, 7);
                // the lock request follows the message on the same channel, while rank 0 holds the lock
                w.send(new int[] {1}, 0, 1, 2, 7);
                result("lock", () -> win.lock(Window.LOCK_SHARED, 2));
            } else if (me == 2) {
                w.recv(new int[1], 0, 1, 1, 7);
                System.out.println("HALT rank 2");
                System.out.flush();
                Runtime.getRuntime().halt(0);
            }
            // the others go on between themselves (a collective of the world would need rank 2)
            if (me == 0) {
                win.lock(Window.LOCK_EXCLUSIVE, 1);
                win.put(new long[] {42}, 0, 1, 1, 3);
                win.unlock(1);
                w.send(new int[] {1}, 0, 1, 1, 8);
            } else {
                w.recv(new int[1], 0, 1, 0, 8);
                requireEquals(42, ((long[]) win.buffer())[3], "put after the death of rank 2");
            }
            System.out.println("OK die rank " + me);
        } finally {
            System.out.flush();
        }
    }

    private static long pattern(long i) {
        return i * 0x9E3779B97F4A7C15L ^ 0x5DEECE66DL;
    }

    private static void bigPut(Comm w, long bytes) {
        int me = w.rank();
        try (java.lang.foreign.Arena arena = java.lang.foreign.Arena.ofShared()) {
            java.lang.foreign.MemorySegment mem = me == 1 ? arena.allocate(bytes, 8) : null;
            Window win = Window.create(w, mem, 1);
            win.fence();
            if (me == 0) {
                java.lang.foreign.MemorySegment src = arena.allocate(bytes, 8);
                for (long i = 0; i < bytes / 8; i++) {
                    src.setAtIndex(ValueLayout.JAVA_LONG, i, pattern(i));
                }
                long t0 = System.currentTimeMillis();
                org.railyard.Request r = win.rput(src, 0, (int) bytes, 1, 0);
                while (r.await(java.time.Duration.ofMillis(100)) == null) {
                    progress(t0);
                }
                progress(t0);
            }
            win.fence(Window.MODE_NOSUCCEED);
            if (me == 1) {
                for (long i = 0; i < bytes / 8; i++) {
                    long v = mem.getAtIndex(ValueLayout.JAVA_LONG, i);
                    if (v != pattern(i)) {
                        System.out.println("RESULT bigput MISMATCH at long " + i + ": " + v);
                        win.free();
                        return;
                    }
                }
                System.out.println("RESULT bigput ok " + bytes);
            }
            win.free();
        }
    }

    private static void progress(long t0) {
        StringBuilder sb = new StringBuilder();
        long sent = 0;
        org.railyard.stats.StatsGroup g = org.railyard.stats.Stats.current();
        if (g != null) {
            for (org.railyard.stats.RailStats.Snapshot s : g.snapshot()) {
                if (s.peer() == 1) {
                    sb.append(" r").append(s.rail()).append('=').append(s.bytesSent()).append(':').append(s.state());
                    sent += s.bytesSent();
                }
            }
        }
        System.out.println("PROGRESS " + sent + " " + (System.currentTimeMillis() - t0) + sb);
        System.out.flush();
    }

    private static void result(String what, Runnable r) {
        try {
            r.run();
            System.out.println("RESULT " + what + " COMPLETED");
        } catch (RailyardException e) {
            System.out.println("RESULT " + what + " FAILED " + e.errorClass() + " " + e.getMessage());
            require(e.errorClass() == ErrorClass.PEER_FAILED, "expected PEER_FAILED: " + e);
        }
    }
}
