package org.railyard.bootstrap;

import static org.assertj.core.api.Assertions.assertThat;
import static org.railyard.testkit.Failures.assertFails;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.assertj.core.api.AbstractThrowableAssert;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.railyard.error.ErrorClass;

/**
 * {@link Pmi2Bootstrap} against {@link Pmi2FakeServer} (answers shaped like Slurm's, see the
 * recordings in {@code resources/pmi2/}) over real sockets and socketpairs: a whole job, long and
 * escaped values, and every malformed answer the issue names, each a BOOTSTRAP error, never a
 * hang. Timeouts are real short bounds on answers that never come; nothing sleeps.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class Pmi2BootstrapTest {
    private static final Duration BOUND = Duration.ofSeconds(10);
    private static final Duration SHORT = Duration.ofMillis(300);

    @Test
    void threeRanksOverPmiFdShareCardsSecretAndTheNodeLayout() throws Throwable {
        try (Pmi2FakeServer server = new Pmi2FakeServer(3)) {
            server.mapping = "(vector,(0,2,2))";
            List<Map<String, String>> envs = List.of(server.fdEnv(0), server.fdEnv(1), server.fdEnv(2));
            ExecutorService pool = Executors.newFixedThreadPool(3);
            try {
                List<Future<String>> results = new ArrayList<>();
                for (int r = 0; r < 3; r++) {
                    Map<String, String> env = envs.get(r);
                    results.add(pool.submit(() -> {
                        try (Pmi2Bootstrap boot = new Pmi2Bootstrap(env, BOUND)) {
                            assertThat(boot.name()).isEqualTo("pmi-2");
                            assertThat(boot.jobId()).isEqualTo(server.jobId);
                            assertThat(boot.size()).isEqualTo(3);
                            assertThat(boot.nodeOfRank()).containsExactly(0, 0, 1);
                            // An address card holds ';' and a '%' must survive too.
                            boot.put("card-" + boot.rank(), "node:n" + boot.rank() + ";pid:1;x:50%");
                            boot.fence(BOUND);
                            StringBuilder seen = new StringBuilder(boot.rank() + ":" + java.util.HexFormat.of()
                                    .formatHex(boot.jobSecret()));
                            for (int p = 0; p < 3; p++) {
                                seen.append('|').append(boot.get("card-" + p));
                            }
                            return seen.toString();
                        }
                    }));
                }
                List<String> seen = new ArrayList<>();
                for (Future<String> f : results) {
                    seen.add(f.get(30, TimeUnit.SECONDS));
                }
                String secret = seen.getFirst().substring(2, 2 + 64);
                for (int r = 0; r < 3; r++) {
                    assertThat(seen.get(r)).isEqualTo(r + ":" + secret
                            + "|node:n0;pid:1;x:50%|node:n1;pid:1;x:50%|node:n2;pid:1;x:50%");
                }
            } finally {
                pool.shutdownNow();
            }
            assertThat(server.committed.get("card-1")).isEqualTo("node:n1%3Bpid:1%3Bx:50%25");
            assertThat(server.received.getFirst()).isEqualTo("cmd=init pmi_version=2 pmi_subversion=0");
            assertThat(server.requests("fullinit")).contains("cmd=fullinit;pmijobid=7.0;pmirank=2;threaded=FALSE;");
            assertThat(server.requests("finalize")).hasSize(3);
        }
    }

    @Test
    void portModeNamesItselfWithPmiIdAndTheMappingMayBeAbsent() throws Exception {
        try (Pmi2FakeServer server = new Pmi2FakeServer(1)) {
            server.mapping = null;
            try (Pmi2Bootstrap boot = new Pmi2Bootstrap(server.portEnv(0), BOUND)) {
                assertThat(boot.rank()).isZero();
                assertThat(boot.nodeOfRank()).isNull();
                assertThat(boot.toString()).contains("PMI_PORT");
            }
            assertThat(server.requests("fullinit")).containsExactly("cmd=fullinit;pmirank=0;threaded=FALSE;");
        }
    }

    @Test
    void longValuesTravelInPartsAndComeBackWhole() throws Exception {
        try (Pmi2FakeServer server = new Pmi2FakeServer(1);
                Pmi2Bootstrap boot = new Pmi2Bootstrap(server.portEnv(0), BOUND)) {
            String big = ";%abc".repeat(500); // 2500 chars, 4500 escaped: 5 parts of at most 1000
            boot.put("big", big);
            boot.fence(BOUND);
            assertThat(boot.get("big")).isEqualTo(big);
            assertThat(server.committed.get("big")).isEqualTo(PmiKeys.PARTS_MARK + "5");
            assertThat(server.committed.get("big#0")).hasSize(Pmi2Bootstrap.MAX_VALUE);
        }
    }

    @Test
    void callerErrorsAreArgErrorsAndLeaveTheConnectionUsable() throws Exception {
        try (Pmi2FakeServer server = new Pmi2FakeServer(1);
                Pmi2Bootstrap boot = new Pmi2Bootstrap(server.portEnv(0), BOUND)) {
            assertFails(ErrorClass.ARG, () -> boot.put(PmiKeys.SECRET_KEY, "x")).hasMessageContaining("reserved");
            assertFails(ErrorClass.ARG, () -> boot.put("k#3", "x")).hasMessageContaining("reserved");
            assertFails(ErrorClass.ARG, () -> boot.put("k".repeat(64), "x")).hasMessageContaining("at most 63");
            assertFails(ErrorClass.ARG, () -> boot.put("k", "a b")).hasMessageContaining("index 1");
            assertFails(ErrorClass.BOOTSTRAP, () -> boot.get("never-put")).hasMessageContaining("'never-put'")
                    .hasMessageContaining("found=FALSE");
            boot.put("k", "v");
            boot.fence(BOUND);
            assertThat(boot.get("k")).isEqualTo("v");
        }
    }

    @Test
    void aServerThatOnlySpeaksPmi1IsRefusedByName() throws Exception {
        try (Pmi2FakeServer server = new Pmi2FakeServer(1)) {
            server.override = body -> body.startsWith("cmd=init ")
                    ? "cmd=response_to_init pmi_version=1 pmi_subversion=1 rc=0\n" : null;
            assertFails(ErrorClass.BOOTSTRAP, () -> new Pmi2Bootstrap(server.portEnv(0), BOUND))
                    .hasMessageContaining("refused PMI version 2.0").hasMessageContaining("pmi_version=1");
        }
    }

    @Test
    void aLengthFieldThatIsNotANumberIsReported() throws Exception {
        assertMalformed("cmd=job-getid;", "abcdefcmd=job-getid-response;rc=0;jobid=1;", ErrorClass.BOOTSTRAP)
                .hasMessageContaining("'abcdef'").hasMessageContaining("begins with its length");
    }

    @Test
    void aLengthFieldThatIsTooShortCutsTheMessageAndIsReported() throws Exception {
        assertMalformed("cmd=job-getid;", "20    cmd=job-getid-response;rc=0;jobid=1;", ErrorClass.BOOTSTRAP)
                .hasMessageContaining("does not end with ';'");
    }

    @Test
    void aLengthFieldThatIsTooLongEndsInABoundedWait() throws Exception {
        assertMalformed("cmd=job-getid;", "99    cmd=job-getid-response;rc=0;jobid=1;", ErrorClass.TIMEOUT)
                .hasMessageContaining("job-getid-response");
    }

    @Test
    void anAnswerWithoutRcIsReported() throws Exception {
        assertMalformed("cmd=job-getid;", Pmi2FakeServer.frame("cmd=job-getid-response;jobid=1;"), ErrorClass.BOOTSTRAP)
                .hasMessageContaining("without the attribute 'rc'");
    }

    @Test
    void aValueWithASemicolonIsReported() throws Exception {
        assertMalformed("cmd=job-getid;", Pmi2FakeServer.frame("cmd=job-getid-response;rc=0;jobid=a;b;"),
                ErrorClass.BOOTSTRAP).hasMessageContaining("'b' is not key=value");
    }

    @Test
    void aNonZeroRcIsReportedWithTheServersMessage() throws Exception {
        assertMalformed("cmd=kvs-fence;", Pmi2FakeServer.frame("cmd=kvs-fence-response;rc=-1;errmsg=a task died;"),
                ErrorClass.BOOTSTRAP).hasMessageContaining("rc=-1: a task died");
    }

    @Test
    void anAnswerToAnotherCommandIsReported() throws Exception {
        assertMalformed("cmd=job-getid;", Pmi2FakeServer.frame("cmd=kvs-put-response;rc=0;"), ErrorClass.BOOTSTRAP)
                .hasMessageContaining("PMI-2 expects cmd=job-getid-response");
    }

    @Test
    void aDescriptorClosedInTheMiddleOfAMessageIsReportedWithWhatCame() throws Throwable {
        try (Pmi2FakeServer server = new Pmi2FakeServer(1)) {
            Map<String, String> env = server.fdEnv(0);
            // Say a length of 40, send 10 characters, then close the far end of the descriptor.
            server.override = body -> body.equals("cmd=job-getid;") ? Pmi2FakeServer.HANG_UP_AFTER + "40    cmd=job-ge" : null;
            assertFails(ErrorClass.BOOTSTRAP, () -> new Pmi2Bootstrap(env, BOUND))
                    .hasMessageContaining("closed the connection in the middle of a message")
                    .hasMessageContaining("10 of 40 bytes").hasMessageContaining("'cmd=job-ge'");
        }
    }

    @Test
    void silenceEndsInATimeoutThatNamesTheAwaitedAnswer() throws Exception {
        try (Pmi2FakeServer server = new Pmi2FakeServer(2)) {
            // size 2 and one rank: the fence that shares the secret never completes.
            assertFails(ErrorClass.TIMEOUT, () -> new Pmi2Bootstrap(server.portEnv(0), SHORT))
                    .hasMessageContaining("kvs-fence-response");
        }
    }

    @Test
    void afterABrokenExchangeEveryCallFailsAtOnce() throws Exception {
        // the server answers a put with a cut message: the client waits its bound for the rest, here a short one
        try (Pmi2FakeServer server = new Pmi2FakeServer(1);
                Pmi2Bootstrap boot = new Pmi2Bootstrap(server.portEnv(0), Duration.ofSeconds(1))) {
            server.override = body -> body.startsWith("cmd=kvs-put;") ? "xx" : null;
            assertFails(ErrorClass.TIMEOUT, () -> boot.put("a", "b"));
            assertFails(ErrorClass.BOOTSTRAP, () -> boot.get("a")).hasMessageContaining("unusable since an earlier failure");
        }
    }

    @Test
    void abortTellsTheServerAndBreaksTheConnection() throws Exception {
        try (Pmi2FakeServer server = new Pmi2FakeServer(1);
                Pmi2Bootstrap boot = new Pmi2Bootstrap(server.portEnv(0), BOUND)) {
            boot.abort(3, "rank 0; gave up");
            assertFails(ErrorClass.BOOTSTRAP, () -> boot.get("a")).hasMessageContaining("abort");
            org.railyard.testkit.Await.awaitUntil(() -> !server.requests("abort").isEmpty(), Duration.ofSeconds(10),
                    "the abort at the server");
            assertThat(server.requests("abort")).containsExactly("cmd=abort;isworld=TRUE;msg=rank 0_ gave up;");
        }
    }

    @Test
    void missingRankVariableIsNamed() {
        Map<String, String> env = new HashMap<>(Map.of("PMI_FD", "5", "PMI_JOBID", "1.0"));
        assertFails(ErrorClass.BOOTSTRAP, () -> new Pmi2Bootstrap(env, BOUND)).hasMessageContaining("PMI_ID is not set")
                .hasMessageContaining("PMI_RANK");
    }

    /** Runs one rank whose answer to {@code request} is {@code answer}, and returns the failure. */
    private static AbstractThrowableAssert<?, ? extends Throwable> assertMalformed(String request, String answer,
                                                                                   ErrorClass expected) throws Exception {
        try (Pmi2FakeServer server = new Pmi2FakeServer(1)) {
            server.override = body -> body.equals(request) ? answer : null;
            Duration bound = expected == ErrorClass.TIMEOUT ? SHORT : BOUND;
            long start = System.nanoTime();
            AbstractThrowableAssert<?, ? extends Throwable> failure = assertFails(expected, () -> {
                try (Pmi2Bootstrap boot = new Pmi2Bootstrap(server.portEnv(0), bound)) {
                    boot.put("k", "v");
                    boot.fence(bound);
                }
            });
            assertThat(Duration.ofNanos(System.nanoTime() - start)).as("no hang").isLessThan(Duration.ofSeconds(9));
            return failure;
        }
    }
}
