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
     * A bell that input arriving on this transport's connections rings (the kernel's readiness of
     * a socket it reads), which a waiting thread of a process whose every peer is reached through
     * this transport may sleep on instead of {@link #bell()}; {@link Bell#NONE} (the default) if
     * there is none. Frames of other transports do not end such a sleep: it is only for waits that
     * this transport's input alone can end, and stays bounded by the caller's interval.
     */
    default Bell inputBell() {
        return Bell.NONE;
    }

    /**
     * A link of this process to itself, made without a handshake; only transports with
     * {@link Capability#LOOPBACK} make one.
     */
    default Link loopback(int rank) throws IOException {
        throw new UnsupportedOperationException("transport " + name() + " has no loopback link");
    }

    /**
     * The memory of this node's processes that the layers above may use beside the links; only
     * transports with {@link Capability#NODE_MEMORY} have it, once {@link #start}ed.
     */
    default NodeMemory nodeMemory() {
        throw new UnsupportedOperationException("transport " + name() + " shares no node memory");
    }

    /**
     * {@link Capability#INDIRECT} transports: true if {@code peer} must be reached through this
     * transport even though a direct transport of higher priority also reaches it (a peer of
     * another site behind its gateway; a peer that accepts no connection). Direct transports are
     * never asked. The answer must not change when the two cards are swapped: both sides of a
     * pair then choose the same path, and neither connects directly while the other joins.
     */
    default boolean required(AddressCard self, AddressCard peer) {
        return false;
    }

    /**
     * {@link Capability#INDIRECT} transports: the link to {@code peer} through the intermediary,
     * made from the two cards without a handshake with the peer (single rail). Called by a
     * connector thread when this process first sends to the peer, when the peer's first frame
     * arrived (see {@link #arrivals}), and again after the previous link to the peer broke. A peer
     * that is not there yet is not an error: frames wait at the intermediary, whose own bounds apply.
     *
     * @throws IOException if the intermediary cannot be reached or refuses this process
     */
    default Link join(int peer, AddressCard self, AddressCard peerCard) throws IOException {
        throw new UnsupportedOperationException("transport " + name() + " makes no indirect link");
    }

    /**
     * {@link Capability#INDIRECT} transports: where to tell that a frame from a peer this process
     * holds no link to has arrived (the connector then calls {@link #join} for it, and the
     * transport hands the waiting frames to that link). Set once, before any link is made.
     */
    default void arrivals(java.util.function.IntConsumer peerArrived) {
    }

    /**
     * Entries this transport adds to its process's address card (for a relay, the owner relay of
     * this rank), as key to value; keys are lower-case words and dots, values hold no ';'.
     */
    default java.util.Map<String, String> cardEntries() {
        return java.util.Map.of();
    }

    /**
     * Makes ahead the native call handles ({@code java.lang.foreign}) that {@link #start} or the
     * links will need, on the set-up thread that init starts before it joins the job, possibly
     * while {@link #start} runs on another instance of this class. Must not throw, and must leave
     * the outcome exactly as if the handles were made on first use (a failure is kept and reported
     * where the handles are used, with the same message). Nothing to do by default.
     */
    default void prepareNative() {
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
