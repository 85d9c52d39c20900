package org.railyard.systest.ranks;

import org.railyard.Comm;
import org.railyard.Railyard;

/**
 * Two ranks that stop moving on purpose, after a first barrier both join (it maps the node's
 * counter barrier, through which a barrier of ranks of one node goes): rank 0 sends rank 1 a
 * message of 2000 ints with tag 3 that nobody receives, then waits for a message with tag 7 that
 * never comes; rank 1 waits in a second barrier rank 0 never joins. Only the launcher's timeout ends the job; meanwhile each rank's stall report
 * ({@code railyard.stall.report}) says what it waits for.
 */
public final class StallRanks {
    private StallRanks() {
    }

    public static void main(String[] args) {
        try (Railyard ry = Railyard.init(args)) {
            Comm world = ry.world();
            world.barrier();
            if (world.rank() == 0) {
                world.send(new int[2000], 0, 2000, 1, 3);
                System.out.println("WAITING rank 0 in a receive");
                System.out.flush();
                world.recv(new int[4], 0, 4, 1, 7);
            } else {
                System.out.println("WAITING rank 1 in a barrier");
                System.out.flush();
                world.barrier();
            }
            System.out.println("FAIL stall rank " + world.rank() + ": a wait that nothing ends completed");
            System.exit(4);
        }
    }
}
