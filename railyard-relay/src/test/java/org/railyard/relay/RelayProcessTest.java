package org.railyard.relay;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.railyard.testkit.Await;
import org.railyard.transport.relay.RelayClient;
import org.railyard.wire.RelayFrame;

/**
 * {@code railyard relay} as a real process: SIGKILLed in the middle of a job and started again on
 * its log, it delivers exactly the messages its receiver had not acknowledged, once each, in order.
 */
class RelayProcessTest {
    private static final java.time.Duration START_BOUND = java.time.Duration.ofSeconds(90);
    private static final Pattern LISTENING = Pattern.compile("listening on [^:]+:(\\d+)");

    @TempDir
    Path dir;

    /** A relay process and the lines it prints. */
    record Relay(Process process, InetSocketAddress address, BlockingQueue<String> lines) { }

    private Relay start(Path log) throws Exception {
        return start(log, 0, "always");
    }

    static Relay start(Path log, int port, String fsync) throws Exception {
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        ProcessBuilder pb = new ProcessBuilder(java, "-Xmx256m", "-cp", System.getProperty("java.class.path"),
                RelayCommand.class.getName(), "--port", String.valueOf(port), "--bind", "127.0.0.1", "--log", log.toString(),
                "--fsync", fsync, "--max-bytes", "4m").redirectErrorStream(true);
        Process p = pb.start();
        BlockingQueue<String> lines = new LinkedBlockingQueue<>();
        Thread.ofVirtual().start(() -> {
            try (BufferedReader r = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8))) {
                for (String l = r.readLine(); l != null; l = r.readLine()) {
                    lines.add(l);
                }
            } catch (IOException ignored) {
                // the process ended
            }
        });
        List<String> seen = new ArrayList<>();
        while (true) {
            // a JVM starting and reading back a log of tens of MiB, on a machine shared with other builds
            String l = lines.poll(START_BOUND.toSeconds(), TimeUnit.SECONDS);
            assertThat(l).as("the relay says where it listens; it said %s", seen).isNotNull();
            seen.add(l);
            Matcher m = LISTENING.matcher(l);
            if (m.find()) {
                lines.addAll(seen);
                return new Relay(p, new InetSocketAddress("127.0.0.1", Integer.parseInt(m.group(1))), lines);
            }
        }
    }

    static String await(BlockingQueue<String> lines, String part) throws InterruptedException {
        while (true) {
            String l = lines.poll(Relays.BOUND.toSeconds(), TimeUnit.SECONDS);
            assertThat(l).as("a line containing '%s'", part).isNotNull();
            if (l.contains(part)) {
                return l;
            }
        }
    }

    @Test
    void aRelayKilledWithSigkillAndRestartedDeliversWhatWasNotAcknowledged() throws Exception {
        Path log = dir.resolve("log");
        int senders = 2;
        int count = 150;
        Relay first = start(log);
        try {
            for (int src = 0; src < senders; src++) {
                try (RelayClient s = RelayClient.connect(first.address(), "job-k", Relays.SECRET, src, senders + 1, false,
                        Relays.BOUND)) {
                    Random r = new Random(src);
                    for (long seq = 1; seq <= count; seq++) {
                        byte[] m = Relays.message(r, src, seq, 20_000);
                        s.store(senders, seq, false, m, 0, m.length);
                    }
                    Relays.awaitStored(s, senders, 1, count);
                }
            }
            await(first.lines(), "job job-k: 3 ranks");
            try (RelayClient in = RelayClient.connect(first.address(), "job-k", Relays.SECRET, senders, senders + 1, true,
                    Relays.BOUND)) {
                for (int i = 0; i < senders * count; i++) {
                    RelayClient.Incoming m = in.next(Relays.BOUND);
                    Relays.check(m);
                }
                in.delivered(0, 40);
                in.delivered(1, 70);
                awaitAcknowledged(first.address(), 110);
            }
        } finally {
            first.process().destroyForcibly(); // SIGKILL: no shutdown hook, no final fsync
            assertThat(first.process().waitFor(Relays.BOUND.toSeconds(), TimeUnit.SECONDS)).isTrue();
        }
        Relay second = start(log);
        try {
            await(second.lines(), "190 messages");
            try (RelayClient in = RelayClient.connect(second.address(), "job-k", Relays.SECRET, senders, senders + 1, true,
                    Relays.BOUND)) {
                long[] next = {40, 70};
                for (int i = 0; i < 190; i++) {
                    RelayClient.Incoming m = in.next(Relays.BOUND);
                    assertThat(m.header().type()).isEqualTo(RelayFrame.DELIVER);
                    Relays.check(m);
                    int src = m.header().source();
                    assertThat(m.header().sequence()).as("order of rank %d", src).isEqualTo(++next[src]);
                }
                assertThat(next).containsExactly(count, count);
                in.delivered(0, count);
                in.delivered(1, count);
                awaitAcknowledged(second.address(), 190);
            }
            String stats = RelayClient.stats(second.address(), Relays.BOUND);
            assertThat(Relays.counter(stats, "recovered")).isEqualTo(190);
            assertThat(Relays.counter(stats, "held_messages")).isZero();
        } finally {
            second.process().destroy();
            assertThat(second.process().waitFor(Relays.BOUND.toSeconds(), TimeUnit.SECONDS)).isTrue();
        }
    }

    private static void awaitAcknowledged(InetSocketAddress relay, long n) {
        Await.awaitUntil(() -> Relays.counter(RelayClient.stats(relay, Relays.BOUND), "acknowledged") >= n, Relays.BOUND,
                "the relay process counts " + n + " messages acknowledged");
    }
}
