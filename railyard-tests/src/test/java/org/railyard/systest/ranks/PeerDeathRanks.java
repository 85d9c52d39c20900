package org.railyard.systest.ranks;

import java.time.Duration;
import org.railyard.Comm;
import org.railyard.Railyard;
import org.railyard.Request;
import org.railyard.Status;
import org.railyard.error.RailyardException;

/**
 * Two ranks, started by the test itself (no launcher, so that nothing but the engine can notice
 * a death). Arguments: the bound in seconds for each wait of rank 1, and the mode, {@code kill},
 * {@code finalize} or {@code drain}.
 *
 * <p>After an exchange that opens their connection, rank 1 posts a receive from rank 0, a
 * rendezvous send of 4 MiB to rank 0 (which rank 0 never matches) and, in kill mode, a wildcard
 * receive, and prints {@code POSTED}. In kill mode rank 0 prints {@code READY} and blocks until the
 * test kills it with SIGKILL; in finalize mode rank 1 tells rank 0 it has posted, and rank 0 leaves
 * the job normally ({@link Railyard#close}) with all of that unmatched, and exits 0.
 *
 * <p>Rank 1 waits for each request with the bound and prints, per request,
 * {@code RESULT <name> FAILED <error class> <message>}, {@code RESULT <name> COMPLETED}, or
 * {@code RESULT <name> PENDING} if the bound expired; then tries one more send to rank 0
 * ({@code RESULT late-send ...}), and exits 0.
 *
 * <p>In drain mode rank 0 sends 120 eager messages (more than a shared-memory ring holds) and
 * leaves; rank 1 first waits until it sees rank 0 gone ({@code RESULT left-probe FAILED
 * PEER_FAILED ...}), then must still receive every message ({@code RESULT drain COMPLETED ...}).
 */
public final class PeerDeathRanks {
    private PeerDeathRanks() {
    }

    public static void main(String[] args) {
        Duration bound = Duration.ofSeconds(Long.parseLong(args[0]));
        boolean kill = args[1].equals("kill");
        // drain mode: like finalize for rank 0, see drain()
        try (Railyard ry = Railyard.init(args)) {
            Comm world = ry.world();
            int[] one = new int[1];
            if (ry.rank() == 0) {
                world.send(one, 0, 1, 1, 1);
                world.recv(one, 0, 1, 1, 2);
                if (kill) {
                    System.out.println("READY pid " + ProcessHandle.current().pid());
                    System.out.flush();
                    world.recv(one, 0, 1, 1, 99); // never sent: rank 0 is killed here
                    System.out.println("UNEXPECTED rank 0 received tag 99");
                    System.exit(5);
                }
                if (args[1].equals("drain")) {
                    // more than a shared-memory ring holds, all eager: sent, then the sender leaves
                    for (int i = 0; i < DRAIN_MESSAGES; i++) {
                        int[] d = new int[drainLength(i, (int) ry.engine().eagerLimit())];
                        RankSupport.fillInts(d, 0, d.length, 0, i);
                        world.send(d, 0, d.length, 1, 60);
                    }
                    System.out.println("LEAVING after " + DRAIN_MESSAGES + " messages");
                    System.out.flush();
                    return;
                }
                world.recv(one, 0, 1, 1, 3);
                System.out.println("LEAVING");
                System.out.flush();
                return; // close() says goodbye with rank 1's receive and rendezvous send unmatched
            }
            world.recv(one, 0, 1, 0, 1);
            world.send(one, 0, 1, 0, 2);
            if (args[1].equals("drain")) {
                drain(world, bound, (int) ry.engine().eagerLimit());
                return;
            }
            Request recv = world.irecv(new int[1], 0, 1, 0, 50);
            Request rendezvous = world.isend(new byte[4 << 20], 0, 4 << 20, 0, 51);
            Request wildcard = kill ? world.irecv(new int[1], 0, 1, Comm.ANY_SOURCE, 52) : null;
            System.out.println("POSTED");
            System.out.flush();
            if (!kill) {
                world.send(one, 0, 1, 0, 3);
            }
            report("recv", recv, bound);
            report("rendezvous-send", rendezvous, bound);
            if (wildcard != null) {
                report("wildcard-recv", wildcard, bound);
            }
            try {
                world.send(one, 0, 1, 0, 53);
                System.out.println("RESULT late-send COMPLETED");
            } catch (RailyardException e) {
                System.out.println("RESULT late-send FAILED " + e.errorClass() + " " + e.getMessage());
            }
            System.out.flush();
        }
    }

    static final int DRAIN_MESSAGES = 120;

    /** Length in ints of message {@code i} of the drain mode: up to the eager limit. */
    static int drainLength(int i, int eagerLimit) {
        return i % 3 == 0 ? eagerLimit / 4 : 1 + i * 97 % (eagerLimit / 4);
    }

    /**
     * Drain mode, rank 1: waits until rank 0 has left (a receive of a tag it never sends fails
     * with PEER_FAILED), then receives everything rank 0 sent before leaving.
     */
    private static void drain(Comm world, Duration bound, int eagerLimit) {
        report("left-probe", world.irecv(new int[1], 0, 1, 0, 999), bound);
        int[] buf = new int[eagerLimit / 4];
        int got = 0;
        try {
            for (int i = 0; i < DRAIN_MESSAGES; i++) {
                Request r = world.irecv(buf, 0, buf.length, 0, 60);
                Status st = r.await(bound);
                if (st == null) {
                    break;
                }
                int len = drainLength(i, eagerLimit);
                if (st.count() != len) {
                    System.out.println("RESULT drain WRONG message " + i + " has " + st.count() + " ints, expected " + len);
                    return;
                }
                RankSupport.verifyInts(buf, 0, len, 0, i, "message " + i);
                got++;
            }
            System.out.println("RESULT drain " + (got == DRAIN_MESSAGES ? "COMPLETED" : "PENDING") + " " + got + " of "
                    + DRAIN_MESSAGES + " messages received after rank 0 left");
        } catch (RailyardException | AssertionError e) {
            System.out.println("RESULT drain FAILED after " + got + " of " + DRAIN_MESSAGES + " messages: " + e);
        }
    }

    private static void report(String name, Request r, Duration bound) {
        try {
            Status st = r.await(bound);
            System.out.println("RESULT " + name + (st == null ? " PENDING after " + bound.toSeconds() + " s" : " COMPLETED"));
        } catch (RailyardException e) {
            System.out.println("RESULT " + name + " FAILED " + e.errorClass() + " " + e.getMessage());
        }
        System.out.flush();
    }
}
