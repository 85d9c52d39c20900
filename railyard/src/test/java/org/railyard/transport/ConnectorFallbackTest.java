package org.railyard.transport;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.railyard.bootstrap.AddressCard;
import org.railyard.testkit.Await;
import org.railyard.transport.ConnectorIndirectTest.Office;
import org.railyard.transport.ConnectorIndirectTest.OfficeTransport;
import org.railyard.transport.self.SelfTransport;
import org.railyard.transport.tcp.TcpTransport;

/**
 * The fallback to an intermediary when a direct connect fails (a firewall that drops or refuses
 * connections to a rank that does publish a handshake address): the side whose connect failed
 * joins through the intermediary, and the other side, which would have gone direct, follows it
 * when the first frame arrives, so both ends of the pair use the same path.
 */
class ConnectorFallbackTest {

    private static Connector connector(Office office, int rank) throws IOException {
        TcpTransport tcp = new TcpTransport();
        tcp.start(new TransportEnv(rank, 2, "job-f", "node-" + rank));
        return new Connector(rank, 2, "job-f", new byte[32], List.of(tcp, new SelfTransport(), new OfficeTransport(office, rank)),
                Duration.ofSeconds(5));
    }

    /** A loopback port where nothing listens (bound, then closed): a connect to it is refused. */
    private static int deadPort() throws IOException {
        try (ServerSocket s = new ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
            return s.getLocalPort();
        }
    }

    private static Connector.Event next(Connector c) {
        return Await.awaitValue(c::poll, Duration.ofSeconds(20), "a connection event");
    }

    @Test
    void aDirectConnectThatFailsGoesThroughTheIntermediaryAndThePeerFollows() throws Exception {
        Office office = new Office();
        try (Connector a = connector(office, 0); Connector b = connector(office, 1)) {
            List<InetSocketAddress> ha = a.listen("127.0.0.1");
            b.listen("127.0.0.1");
            // rank 1 publishes an address nobody answers on: what a firewall in front of it makes of its real one
            List<InetSocketAddress> unreachable = List.of(InetSocketAddress.createUnresolved("127.0.0.1", deadPort()));
            AddressCard ca = new AddressCard(0, "node-0", 1, ha, List.of("tcp", "office"), List.of(), "");
            AddressCard cb = new AddressCard(1, "node-1", 2, unreachable, List.of("tcp", "office"), List.of(), "");
            a.cards(ca, r -> r == 0 ? ca : cb);
            b.cards(cb, r -> r == 0 ? ca : cb);
            a.connect(1);
            Connector.Event ea = next(a);
            assertThat(ea.link()).as(String.valueOf(ea.error())).isNotNull();
            assertThat(ea.link().transport().name()).as("rank 0 could not connect directly").isEqualTo("office");
            assertThat(ea.rails()).isEqualTo(1);
            Connector.Event eb = next(b);
            assertThat(eb.peer()).isZero();
            assertThat(eb.link()).as(String.valueOf(eb.error())).isNotNull();
            assertThat(eb.link().transport().name()).as("rank 1 answers the way rank 0 came, not directly")
                    .isEqualTo("office");
            assertThat(office.joins.get()).isEqualTo(2);
        }
    }

    @Test
    void withoutAnIntermediaryAFailedConnectIsReportedAsBefore() throws Exception {
        TcpTransport tcp0 = new TcpTransport();
        tcp0.start(new TransportEnv(0, 2, "job-f", "node-0"));
        try (Connector a = new Connector(0, 2, "job-f", new byte[32], List.of(tcp0, new SelfTransport()), Duration.ofSeconds(5))) {
            List<InetSocketAddress> ha = a.listen("127.0.0.1");
            AddressCard ca = new AddressCard(0, "node-0", 1, ha, List.of("tcp"), List.of(), "");
            AddressCard cb = new AddressCard(1, "node-1", 2, List.of(InetSocketAddress.createUnresolved("127.0.0.1", deadPort())),
                    List.of("tcp", "office"), List.of(), "");
            a.cards(ca, r -> r == 0 ? ca : cb);
            a.connect(1);
            Connector.Event ea = next(a);
            assertThat(ea.link()).isNull();
            assertThat(ea.error()).contains("could not connect to rank 1");
            assertThat(ea.refused()).as("nothing listens there: the peer's process counts as gone").isTrue();
        }
    }
}
