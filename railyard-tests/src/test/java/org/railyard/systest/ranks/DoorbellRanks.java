package org.railyard.systest.ranks;

import static org.railyard.systest.ranks.RankSupport.await;
import static org.railyard.systest.ranks.RankSupport.fillBytes;
import static org.railyard.systest.ranks.RankSupport.require;
import static org.railyard.systest.ranks.RankSupport.requireEquals;
import static org.railyard.systest.ranks.RankSupport.verifyBytes;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReference;
import org.railyard.Comm;
import org.railyard.Datatype;
import org.railyard.Railyard;
import org.railyard.Status;
import org.railyard.engine.Engine;

/**
 * Waiters woken by the doorbell of shared memory ({@code railyard.doorbell}): in each check one
 * party is late on purpose, so that the other has gone to sleep when the frame it waits for is
 * written. Each check prints {@code OK <check> rank R woken W}: the sleeps of this rank that a
 * peer's ring ended before their time. Run with 3 ranks over shm, with no yielding before the
 * parks ({@code RAILYARD_IDLE_YIELDS=0}); without a ring each sleep would run its full time.
 */
public final class DoorbellRanks {
    /** How late the late party is: long enough for the waiter to be asleep. */
    private static final long LATE_MILLIS = 300;
    /** Three times the default shm ring: the sender must wait for room. */
    private static final int LARGE = 12 * 1024 * 1024 + 3;

    /** The checks in the order they run; the test knows their names and who waits in each. */
    public static final List<String> CHECKS = List.of("late-send", "room", "threads");

    private final Comm world;
    private final int rank;

    private DoorbellRanks(Railyard ry) {
        this.world = ry.world();
        this.rank = ry.rank();
    }

    public static void main(String[] args) {
        try (Railyard ry = Railyard.init(args)) {
            require(ry.size() == 3, "run with 3 ranks, got " + ry.size());
            DoorbellRanks s = new DoorbellRanks(ry);
            Engine engine = ry.engine();
            for (int peer = 0; peer < 3; peer++) {
                // every channel up before the checks
                s.world.sendrecv(new byte[1], 0, 1, peer, 1, new byte[1], 0, 1, peer, 1);
            }
            for (Map.Entry<String, Runnable> c : s.checks().entrySet()) {
                s.world.barrier();
                long woken = engine.doorbellWakes();
                try {
                    c.getValue().run();
                } catch (Throwable t) {
                    System.out.println("FAIL " + c.getKey() + " rank " + s.rank + ": " + t.toString().replace('\n', ' '));
                    System.out.flush();
                    t.printStackTrace();
                    System.exit(1);
                }
                System.out.println("OK " + c.getKey() + " rank " + s.rank + " woken " + (engine.doorbellWakes() - woken));
            }
            s.world.barrier();
        }
        System.out.flush();
    }

    private Map<String, Runnable> checks() {
        Map<String, Runnable> m = new LinkedHashMap<>();
        m.put("late-send", this::lateSend);
        m.put("room", this::room);
        m.put("threads", this::threads);
        require(m.keySet().equals(new java.util.LinkedHashSet<>(CHECKS)), "check list out of date");
        return m;
    }

    private static void late() {
        try {
            Thread.sleep(LATE_MILLIS);
        } catch (InterruptedException e) {
            throw new IllegalStateException(e);
        }
    }

    /** Rank 0 waits for 8 bytes that rank 1 sends late, three times. */
    private void lateSend() {
        for (int round = 0; round < 3; round++) {
            byte[] b = new byte[8];
            if (rank == 1) {
                late();
                fillBytes(b, 0, 8, 1, round);
                world.send(b, 0, 8, 0, 40 + round);
            } else if (rank == 0) {
                Status st = world.recv(b, 0, 8, 1, 40 + round);
                requireEquals(8, st.count(Datatype.BYTE), "count");
                verifyBytes(b, 0, 8, 1, round, "late message " + round);
            }
        }
    }

    /**
     * Rank 1 sends 12 MiB to rank 0, which posts its receive late: rank 1 waits for the answer
     * to its request to send, then for room in the ring as rank 0 drains it.
     */
    private void room() {
        if (rank == 1) {
            byte[] b = new byte[LARGE];
            fillBytes(b, 0, LARGE, 1, 7);
            world.send(b, 0, LARGE, 0, 50);
        } else if (rank == 0) {
            late();
            byte[] b = new byte[LARGE];
            Status st = world.recv(b, 0, LARGE, 1, 50);
            requireEquals(LARGE, st.count(Datatype.BYTE), "count");
            verifyBytes(b, 0, LARGE, 1, 7, "large message");
        }
    }

    /**
     * Two threads of rank 0: one waits for a message to itself, which the other sends late. The
     * frame crosses the self link, whose bell the sender rings.
     */
    private void threads() {
        if (rank != 0) {
            return;
        }
        AtomicReference<Throwable> failed = new AtomicReference<>();
        Thread sender = Thread.ofPlatform().name("late-sender").start(() -> {
            try {
                late();
                byte[] b = new byte[16];
                fillBytes(b, 0, 16, 0, 3);
                world.send(b, 0, 16, 0, 60);
            } catch (Throwable t) {
                failed.set(t);
            }
        });
        byte[] b = new byte[16];
        await(world.irecv(b, 0, 16, 0, 60), "message from the other thread");
        verifyBytes(b, 0, 16, 0, 3, "message to itself");
        try {
            sender.join(RankSupport.BOUND.toMillis());
        } catch (InterruptedException e) {
            throw new IllegalStateException(e);
        }
        require(!sender.isAlive(), "the sending thread did not finish");
        if (failed.get() != null) {
            throw new IllegalStateException("the sending thread failed", failed.get());
        }
    }
}
