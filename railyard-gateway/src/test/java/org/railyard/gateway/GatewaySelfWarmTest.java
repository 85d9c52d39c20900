package org.railyard.gateway;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.railyard.gateway.GatewayServerTest.addr;
import static org.railyard.gateway.GatewayServerTest.data;
import static org.railyard.gateway.GatewayServerTest.rank;
import static org.railyard.gateway.GatewayServerTest.send;

import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.ConnectException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Random;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.railyard.testkit.Await;
import org.railyard.transport.gateway.GatewayClient;
import org.railyard.wire.GatewayFrame;
import picocli.CommandLine;

/**
 * The daemon's self-warm: it forwards its round trips through two loopback gateways, closes them
 * and their threads, is bounded in time, leaves a gateway started after it serving a job with
 * counters of that job only, and {@code --self-warm 0} turns it off.
 */
class GatewaySelfWarmTest {
    private static final Duration T = Duration.ofSeconds(10);
    /** Three jobs, the last one short. */
    private static final int ROUND_TRIPS = 2 * GatewaySelfWarm.SESSION_ROUND_TRIPS + 5;
    private static final GatewayFrame.Address E0 = addr("east", "n1", 0);
    private static final GatewayFrame.Address W1 = addr("west", "n2", 1);
    private static final byte[] SECRET = "secret-of-job-a".getBytes(StandardCharsets.UTF_8);

    private static GatewayServer.Settings settings(String site, List<GatewayServer.Peer> peers) {
        return new GatewayServer.Settings(site, new InetSocketAddress("127.0.0.1", 0), peers, 2, Duration.ofSeconds(3),
                16 << 20);
    }

    /** The names of the live threads a gateway starts (acceptor, connections, WAN stripes). */
    private static Set<Thread> gatewayThreads() {
        return Thread.getAllStackTraces().keySet().stream().filter(t -> t.getName().startsWith("gateway-"))
                .collect(Collectors.toSet());
    }

    @Test
    void itForwardsItsRoundTripsAndLeavesNoSocketOrThreadBehind() {
        Set<Thread> before = gatewayThreads();
        GatewaySelfWarm.Result r = GatewaySelfWarm.run(settings("east", List.of()), ROUND_TRIPS, T);
        assertThat(r.failure()).isNull();
        assertThat(r.roundTrips()).isEqualTo(ROUND_TRIPS);
        assertThat(r.sessions()).isEqualTo(3);
        assertThat(r.describe()).contains("self-warm: " + ROUND_TRIPS + " round trips in 3 jobs");
        assertThat(r.addresses()).hasSize(2);
        for (InetSocketAddress a : r.addresses()) {
            assertThatThrownBy(() -> new Socket(a.getAddress(), a.getPort()).close()).isInstanceOf(ConnectException.class);
        }
        Await.awaitUntil(() -> before.containsAll(gatewayThreads()), T,
                () -> "the warm-up's gateway threads to end: " + gatewayThreads());
    }

    @Test
    void itStopsAtItsBoundWhateverTheCount() {
        GatewaySelfWarm.Result r = GatewaySelfWarm.run(settings("east", List.of()), 10_000_000, Duration.ofMillis(300));
        assertThat(r.failure()).contains("bound of 300 ms");
        assertThat(r.roundTrips()).isLessThan(10_000_000);
        assertThat(r.elapsed()).isLessThan(T);
        assertThat(r.describe()).contains("(stopped: the bound of 300 ms");
    }

    @Test
    void aGatewayStartedAfterItServesAJobAndCountsThatJobOnly() throws IOException {
        GatewaySelfWarm.Result r = GatewaySelfWarm.run(settings("east", List.of()), 100, T);
        assertThat(r.failure()).isNull();
        try (GatewayServer west = GatewayServer.start(settings("west", List.of()), line -> { });
             GatewayServer east = GatewayServer.start(settings("east", List.of(new GatewayServer.Peer(null,
                     west.address()))), line -> { })) {
            GatewayClient.Opened a = rank(east, "job-a", SECRET, E0, 2, "east");
            GatewayClient.Opened b = rank(west, "job-a", SECRET, W1, 2, "west");
            Random random = new Random(11);
            byte[][] got = new byte[1][];
            for (int i = 0; i < 20; i++) {
                byte[] ping = new byte[1 + random.nextInt(i == 7 ? 1 << 20 : 200)];
                random.nextBytes(ping);
                send(a, "job-a", E0, W1, ping);
                assertThat(data(b, got).source()).isEqualTo(E0);
                assertThat(got[0]).isEqualTo(ping);
                send(b, "job-a", W1, E0, ping);
                assertThat(data(a, got).source()).isEqualTo(W1);
                assertThat(got[0]).isEqualTo(ping);
            }
            String stats = GatewayClient.stats(east.address(), T);
            assertThat(stats).contains("pair.east->west.messages 20", "pair.west->east.messages 20", "jobs.active 1",
                    "ranks.connected 1", "wan.stripes.opened 1").doesNotContain("self-warm");
        }
    }

    @Test
    void theCountZeroTurnsItOffAndANegativeCountIsRefused() {
        GatewayCommand off = new GatewayCommand();
        new CommandLine(off).parseArgs("--site", "east", "--self-warm", "0");
        assertThat(off.selfWarm(settings("east", List.of()))).isNull();

        assertThat(new CommandLine(new GatewayCommand()).getCommandSpec().findOption("--self-warm").defaultValue())
                .isEqualTo(String.valueOf(GatewaySelfWarm.DEFAULT_ROUND_TRIPS));
        GatewayCommand some = new GatewayCommand();
        new CommandLine(some).parseArgs("--site", "east", "--self-warm", "5");
        assertThat(some.selfWarm(settings("east", List.of())).roundTrips()).isEqualTo(5);

        StringWriter err = new StringWriter();
        CommandLine bad = new CommandLine(new GatewayCommand());
        bad.setErr(new PrintWriter(err));
        assertThat(bad.execute("--site", "east", "--port", "0", "--self-warm", "-1")).isNotZero();
        assertThat(err.toString()).contains("--self-warm must not be negative, not -1");
    }
}
