package org.railyard.systest.ranks;

import mpi.MPI;
import mpi.MPIException;

/**
 * A ping-pong written against the mpiJava 1.2 API, between rank 0 and the last rank (of another
 * site when the job spans two): messages of 1 B to 4 MiB, each filled with a pattern of its round
 * and checked on both ends. Prints {@code PINGPONG OK rounds=N bytes=B} on rank 0.
 *
 * <p>With argument {@code forever}, rank 0 prints {@code PINGPONG RUNNING} after the first round
 * and goes on until a call fails, then prints {@code PINGPONG FAILED: <message>} and exits 3
 * (what a test that kills a gateway waits for).
 *
 * <p>With arguments {@code until FILE}, every rank r of the first half plays with rank
 * {@code size-1-r} (across the sites when each site holds half), and each pair's leader (the lower
 * rank) prints {@code PINGPONG AT n} every 20 rounds; each pair's leader stops when FILE exists (a message of
 * tag {@link #STOP}). After a barrier no message may be left over: one delivered twice would be
 * ({@code PINGPONG DUPLICATE}, exit 4).
 */
public final class GatewayPingPongRanks {
    private GatewayPingPongRanks() {
    }

    /** The tag that ends a pair's play in {@code until} mode. */
    static final int STOP = 1 << 20;

    public static void main(String[] args) {
        MPI.Init(args);
        if (args.length > 1 && args[0].equals("until")) {
            untilStopped(java.nio.file.Path.of(args[1]));
            return;
        }
        boolean forever = args.length > 0 && args[0].equals("forever");
        int rank = MPI.COMM_WORLD.Rank();
        int last = MPI.COMM_WORLD.Size() - 1;
        int[] sizes = {1, 100, 4096, 65536, 65537, 1 << 20, 4 << 20};
        long bytes = 0;
        int rounds = 0;
        try {
            for (int i = 0; forever || i < sizes.length * 3; i++) {
                int n = sizes[i % sizes.length];
                byte[] buf = new byte[n];
                if (rank == 0) {
                    fill(buf, i);
                    MPI.COMM_WORLD.Send(buf, 0, n, MPI.BYTE, last, i);
                    byte[] back = new byte[n];
                    MPI.COMM_WORLD.Recv(back, 0, n, MPI.BYTE, last, i);
                    check(back, i + 1, "rank 0, round " + i);
                    bytes += 2L * n;
                    rounds++;
                    if (rounds == 1 && forever) {
                        System.out.println("PINGPONG RUNNING");
                    }
                } else if (rank == last) {
                    MPI.COMM_WORLD.Recv(buf, 0, n, MPI.BYTE, 0, i);
                    check(buf, i, "rank " + last + ", round " + i);
                    fill(buf, i + 1);
                    MPI.COMM_WORLD.Send(buf, 0, n, MPI.BYTE, 0, i);
                }
            }
        } catch (MPIException e) {
            failed(e);
        }
        MPI.COMM_WORLD.Barrier();
        if (rank == 0) {
            System.out.println("PINGPONG OK rounds=" + rounds + " bytes=" + bytes);
        }
        MPI.Finalize();
    }

    private static void untilStopped(java.nio.file.Path stop) {
        int rank = MPI.COMM_WORLD.Rank();
        int size = MPI.COMM_WORLD.Size();
        int partner = size - 1 - rank;
        int[] sizes = {1, 100, 4096, 65536, 65537, 1 << 20, 4 << 20};
        int rounds = 0;
        try {
            if (partner != rank) {
                boolean leader = rank < partner;
                for (int i = 0; ; i++) {
                    int n = sizes[i % sizes.length];
                    byte[] buf = new byte[n];
                    if (leader) {
                        if (java.nio.file.Files.exists(stop)) {
                            MPI.COMM_WORLD.Send(buf, 0, 0, MPI.BYTE, partner, STOP);
                            break;
                        }
                        fill(buf, i);
                        MPI.COMM_WORLD.Send(buf, 0, n, MPI.BYTE, partner, i);
                        MPI.COMM_WORLD.Recv(buf, 0, n, MPI.BYTE, partner, i);
                        check(buf, i + 1, "rank " + rank + ", round " + i);
                        rounds++;
                        if (rounds % 20 == 0) {
                            System.out.println("PINGPONG AT " + rounds);
                        }
                    } else {
                        mpi.Status st = MPI.COMM_WORLD.Recv(buf, 0, n, MPI.BYTE, partner, MPI.ANY_TAG);
                        if (st.tag == STOP) {
                            break;
                        }
                        if (st.tag != i || st.Get_count(MPI.BYTE) != n) {
                            throw new AssertionError("rank " + rank + ", round " + i + ": got tag " + st.tag + " and "
                                    + st.Get_count(MPI.BYTE) + " bytes");
                        }
                        check(buf, i, "rank " + rank + ", round " + i);
                        fill(buf, i + 1);
                        MPI.COMM_WORLD.Send(buf, 0, n, MPI.BYTE, partner, i);
                    }
                }
            }
            MPI.COMM_WORLD.Barrier();
            mpi.Status left = MPI.COMM_WORLD.Iprobe(MPI.ANY_SOURCE, MPI.ANY_TAG);
            if (left != null) {
                System.out.println("PINGPONG DUPLICATE: rank " + rank + " holds a message from rank " + left.source
                        + " with tag " + left.tag + " after the last round");
                System.out.flush();
                System.exit(4);
            }
            MPI.COMM_WORLD.Barrier();
        } catch (MPIException e) {
            failed(e);
        }
        if (rank == 0) {
            System.out.println("PINGPONG OK rounds=" + rounds);
        }
        MPI.Finalize();
    }

    /** Prints {@code PINGPONG FAILED: <class> <message>} and exits 3. */
    private static void failed(MPIException e) {
        Throwable c = e.getCause() != null ? e.getCause() : e;
        String kind = c instanceof org.railyard.error.RailyardException r ? r.errorClass() + " " : "";
        System.out.println("PINGPONG FAILED: " + kind + c.getMessage());
        System.out.flush();
        System.exit(3);
    }

    private static void fill(byte[] b, int round) {
        for (int i = 0; i < b.length; i++) {
            b[i] = (byte) (i * 31 + round * 7);
        }
    }

    private static void check(byte[] b, int round, String where) {
        for (int i = 0; i < b.length; i++) {
            if (b[i] != (byte) (i * 31 + round * 7)) {
                throw new AssertionError(where + ": byte " + i + " of " + b.length + " is " + b[i]);
            }
        }
    }
}
