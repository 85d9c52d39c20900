package org.railyard.systest.pmi;

import org.railyard.Comm;
import org.railyard.Railyard;
import org.railyard.Request;

/**
 * One rank of the Railyard-over-Hydra system test: {@link Railyard#init} (which must pick the
 * PMI-1 bootstrap), a token passed once around the ring of world ranks, a shift where every rank
 * sends to its right neighbour and receives from its left one at the same time, and a barrier.
 * Prints one line the test parses:
 *
 * <pre>RING rank=R size=S token=T left=L bootstrap=pmi-1</pre>
 *
 * where rank 0's token must be 0+1+...+(S-1) and {@code left} the left neighbour's rank.
 */
public final class PmiRingRank {
    private static final int TOKEN_TAG = 11;
    private static final int SHIFT_TAG = 12;

    private PmiRingRank() {
    }

    public static void main(String[] args) {
        try (Railyard ry = Railyard.init(args)) {
            Comm world = ry.world();
            int rank = world.rank();
            int size = world.size();
            int right = (rank + 1) % size;
            int left = (rank + size - 1) % size;

            // Token ring: each rank adds its own number; rank 0 starts it and sees the total.
            int[] token = new int[1];
            if (rank == 0) {
                world.send(token, 0, 1, right, TOKEN_TAG);
                world.recv(token, 0, 1, left, TOKEN_TAG);
            } else {
                world.recv(token, 0, 1, left, TOKEN_TAG);
                token[0] += rank;
                world.send(token, 0, 1, right, TOKEN_TAG);
            }

            // Shift: all send at once, so the sends must not wait for the matching receives.
            long[] out = {rank};
            long[] in = {-1};
            Request sent = world.isend(out, 0, 1, right, SHIFT_TAG);
            world.recv(in, 0, 1, left, SHIFT_TAG);
            sent.await();

            world.barrier();
            String bootstrap = ry.choices().contains("bootstrap pmi-1") ? "pmi-1" : "other";
            System.out.println("RING rank=" + rank + " size=" + size + " token=" + token[0] + " left=" + in[0]
                    + " bootstrap=" + bootstrap);
            System.out.flush();
        }
    }
}
