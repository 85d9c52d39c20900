package org.railyard.bootstrap;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.net.InetAddress;
import java.net.ServerSocket;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.assertj.core.api.AbstractThrowableAssert;
import org.assertj.core.api.ThrowableAssert.ThrowingCallable;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.railyard.error.ErrorClass;
import org.railyard.error.RailyardException;

/**
 * {@link Pmi1Bootstrap} against {@link PmiFakeServer} over real sockets: the -pmi-port path, the
 * PMI_FD path (a socketpair), long values, and every way the server can fail it. Timeouts are
 * real, short bounds on waits for answers that never come; nothing sleeps.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class Pmi1BootstrapTest {
    private static final Duration BOUND = Duration.ofSeconds(10);
    private static final Duration SHORT = Duration.ofMillis(300);

    @Test
    void portModeSingleRankFollowsHydraSequence() throws Exception {
        try (PmiFakeServer server = new PmiFakeServer(1)) {
            byte[] secret;
            try (Pmi1Bootstrap boot = new Pmi1Bootstrap(server.portEnv(0), BOUND)) {
                assertThat(boot.rank()).isZero();
                assertThat(boot.size()).isEqualTo(1);
                assertThat(boot.name()).isEqualTo("pmi-1");
                assertThat(boot.jobId()).isEqualTo(server.kvsname);
                secret = boot.jobSecret();
                assertThat(secret).hasSize(32);
                boot.put("card.0", "tcp:127.0.0.1:5000");
                boot.fence();
                assertThat(boot.get("card.0")).isEqualTo("tcp:127.0.0.1:5000");
            }
            assertThat(server.committed.get(Pmi1Bootstrap.SECRET_KEY)).isEqualTo(HexFormat.of().formatHex(secret));
            List<String> cmds = server.received.stream().map(l -> PmiFakeServer.attributes(l).get("cmd")).toList();
            assertThat(cmds).containsExactly("initack", "init", "get_maxes", "get_my_kvsname", "put", "barrier_in",
                    "get", "put", "barrier_in", "get", "finalize");
            assertThat(server.received.getFirst()).isEqualTo("cmd=initack pmiid=0");
            assertThat(server.received.get(1)).isEqualTo("cmd=init pmi_version=1 pmi_subversion=1");
        }
    }

    @Test
    void abortSendsTheExitCodeAndBreaksTheConnection() throws Exception {
        try (PmiFakeServer server = new PmiFakeServer(1);
                Pmi1Bootstrap boot = new Pmi1Bootstrap(server.portEnv(0), BOUND)) {
            boot.abort(7, "rank 0 gave up");
            assertFails(ErrorClass.BOOTSTRAP, () -> boot.get("a")).hasMessageContaining("abort");
            org.railyard.testkit.Await.awaitUntil(() -> !server.requests("abort").isEmpty(), Duration.ofSeconds(10),
                    "the abort at the server");
            assertThat(server.requests("abort")).containsExactly("cmd=abort exitcode=7");
        }
    }

    @Test
    void fourRanksShareKeysAndOneSecret() throws Exception {
        int n = 4;
        try (PmiFakeServer server = new PmiFakeServer(n)) {
            ExecutorService pool = Executors.newFixedThreadPool(n);
            try {
                List<Future<String>> results = new ArrayList<>();
                for (int id = 0; id < n; id++) {
                    int pmiId = id;
                    results.add(pool.submit(() -> {
                        try (Pmi1Bootstrap boot = new Pmi1Bootstrap(server.portEnv(pmiId), BOUND)) {
                            assertThat(boot.rank()).isEqualTo(pmiId);
                            assertThat(boot.size()).isEqualTo(n);
                            boot.put("k" + boot.rank(), "v" + boot.rank());
                            boot.fence();
                            StringBuilder seen = new StringBuilder();
                            for (int r = 0; r < n; r++) {
                                seen.append(boot.get("k" + r)).append(',');
                            }
                            return seen + HexFormat.of().formatHex(boot.jobSecret());
                        }
                    }));
                }
                String first = results.getFirst().get(30, TimeUnit.SECONDS);
                assertThat(first).startsWith("v0,v1,v2,v3,");
                for (Future<String> f : results) {
                    assertThat(f.get(30, TimeUnit.SECONDS)).isEqualTo(first);
                }
            } finally {
                pool.shutdownNow();
            }
            // Only rank 0 draws and publishes the secret.
            assertThat(server.requests("put").stream().filter(l -> l.contains(Pmi1Bootstrap.SECRET_KEY))).hasSize(1);
            assertThat(server.requests("finalize")).hasSize(n);
        }
    }

    @Test
    void fdModeOverSocketpair() throws Throwable {
        try (PmiFakeServer server = new PmiFakeServer(1)) {
            Map<String, String> env = server.fdEnv();
            try (Pmi1Bootstrap boot = new Pmi1Bootstrap(env, BOUND)) {
                assertThat(boot.rank()).isZero();
                assertThat(boot.size()).isEqualTo(1);
                assertThat(boot.jobSecret()).hasSize(32);
                boot.put("x", "y");
                boot.fence(Duration.ofSeconds(5));
                assertThat(boot.get("x")).isEqualTo("y");
                assertThat(boot.toString()).contains("PMI_FD=" + env.get("PMI_FD"));
            }
            // No initack in this mode: the descriptor is already this process's own.
            assertThat(server.received.getFirst()).isEqualTo("cmd=init pmi_version=1 pmi_subversion=1");
            assertThat(server.received.getLast()).isEqualTo("cmd=finalize");
        }
    }

    @Test
    void fdModeWaitsAreBoundedAndHangUpsReported() throws Throwable {
        try (PmiFakeServer server = new PmiFakeServer(1)) {
            Map<String, String> env = server.fdEnv();
            server.override = line -> line.startsWith("cmd=init ") ? PmiFakeServer.Action.silence() : null;
            assertFails(ErrorClass.TIMEOUT, () -> new Pmi1Bootstrap(env, SHORT))
                    .hasMessageContaining("PMI_FD=" + env.get("PMI_FD")).hasMessageContaining("cmd=response_to_init");
        }
        try (PmiFakeServer server = new PmiFakeServer(1)) {
            Map<String, String> env = server.fdEnv();
            server.override = line -> line.equals("cmd=get_maxes") ? PmiFakeServer.Action.hangUp() : null;
            assertFails(ErrorClass.BOOTSTRAP, () -> new Pmi1Bootstrap(env, BOUND))
                    .hasMessageContaining("closed the connection").hasMessageContaining("cmd=maxes");
        }
    }

    @Test
    void fdThatIsNotOpenIsReportedAtOnce() {
        // Descriptor numbers this high are never open in a test JVM (the soft limit is far lower).
        Map<String, String> env = Map.of("PMI_FD", "1000000", "PMI_RANK", "0", "PMI_SIZE", "1");
        assertFails(ErrorClass.BOOTSTRAP, () -> new Pmi1Bootstrap(env, BOUND))
                .hasMessageContaining("PMI_FD=1000000").hasMessageContaining("not open");
    }

    @Test
    void fdModeNeedsRankAndSize() throws Throwable {
        try (PmiFakeServer server = new PmiFakeServer(1)) {
            Map<String, String> env = new HashMap<>(server.fdEnv());
            env.remove("PMI_RANK");
            assertFails(ErrorClass.BOOTSTRAP, () -> new Pmi1Bootstrap(env, BOUND)).hasMessageContaining("PMI_RANK is not set");
        }
    }

    @Test
    void longValuesTravelInPartsWithinTheServersLimits() throws Exception {
        try (PmiFakeServer server = new PmiFakeServer(1)) {
            server.keylenMax = 24;
            server.vallenMax = 32; // the fake refuses values of 32 chars or more, as a C buffer would
            try (Pmi1Bootstrap boot = new Pmi1Bootstrap(server.portEnv(0), BOUND)) {
                String big = "0123456789abcdefghijklmnopqrstuvwxyz".repeat(3); // 108 chars: 4 parts of <= 31
                String fits = "x".repeat(31);
                String lookalike = Pmi1Bootstrap.PARTS_MARK + "7";
                boot.put("big", big);
                boot.put("fits", fits);
                boot.put("look", lookalike);
                boot.fence();
                assertThat(boot.get("big")).isEqualTo(big);
                assertThat(boot.get("fits")).isEqualTo(fits);
                assertThat(boot.get("look")).isEqualTo(lookalike);
                assertThat(server.committed.get("big")).isEqualTo(Pmi1Bootstrap.PARTS_MARK + "4");
                assertThat(server.committed.get("fits")).isEqualTo(fits);
                assertThat(server.committed).containsKeys("big#0", "big#1", "big#2", "big#3", "look#0");
                assertThat(server.committed.values()).allSatisfy(v -> assertThat(v.length()).isLessThan(32));

                assertFails(ErrorClass.ARG, () -> boot.put("k".repeat(24), "v"))
                        .hasMessageContaining("too long").hasMessageContaining("at most 23 characters");
                // 22 chars fit, but the 11th part key 'kkk...#10' would not.
                assertFails(ErrorClass.ARG, () -> boot.put("k".repeat(21), "v".repeat(31 * 11)))
                        .hasMessageContaining("#10");
            }
        }
    }

    @Test
    void missingKeyIsNamed() throws Exception {
        try (PmiFakeServer server = new PmiFakeServer(1);
                Pmi1Bootstrap boot = new Pmi1Bootstrap(server.portEnv(0), BOUND)) {
            assertFails(ErrorClass.BOOTSTRAP, () -> boot.get("no.such.key"))
                    .hasMessageContaining("'no.such.key'").hasMessageContaining(server.kvsname);
            // An error code in a well-formed answer leaves the connection usable.
            boot.put("a", "b");
            boot.fence();
            assertThat(boot.get("a")).isEqualTo("b");
        }
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
        "a b     | v   | has character U+0020 at index 1",
        "k       | x=y | has character U+003D at index 1",
        "k       | é   | has character U+00E9 at index 0",
        "''      | v   | must not be empty",
        "railyard-job-secret | v | is reserved",
        "card#3  | v   | is reserved"})
    void keysAndValuesPmiCannotCarryAreRefused(String key, String value, String message) throws Exception {
        try (PmiFakeServer server = new PmiFakeServer(1);
                Pmi1Bootstrap boot = new Pmi1Bootstrap(server.portEnv(0), BOUND)) {
            assertFails(ErrorClass.ARG, () -> boot.put(key, value))
                    .hasMessageContaining(message);
        }
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
        "init           | garbage line                                   | 'garbage line'",
        "init           | cmd=response_to_init pmi_version=1 pmi_subversion=1 rc=-1 | refused PMI version 1.1",
        "init           | cmd=response_to_init pmi_version=2 rc=0        | pmi_version=2",
        "get_maxes      | cmd=maxes kvsname_max=256 keylen_max=64        | without the attribute 'vallen_max'",
        "get_maxes      | cmd=maxes kvsname_max=256 keylen_max=x vallen_max=1024 | 'keylen_max' is not a whole number",
        "get_maxes      | cmd=maxes kvsname_max=256 keylen_max=1 vallen_max=1024 | too small",
        "get_my_kvsname | cmd=barrier_out                                | PMI-1 expects cmd=my_kvsname",
        "get_my_kvsname | kvsname=x cmd=my_kvsname                       | does not start with cmd=NAME",
        "get_my_kvsname | cmd=my_kvsname kvsname=a kvsname=b             | appears twice",
        "initack        | cmd=initack_wrong                              | PMI-1 expects cmd=initack"})
    void malformedAnswersAreQuoted(String request, String answer, String message) throws Exception {
        try (PmiFakeServer server = new PmiFakeServer(1)) {
            server.override = line -> line.startsWith("cmd=" + request + " ") || line.equals("cmd=" + request)
                    ? PmiFakeServer.Action.reply(answer) : null;
            assertFails(ErrorClass.BOOTSTRAP, () -> new Pmi1Bootstrap(server.portEnv(0), BOUND))
                    .hasMessageContaining(message)
                    .hasMessageContaining("'" + answer + "'");
        }
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
        "cmd=initack;cmd=set size=2;cmd=set rank=5;cmd=set debug=0 | rank 5 is outside [0, 2)",
        "cmd=initack;cmd=set size=2;cmd=set size=2;cmd=set debug=0 | 'cmd=set size=2' after cmd=initack",
        "cmd=initack;cmd=set size=0;cmd=set rank=0;cmd=set debug=0 | impossible rank 0 or size 0",
        "cmd=set size=2                                             | PMI-1 expects cmd=initack"})
    void initackSequenceIsChecked(String reply, String message) throws Exception {
        try (PmiFakeServer server = new PmiFakeServer(1)) {
            server.override = line -> line.startsWith("cmd=initack") ? PmiFakeServer.Action.reply(reply.split(";")) : null;
            assertFails(ErrorClass.BOOTSTRAP, () -> new Pmi1Bootstrap(server.portEnv(0), BOUND))
                    .hasMessageContaining(message);
        }
    }

    @Test
    void silentServerTimesOutDuringInit() throws Exception {
        try (PmiFakeServer server = new PmiFakeServer(1)) {
            server.override = line -> line.startsWith("cmd=init ") ? PmiFakeServer.Action.silence() : null;
            long start = System.nanoTime();
            assertFails(ErrorClass.TIMEOUT, () -> new Pmi1Bootstrap(server.portEnv(0), SHORT))
                    .hasMessageContaining("cmd=response_to_init").hasMessageContaining("300ms");
            assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(10));
        }
    }

    @Test
    void fenceTimeoutLeavesConnectionUnusableAndCloseSkipsFinalize() throws Exception {
        try (PmiFakeServer server = new PmiFakeServer(1)) {
            Pmi1Bootstrap boot = new Pmi1Bootstrap(server.portEnv(0), BOUND);
            // From now on the server swallows barrier_in, as if another rank never came.
            server.override = line -> line.equals("cmd=barrier_in") ? PmiFakeServer.Action.silence() : null;
            assertFails(ErrorClass.TIMEOUT, () -> boot.fence(Duration.ofMillis(200)))
                    .hasMessageContaining("cmd=barrier_out").hasMessageContaining("200ms (the fence's timeout)");
            assertFails(ErrorClass.BOOTSTRAP, () -> boot.get("anything"))
                    .hasMessageContaining("unusable since an earlier failure").hasMessageContaining("cmd=barrier_out");
            boot.close();
            assertThat(server.requests("finalize")).isEmpty();
            assertFails(ErrorClass.BOOTSTRAP, () -> boot.put("a", "b")).hasMessageContaining("closed");
        }
    }

    @Test
    void closeIsBoundedWhenFinalizeIsNeverAcknowledged() throws Exception {
        try (PmiFakeServer server = new PmiFakeServer(1)) {
            Pmi1Bootstrap boot = new Pmi1Bootstrap(server.portEnv(0), SHORT);
            server.override = line -> line.equals("cmd=finalize") ? PmiFakeServer.Action.silence() : null;
            assertFails(ErrorClass.TIMEOUT, boot::close).hasMessageContaining("cmd=finalize_ack");
            boot.close(); // idempotent: released already, nothing more to say
        }
    }

    @Test
    void serverHangingUpIsReported() throws Exception {
        try (PmiFakeServer server = new PmiFakeServer(1);
                Pmi1Bootstrap boot = new Pmi1Bootstrap(server.portEnv(0), BOUND)) {
            server.override = line -> line.startsWith("cmd=get ") ? PmiFakeServer.Action.hangUp() : null;
            assertFails(ErrorClass.BOOTSTRAP, () -> boot.get("k"))
                    .hasMessageContaining("closed the connection").hasMessageContaining("cmd=get_result");
        }
    }

    @Test
    void overlongLineIsRefused() throws Exception {
        try (PmiFakeServer server = new PmiFakeServer(1)) {
            String huge = "cmd=maxes junk=" + "z".repeat(PmiConnection.MAX_LINE + 10);
            server.override = line -> line.equals("cmd=get_maxes") ? PmiFakeServer.Action.reply(huge) : null;
            assertFails(ErrorClass.BOOTSTRAP, () -> new Pmi1Bootstrap(server.portEnv(0), BOUND))
                    .hasMessageContaining("longer than " + PmiConnection.MAX_LINE).hasMessageContaining("'cmd=maxes junk=zzz");
        }
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
        "PMI_PORT=nohost        | is not host:port",
        "PMI_PORT=host:notaport | is not host:port",
        "PMI_PORT=:42           | is not host:port",
        "PMI_FD=six             | PMI_FD='six' is not a whole number",
        "PMI_FD=-1              | PMI_FD='-1' is not a whole number >= 0",
        "NONE=1                 | neither PMI_FD nor PMI_PORT is set"})
    void environmentErrorsAreClear(String setting, String message) {
        String[] kv = setting.split("=", 2);
        assertFails(ErrorClass.BOOTSTRAP, () -> new Pmi1Bootstrap(Map.of(kv[0], kv[1]), BOUND))
                .hasMessageContaining(message);
    }

    @Test
    void refusedConnectionIsReported() throws Exception {
        int port;
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            port = s.getLocalPort(); // closed at once: nobody listens there any more
        }
        Map<String, String> env = Map.of("PMI_PORT", "127.0.0.1:" + port, "PMI_ID", "0");
        assertFails(ErrorClass.BOOTSTRAP, () -> new Pmi1Bootstrap(env, BOUND))
                .hasMessageContaining("cannot connect to the PMI server at 127.0.0.1:" + port);
    }

    @Test
    void portModeNeedsPmiId() throws Exception {
        try (PmiFakeServer server = new PmiFakeServer(1)) {
            assertFails(ErrorClass.BOOTSTRAP, () -> new Pmi1Bootstrap(Map.of("PMI_PORT", server.port()), BOUND))
                    .hasMessageContaining("PMI_ID is not set");
        }
    }

    /** Asserts that {@code call} throws a RailyardException of class {@code expected}; returns it for more checks. */
    private static AbstractThrowableAssert<?, ? extends Throwable> assertFails(ErrorClass expected, ThrowingCallable call) {
        return assertThatThrownBy(call)
                .isInstanceOfSatisfying(RailyardException.class,
                        e -> assertThat(e.errorClass()).as("class of %s", e).isEqualTo(expected));
    }
}
