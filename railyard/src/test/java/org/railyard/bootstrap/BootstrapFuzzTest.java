package org.railyard.bootstrap;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Map;
import java.util.function.BiFunction;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.railyard.error.RailyardException;
import org.railyard.fuzz.Fuzz;

/**
 * The bootstrap clients against servers that say arbitrary bytes (corpus in {@code fuzz/<name>/},
 * see {@link Fuzz}): a PMI-1 session, the key-value server's greeting, and its replies once the
 * handshake is done, a PMI-2 session; plus the PMI-1 line parser, the PMI-2 message parser (with
 * the process mapping) and the address card decoder alone. Every input
 * ends in a working bootstrap or a {@link RailyardException} that says what was wrong.
 */
class BootstrapFuzzTest {
    private static final Duration BOUND = Duration.ofSeconds(2);
    private static final String JOB = "fuzz-job";
    private static final byte[] SECRET = new byte[KvProtocol.SECRET_BYTES];
    /** Inputs per socket-based fuzz: each is a connection, so fewer than for the pure decoders. */
    private static final int SESSIONS = 300;

    private final ScriptedServer server;

    BootstrapFuzzTest() throws IOException {
        server = new ScriptedServer();
    }

    @AfterEach
    void stop() throws IOException {
        server.close();
    }

    private static void write(OutputStream out, byte[] bytes) throws IOException {
        out.write(bytes);
        out.flush();
    }

    @Test
    void pmiSession() {
        pmiSessions("pmi-session", 21, Pmi1Bootstrap::new);
    }

    @Test
    void pmi2Session() {
        pmiSessions("pmi2-session", 27, Pmi2Bootstrap::new);
    }

    /**
     * The PMI server answers each session with the fuzzed bytes: the bootstrap {@code open} makes
     * either fails cleanly or joins a sound job; at least one session and at most half of them work.
     */
    private void pmiSessions(String corpus, long seed, BiFunction<Map<String, String>, Duration, Bootstrap> open) {
        Fuzz fuzz = Fuzz.of(corpus, RailyardException.class, input -> {
            server.script((s, in) -> write(s.getOutputStream(), input));
            Map<String, String> env = Map.of("PMI_PORT", "127.0.0.1:" + server.port(), "PMI_ID", "0");
            try (Bootstrap b = open.apply(env, BOUND)) {
                assertThat(b.size()).isPositive();
                assertThat(b.rank()).isBetween(0, b.size() - 1);
                assertThat(b.jobSecret()).hasSize(32);
            }
        }).budget(seed, SESSIONS).allocationBase(16L << 20);
        assertThat(fuzz.run()).as("sessions that worked").isBetween(1, SESSIONS / 2);
    }

    @Test
    void pmi2Message() {
        Fuzz fuzz = Fuzz.of("pmi2-message", RailyardException.class, input -> {
            Pmi2Message m = Pmi2Message.parse(new String(input, StandardCharsets.US_ASCII), "fuzz server");
            assertThat(m.cmd()).isNotEmpty();
            String mapping = m.attr("value");
            if (mapping != null && mapping.startsWith("(vector")) {
                int[] nodes = ProcessMapping.nodeOfRank(mapping, 16, "fuzz server");
                assertThat(nodes).hasSize(16);
                for (int n : nodes) {
                    assertThat(n).isNotNegative();
                }
            }
        }).budget(28, 3000);
        assertThat(fuzz.run()).isPositive();
    }

    @Test
    void pmiLine() {
        Fuzz fuzz = Fuzz.of("pmi-line", RailyardException.class, input -> {
            PmiMessage m = PmiMessage.parse(new String(input, StandardCharsets.US_ASCII), "fuzz server");
            assertThat(m.cmd()).isNotEmpty();
            m.rc("fuzz server");
        }).budget(22, 3000);
        assertThat(fuzz.run()).isPositive();
    }

    private Map<String, String> kvEnv() {
        return KvEnv.of(server.port(), 0, 2, JOB, SECRET);
    }

    @Test
    void kvGreeting() {
        Fuzz fuzz = Fuzz.of("kv-greeting", RailyardException.class, input -> {
            server.script((s, in) -> write(s.getOutputStream(), input));
            new KvBootstrap(kvEnv(), BOUND).close();
        }).budget(23, SESSIONS).allocationBase(16L << 20);
        assertThat(fuzz.run()).as("no input proves the secret").isZero();
    }

    @Test
    void kvReplies() {
        String serverNonce = "cd".repeat(KvProtocol.NONCE_BYTES);
        Fuzz fuzz = Fuzz.of("kv-replies", RailyardException.class, input -> {
            server.script((s, in) -> {
                OutputStream out = s.getOutputStream();
                KvProtocol.writeLine(out, KvProtocol.MAGIC + " " + KvProtocol.VERSION + " " + serverNonce);
                String[] hello = KvProtocol.readLine(in).split(" ");
                KvProtocol.writeLine(out, KvProtocol.WELCOME + " "
                        + KvProtocol.proof(SECRET, "server", JOB, 0, serverNonce, hello[3]));
                write(out, input);
            });
            try (KvBootstrap b = new KvBootstrap(kvEnv(), BOUND)) {
                assertThat(b.get("k1")).isNotNull();
                b.fence(BOUND);
                assertThat(b.get("k2")).isNotNull();
            }
        }).budget(24, SESSIONS).allocationBase(16L << 20);
        assertThat(fuzz.run()).as("sessions that worked").isBetween(1, SESSIONS / 2);
    }

    @Test
    void addressCard() {
        Fuzz fuzz = Fuzz.of("address-card", RailyardException.class, input -> {
            AddressCard c = AddressCard.decode(3, new String(input, StandardCharsets.US_ASCII));
            assertThat(c.rank()).isEqualTo(3);
            assertThat(c.node()).isNotNull();
            assertThat(AddressCard.decode(3, c.encode())).as("a decoded card encodes to itself").isEqualTo(c);
        }).budget(25, 3000);
        assertThat(fuzz.run()).isPositive();
    }

    @Test
    void kvRequests() {
        Fuzz fuzz = Fuzz.of("kv-request", IOException.class, input -> {
            java.io.InputStream in = new java.io.ByteArrayInputStream(input);
            for (String line = KvProtocol.readLine(in); line != null; line = KvProtocol.readLine(in)) {
                KvServer.Request r = KvServer.Request.parse(line);
                if (r.error() != null) {
                    assertThat(r.error()).isNotBlank();
                } else if (r.verb().equals(KvProtocol.FENCE)) {
                    assertThat(r.seq()).isNotNegative();
                    assertThat(r.millis()).isNotNegative();
                } else {
                    assertThat(KvProtocol.isWord(r.key(), false)).as("key of " + line).isTrue();
                }
            }
        }).budget(26, 3000);
        assertThat(fuzz.run()).isPositive();
    }

    @Test
    void kvServerRefusesWhatIsNotAProvenHello() throws Exception {
        java.util.List<String> log = java.util.Collections.synchronizedList(new java.util.ArrayList<>());
        try (KvServer kv = KvServer.start(2, JOB, SECRET, new java.net.InetSocketAddress(
                java.net.InetAddress.getLoopbackAddress(), 0), log::add)) {
            Fuzz fuzz = Fuzz.neverThrowing("kv-hello", input -> {
                try (java.net.Socket s = new java.net.Socket(java.net.InetAddress.getLoopbackAddress(), kv.port())) {
                    java.io.InputStream in = s.getInputStream();
                    assertThat(KvProtocol.readLine(in)).startsWith(KvProtocol.MAGIC + " ");
                    write(s.getOutputStream(), input);
                    s.shutdownOutput();
                    for (String line = KvProtocol.readLine(in); line != null; line = KvProtocol.readLine(in)) {
                        assertThat(line).as("the server's answer").startsWith(KvProtocol.DENIED + " ");
                    }
                }
            }).budget(27, SESSIONS).allocationBase(16L << 20);
            assertThat(fuzz.run()).isEqualTo(SESSIONS + fuzz.corpus().size());
            assertThat(log).as("what the server logged").allMatch(l -> l.contains("refused"));
            Map<String, String> env = kvEnv();
            env.put(KvBootstrap.ENV_KV, "127.0.0.1:" + kv.port());
            try (KvBootstrap b = new KvBootstrap(env, BOUND)) {
                b.put("after", "fuzz");
                assertThat(b.get("after")).as("the server still serves").isEqualTo("fuzz");
            }
        }
    }
}
