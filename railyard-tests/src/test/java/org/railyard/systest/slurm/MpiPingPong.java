package org.railyard.systest.slurm;

import mpi.MPI;

/**
 * The classic mpiJava ping-pong, written against the mpiJava 1.2 API ({@code import mpi.*}) as
 * users' programs are: even ranks send a message of growing size to the next odd rank, which
 * sends it back; each round trip is checked byte for byte. Rank 0 prints
 * {@code PINGPONG OK size=S rounds=R bytes=B} once every pair is done, then every rank prints its
 * bootstrap as the library chose it ({@code BOOTSTRAP rank=R name=...}).
 */
public final class MpiPingPong {
    private MpiPingPong() {
    }

    public static void main(String[] args) throws Exception {
        MPI.Init(args);
        int me = MPI.COMM_WORLD.Rank();
        int np = MPI.COMM_WORLD.Size();
        int rounds = 0;
        long bytes = 0;
        int peer = me % 2 == 0 ? me + 1 : me - 1;
        if (peer < np) {
            for (int len = 1; len <= 1 << 20; len *= 4) {
                byte[] msg = new byte[len];
                byte[] back = new byte[len];
                for (int i = 0; i < len; i++) {
                    msg[i] = (byte) (i * 31 + len + me);
                }
                if (me % 2 == 0) {
                    MPI.COMM_WORLD.Send(msg, 0, len, MPI.BYTE, peer, len);
                    MPI.COMM_WORLD.Recv(back, 0, len, MPI.BYTE, peer, len);
                    for (int i = 0; i < len; i++) {
                        if (back[i] != msg[i]) {
                            throw new IllegalStateException("rank " + me + ": byte " + i + " of " + len + " came back as "
                                    + back[i] + ", sent " + msg[i]);
                        }
                    }
                } else {
                    MPI.COMM_WORLD.Recv(back, 0, len, MPI.BYTE, peer, len);
                    MPI.COMM_WORLD.Send(back, 0, len, MPI.BYTE, peer, len);
                }
                rounds++;
                bytes += 2L * len;
            }
        }
        int[] total = {rounds};
        int[] sum = new int[1];
        MPI.COMM_WORLD.Allreduce(total, 0, sum, 0, 1, MPI.INT, MPI.SUM);
        if (me == 0) {
            System.out.println("PINGPONG OK size=" + np + " rounds=" + sum[0] + " bytes=" + bytes);
        }
        String choices = org.railyard.Railyard.current().choices();
        System.out.println("BOOTSTRAP rank=" + me + " name=" + (choices.contains("bootstrap pmi-2") ? "pmi-2"
                : choices.contains("bootstrap railyard-kv") ? "railyard-kv" : "other"));
        MPI.Finalize();
    }
}
