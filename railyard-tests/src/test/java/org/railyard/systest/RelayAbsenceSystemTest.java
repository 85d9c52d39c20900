package org.railyard.systest;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.fail;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.railyard.bootstrap.KvBootstrap;
import org.railyard.bootstrap.KvServer;
import org.railyard.systest.Transcript.Line;
import org.railyard.systest.ranks.PeerDeathRanks;

/**
 * {@code railyard.relay.absence} with a real relay process: two ranks of {@link PeerDeathRanks}
 * that reach each other only through the relay; once rank 1 has a receive from rank 0, a
 * rendezvous send to it and a wildcard receive pending, rank 0 is SIGKILLed. The relay sees its
 * receiving connection end; rank 1 asks the relay about rank 0 and, once rank 0 has been away
 * longer than the absence bound (3 s here), every one of its requests fails with PEER_FAILED
 * naming rank 0, within the bound the rank program waits (20 s), and rank 1 exits 0.
 */
@Timeout(value = 5, unit = TimeUnit.MINUTES)
class RelayAbsenceSystemTest {
    private static final Duration BOUND = Duration.ofSeconds(90);

    @Test
    void ranksWaitingOnARankAwayBeyondTheAbsenceBoundGetPeerFailed() throws Exception {
        Transcript t = new Transcript();
        byte[] secret = new byte[32];
        new SecureRandom().nextBytes(secret);
        String jobId = "systest-relay-absence-" + ProcessHandle.current().pid();
        try (RelayProcess relay = RelayProcess.start("127.0.0.1", 0);
             KvServer kv = KvServer.start(2, jobId, secret, new InetSocketAddress(InetAddress.getLoopbackAddress(), 0),
                     msg -> t.add(new Line(-1, Transcript.Stream.ERR, msg)))) {
            Map<String, String> common = Map.of(KvBootstrap.ENV_KV, "127.0.0.1:" + kv.port(), KvBootstrap.ENV_SIZE, "2",
                    KvBootstrap.ENV_JOB, jobId, KvBootstrap.ENV_SECRET, HexFormat.of().formatHex(secret),
                    "RAILYARD_TRANSPORTS", "relay", "RAILYARD_RELAYS", relay.address(), "RAILYARD_RELAY_ABSENCE", "3s");
            try (RankProcess r0 = RankProcess.start(0, PeerDeathRanks.class, with(common, 0), t, "20", "kill");
                 RankProcess r1 = RankProcess.start(1, PeerDeathRanks.class, with(common, 1), t, "20", "kill")) {
                await(t, 1, "POSTED");
                await(t, 0, "READY pid ");
                long killedAt = System.nanoTime();
                r0.process().destroyForcibly();
                Integer code1 = r1.awaitExit(BOUND);
                if (code1 == null) {
                    fail("rank 1 did not end within " + BOUND.toSeconds() + " s of rank 0's death\n" + t.tail(60));
                }
                long seconds = TimeUnit.NANOSECONDS.toSeconds(System.nanoTime() - killedAt);
                for (String name : new String[] {"recv", "rendezvous-send", "wildcard-recv", "late-send"}) {
                    String result = t.texts(1, Transcript.Stream.OUT).stream().filter(l -> l.startsWith("RESULT " + name + " "))
                            .findFirst().orElseGet(() -> fail("rank 1 printed no result for its " + name + "\n" + t.tail(60)));
                    assertThat(result).as("%s of rank 1 after rank 0 was killed\n%s", name, t.tail(60))
                            .startsWith("RESULT " + name + " FAILED PEER_FAILED ").containsPattern("rank 0\\b");
                }
                assertThat(t.lines()).as("rank 1 says rank 0 was away too long\n%s", t.tail(60))
                        .anyMatch(l -> l.text().contains("rank 0 has been away from its relay"));
                assertThat(code1).as("exit code of rank 1\n%s", t.tail(60)).isZero();
                assertThat(seconds).as("seconds from the kill to rank 1's end").isLessThan(40);
            } finally {
                t.save("relay-absence");
            }
        }
    }

    private static Map<String, String> with(Map<String, String> common, int rank) {
        Map<String, String> env = new HashMap<>(common);
        env.put(KvBootstrap.ENV_RANK, Integer.toString(rank));
        return env;
    }

    private static void await(Transcript t, int rank, String prefix) {
        if (t.await(x -> x.rank() == rank && x.stream() == Transcript.Stream.OUT && x.text().startsWith(prefix), BOUND).isEmpty()) {
            fail("rank " + rank + " did not print '" + prefix + "' within " + BOUND.toSeconds() + " s\n" + t.tail(60));
        }
    }
}
