package org.railyard.systest.ranks;

import static org.railyard.systest.ranks.RankSupport.requireEquals;

import java.io.InputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.util.List;
import org.railyard.Comm;
import org.railyard.Op;
import org.railyard.Railyard;

/**
 * The target of the wrong-secret test. Rank 0 prints
 * {@code HANDSHAKE port=<its handshake listener> job=<job id> pid=<pid>} (the port read from
 * /proc, the job id from {@code RAILYARD_JOB}: what a stranger on the machine can learn too), then
 * waits, bounded, for the test's "go" on the control port given as the first argument; the other
 * ranks wait in a barrier meanwhile. Then every rank shows the job still works (a barrier, an
 * allreduce and a ring exchange) and prints {@code OK rogue rank R}.
 */
public final class HandshakeTargetRanks {
    private HandshakeTargetRanks() {
    }

    public static void main(String[] args) throws Exception {
        int control = Integer.parseInt(args[0]);
        try (Railyard ry = Railyard.init(args)) {
            Comm world = ry.world();
            int rank = world.rank();
            int size = world.size();
            if (rank == 0) {
                List<Integer> ports = RankSupport.listeningTcpPorts();
                if (ports.size() != 1) {
                    System.out.println("FAIL rogue rank 0: expected exactly one listening TCP port (the handshake"
                            + " listener), found " + ports);
                    System.exit(1);
                }
                System.out.println("HANDSHAKE port=" + ports.getFirst() + " job=" + System.getenv("RAILYARD_JOB")
                        + " pid=" + ProcessHandle.current().pid());
                System.out.flush();
                try (Socket s = new Socket()) {
                    s.connect(new InetSocketAddress("127.0.0.1", control), (int) RankSupport.BOUND.toMillis());
                    s.setSoTimeout((int) RankSupport.BOUND.toMillis() * 2);
                    InputStream in = s.getInputStream();
                    int go = in.read();
                    if (go != 'G') {
                        System.out.println("FAIL rogue rank 0: the test did not say go (read " + go + ")");
                        System.exit(1);
                    }
                }
            }
            world.barrier();
            requireEquals((long) size * (size - 1) / 2, world.allreduce((long) rank, Op.SUM), "allreduce after the rogue");
            long[] in = new long[1];
            world.sendrecv(new long[] {rank}, 0, 1, (rank + 1) % size, 1, in, 0, 1, (rank + size - 1) % size, 1);
            requireEquals((rank + size - 1) % size, in[0], "ring value after the rogue");
            System.out.println("OK rogue rank " + rank);
        }
    }
}
