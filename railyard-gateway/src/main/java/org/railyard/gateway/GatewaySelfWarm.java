package org.railyard.gateway;

import java.io.DataInputStream;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.List;
import org.railyard.bootstrap.JobKeys;
import org.railyard.transport.gateway.GatewayClient;
import org.railyard.wire.GatewayFrame;

/**
 * The self-warm of a gateway daemon: before it reports ready, the daemon forwards a ping-pong of
 * its own over loopback, so that a job's first frames meet a forwarding path the JIT has compiled
 * instead of the interpreter (docs/gateway.md, "The gateways' share in the WAN lab, hop by hop":
 * a fresh gateway's first hundreds of frames cost several times a warm one's).
 *
 * <p>What runs is what carries a job: two throwaway {@link GatewayServer}s of this daemon's classes
 * and settings (sites {@value #SITE_A} and {@value #SITE_B}, peers of each other, on loopback
 * ephemeral ports) and one played rank on each, proven on a job of random id and secret. Each round
 * trip goes rank A, gateway A, WAN stripe, gateway B, rank B and back: each gateway forwards one
 * frame from a rank onto a stripe and one from a stripe to a rank (its accepting and its opening
 * side of a stripe, {@code route}, {@code forward}, the job's stripes, {@link Endpoint}, and
 * {@link GatewayFrame}'s parsing and writing). Small round trips go {@value #WINDOW} at a time;
 * one in each job is alone and has a body larger than a gateway's read piece, so the cut-through
 * path (FLAG_CUT, the END trailer) is compiled too. The round trips are spread over jobs of
 * {@value #SESSION_ROUND_TRIPS} each, so that a job's start (handshake, the first frame opening a
 * stripe) and end (end of stream on every connection, the job dropped, its stripe closed) are in
 * the profile when the JIT compiles: a path it has never seen taken it compiles as a trap, and the
 * first job's end would otherwise throw the compiled forwarding path away.
 *
 * <p>Leaves nothing behind: the throwaway gateways, with their job, counters and sockets, are
 * closed before {@link #run} returns; the daemon's own server is started after it and never sees
 * them. Bounded: it stops after {@code roundTrips} or at {@code bound}, whichever comes first; a
 * warm-up that fails is reported, and the daemon starts anyway (the warm-up only spares time).
 */
final class GatewaySelfWarm {
    /** Round trips when the daemon is not told otherwise ({@code --self-warm}). */
    static final int DEFAULT_ROUND_TRIPS = 5000;
    /** The bound on the whole warm-up, whatever the count. */
    static final Duration BOUND = Duration.ofSeconds(10);
    static final String SITE_A = "railyard-self-warm-a";
    static final String SITE_B = "railyard-self-warm-b";
    /**
     * Small round trips go in turns of this many pings in flight at once, so that a gateway's
     * thread finds several frames per wake-up and the warm-up is not one scheduler delay per frame.
     */
    static final int WINDOW = 16;
    /**
     * Round trips per session (a job of its own, whose ranks connect at its start and close at its
     * end); the second turn of each is one round trip alone with a large body (a cut frame).
     */
    static final int SESSION_ROUND_TRIPS = 8 * WINDOW;
    /** A small frame's body: the size of a 1 B message's channel frame. */
    static final int SMALL_BODY = 49;
    /** A large frame's body: more than one read piece of a gateway, so it is forwarded cut. */
    static final int LARGE_BODY = 160 * 1024;
    private static final SecureRandom RANDOM = new SecureRandom();

    /**
     * What a warm-up did.
     *
     * @param roundTrips round trips completed
     * @param sessions   the jobs they ran in (each ranks' connections and a stripe, opened and closed)
     * @param elapsed    how long it took, the throwaway gateways' start and close included
     * @param failure    why it stopped before the count (the bound, an error), or null
     * @param addresses  where the throwaway gateways listened (closed now)
     */
    record Result(int roundTrips, int sessions, Duration elapsed, String failure, List<InetSocketAddress> addresses) {
        /** The daemon's line about it. */
        String describe() {
            return "railyard gateway: self-warm: " + roundTrips + " round trips in " + sessions
                    + " jobs through two loopback gateways in " + elapsed.toMillis() + " ms"
                    + (failure == null ? "" : " (stopped: " + failure + ")");
        }
    }

    /** {@link System#nanoTime} at the bound. */
    private final long deadline;
    /** Bound on a connection's opening and each handshake step (within the bound). */
    private final Duration patience;
    /** Round trips completed so far, and the jobs begun. */
    private int done;
    private int sessions;

    private GatewaySelfWarm(Duration bound, Duration patience) {
        deadline = System.nanoTime() + bound.toNanos();
        this.patience = patience.compareTo(bound) < 0 ? patience : bound;
    }

    /**
     * Runs the warm-up with the forwarding settings of {@code like} (stripes per peer, largest
     * body, patience within {@code bound}).
     *
     * @param roundTrips at least 1
     */
    static Result run(GatewayServer.Settings like, int roundTrips, Duration bound) {
        if (roundTrips < 1) {
            throw new IllegalArgumentException("self-warm round trips must be at least 1, not " + roundTrips);
        }
        long start = System.nanoTime();
        GatewaySelfWarm w = new GatewaySelfWarm(bound, like.patience());
        InetAddress loopback = InetAddress.getLoopbackAddress();
        String failure = null;
        List<InetSocketAddress> addresses = List.of();
        try (GatewayServer b = GatewayServer.start(settings(like, SITE_B, new InetSocketAddress(loopback, 0), List.of(),
                w.patience), line -> { });
             GatewayServer a = GatewayServer.start(settings(like, SITE_A, new InetSocketAddress(loopback, 0),
                     List.of(new GatewayServer.Peer(SITE_B, b.address())), w.patience), line -> { })) {
            addresses = List.of(a.address(), b.address());
            while (w.done < roundTrips) {
                if (System.nanoTime() - w.deadline >= 0) {
                    failure = "the bound of " + bound.toMillis() + " ms";
                    break;
                }
                w.session(a.address(), b.address(), Math.min(SESSION_ROUND_TRIPS, roundTrips - w.done));
            }
        } catch (SocketTimeoutException e) {
            failure = "the bound of " + bound.toMillis() + " ms, inside a round trip";
        } catch (IOException | RuntimeException e) {
            failure = e.getClass().getSimpleName() + ": " + e.getMessage();
        }
        return new Result(w.done, w.sessions, Duration.ofNanos(System.nanoTime() - start), failure, addresses);
    }

    /** Bound on a connection's opening and handshake: the patience, or what is left of the bound. */
    private Duration step() {
        long left = Math.max(1_000_000L, deadline - System.nanoTime());
        return left < patience.toNanos() ? Duration.ofNanos(left) : patience;
    }

    /**
     * One job of two played ranks, one on each gateway, and {@code count} round trips between
     * them (its second turn the large one); the ranks close at its end, so that the job's end
     * (the gateways drop the job and close its stripe) is part of what the JIT has seen.
     */
    private void session(InetSocketAddress gatewayA, InetSocketAddress gatewayB, int count) throws IOException {
        String job = "railyard-self-warm-" + Long.toHexString(RANDOM.nextLong());
        byte[] secret = new byte[32];
        RANDOM.nextBytes(secret);
        byte[] verifier = JobKeys.gatewayVerifier(job, secret);
        GatewayFrame.Address ra = new GatewayFrame.Address(GatewayFrame.siteId(SITE_A), 1, 0);
        GatewayFrame.Address rb = new GatewayFrame.Address(GatewayFrame.siteId(SITE_B), 2, 1);
        GatewayClient.Opened ca = GatewayClient.open(gatewayA, job, verifier, ra, 2, 0, SITE_A, false, step(), null);
        try (Socket sa = ca.socket()) {
            GatewayClient.Opened cb = GatewayClient.open(gatewayB, job, verifier, rb, 2, 0, SITE_B, false, step(), null);
            try (Socket sb = cb.socket()) {
                sessions++;
                Rank pa = new Rank(ca, job, ra);
                Rank pb = new Rank(cb, job, rb);
                byte[] small = new byte[SMALL_BODY];
                byte[] large = new byte[LARGE_BODY];
                for (int turn = 0, left = count; left > 0; turn++) {
                    boolean big = turn == 1;
                    int n = big ? 1 : Math.min(WINDOW, left);
                    byte[] body = big ? large : small;
                    for (int i = 0; i < n; i++) {
                        pa.send(rb, body);
                    }
                    for (int i = 0; i < n; i++) {
                        pb.receive(ra, body.length, deadline - System.nanoTime());
                        pb.send(ra, body);
                    }
                    for (int i = 0; i < n; i++) {
                        pa.receive(rb, body.length, deadline - System.nanoTime());
                    }
                    left -= n;
                    done += n;
                }
            }
        }
    }

    private static GatewayServer.Settings settings(GatewayServer.Settings like, String site, InetSocketAddress bind,
                                                   List<GatewayServer.Peer> peers, Duration patience) {
        return new GatewayServer.Settings(site, bind, peers, like.connections(), patience, like.maxBody());
    }

    /** A played rank: writes DATA frames to its gateway and reads the ones forwarded to it. */
    private static final class Rank {
        private final GatewayClient.Opened c;
        private final long job;
        private final GatewayFrame.Address self;
        private final byte[] scratch = new byte[GatewayFrame.HEADER];

        Rank(GatewayClient.Opened c, String job, GatewayFrame.Address self) {
            this.c = c;
            this.job = GatewayFrame.jobId(job);
            this.self = self;
        }

        void send(GatewayFrame.Address to, byte[] body) throws IOException {
            GatewayFrame.write(c.out(), scratch, GatewayFrame.DATA, (byte) 0, job, self, to, body);
            c.out().flush();
        }

        /** The next DATA frame, which must be {@code from}'s of {@code length} bytes (and its END when cut). */
        void receive(GatewayFrame.Address from, int length, long leftNanos) throws IOException {
            c.socket().setSoTimeout((int) Math.max(1, Math.min(Integer.MAX_VALUE, leftNanos / 1_000_000)));
            GatewayFrame.Header h = next();
            if (h.type() != GatewayFrame.DATA || !h.source().equals(from) || h.bodyLength() != length) {
                throw new IOException("the warm-up's rank " + self.process() + " got " + GatewayFrame.typeName(h.type())
                        + " of " + h.bodyLength() + " bytes from " + h.source() + " where DATA of " + length
                        + " bytes from " + from + " was due");
            }
            if (h.has(GatewayFrame.FLAG_CUT)) {
                GatewayFrame.Header end = next();
                if (end.type() != GatewayFrame.END) {
                    throw new IOException("the warm-up's rank " + self.process() + " got "
                            + GatewayFrame.typeName(end.type()) + " where the END of a cut frame was due");
                }
            }
        }

        private GatewayFrame.Header next() throws IOException {
            DataInputStream in = c.in();
            GatewayFrame.Header h = GatewayFrame.readHeader(in, scratch, LARGE_BODY);
            in.skipNBytes(h.bodyLength());
            return h;
        }
    }
}
