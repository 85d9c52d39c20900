package org.railyard.systest.ranks;

import static org.railyard.systest.ranks.RankSupport.require;

import java.lang.foreign.ValueLayout;
import org.railyard.Comm;
import org.railyard.Group;
import org.railyard.Op;
import org.railyard.Railyard;
import org.railyard.Window;
import org.railyard.testkit.Allocation;

/**
 * One-sided epochs on a window allocated by two ranks of this node, mapped into both processes:
 * an exclusive lock around a put of 8 B, and a PSCW epoch pair (rank 0 posts to rank 1 and waits,
 * rank 1 starts, puts 8 B and completes), and a fence epoch (each rank puts 8 B into the other's
 * part, then fences). Each epoch runs {@code WARM} times, then in
 * at least {@link Allocation#MIN_WINDOWS} windows (more, up to {@link Allocation#MAX_WINDOWS}, until every rank's least is under the goal) of {@code PER_WINDOW} (see {@link Allocation}), and each rank that
 * takes part actively (the origin of the lock, both of PSCW) prints {@code ALLOC <epoch> rank R
 * <least B/epoch> (windows ...)}: the heap bytes every thread of its JVM allocated per epoch. The value put last is checked; the program ends with
 * {@code OK rma-alloc rank R}.
 */
public final class RmaAllocRanks {
    private static final int WARM = 3000;
    /** Bytes per epoch: room for a pool growing once during the measured calls, not for an object per epoch. */
    public static final double GOAL = 16;
    private static final int PER_WINDOW = 2000;

    private RmaAllocRanks() {
    }

    public static void main(String[] args) {
        try (Railyard ry = Railyard.init(args)) {
            Comm c = ry.world();
            int me = c.rank();
            require(c.size() == 2, "run with 2 ranks, not " + c.size());
            int other = 1 - me;
            long[] value = {0};
            try (Window win = Window.allocate(c, 64, 8)) {
                measure(c, me, "lock-put-unlock", me == 1, () -> {
                    if (me == 1) {
                        value[0]++;
                        win.lock(Window.LOCK_EXCLUSIVE, 0);
                        win.put(value, 0, 1, 0, 0);
                        win.unlock(0);
                    }
                });
                Group peer = c.group().incl(other);
                measure(c, me, "pscw", true, () -> {
                    if (me == 0) {
                        win.post(peer, 0);
                        win.waitFor();
                    } else {
                        value[0]++;
                        win.start(peer, 0);
                        win.put(value, 0, 1, 0, 1);
                        win.complete();
                    }
                });
                // a fence epoch: each rank puts 8 B into the other's part, then the fence's barrier
                long[] mine = {0};
                win.fence(Window.MODE_NOPRECEDE);
                measure(c, me, "fence", true, () -> {
                    mine[0]++;
                    win.put(mine, 0, 1, other, 2);
                    win.fence(0);
                });
                win.fence(Window.MODE_NOSUCCEED);
                require(win.memory().get(ValueLayout.JAVA_LONG, 16) == mine[0], "the other rank's last fenced put: "
                        + win.memory().get(ValueLayout.JAVA_LONG, 16) + ", expected " + mine[0]);
                c.barrier();
                if (me == 0) {
                    long locked = win.memory().get(ValueLayout.JAVA_LONG, 0);
                    long pscw = win.memory().get(ValueLayout.JAVA_LONG, 8);
                    require(locked > 0 && pscw > 0, "the values put arrived: " + locked + ", " + pscw);
                }
                c.barrier();
            }
            System.out.println("OK rma-alloc rank " + me);
        }
    }

    private static void measure(Comm c, int me, String what, boolean print, Runnable epoch) {
        for (int i = 0; i < WARM; i++) {
            epoch.run();
        }
        try {
            // a rank that only serves (the target of the lock) agrees at once
            Allocation.Windows w = Allocation.perCallUntil(PER_WINDOW, GOAL, c::barrier,
                    mine -> c.allreduce(mine || !print ? 1.0 : 0.0, Op.MIN) == 1.0, epoch::run);
            if (print) {
                System.out.println("ALLOC " + what + " rank " + me + " " + w);
            }
        } catch (Exception e) {
            throw e instanceof RuntimeException r ? r : new IllegalStateException(e);
        }
    }
}
