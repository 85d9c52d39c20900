package org.railyard.systest.ranks;

import static org.railyard.systest.ranks.RankSupport.require;
import static org.railyard.systest.ranks.RankSupport.requireEquals;

import org.railyard.Comm;
import org.railyard.Group;
import org.railyard.Op;
import org.railyard.Railyard;
import org.railyard.Window;

/**
 * Passive target and post/start/complete/wait on an allocated window whose members share a node
 * (mapped: the locks and the PSCW counters are words of the mapping's header). Arguments: {@code
 * ROUNDS}. Every rank increments a counter at rank 0 ROUNDS times, each a get, an add and a put
 * under the exclusive lock (with a count of holders inside that must stay 1); the counter ends at
 * ROUNDS times the ranks ({@code RESULT counter V}). Then three PSCW rounds in a ring. Then the last
 * rank locks rank 0 exclusively, puts, tells rank 1 and halts holding the lock; rank 1's exclusive
 * lock of rank 0 goes through once the launcher reports the death, and ranks 0 and 1 check the
 * value; {@code OK rmalock rank R}.
 */
public final class RmaLockRanks {
    private RmaLockRanks() {
    }

    public static void main(String[] args) {
        int rounds = Integer.parseInt(args[0]);
        try (Railyard ry = Railyard.init(args)) {
            Comm w = ry.world();
            int me = w.rank();
            int n = w.size();
            Window win = Window.allocate(w, 8L * (2 + n), 4);
            win.fence();
            win.fence(Window.MODE_NOSUCCEED);
            int[] v = new int[1];
            int[] inside = new int[1];
            for (int i = 0; i < rounds; i++) {
                win.lock(Window.LOCK_EXCLUSIVE, 0);
                win.fetchAndOp(new int[] {1}, 0, inside, 0, 0, 1, Op.SUM);
                requireEquals(0, inside[0], "holders already inside the exclusive lock");
                win.get(v, 0, 1, 0, 0);
                v[0]++;
                win.put(v, 0, 1, 0, 0);
                win.fetchAndOp(new int[] {-1}, 0, inside, 0, 0, 1, Op.SUM);
                win.unlock(0);
            }
            w.barrier();
            if (me == 0) {
                requireEquals((long) rounds * n, win.memory().getAtIndex(java.lang.foreign.ValueLayout.JAVA_INT, 0),
                        "counter");
                System.out.println("RESULT counter " + win.memory().getAtIndex(java.lang.foreign.ValueLayout.JAVA_INT, 0));
            }
            Group all = w.group();
            int next = (me + 1) % n;
            int prev = (me + n - 1) % n;
            for (int round = 1; round <= 3; round++) {
                win.post(all.incl(prev), 0);
                win.start(all.incl(next), 0);
                win.put(new int[] {round * 100 + me}, 0, 1, next, 2 + me);
                win.complete();
                win.waitFor();
                requireEquals(round * 100 + prev, win.memory().getAtIndex(java.lang.foreign.ValueLayout.JAVA_INT, 2 + prev),
                        "PSCW round " + round + " from " + prev);
            }
            w.barrier();
            if (me == n - 1) {
                win.lock(Window.LOCK_EXCLUSIVE, 0);
                win.put(new int[] {-5}, 0, 1, 0, 1);
                w.send(new int[] {1}, 0, 1, 1, 7);
                System.out.println("HALT rank " + me);
                System.out.flush();
                Runtime.getRuntime().halt(0);
            }
            if (me == 1) {
                w.recv(new int[1], 0, 1, n - 1, 7);
                long t0 = System.nanoTime();
                win.lock(Window.LOCK_EXCLUSIVE, 0);
                win.get(v, 0, 1, 0, 1);
                win.put(new int[] {v[0] * 2}, 0, 1, 0, 1);
                win.unlock(0);
                System.out.println("RESULT relock ms " + (System.nanoTime() - t0) / 1_000_000);
                w.send(new int[] {1}, 0, 1, 0, 8);
            } else if (me == 0) {
                w.recv(new int[1], 0, 1, 1, 8);
                int got = win.memory().getAtIndex(java.lang.foreign.ValueLayout.JAVA_INT, 1);
                require(got == -10, "rank 1 doubled the dead holder's put: expected -10, got " + got);
            }
            System.out.println("OK rmalock rank " + me);
            System.out.flush();
        }
    }
}
