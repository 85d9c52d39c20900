package org.railyard.transport;

import java.io.IOException;
import java.nio.channels.SocketChannel;
import org.railyard.bootstrap.AddressCard;

/**
 * A way to move frames between two processes: a plugin found with {@link java.util.ServiceLoader}
 * (pscom's idea: one plugin per interconnect, chosen per connection). Every connection starts with
 * the TCP handshake of {@link Connector}; the plugins both cards offer are proposed in priority
 * order, and the first the acceptor can open becomes the link. The handshake socket is handed to
 * the plugin, which may keep it as its data path (tcp) or as a liveness and control line (shm).
 *
 * <p>Lifecycle: {@link #start} once per process, then {@link #offer}/{@link #complete} on the
 * connecting side and {@link #accept} on the accepting side, from connector threads (not the
 * progress agent), then {@link #close}.
 */
public interface Transport {

    /** Short unique name: "self", "shm", "tcp". */
    String name();

    /** Higher is preferred. self 100, shm 80, tcp 50. */
    int priority();

    /** Largest frame a link of this transport carries (its MTU, in the frame sense). */
    int maxFrame();

    /** What its links guarantee; by default a reliable, ordered stream that reaches other nodes. */
    default java.util.Set<Capability> capabilities() {
        return Capability.STREAM;
    }

    /**
     * The bell its links ring when they publish a frame or free room, which a waiting thread may
     * sleep on; {@link Bell#NONE} (the default) if they ring none.
     */
    default Bell bell() {
        return Bell.NONE;
    }

    /**
     * A link of this process to itself, made without a handshake; only transports with
     * {@link Capability#LOOPBACK} make one.
     */
    default Link loopback(int rank) throws IOException {
        throw new UnsupportedOperationException("transport " + name() + " has no loopback link");
    }

    /** Prepares the plugin; false if it cannot work in this process (it is then not offered). */
    boolean start(TransportEnv env) throws IOException;

    /** True if this transport can link this process to the peer described by {@code peer}. */
    boolean reaches(AddressCard self, AddressCard peer);

    /**
     * Connecting side: prepares what the acceptor needs (for shm, the segment) and returns the
     * parameters to send. Resources are held until {@link #complete} or {@link #abandon}.
     */
    String offer(int peer, AddressCard peerCard) throws IOException;

    /**
     * Connecting side: the acceptor took this transport; build the link. {@code maxFrame} is the
     * frame limit the acceptor's link settled on (the smaller of the two sides'), which both use.
     */
    Link complete(int peer, String parameters, int maxFrame, SocketChannel handshake) throws IOException;

    /**
     * Connecting side, for transports whose acceptor answers with parameters of its own (udp: its
     * datagram port and connection token): like {@link #complete(int, String, int, SocketChannel)},
     * with {@code answer} the acceptor's {@link #answer}. By default the answer is ignored.
     */
    default Link complete(int peer, String parameters, String answer, int maxFrame, SocketChannel handshake)
            throws IOException {
        return complete(peer, parameters, maxFrame, handshake);
    }

    /**
     * Accepting side: parameters to return to the connector with the ACCEPT, once {@link #accept}
     * made {@code link}; empty by default.
     */
    default String answer(Link link) {
        return "";
    }

    /** Connecting side: the acceptor did not take this offer; release what {@link #offer} made. */
    void abandon(int peer, String parameters);

    /** Accepting side: opens the link the connector offered, or throws to decline it. */
    Link accept(int peer, String parameters, SocketChannel handshake) throws IOException;

    /** Releases everything. */
    void close();
}
