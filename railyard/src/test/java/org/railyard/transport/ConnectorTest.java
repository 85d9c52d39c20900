package org.railyard.transport;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.List;
import org.railyard.bootstrap.AddressCard;
import org.junit.jupiter.api.Test;
import org.railyard.transport.self.SelfTransport;
import org.railyard.transport.tcp.TcpTransport;
import org.railyard.testkit.Await;

/** The handshake: the secret is proved both ways, and whoever cannot prove it gets nothing. */
class ConnectorTest {

    private static Connector connector(int rank, byte[] secret) throws Exception {
        TcpTransport tcp = new TcpTransport();
        tcp.start(new TransportEnv(rank, 2, "job-x", "node-" + rank));
        SelfTransport self = new SelfTransport();
        return new Connector(rank, 2, "job-x", secret, List.of(tcp, self), Duration.ofSeconds(5));
    }

    private static Connector connector(int rank, byte[] secret, int railsPerPath) throws Exception {
        TcpTransport tcp = new TcpTransport();
        tcp.start(new TransportEnv(rank, 2, "job-x", "node-" + rank));
        return new Connector(rank, 2, "job-x", secret, List.of(tcp, new SelfTransport()), Duration.ofSeconds(5),
                railsPerPath, List.of());
    }

    /** Both on one node: the loopback path, railsPerPath rails on it. */
    private static void wireSameNode(Connector a, Connector b) throws Exception {
        wire(a, b, "node", "node");
    }

    private static Connector.Event next(Connector c) {
        return Await.awaitValue(c::poll, Duration.ofSeconds(20), "a connection event");
    }

    private static void wire(Connector a, Connector b) throws Exception {
        wire(a, b, "node-0", "node-1");
    }

    /** Rank 0 on {@code nodeA}, rank 1 on {@code nodeB}, both listening on loopback over tcp. */
    private static void wire(Connector a, Connector b, String nodeA, String nodeB) throws Exception {
        List<InetSocketAddress> ha = a.listen("127.0.0.1");
        List<InetSocketAddress> hb = b.listen("127.0.0.1");
        AddressCard ca = new AddressCard(0, nodeA, 1, ha, List.of("tcp"));
        AddressCard cb = new AddressCard(1, nodeB, 2, hb, List.of("tcp"));
        a.cards(ca, r -> r == 0 ? ca : cb);
        b.cards(cb, r -> r == 0 ? ca : cb);
    }

    @Test
    void twoSidesWithTheSameSecretGetALinkEach() throws Exception {
        byte[] secret = new byte[32];
        secret[3] = 7;
        try (Connector a = connector(0, secret); Connector b = connector(1, secret)) {
            wire(a, b);
            a.connect(1);
            Connector.Event ea = next(a);
            Connector.Event eb = next(b);
            assertThat(ea.link()).as(String.valueOf(ea.error())).isNotNull();
            assertThat(eb.link()).isNotNull();
            assertThat(ea.link().transport().name()).isEqualTo("tcp");
            ea.link().close();
            eb.link().close();
        }
    }

    @Test
    void aConnectorWithAWrongSecretIsRefusedAndTheAcceptorCarriesOn() throws Exception {
        byte[] good = new byte[32];
        byte[] bad = new byte[32];
        bad[0] = 1;
        try (Connector a = connector(0, bad); Connector b = connector(1, good)) {
            wire(a, b);
            a.connect(1);
            Connector.Event ea = next(a);
            assertThat(ea.link()).isNull();
            assertThat(ea.error()).contains("could not connect to rank 1").contains("prove the job secret");
            assertThat(b.poll()).isNull();
        }
    }

    @Test
    void simultaneousConnectsEndWithExactlyOneLinkEachSide() throws Exception {
        byte[] secret = new byte[32];
        for (int round = 0; round < 20; round++) {
            try (Connector a = connector(0, secret); Connector b = connector(1, secret)) {
                wire(a, b);
                a.connect(1);
                b.connect(0);
                Connector.Event ea = next(a);
                Connector.Event eb = next(b);
                assertThat(ea.link()).as(String.valueOf(ea.error())).isNotNull();
                assertThat(eb.link()).as(String.valueOf(eb.error())).isNotNull();
                // the two links are the two ends of one connection
                String[] da = ea.link().describe().split("[ ,]+");
                String[] db = eb.link().describe().split("[ ,]+");
                assertThat(da[1]).isEqualTo(db[3]);
                assertThat(da[3]).isEqualTo(db[1]);
                assertThat(a.poll()).isNull();
                assertThat(b.poll()).isNull();
                ea.link().close();
                eb.link().close();
            }
        }
    }

    @Test
    void everyRailGetsItsOwnLinkNumberedAlikeAtBothEnds() throws Exception {
        byte[] secret = new byte[32];
        try (Connector a = connector(0, secret, 3); Connector b = connector(1, secret, 3)) {
            wireSameNode(a, b);
            a.connect(1);
            java.util.Map<Integer, Connector.Event> atA = new java.util.TreeMap<>();
            java.util.Map<Integer, Connector.Event> atB = new java.util.TreeMap<>();
            for (int i = 0; i < 3; i++) {
                Connector.Event ea = next(a);
                Connector.Event eb = next(b);
                assertThat(ea.link()).as(String.valueOf(ea.error())).isNotNull();
                assertThat(ea.rails()).isEqualTo(3);
                assertThat(eb.rails()).isEqualTo(3);
                atA.put(ea.rail(), ea);
                atB.put(eb.rail(), eb);
            }
            assertThat(atA.keySet()).containsExactly(0, 1, 2);
            assertThat(atB.keySet()).containsExactly(0, 1, 2);
            for (int r = 0; r < 3; r++) {
                String[] da = atA.get(r).link().describe().split("[ ,]+");
                String[] db = atB.get(r).link().describe().split("[ ,]+");
                assertThat(da[1]).as("rail %d is one connection", r).isEqualTo(db[3]);
            }
            // rail 1 dies; the lower rank links it again and the acceptor takes the index again
            atA.get(1).link().close();
            a.railLost(1, 1, atA.get(1).epoch());
            a.connectRail(1, 1);
            Connector.Event again = next(a);
            Connector.Event acceptedAgain = next(b);
            assertThat(again.rail()).isEqualTo(1);
            assertThat(again.link()).as(String.valueOf(again.error())).isNotNull();
            assertThat(again.epoch()).isGreaterThan(atA.get(1).epoch());
            assertThat(acceptedAgain.rail()).as("the acceptor replaced the rail it still thought linked").isEqualTo(1);
            assertThat(acceptedAgain.epoch()).isGreaterThan(atB.get(1).epoch());
            // a report about the replaced link changes nothing
            b.railLost(0, 1, atB.get(1).epoch());
            a.connectRail(1, 1);
            assertThat(a.poll()).isNull();
        }
    }

    @Test
    void aProbeOfAProcessThatStoppedListeningSaysRefused() throws Exception {
        byte[] secret = new byte[32];
        Connector a = connector(0, secret, 2);
        Connector b = connector(1, secret, 2);
        try (a) {
            wireSameNode(a, b);
            a.probe(1);
            Connector.Event alive = next(a);
            assertThat(alive.rail()).isEqualTo(LinkSource.PROBE);
            assertThat(alive.refused()).as(alive.error()).isFalse();
            b.close();
            a.probe(1);
            Connector.Event gone = next(a);
            assertThat(gone.refused()).as(gone.error()).isTrue();
        }
    }
}
