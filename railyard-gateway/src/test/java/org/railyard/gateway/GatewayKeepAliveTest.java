package org.railyard.gateway;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledOnOs;
import org.junit.jupiter.api.condition.OS;
import org.railyard.bootstrap.JobKeys;
import org.railyard.testkit.TcpTable;
import org.railyard.transport.gateway.GatewayClient;
import org.railyard.util.Config;
import org.railyard.util.KeepAlive;
import org.railyard.wire.GatewayFrame;

/**
 * A site gateway's connections carry the kernel's keepalive probes of {@code railyard.tcp.keepalive},
 * so a rank or a peer gateway that vanishes without closing ends its connection instead of holding
 * a gateway thread (and the rank's waits) forever: both ends of a rank's connection and of a WAN
 * stripe between two gateways, read from the kernel's table of TCP sockets; none with the setting
 * 0; a bad setting fails the gateway's start, naming it.
 */
@EnabledOnOs(OS.LINUX)
class GatewayKeepAliveTest {
    private static final Duration T = Duration.ofSeconds(10);
    private final List<String> logs = new CopyOnWriteArrayList<>();

    @AfterEach
    void clear() {
        System.clearProperty(Config.TCP_KEEPALIVE_PROP);
        logs.forEach(System.out::println);
    }

    @Test
    void aRanksConnectionAndAWanStripeCarryTheProbesAtBothEnds() throws Exception {
        assertThat(timers(KeepAlive.configured())).as("rank's connection (gateway's end, rank's), then the stripe's"
                + " (accepting gateway's end, opening gateway's): keepalive at all four").containsExactly(2, 2, 2, 2);
    }

    @Test
    void withTheSettingAtZeroNoEndDoes() throws Exception {
        System.setProperty(Config.TCP_KEEPALIVE_PROP, "0");
        assertThat(timers(KeepAlive.configured())).as("no probes anywhere").containsExactly(0, 0, 0, 0);
    }

    @Test
    void aBadSettingFailsTheStartNamingIt() {
        System.setProperty(Config.TCP_KEEPALIVE_PROP, "3s");
        assertThatThrownBy(() -> start("east", List.of()))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining(Config.TCP_KEEPALIVE_PROP);
    }

    private GatewayServer start(String site, List<GatewayServer.Peer> peers) throws Exception {
        return GatewayServer.start(new GatewayServer.Settings(site, new InetSocketAddress("127.0.0.1", 0), peers, 1,
                Duration.ofSeconds(3), 16 << 20), logs::add);
    }

    /**
     * Two gateways (east knows west), a rank of each site opening its gateway with {@code rankProbes},
     * one frame from east's rank to west's (which opens the WAN stripe east to west); the timers of
     * the rank connection to west, then of the stripe (west accepts it), once quiet.
     */
    private List<Integer> timers(KeepAlive rankProbes) throws Exception {
        try (GatewayServer west = start("west", List.of());
             GatewayServer east = start("east", List.of(new GatewayServer.Peer(null, west.address())))) {
            String job = "job-ka";
            byte[] verifier = JobKeys.gatewayVerifier(job, "secret-ka".getBytes(StandardCharsets.UTF_8));
            GatewayFrame.Address a = GatewayServerTest.addr("east", "n1", 0);
            GatewayFrame.Address b = GatewayServerTest.addr("west", "n2", 1);
            GatewayClient.Opened rb = GatewayClient.open(west.address(), job, verifier, b, 2, 0, "west", false, T, rankProbes);
            try (var sb = rb.socket()) {
                List<Integer> rank = TcpTable.quietTimers(west.address().getPort(), T);
                GatewayClient.Opened ra = GatewayClient.open(east.address(), job, verifier, a, 2, 0, "east", false, T,
                        rankProbes);
                try (var sa = ra.socket()) {
                    GatewayServerTest.send(ra, job, a, b, new byte[] {42});
                    byte[][] body = new byte[1][];
                    GatewayServerTest.data(rb, body);
                    assertThat(body[0]).containsExactly(42);
                    // west's port now has two connections in: the rank's and the stripe's
                    List<Integer> stripe = TcpTable.quietTimers(west.address().getPort(), T, rb.socket().getLocalPort());
                    return List.of(rank.get(0), rank.get(1), stripe.get(0), stripe.get(1));
                }
            }
        }
    }
}
