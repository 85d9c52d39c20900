package org.railyard.gateway;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.DataInputStream;
import java.io.EOFException;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.railyard.bootstrap.JobKeys;
import org.railyard.testkit.Await;
import org.railyard.transport.gateway.GatewayClient;
import org.railyard.wire.GatewayFrame;

/**
 * Two gateways on loopback (sites east and west) and ranks played by raw connections: frames cross
 * both gateways intact and in order, several jobs stay apart, and bad input closes only the
 * connection that sent it, with the reason logged and sent back.
 */
class GatewayServerTest {
    private static final Duration T = Duration.ofSeconds(10);
    private static final byte[] SECRET = "secret-of-job-a".getBytes(StandardCharsets.UTF_8);
    private final List<String> logs = new CopyOnWriteArrayList<>();
    private GatewayServer east;
    private GatewayServer west;

    @BeforeEach
    void start() throws IOException {
        west = GatewayServer.start(new GatewayServer.Settings("west", new InetSocketAddress("127.0.0.1", 0), List.of(),
                2, Duration.ofSeconds(3), 16 << 20), logs::add);
        east = GatewayServer.start(new GatewayServer.Settings("east", new InetSocketAddress("127.0.0.1", 0),
                List.of(new GatewayServer.Peer(null, west.address())), 2, Duration.ofSeconds(3), 16 << 20), logs::add);
    }

    @AfterEach
    void stop() throws IOException {
        logs.forEach(System.out::println);
        east.close();
        west.close();
    }

    static GatewayFrame.Address addr(String site, String node, int rank) {
        return new GatewayFrame.Address(GatewayFrame.siteId(site), GatewayFrame.nodeId(node), rank);
    }

    static GatewayClient.Opened rank(GatewayServer gw, String job, byte[] secret, GatewayFrame.Address self,
                                             int size, String site) throws IOException {
        return GatewayClient.open(gw.address(), job, JobKeys.gatewayVerifier(job, secret), self, size, 0, site, false, T, null);
    }

    static void send(GatewayClient.Opened c, String job, GatewayFrame.Address src, GatewayFrame.Address dst,
                             byte[] body) throws IOException {
        GatewayFrame.write(c.out(), new byte[GatewayFrame.HEADER], GatewayFrame.DATA, (byte) 0, GatewayFrame.jobId(job),
                src, dst, body);
        c.out().flush();
    }

    static GatewayFrame.Header next(GatewayClient.Opened c, byte[][] body) throws IOException {
        c.socket().setSoTimeout((int) T.toMillis());
        DataInputStream in = c.in();
        GatewayFrame.Header h = GatewayFrame.readHeader(in, new byte[GatewayFrame.HEADER], 1 << 24);
        body[0] = GatewayFrame.readBody(in, h);
        return h;
    }

    /** The next DATA frame; a cut one must be followed by its END, which is read too. */
    static GatewayFrame.Header data(GatewayClient.Opened c, byte[][] body) throws IOException {
        GatewayFrame.Header h = next(c, body);
        assertThat(h.type()).isEqualTo(GatewayFrame.DATA);
        if (h.has(GatewayFrame.FLAG_CUT)) {
            byte[][] none = new byte[1][];
            GatewayFrame.Header end = next(c, none);
            assertThat(end.type()).isEqualTo(GatewayFrame.END);
            assertThat(end.source()).isEqualTo(h.source());
            assertThat(end.destination()).isEqualTo(h.destination());
        }
        return h;
    }

    @Test
    void framesCrossTwoGatewaysIntactAndInOrder() throws IOException {
        GatewayFrame.Address e0 = addr("east", "n1", 0);
        GatewayFrame.Address w1 = addr("west", "n2", 1);
        GatewayClient.Opened a = rank(east, "job-a", SECRET, e0, 2, "east");
        GatewayClient.Opened b = rank(west, "job-a", SECRET, w1, 2, "west");
        Random r = new Random(7);
        byte[][] sent = new byte[40][];
        for (int i = 0; i < sent.length; i++) {
            sent[i] = new byte[1 + r.nextInt(i % 10 == 9 ? 4 << 20 : 3000)];
            r.nextBytes(sent[i]);
            send(a, "job-a", e0, w1, sent[i]);
        }
        byte[][] got = new byte[1][];
        for (byte[] s : sent) {
            GatewayFrame.Header h = data(b, got);
            assertThat(h.source()).isEqualTo(e0);
            assertThat(h.destination()).isEqualTo(w1);
            assertThat(got[0]).isEqualTo(s);
        }
        send(b, "job-a", w1, e0, new byte[] {42});
        assertThat(next(a, got).source()).isEqualTo(w1);
        assertThat(got[0]).containsExactly(42);
        String stats = GatewayClient.stats(east.address(), T);
        long bytes = 0;
        for (byte[] s : sent) {
            bytes += s.length;
        }
        assertThat(stats).contains("pair.east->west.messages 40", "pair.east->west.bytes " + bytes,
                "ranks.connected 1", "wan.stripes.open 1");
        assertThat(GatewayClient.stats(west.address(), T)).contains("pair.east->west.messages 40",
                "pair.west->east.messages 1");
        assertThat(logs).anyMatch(l -> l.contains("job job-a: rank 0 of 2 connected"))
                .anyMatch(l -> l.contains("job job-a: gateway of site 'east' connected, stripe"));
    }

    @Test
    void aWrongSecretIsRefusedAndTheJobGoesOn() throws IOException {
        GatewayFrame.Address e0 = addr("east", "n1", 0);
        GatewayFrame.Address e1 = addr("east", "n1", 1);
        GatewayClient.Opened a = rank(east, "job-a", SECRET, e0, 2, "east");
        assertThatThrownBy(() -> rank(east, "job-a", "guess".getBytes(StandardCharsets.UTF_8), e1, 2, "east"))
                .isInstanceOf(IOException.class).hasMessageContaining("could not prove it serves job job-a");
        GatewayClient.Opened b = rank(east, "job-a", SECRET, e1, 2, "east");
        send(a, "job-a", e0, e1, new byte[] {1, 2});
        byte[][] got = new byte[1][];
        assertThat(next(b, got).source()).isEqualTo(e0);
        assertThat(got[0]).containsExactly(1, 2);
    }

    @Test
    void aSecondJobByAnotherSecretSeesNothingOfTheFirst() throws IOException {
        GatewayFrame.Address e0 = addr("east", "n1", 0);
        GatewayClient.Opened a = rank(east, "job-a", SECRET, e0, 2, "east");
        GatewayClient.Opened other = rank(east, "job-b", "other".getBytes(StandardCharsets.UTF_8), e0, 2, "east");
        // job-b's rank 0 sends a frame claiming job-a: its connection is closed, job-a's rank hears nothing
        send(other, "job-a", e0, addr("east", "n1", 1), new byte[] {9});
        byte[][] got = new byte[1][];
        GatewayFrame.Header h = next(other, got);
        assertThat(h.type()).isEqualTo(GatewayFrame.ERROR);
        assertThat(new String(got[0], StandardCharsets.UTF_8)).contains("a frame of another job");
        a.socket().setSoTimeout(300);
        assertThatThrownBy(() -> GatewayFrame.readHeader(a.in(), new byte[GatewayFrame.HEADER], 1 << 20))
                .isInstanceOf(java.net.SocketTimeoutException.class);
    }

    @Test
    void badInputClosesOnlyThatConnection() throws IOException {
        GatewayFrame.Address e0 = addr("east", "n1", 0);
        GatewayFrame.Address e1 = addr("east", "n1", 1);
        GatewayClient.Opened good = rank(east, "job-a", SECRET, e1, 4, "east");
        byte[][] got = new byte[1][];

        GatewayClient.Opened unknownSite = rank(east, "job-a", SECRET, e0, 4, "east");
        send(unknownSite, "job-a", e0, addr("north", "n5", 2), new byte[] {1});
        assertThat(next(unknownSite, got).type()).isEqualTo(GatewayFrame.ERROR);
        assertThat(new String(got[0], StandardCharsets.UTF_8)).startsWith("unknown site");

        GatewayClient.Opened unknownProcess = rank(east, "job-a", SECRET, e0, 4, "east");
        send(unknownProcess, "job-a", e0, addr("east", "n1", 9), new byte[] {1});
        assertThat(next(unknownProcess, got).type()).isEqualTo(GatewayFrame.ERROR);
        assertThat(new String(got[0], StandardCharsets.UTF_8)).contains("unknown process 9 in a job of 4");

        GatewayClient.Opened spoof = rank(east, "job-a", SECRET, e0, 4, "east");
        send(spoof, "job-a", addr("east", "n1", 3), e1, new byte[] {1});
        assertThat(next(spoof, got).type()).isEqualTo(GatewayFrame.ERROR);
        assertThat(new String(got[0], StandardCharsets.UTF_8)).contains("on the connection of");

        GatewayClient.Opened truncated = rank(east, "job-a", SECRET, e0, 4, "east");
        truncated.out().write(new byte[] {40, 0, 0, 0, 'G', 'W', 5});
        truncated.out().flush();
        truncated.socket().shutdownOutput();
        assertThat(next(truncated, got).type()).isEqualTo(GatewayFrame.ERROR);
        assertThat(new String(got[0], StandardCharsets.UTF_8)).contains("truncated header");

        GatewayClient.Opened foreign = rank(east, "job-a", SECRET, e0, 4, "east");
        foreign.out().write("GET / HTTP/1.1\r\nHost: x\r\n\r\n-----------------".getBytes(StandardCharsets.US_ASCII));
        foreign.out().flush();
        assertThat(next(foreign, got).type()).isEqualTo(GatewayFrame.ERROR);
        assertThat(new String(got[0], StandardCharsets.UTF_8)).contains("foreign frame");

        assertThatThrownBy(() -> rank(east, "job-a", SECRET, addr("west", "n1", 2), 4, "west"))
                .hasMessageContaining("of site 'west' connected to the gateway of site 'east'");

        // the good connection still works, and hears from a fresh rank 0
        GatewayClient.Opened fresh = rank(east, "job-a", SECRET, e0, 4, "east");
        send(fresh, "job-a", e0, e1, new byte[] {7});
        assertThat(next(good, got).type()).isEqualTo(GatewayFrame.DATA);
        assertThat(got[0]).containsExactly(7);
        assertThat(GatewayClient.stats(east.address(), T)).contains("connections.rejected 6");
        assertThat(logs).anyMatch(l -> l.contains("closed the connection from") && l.contains("truncated header"));
    }

    /**
     * A rank whose connection ends inside a 1 MiB frame: the far rank gets the frame cut, filled
     * out, and an ABORT from that source (through both gateways), then a frame from another rank
     * on the same connection, which stays open.
     */
    @Test
    void aSourceThatDiesInsideAFrameFailsOnlyThatFlow() throws IOException {
        GatewayFrame.Address e0 = addr("east", "n1", 0);
        GatewayFrame.Address e1 = addr("east", "n1", 1);
        GatewayFrame.Address w2 = addr("west", "n2", 2);
        GatewayClient.Opened dying = rank(east, "job-a", SECRET, e0, 3, "east");
        GatewayClient.Opened other = rank(east, "job-a", SECRET, e1, 3, "east");
        GatewayClient.Opened far = rank(west, "job-a", SECRET, w2, 3, "west");
        send(other, "job-a", e1, w2, new byte[] {5});
        byte[][] got = new byte[1][];
        assertThat(data(far, got).source()).isEqualTo(e1);
        byte[] frame = new byte[GatewayFrame.HEADER + 200_000];
        GatewayFrame.writeHeader(java.lang.foreign.MemorySegment.ofArray(frame), 0, GatewayFrame.HEADER + (1 << 20),
                GatewayFrame.DATA, (byte) 0, GatewayFrame.jobId("job-a"), e0.site(), e0.node(), e0.process(), w2.site(),
                w2.node(), w2.process());
        java.util.Arrays.fill(frame, GatewayFrame.HEADER, frame.length, (byte) 0x5a);
        dying.out().write(frame);
        dying.out().flush();
        dying.socket().close();
        GatewayFrame.Header h = next(far, got);
        assertThat(h.type()).isEqualTo(GatewayFrame.DATA);
        assertThat(h.has(GatewayFrame.FLAG_CUT)).isTrue();
        assertThat(got[0]).hasSize(1 << 20);
        GatewayFrame.Header abort = next(far, got);
        assertThat(abort.type()).isEqualTo(GatewayFrame.ABORT);
        assertThat(abort.source()).isEqualTo(e0);
        assertThat(abort.destination()).isEqualTo(w2);
        assertThat(new String(got[0], StandardCharsets.UTF_8)).contains("ended inside the frame");
        send(other, "job-a", e1, w2, new byte[] {6});
        assertThat(data(far, got).source()).isEqualTo(e1);
        assertThat(got[0]).containsExactly(6);
        assertThat(logs).anyMatch(l -> l.contains("aborted a cut frame from " + e0));
    }

    @Test
    void aDestinationSiteWhoseGatewayIsDownIsUnreachable() throws IOException {
        west.close();
        GatewayFrame.Address e0 = addr("east", "n1", 0);
        GatewayClient.Opened a = rank(east, "job-a", SECRET, e0, 2, "east");
        // the peer's site was never learned (it was down before anyone asked): an unknown site
        send(a, "job-a", e0, addr("west", "n2", 1), new byte[] {1});
        byte[][] got = new byte[1][];
        assertThat(next(a, got).type()).isEqualTo(GatewayFrame.ERROR);
        assertThat(new String(got[0], StandardCharsets.UTF_8)).startsWith("unknown site");
        assertThatThrownBy(() -> next(a, got)).isInstanceOf(EOFException.class);
    }

    @Test
    void aKnownSiteWhoseGatewayIsDownIsUnreachable() throws IOException {
        GatewayServer east2 = GatewayServer.start(new GatewayServer.Settings("east", new InetSocketAddress("127.0.0.1", 0),
                List.of(new GatewayServer.Peer("west", new InetSocketAddress("127.0.0.1", 1))), 1, Duration.ofSeconds(2),
                1 << 20), logs::add);
        try {
            GatewayFrame.Address e0 = addr("east", "n1", 0);
            GatewayClient.Opened a = rank(east2, "job-a", SECRET, e0, 2, "east");
            GatewayFrame.Address w1 = addr("west", "n2", 1);
            send(a, "job-a", e0, w1, new byte[] {1});
            byte[][] got = new byte[1][];
            GatewayFrame.Header h = next(a, got);
            assertThat(h.type()).isEqualTo(GatewayFrame.UNREACHABLE);
            assertThat(h.source()).isEqualTo(w1);
            assertThat(new String(got[0], StandardCharsets.UTF_8)).contains("the gateway of site 'west' is unreachable");
        } finally {
            east2.close();
        }
    }

    @Test
    void quietStripesAreKeptWarmAndThePeerDropsTheWarmFrames() throws Exception {
        GatewayServer west2 = GatewayServer.start(new GatewayServer.Settings("west", new InetSocketAddress("127.0.0.1", 0),
                List.of(), 1, Duration.ofSeconds(3), 1 << 20, Duration.ofMillis(40)), logs::add);
        GatewayServer east2 = GatewayServer.start(new GatewayServer.Settings("east", new InetSocketAddress("127.0.0.1", 0),
                List.of(new GatewayServer.Peer("west", west2.address())), 1, Duration.ofSeconds(3), 1 << 20,
                Duration.ofMillis(40)), logs::add);
        try {
            GatewayFrame.Address e0 = addr("east", "n1", 0);
            GatewayFrame.Address w1 = addr("west", "n2", 1);
            GatewayClient.Opened a = rank(east2, "job-w", SECRET, e0, 2, "east");
            GatewayClient.Opened b = rank(west2, "job-w", SECRET, w1, 2, "west");
            send(a, "job-w", e0, w1, new byte[] {1});
            byte[][] got = new byte[1][];
            assertThat(data(b, got).source()).isEqualTo(e0);
            // both ends of the quiet stripe send WARM frames, and neither takes them for bad input
            Await.awaitUntil(() -> warmSent(east2) >= 3 && warmSent(west2) >= 3, T, "WARM frames on the quiet stripe");
            send(b, "job-w", w1, e0, new byte[] {2});
            assertThat(data(a, got).source()).isEqualTo(w1);
            assertThat(got[0]).containsExactly(2);
            send(a, "job-w", e0, w1, new byte[] {3});
            assertThat(data(b, got).source()).isEqualTo(e0);
            assertThat(got[0]).containsExactly(3);
            assertThat(GatewayClient.stats(east2.address(), T)).contains("wan.stripes.opened 1", "wan.stripes.open 1");
            assertThat(logs).noneMatch(l -> l.contains("closed the connection") || l.contains("' closed: "));
            // the gateways of the fixture keep no stripe warm
            assertThat(warmSent(east)).isZero();
        } finally {
            east2.close();
            west2.close();
        }
    }

    private static long warmSent(GatewayServer gw) throws IOException {
        for (String line : GatewayClient.stats(gw.address(), T).split("\n")) {
            if (line.startsWith("wan.warm.sent ")) {
                return Long.parseLong(line.substring("wan.warm.sent ".length()));
            }
        }
        throw new AssertionError("no wan.warm.sent in the stats of " + gw.address());
    }

    @Test
    void sourcesAreDealtStripesInTurnAndKeepTheirs() {
        GatewayJob job = new GatewayJob("job-s", 1, new byte[32], 8);
        int west = GatewayFrame.siteId("west");
        int north = GatewayFrame.siteId("north");
        // the sources of a neighbour exchange (2, 3, 6, 7 to 4, 5, 0, 1): a hash of (31 source +
        // destination) put all four on one of four stripes
        int[] sources = {2, 3, 6, 7};
        java.util.Set<Integer> used = new java.util.HashSet<>();
        for (int s : sources) {
            used.add(job.stripeFor(west, s, 4));
        }
        assertThat(used).containsExactlyInAnyOrder(0, 1, 2, 3);
        for (int s : sources) {
            assertThat(job.stripeFor(west, s, 4)).isEqualTo(job.stripeFor(west, s, 4));
        }
        assertThat(job.stripeFor(west, 9, 4)).isEqualTo(0);
        // each destination site deals on its own; one stripe: always 0
        assertThat(job.stripeFor(north, 7, 4)).isEqualTo(0);
        assertThat(job.stripeFor(north, 2, 4)).isEqualTo(1);
        assertThat(job.stripeFor(north, 3, 1)).isEqualTo(0);
    }
}
