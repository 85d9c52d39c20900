package org.railyard.systest;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.fail;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.railyard.bootstrap.KvBootstrap;
import org.railyard.bootstrap.KvServer;
import org.railyard.systest.Transcript.Line;
import org.railyard.systest.ranks.PeerDeathRanks;

/**
 * A peer's death seen by the engine itself, not by a launcher: the test serves the key-value
 * bootstrap ({@link KvServer}) and starts two ranks of {@link PeerDeathRanks} as plain processes.
 * Once rank 1 has a receive from rank 0, a rendezvous send to rank 0 and a wildcard receive
 * pending, the test kills rank 0 with SIGKILL. Each of rank 1's requests must then fail, within
 * the bound rank 1 waits, with PEER_FAILED naming rank 0, and so must a later send to rank 0; rank
 * 1 exits 0. Over shm (where the death shows on the liveness socket) and over tcp. The same when
 * rank 0 leaves the job normally with rank 1's receive and rendezvous send unmatched: they fail
 * with PEER_FAILED saying rank 0 left, instead of waiting for ever. And what a rank sent before
 * leaving (more eager messages than a shared-memory ring holds) is still delivered after it left.
 */
@Timeout(value = 5, unit = TimeUnit.MINUTES)
class PeerDeathSystemTest {
    /** How long rank 1 waits for each request to fail; generous for a loaded machine. */
    private static final int FAIL_BOUND_SECONDS = 20;
    private static final Duration BOUND = Duration.ofSeconds(90);

    @ParameterizedTest(name = "over {0}")
    @ValueSource(strings = {"shm", "tcp"})
    void requestsOnAKilledPeerFailWithPeerFailed(String transport) throws Exception {
        run(transport, true);
    }

    @ParameterizedTest(name = "over {0}")
    @ValueSource(strings = {"shm", "tcp"})
    void requestsOnAPeerThatLeftFailWithPeerFailed(String transport) throws Exception {
        run(transport, false);
    }

    @ParameterizedTest(name = "over {0}")
    @ValueSource(strings = {"shm", "tcp"})
    void messagesSentBeforeAPeerLeftAreStillDelivered(String transport) throws Exception {
        Transcript t = new Transcript();
        withKv(t, transport, "drain", common -> {
            try (RankProcess r0 = RankProcess.start(0, PeerDeathRanks.class, with(common, 0), t, "60", "drain");
                 RankProcess r1 = RankProcess.start(1, PeerDeathRanks.class, with(common, 1), t, "60", "drain")) {
                assertThat(r0.awaitExit(BOUND)).as("exit code of rank 0\n%s", t.tail(60)).isZero();
                assertThat(r1.awaitExit(BOUND)).as("exit code of rank 1\n%s", t.tail(60)).isZero();
                List<String> out1 = t.texts(1, Transcript.Stream.OUT);
                assertThat(out1).as("rank 1 saw rank 0 leave\n%s", t.tail(60))
                        .anyMatch(l -> l.startsWith("RESULT left-probe FAILED PEER_FAILED ") && l.contains("rank 0"));
                assertThat(out1).as("rank 1 received what rank 0 sent before leaving\n%s", t.tail(60))
                        .contains("RESULT drain COMPLETED 120 of 120 messages received after rank 0 left");
            }
        });
    }

    private interface WithEnv {
        void run(Map<String, String> common) throws Exception;
    }

    /** Serves the bootstrap of a 2-rank job over {@code transport}; saves the transcript as peer-{@code mode}-{@code transport}. */
    private static void withKv(Transcript t, String transport, String mode, WithEnv body) throws Exception {
        byte[] secret = new byte[32];
        new SecureRandom().nextBytes(secret);
        String jobId = "systest-peer-" + mode + "-" + transport + "-" + ProcessHandle.current().pid();
        try (KvServer kv = KvServer.start(2, jobId, secret, new InetSocketAddress(InetAddress.getLoopbackAddress(), 0),
                msg -> t.add(new Line(-1, Transcript.Stream.ERR, msg)))) {
            Map<String, String> common = Map.of(
                    KvBootstrap.ENV_KV, "127.0.0.1:" + kv.port(),
                    KvBootstrap.ENV_SIZE, "2",
                    KvBootstrap.ENV_JOB, jobId,
                    KvBootstrap.ENV_SECRET, HexFormat.of().formatHex(secret),
                    "RAILYARD_TRANSPORTS", transport);
            try {
                body.run(common);
            } finally {
                t.save("peer-" + mode + "-" + transport);
            }
        }
    }

    private static void run(String transport, boolean kill) throws Exception {
        Transcript t = new Transcript();
        withKv(t, transport, kill ? "kill" : "finalize", common -> run(transport, kill, t, common));
    }

    private static void run(String transport, boolean kill, Transcript t, Map<String, String> common) throws Exception {
        String bound = Integer.toString(FAIL_BOUND_SECONDS);
        String mode = kill ? "kill" : "finalize";
        try (RankProcess r0 = RankProcess.start(0, PeerDeathRanks.class, with(common, 0), t, bound, mode);
             RankProcess r1 = RankProcess.start(1, PeerDeathRanks.class, with(common, 1), t, bound, mode)) {
            await(t, 1, "POSTED");
            if (kill) {
                await(t, 0, "READY pid ");
                r0.process().destroyForcibly();
            }
            Integer code0 = r0.awaitExit(BOUND);
            assertThat(code0).as("exit code of rank 0\n%s", t.tail(60)).isEqualTo(kill ? 128 + 9 : 0);

            Integer code1 = r1.awaitExit(BOUND);
            if (code1 == null) {
                fail("rank 1 did not end within " + BOUND.toSeconds() + " s of rank 0's end\n" + t.tail(60));
            }
            String[] names = kill ? new String[] {"recv", "rendezvous-send", "wildcard-recv", "late-send"}
                    : new String[] {"recv", "rendezvous-send", "late-send"};
            for (String name : names) {
                String result = t.texts(1, Transcript.Stream.OUT).stream().filter(l -> l.startsWith("RESULT " + name + " "))
                        .findFirst().orElseGet(() -> fail("rank 1 printed no result for its " + name + "\n" + t.tail(60)));
                assertThat(result).as("%s of rank 1 after rank 0 %s (over %s)\n%s", name, kill ? "was killed" : "left",
                                transport, t.tail(60))
                        .startsWith("RESULT " + name + " FAILED PEER_FAILED ")
                        .containsPattern("rank 0\\b");
            }
            assertThat(code1).as("exit code of rank 1\n%s", t.tail(60)).isZero();
        }
    }

    private static Map<String, String> with(Map<String, String> common, int rank) {
        Map<String, String> env = new java.util.HashMap<>(common);
        env.put(KvBootstrap.ENV_RANK, Integer.toString(rank));
        return env;
    }

    private static void await(Transcript t, int rank, String prefix) throws InterruptedException {
        Optional<Line> l = t.await(x -> x.rank() == rank && x.stream() == Transcript.Stream.OUT && x.text().startsWith(prefix), BOUND);
        if (l.isEmpty()) {
            fail("rank " + rank + " did not print '" + prefix + "' within " + BOUND.toSeconds() + " s\n" + t.tail(60));
        }
    }
}
