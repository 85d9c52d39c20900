package org.railyard.engine;

import org.railyard.engine.request.Transfer;
import org.railyard.types.Kind;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.zip.CRC32C;
import org.junit.jupiter.api.Test;
import org.railyard.engine.comm.CommState;
import org.railyard.stats.RailStats;
import org.railyard.stats.Stats;
import org.railyard.testkit.Await;

/**
 * Engines over several real TCP connections per peer on the loopback ({@code railyard.rails}):
 * rendezvous messages striped over the rails arrive intact and in order, and the EPC marker lets
 * non-blocking sends go whole, round robin.
 */
class MultiRailEngineTest {

    private static void withSettings(Map<String, String> settings, Runnable body) {
        Map<String, String> old = new java.util.HashMap<>();
        settings.forEach((k, v) -> {
            old.put(k, System.getProperty(k));
            System.setProperty(k, v);
        });
        try {
            body.run();
        } finally {
            old.forEach((k, v) -> {
                if (v == null) {
                    System.clearProperty(k);
                } else {
                    System.setProperty(k, v);
                }
            });
        }
    }

    private static long crc(byte[] b) {
        CRC32C c = new CRC32C();
        c.update(b);
        return c.getValue();
    }

    private static List<RailStats.Snapshot> railsOf(int rank) {
        return Stats.of(rank).snapshot();
    }

    /**
     * Opens the channel between ranks 0 and 1 with one message each way, then waits (bounded)
     * until this rank sees {@code rails} rails up to the other, so what follows is scheduled over
     * all of them.
     */
    private static void allRailsUp(Engine e, int rails) {
        CommState w = e.world();
        int[] one = new int[1];
        int other = 1 - e.rank();
        if (e.rank() == 0) {
            e.send(w, one, Kind.INT, 0, 1, other, 1000, Engine.MODE_STANDARD);
            e.recv(w, one, Kind.INT, 0, 1, other, 1000, new PointToPointTest.St());
        } else {
            e.recv(w, one, Kind.INT, 0, 1, other, 1000, new PointToPointTest.St());
            e.send(w, one, Kind.INT, 0, 1, other, 1000, Engine.MODE_STANDARD);
        }
        Await.awaitUntil(() -> railsOf(e.rank()).stream().filter(s -> s.peer() == other && s.state().equals("UP")).count() >= rails,
                Duration.ofSeconds(20), () -> "rank " + e.rank() + ": " + rails + " rails up: " + railsOf(e.rank()));
    }

    /**
     * Rank 0 has read its rail counters: rank 1 may finalize. Until then rank 1 waits, so its
     * closing connections cannot take rank 0's rails down (which stops their sampling) mid-read.
     */
    private static void release(Engine e) {
        e.send(e.world(), new int[1], Kind.INT, 0, 1, 1, 1001, Engine.MODE_STANDARD);
    }

    private static void awaitRelease(Engine e) {
        e.recv(e.world(), new int[1], Kind.INT, 0, 1, 0, 1001, new PointToPointTest.St());
    }

    private static long sentOn(int rank, int rail) {
        return railsOf(rank).stream().filter(s -> s.peer() == 1 && s.rail() == rail).findFirst().orElseThrow().bytesSent();
    }

    @Test
    void stripedRendezvousMessagesArriveIntactOverThreeRails() {
        withSettings(Map.of("railyard.rails", "3", "railyard.rail.policy", "even"), () -> {
            try {
                InMemoryJob.run(2, "tcp", (e, w) -> {
                    int n = 12;
                    allRailsUp(e, 3);
                    if (e.rank() == 0) {
                        List<Transfer> ts = new ArrayList<>();
                        long[] sums = new long[n];
                        for (int i = 0; i < n; i++) {
                            byte[] data = new byte[(4 << 20) + i * 1000 + 3];
                            new java.util.Random(i).nextBytes(data);
                            sums[i] = crc(data);
                            ts.add(e.isend(w, data, Kind.BYTE, 0, data.length, 1, i, Engine.MODE_STANDARD));
                        }
                        for (Transfer t : ts) {
                            e.await(t);
                        }
                        e.send(w, sums, Kind.LONG, 0, n, 1, 99, Engine.MODE_STANDARD);
                        // every stripe has been handed to its rail; the stats hold the counters as last
                        // sampled, so wait (bounded) until the samples show each rail's third, while the
                        // rails are still up (read after finalize, a rail the peer's close reset kept a
                        // stale sample)
                        Await.awaitUntil(() -> railsOf(0).stream().filter(s -> s.peer() == 1).count() == 3
                                && railsOf(0).stream().filter(s -> s.peer() == 1).allMatch(s -> s.bytesSent() > 14L << 20),
                                Duration.ofSeconds(20), () -> "each of 3 rails carried its third of 48 MiB; the rails:\n"
                                        + String.join("\n", railsOf(0).stream().map(RailStats.Snapshot::describe).toList()));
                        release(e);
                    } else {
                        long[] got = new long[n];
                        for (int i = 0; i < n; i++) {
                            byte[] data = new byte[(4 << 20) + i * 1000 + 3];
                            e.recv(w, data, Kind.BYTE, 0, data.length, 0, i, new PointToPointTest.St());
                            got[i] = crc(data);
                        }
                        long[] sums = new long[n];
                        e.recv(w, sums, Kind.LONG, 0, n, 0, 99, new PointToPointTest.St());
                        assertThat(got).containsExactly(sums);
                        awaitRelease(e);
                    }
                });
            } catch (Exception ex) {
                throw new AssertionError(ex);
            }
        });
    }

    @Test
    void epcSendsNonBlockingMessagesWholeRoundRobinAndStripesBlockingOnes() {
        withSettings(Map.of("railyard.rails", "2", "railyard.rail.policy", "epc"), () -> {
            try {
                InMemoryJob.run(2, "tcp", (e, w) -> {
                    byte[] big = new byte[2 << 20];
                    allRailsUp(e, 2);
                    if (e.rank() == 0) {
                        long[] before = {sentOn(0, 0), sentOn(0, 1)};
                        e.send(w, big, Kind.BYTE, 0, big.length, 1, 1, Engine.MODE_STANDARD);
                        e.await(e.isend(w, big, Kind.BYTE, 0, big.length, 1, 2, Engine.MODE_STANDARD));
                        e.await(e.isend(w, big, Kind.BYTE, 0, big.length, 1, 3, Engine.MODE_STANDARD));
                        // one blocking message striped (1 MiB each) + two whole non-blocking ones, one per rail;
                        // the stats hold the counters as last sampled, so wait (bounded) until each rail shows
                        // its 3 MiB, then check that neither carried more
                        Await.awaitUntil(() -> sentOn(0, 0) - before[0] >= 3L << 20 && sentOn(0, 1) - before[1] >= 3L << 20,
                                Duration.ofSeconds(10), () -> "3 MiB on each rail: " + (sentOn(0, 0) - before[0]) + " and "
                                        + (sentOn(0, 1) - before[1]) + " bytes");
                        for (int r = 0; r < 2; r++) {
                            assertThat(sentOn(0, r) - before[r]).as("rail %d", r).isBetween(3L << 20, (3L << 20) + (64 << 10));
                        }
                        release(e);
                    } else {
                        for (int tag = 1; tag <= 3; tag++) {
                            e.recv(w, big, Kind.BYTE, 0, big.length, 0, tag, new PointToPointTest.St());
                        }
                        awaitRelease(e);
                    }
                });
            } catch (Exception ex) {
                throw new AssertionError(ex);
            }
        });
    }
}
