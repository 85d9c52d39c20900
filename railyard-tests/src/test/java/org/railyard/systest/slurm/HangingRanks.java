package org.railyard.systest.slurm;

import org.railyard.Comm;
import org.railyard.Railyard;

/**
 * Ranks that join the job, say {@code READY rank=R pid=P}, then keep exchanging with their
 * neighbours until stopped from outside (a kill, scancel): what a long computation looks like to
 * the resource manager. The first argument is a marker only the test's processes carry on their
 * command line, so the test can look for leftovers.
 */
public final class HangingRanks {
    private HangingRanks() {
    }

    public static void main(String[] args) {
        try (Railyard ry = Railyard.init(args)) {
            Comm w = ry.world();
            System.out.println("READY rank=" + w.rank() + " pid=" + ProcessHandle.current().pid());
            System.out.flush();
            long[] v = new long[1];
            while (true) {
                v[0] = w.allreduce(v[0] + 1, org.railyard.Op.MAX);
            }
        }
    }
}
