package org.railyard.apps.obstacle;

import org.railyard.Comm;

/** Collecting the blocks of a {@link Decomposition} into the whole grid on one rank. */
final class Gather {
    private Gather() {
    }

    /**
     * Collective: every rank gives its block's packed interior ({@code mine}, as
     * {@link GridBlock#packInterior} makes it); {@code root} places each at its offsets and returns
     * the packed {@code n^3} grid ({@link ObstacleProblem#index}), the others return null. Messages
     * use {@code tag} on {@code comm}.
     */
    static double[] blocks(Comm comm, Decomposition decomposition, int n, double[] mine, int root, int tag) {
        int rank = comm.rank();
        if (rank != root) {
            if (mine.length > 0) {
                comm.send(mine, 0, mine.length, root, tag);
            }
            return null;
        }
        double[] global = new double[n * n * n];
        int largest = 0;
        for (int r = 0; r < comm.size(); r++) {
            largest = Math.max(largest, decomposition.volume(r));
        }
        double[] incoming = new double[largest];
        for (int r = 0; r < comm.size(); r++) {
            int volume = decomposition.volume(r);
            if (volume == 0) {
                continue;
            }
            double[] src = mine;
            if (r != root) {
                comm.recv(incoming, 0, volume, r, tag);
                src = incoming;
            }
            GridBlock.unpackInto(global, n, src,
                    decomposition.start(r, 0), decomposition.count(r, 0),
                    decomposition.start(r, 1), decomposition.count(r, 1),
                    decomposition.start(r, 2), decomposition.count(r, 2));
        }
        return global;
    }
}
