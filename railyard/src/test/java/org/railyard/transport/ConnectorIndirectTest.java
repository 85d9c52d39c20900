package org.railyard.transport;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.net.InetSocketAddress;
import java.nio.channels.SocketChannel;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.IntConsumer;
import org.junit.jupiter.api.Test;
import org.railyard.bootstrap.AddressCard;
import org.railyard.testkit.Await;
import org.railyard.transport.self.SelfTransport;
import org.railyard.transport.tcp.TcpTransport;

/**
 * Links through an intermediary ({@link Capability#INDIRECT}): which peers the connector sends
 * that way, how the side that never asked gets its link, and what a failed join reports. The
 * intermediary here is an in-process office that only counts and forwards arrivals; real ones
 * (relay, gateway) are tested with their servers.
 */
class ConnectorIndirectTest {

    /** The intermediary both test transports share: who joined whom, and each rank's arrival hook. */
    static final class Office {
        final Map<Integer, IntConsumer> arrivals = new ConcurrentHashMap<>();
        final AtomicInteger joins = new AtomicInteger();
        volatile boolean down;
    }

    /** An indirect transport that routes between different sites, and to peers that accept nothing. */
    static final class OfficeTransport implements Transport {
        private final Office office;
        private final int rank;

        OfficeTransport(Office office, int rank) {
            this.office = office;
            this.rank = rank;
        }

        @Override public String name() { return "office"; }
        @Override public int priority() { return 10; }
        @Override public int maxFrame() { return 1 << 16; }
        @Override public Set<Capability> capabilities() {
            return Capability.fixed(Capability.RELIABLE, Capability.ORDERED, Capability.REMOTE, Capability.INDIRECT);
        }
        @Override public boolean start(TransportEnv env) { return true; }
        @Override public boolean reaches(AddressCard self, AddressCard peer) { return true; }
        @Override public boolean required(AddressCard self, AddressCard peer) { return !self.site().equals(peer.site()); }
        @Override public void arrivals(IntConsumer peerArrived) { office.arrivals.put(rank, peerArrived); }

        @Override
        public Link join(int peer, AddressCard self, AddressCard peerCard) throws IOException {
            if (office.down) {
                throw new IOException("the office is closed");
            }
            office.joins.incrementAndGet();
            IntConsumer other = office.arrivals.get(peer);
            if (other != null) {
                other.accept(rank); // the first frame of this link reaches the peer
            }
            return new NoteLink(this, peer);
        }

        @Override public String offer(int peer, AddressCard peerCard) { throw new AssertionError("never offered"); }
        @Override public Link complete(int peer, String p, int maxFrame, SocketChannel h) { throw new AssertionError(); }
        @Override public void abandon(int peer, String parameters) { throw new AssertionError(); }
        @Override public Link accept(int peer, String p, SocketChannel h) { throw new AssertionError("never accepted"); }
        @Override public void close() { }
    }

    /** A link that carries nothing: what is tested here is who gets one, not what it moves. */
    record NoteLink(Transport transport, int peer) implements Link {
        @Override public int maxFrame() { return 1 << 16; }
        @Override public long tryClaim(int frameLength) { return CLOSED; }
        @Override public MemorySegment claimSegment() { return MemorySegment.NULL; }
        @Override public void commit() { }
        @Override public int flush() { return 0; }
        @Override public int poll(FrameHandler handler, int limit) { return 0; }
        @Override public boolean isOpen() { return true; }
        @Override public String failure() { return null; }
        @Override public String describe() { return "office to rank " + peer; }
        @Override public void close() { }
    }

    private static Connector connector(Office office, int rank) throws IOException {
        TcpTransport tcp = new TcpTransport();
        tcp.start(new TransportEnv(rank, 2, "job-i", "node-" + rank));
        return new Connector(rank, 2, "job-i", new byte[32], List.of(tcp, new SelfTransport(), new OfficeTransport(office, rank)),
                Duration.ofSeconds(5));
    }

    /** What a test does with rank 0's connector ({@code a}) and rank 1's ({@code b}). */
    private interface PairBody {
        void run(Connector a, Connector b) throws Exception;
    }

    /**
     * Runs {@code body} with the connectors of ranks 0 and 1 of sites {@code siteA} and {@code siteB},
     * both with {@code office}, each knowing the other's card (rank 1's with no address unless
     * {@code bListens}); closes them after.
     */
    private static void withPair(Office office, String siteA, String siteB, boolean bListens, PairBody body)
            throws Exception {
        try (Connector a = connector(office, 0); Connector b = connector(office, 1)) {
            List<InetSocketAddress> ha = a.listen("127.0.0.1");
            List<InetSocketAddress> hb = b.listen("127.0.0.1");
            AddressCard ca = new AddressCard(0, "node-0", 1, ha, List.of("tcp", "office"), List.of(), siteA);
            AddressCard cb = new AddressCard(1, "node-1", 2, bListens ? hb : List.of(), List.of("tcp", "office"), List.of(),
                    siteB);
            a.cards(ca, r -> r == 0 ? ca : cb);
            b.cards(cb, r -> r == 0 ? ca : cb);
            body.run(a, b);
        }
    }

    private static Connector.Event next(Connector c) {
        return Await.awaitValue(c::poll, Duration.ofSeconds(20), "a connection event");
    }

    /** Rank 0 ({@code a}) asks for rank 1 and gets a link over {@code transport}. */
    private static Connector.Event connectsOver(Connector a, String transport) {
        a.connect(1);
        Connector.Event ea = next(a);
        assertThat(ea.link()).as(String.valueOf(ea.error())).isNotNull();
        assertThat(ea.link().transport().name()).isEqualTo(transport);
        return ea;
    }

    @Test
    void aPeerOfAnotherSiteIsJoinedThroughTheIntermediaryAndItsSideGetsALinkWithoutAsking() throws Exception {
        Office office = new Office();
        withPair(office, "lyon", "rennes", true, (a, b) -> {
            Connector.Event ea = connectsOver(a, "office");
            Connector.Event eb = next(b);
            assertThat(ea.rails()).isEqualTo(1);
            assertThat(eb.peer()).isZero();
            assertThat(eb.link()).as(String.valueOf(eb.error())).isNotNull();
            assertThat(eb.link().transport().name()).isEqualTo("office");
            assertThat(office.joins.get()).isEqualTo(2);
        });
    }

    @Test
    void aPeerOfTheSameSiteGoesDirectOverTcp() throws Exception {
        Office office = new Office();
        withPair(office, "lyon", "lyon", true, (a, b) -> {
            Connector.Event ea = connectsOver(a, "tcp");
            assertThat(office.joins.get()).isZero();
            ea.link().close();
            next(b).link().close();
        });
    }

    @Test
    void aPeerThatAcceptsNoConnectionIsReachedThroughTheIntermediary() throws Exception {
        Office office = new Office();
        withPair(office, "", "", false, (a, b) -> {
            connectsOver(a, "office");
        });
    }

    @Test
    void aJoinThatFailsReportsTheIntermediaryAndTheRailCanBeTriedAgain() throws Exception {
        Office office = new Office();
        office.down = true;
        withPair(office, "lyon", "rennes", true, (a, b) -> {
            a.connect(1);
            Connector.Event failed = next(a);
            assertThat(failed.link()).isNull();
            assertThat(failed.error()).contains("rank 1").contains("through office").contains("the office is closed");
            office.down = false;
            a.connectRail(1, 0);
            Connector.Event ea = next(a);
            assertThat(ea.link()).as(String.valueOf(ea.error())).isNotNull();
        });
    }

    @Test
    void anArrivalFromARankOutsideTheJobIsIgnored() throws Exception {
        Office office = new Office();
        withPair(office, "lyon", "rennes", true, (a, b) -> {
            office.arrivals.get(0).accept(7);
            office.arrivals.get(0).accept(1);
            Connector.Event ea = next(a);
            assertThat(ea.peer()).isEqualTo(1);
            assertThat(ea.link()).isNotNull();
            assertThat(a.poll()).isNull();
        });
    }
}
