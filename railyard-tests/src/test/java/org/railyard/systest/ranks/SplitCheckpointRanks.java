package org.railyard.systest.ranks;

import org.railyard.Comm;
import org.railyard.Railyard;
import org.railyard.error.ErrorClass;
import org.railyard.error.RailyardException;

/**
 * Which communicators a checkpoint accepts ({@code railyard run -np 2 --relays 1 --restart 1}):
 * after a dup of WORLD and a message over it, every rank's checkpoint is taken ({@code checkpoint
 * after dup taken}); after a split of WORLD it is refused, naming the communicator a restarted
 * rank could not make again ({@code refused after split: ...}), the split communicator still
 * works ({@code split sum S}), and so does the world.
 */
public final class SplitCheckpointRanks {
    private SplitCheckpointRanks() {
    }

    public static void main(String[] args) {
        try (Railyard ry = Railyard.init(args)) {
            Comm world = ry.world();
            int peer = 1 - world.rank();
            Comm dup = world.dup();
            int[] v = {world.rank() + 1};
            int[] got = new int[1];
            dup.sendrecv(v, 0, 1, peer, 7, got, 0, 1, peer, 7);
            RankSupport.requireEquals(peer + 1, got[0], "the value over the dup");
            ry.checkpoint(new byte[] {1});
            System.out.println("checkpoint after dup taken");

            Comm split = world.split(0, world.rank());
            RailyardException e = RankSupport.expectFailure(ErrorClass.ARG, "a checkpoint after a split",
                    () -> ry.checkpoint(new byte[] {2}));
            RankSupport.requireContains(e.getMessage(), "1 communicator(s) were made by a call other than dup of an"
                    + " intracommunicator", "the refusal");
            System.out.println("refused after split: " + e.getMessage());

            int[] sum = new int[1];
            split.allreduce(v, 0, sum, 0, 1, org.railyard.Op.SUM);
            RankSupport.requireEquals(3, sum[0], "the sum over the split communicator");
            System.out.println("split sum " + sum[0]);
            dup.sendrecv(v, 0, 1, peer, 8, got, 0, 1, peer, 8);
            RankSupport.requireEquals(peer + 1, got[0], "the value over the dup after the refusal");
        }
    }
}
