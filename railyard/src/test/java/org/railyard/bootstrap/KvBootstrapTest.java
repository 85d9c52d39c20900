package org.railyard.bootstrap;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.railyard.testkit.Failures.assertFails;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.railyard.error.ErrorClass;
import org.railyard.error.RailyardException;
import org.railyard.testkit.Await;

/** The key-value bootstrap against a real server on the loopback, ranks as threads. */
@Timeout(60)
class KvBootstrapTest {
    private static final Duration SHORT = Duration.ofSeconds(10);
    private static final String JOB = "test-job-1";

    private final byte[] secret = new byte[32];
    private final List<String> log = new CopyOnWriteArrayList<>();
    private final ExecutorService pool = Executors.newCachedThreadPool();
    private KvServer server;

    @BeforeEach
    void newSecret() {
        new SecureRandom().nextBytes(secret);
    }

    @AfterEach
    void stop() {
        pool.shutdownNow();
        if (server != null) {
            server.close();
        }
    }

    private void serve(int size) throws IOException {
        server = KvServer.start(size, JOB, secret, new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), log::add);
    }

    private Map<String, String> env(int rank, int size, byte[] key) {
        return KvEnv.of(server.port(), rank, size, JOB, key);
    }

    private KvBootstrap join(int rank, int size) {
        return new KvBootstrap(env(rank, size, secret), SHORT);
    }

    @Test
    void getAllReadsManyKeysInFewRequests() throws Exception {
        serve(2);
        Future<KvBootstrap> other = pool.submit(() -> join(1, 2));
        try (KvBootstrap b0 = join(0, 2); KvBootstrap b1 = other.get(30, TimeUnit.SECONDS)) {
            List<String> keys = new ArrayList<>();
            for (int i = 0; i < 600; i++) {
                keys.add("card-" + i);
                b0.put("card-" + i, "v" + i + ";x");
            }
            Future<?> fence1 = pool.submit(() -> b1.fence());
            b0.fence();
            fence1.get(30, TimeUnit.SECONDS);
            long before = server.requestsServed();
            List<String> values = b1.getAll(keys);
            assertThat(server.requestsServed() - before).as("600 keys in MGETs of at most %d", KvBootstrap.MGET_KEYS)
                    .isEqualTo(3);
            for (int i = 0; i < 600; i++) {
                assertThat(values.get(i)).isEqualTo("v" + i + ";x");
            }
            assertThat(b1.getAll(List.of("card-7", "card-3"))).as("from the cache").containsExactly("v7;x", "v3;x");
            assertThat(server.requestsServed() - before).isEqualTo(3);
        }
    }

    @Test
    void getAllOfAKeyNobodyPutTimesOutNamingIt() throws Exception {
        serve(1);
        try (KvBootstrap b = new KvBootstrap(env(0, 1, secret), SHORT, Duration.ofMillis(300))) {
            b.put("here", "1");
            assertThatThrownBy(() -> b.getAll(List.of("here", "absent")))
                    .isInstanceOf(RailyardException.class)
                    .satisfies(x -> assertThat(((RailyardException) x).errorClass()).isEqualTo(ErrorClass.TIMEOUT))
                    .hasMessageContaining("'absent'");
        }
    }

    @Test
    void ranksExchangeKeysThroughFences() throws Exception {
        int size = 4;
        serve(size);
        List<Future<List<String>>> results = new ArrayList<>();
        for (int r = 0; r < size; r++) {
            int rank = r;
            results.add(pool.submit(() -> {
                try (KvBootstrap b = join(rank, size)) {
                    assertThat(b.rank()).isEqualTo(rank);
                    assertThat(b.size()).isEqualTo(size);
                    assertThat(b.jobId()).isEqualTo(JOB);
                    assertThat(b.jobSecret()).isEqualTo(secret);
                    assertThat(b.name()).isEqualTo("railyard-kv");
                    b.put("card-" + rank, "tcp://10.0.0." + rank + ":" + (5000 + rank));
                    b.fence(SHORT);
                    List<String> seen = new ArrayList<>();
                    for (int p = 0; p < size; p++) {
                        seen.add(b.get("card-" + p));
                    }
                    // A second round proves fence numbering stays in step across ranks.
                    b.put("round2-" + rank, "");
                    b.fence(SHORT);
                    assertThat(b.get("round2-" + (rank + 1) % size)).isEmpty();
                    return seen;
                }
            }));
        }
        List<String> expected = List.of("tcp://10.0.0.0:5000", "tcp://10.0.0.1:5001", "tcp://10.0.0.2:5002", "tcp://10.0.0.3:5003");
        for (Future<List<String>> f : results) {
            assertThat(f.get(30, TimeUnit.SECONDS)).isEqualTo(expected);
        }
        // Each client's goodbye is read by the server's own thread, possibly after the client returned.
        Await.awaitUntil(() -> server.departedCount() >= size, Duration.ofSeconds(10),
                () -> size + " goodbyes read by the server, got " + server.departedCount());
        assertThat(server.departedCount()).isEqualTo(size);
        assertThat(log).isEmpty();
    }

    @Test
    void getWaitsForAKeyPutLater() throws Exception {
        serve(2);
        try (KvBootstrap reader = join(0, 2); KvBootstrap writer = join(1, 2)) {
            Future<String> pending = pool.submit(() -> reader.get("late"));
            writer.put("late", "value-1");
            assertThat(pending.get(30, TimeUnit.SECONDS)).isEqualTo("value-1");
        }
    }

    @Test
    void wrongSecretIsRefusedAndLoggedAndTheServerGoesOn() throws Exception {
        serve(2);
        byte[] wrong = secret.clone();
        wrong[0] ^= 1;
        assertFails(ErrorClass.AUTH, () -> new KvBootstrap(env(1, 2, wrong), SHORT))
                .hasMessageContaining("refused rank 1")
                .hasMessageContaining("job secret");
        assertThat(log).singleElement().asString().contains("refused").contains("does not know the job secret");

        // The refused attempt must not have taken rank 1's place.
        Future<String> other = pool.submit(() -> {
            try (KvBootstrap b = join(1, 2)) {
                b.put("k1", "one");
                b.fence(SHORT);
                return b.get("k0");
            }
        });
        try (KvBootstrap b = join(0, 2)) {
            b.put("k0", "zero");
            b.fence(SHORT);
            assertThat(b.get("k1")).isEqualTo("one");
        }
        assertThat(other.get(30, TimeUnit.SECONDS)).isEqualTo("zero");
    }

    @Test
    void strangerThatSpeaksNoProtocolIsRefused() throws Exception {
        serve(1);
        try (Socket s = new Socket(InetAddress.getLoopbackAddress(), server.port())) {
            s.setSoTimeout(10_000);
            s.getOutputStream().write("GET card-0 10\n".getBytes(StandardCharsets.US_ASCII));
            String all = new String(s.getInputStream().readAllBytes(), StandardCharsets.US_ASCII);
            assertThat(all).startsWith("RAILYARD-KV 1 ").contains("DENIED");
        }
        assertThat(log).singleElement().asString().contains("refused").contains("HELLO");
        try (KvBootstrap b = join(0, 1)) {
            b.fence(SHORT);
        }
    }

    @Test
    void secondConnectionForTheSameRankIsRefused() throws Exception {
        serve(2);
        try (KvBootstrap first = join(0, 2)) {
            assertFails(ErrorClass.AUTH, () -> join(0, 2))
                    .hasMessageContaining("rank 0 is already connected");
            first.put("still", "works");
        }
    }

    @Test
    void fenceTimeoutNamesTheMissingRanks() throws Exception {
        serve(4);
        try (KvBootstrap b0 = join(0, 4); KvBootstrap b2 = join(2, 4)) {
            Future<?> other = pool.submit(() -> {
                b2.fence(Duration.ofSeconds(30));
                return null;
            });
            assertFails(ErrorClass.TIMEOUT, () -> b0.fence(Duration.ofMillis(300)))
                    .hasMessageContaining("bootstrap fence 1 of 4 ranks timed out after 300ms")
                    .hasMessageContaining("2 of 4 ranks arrived")
                    .hasMessageContaining("ranks 1, 3");
            // Rank 0 withdrew from fence 1, so with the rest present a retry completes it.
            try (KvBootstrap b1 = join(1, 4); KvBootstrap b3 = join(3, 4)) {
                Future<?> f1 = pool.submit(() -> {
                    b1.fence(SHORT);
                    return null;
                });
                Future<?> f3 = pool.submit(() -> {
                    b3.fence(SHORT);
                    return null;
                });
                b0.fence(SHORT);
                f1.get(30, TimeUnit.SECONDS);
                f3.get(30, TimeUnit.SECONDS);
                other.get(30, TimeUnit.SECONDS);
            }
        }
    }

    @Test
    void getTimeoutNamesTheKey() throws Exception {
        serve(1);
        // connecting and the handshake get their own bound: on a loaded machine the server's greeting alone took 200 ms
        try (KvBootstrap b = new KvBootstrap(env(0, 1, secret), Duration.ofSeconds(30), Duration.ofMillis(200))) {
            assertFails(ErrorClass.TIMEOUT, () -> b.get("never-put"))
                    .hasMessageContaining("'never-put'")
                    .hasMessageContaining("200ms");
            // The wait expired on the server's side, so the connection is still in step.
            b.put("now", "here");
            assertThat(b.get("now")).isEqualTo("here");
        }
    }

    @Test
    void fenceFailsAtOnceWhenARankAlreadySaidGoodbye() throws Exception {
        serve(2);
        try (KvBootstrap b0 = join(0, 2)) {
            join(1, 2).close();
            // Bounded by 60s, but must fail at once: the departure is certain, no need to wait it out.
            long start = System.nanoTime();
            assertFails(ErrorClass.BOOTSTRAP, () -> b0.fence(Duration.ofSeconds(60)))
                    .hasMessageContaining("rank 1 already left the job");
            assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(30));
        }
    }

    @Test
    void serverGoingAwayIsABootstrapError() throws Exception {
        serve(2);
        try (KvBootstrap b = join(0, 2)) {
            Future<?> waiting = pool.submit(() -> {
                b.fence(Duration.ofSeconds(30));
                return null;
            });
            server.close();
            assertThatThrownBy(() -> waiting.get(30, TimeUnit.SECONDS))
                    .cause()
                    .isInstanceOfSatisfying(RailyardException.class, e -> assertThat(e.errorClass()).isEqualTo(ErrorClass.BOOTSTRAP));
            assertThatThrownBy(() -> b.get("x")).hasMessageContaining("unusable");
        }
    }

    @Test
    void nonServerAtTheAddressIsNamed() throws Exception {
        try (ServerSocket fake = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            Future<?> greeter = pool.submit(() -> {
                try (Socket s = fake.accept()) {
                    s.getOutputStream().write("SSH-2.0-OpenSSH_9.6\n".getBytes(StandardCharsets.US_ASCII));
                    s.getInputStream().read();
                }
                return null;
            });
            Map<String, String> env = KvEnv.of(fake.getLocalPort(), 0, 1, JOB, secret);
            assertThatThrownBy(() -> new KvBootstrap(env, SHORT))
                    .hasMessageContaining("is not a Railyard key-value server")
                    .hasMessageContaining("SSH-2.0");
            greeter.get(30, TimeUnit.SECONDS);
        }
    }

    @Test
    void badEnvironmentNamesTheVariable() throws Exception {
        serve(4);
        assertEnvError(Map.of(KvBootstrap.ENV_RANK, ""), "RAILYARD_RANK is not set");
        assertEnvError(Map.of(KvBootstrap.ENV_RANK, "four"), "RAILYARD_RANK='four' is not a rank in [0, 4)");
        assertEnvError(Map.of(KvBootstrap.ENV_RANK, "4"), "RAILYARD_RANK='4' is not a rank in [0, 4) given RAILYARD_SIZE=4");
        assertEnvError(Map.of(KvBootstrap.ENV_SIZE, "0"), "RAILYARD_SIZE='0' is not a job size of at least 1");
        assertEnvError(Map.of(KvBootstrap.ENV_KV, "localhost"), "RAILYARD_KV='localhost' is not host:port");
        assertEnvError(Map.of(KvBootstrap.ENV_KV, "localhost:99999"), "RAILYARD_KV='localhost:99999' is not host:port");
        assertEnvError(Map.of(KvBootstrap.ENV_JOB, "a b"), "RAILYARD_JOB='a b' is not a job id");
        assertEnvError(Map.of(KvBootstrap.ENV_SECRET, "abc123"), "RAILYARD_SECRET must be 64 hexadecimal digits");
        String notHex = "zz".repeat(32);
        assertThatThrownBy(() -> new KvBootstrap(merged(Map.of(KvBootstrap.ENV_SECRET, notHex)), SHORT))
                .hasMessageContaining("not all are hex digits")
                .satisfies(e -> assertThat(e.getMessage()).doesNotContain(notHex));
    }

    @Test
    void badKeysAreRejectedBeforeTheyReachTheWire() throws Exception {
        serve(1);
        try (KvBootstrap b = join(0, 1)) {
            assertThatThrownBy(() -> b.put("a key", "v")).hasMessageContaining("printable ASCII without spaces");
            assertThatThrownBy(() -> b.put("k", "x=y")).hasMessageContaining("value of key 'k'");
            assertThatThrownBy(() -> b.put("", "v")).hasMessageContaining("non-empty");
            b.put("k", "v");
            b.fence(SHORT);
            assertThat(b.get("k")).isEqualTo("v");
        }
        assertThat(log).isEmpty();
    }

    private Map<String, String> merged(Map<String, String> overrides) {
        Map<String, String> env = env(1, 4, secret);
        env.putAll(overrides);
        return env;
    }

    private void assertEnvError(Map<String, String> overrides, String message) {
        assertFails(ErrorClass.BOOTSTRAP, () -> new KvBootstrap(merged(overrides), SHORT))
                .hasMessageContaining(message);
    }
}
