package org.railyard.systest.slurm;

import java.util.concurrent.CountDownLatch;
import org.railyard.Comm;
import org.railyard.Railyard;

/**
 * Ranks that join the job, say {@code READY rank=R pid=P}, pass a barrier, then rank 1 calls
 * {@code Railyard.abort(5)} while the others stop calling Railyard and wait to be ended from
 * outside: only the process manager acting on the abort can end them (they never learn of the
 * abort through the library). The first argument is a marker only the test's processes carry on
 * their command line, so the test can look for leftovers.
 */
public final class AbortingRanks {
    private AbortingRanks() {
    }

    public static void main(String[] args) throws InterruptedException {
        Railyard ry = Railyard.init(args);
        Comm w = ry.world();
        System.out.println("READY rank=" + w.rank() + " pid=" + ProcessHandle.current().pid());
        System.out.flush();
        w.barrier();
        if (w.rank() == 1) {
            ry.abort(5);
        }
        new CountDownLatch(1).await(); // ended by the process manager (the test bounds the job)
    }
}
