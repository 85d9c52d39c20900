package org.railyard.transport.udp;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.StandardProtocolFamily;
import java.net.StandardSocketOptions;
import java.nio.channels.DatagramChannel;
import java.nio.channels.SocketChannel;
import java.security.SecureRandom;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.railyard.bootstrap.AddressCard;
import org.railyard.transport.Capability;
import org.railyard.transport.Link;
import org.railyard.transport.Transport;
import org.railyard.transport.TransportEnv;
import org.railyard.util.Config;

/**
 * UDP: a non-blocking {@link DatagramChannel} per connection, next to the authenticated TCP
 * handshake socket, which stays open as the control line (liveness and reconfiguration). Datagrams
 * may be lost, duplicated and reordered, so the links this plugin makes are {@link
 * org.railyard.transport.DatagramLink}s; the stack floor composes reliability, order and congestion
 * control above them as the context asks. Priority 40, below tcp: udp carries a connection only
 * when tcp is not allowed ({@code railyard.transports=udp}) or the peer has no tcp.
 *
 * <p>Handshake parameters (text, '|' separated): the offer is {@code port|token|site|node|frame|
 * datagram|rcvbuf} of the connector's datagram socket, bound before the offer; the answer (in
 * ACCEPT) is {@code port|token|site|node|rcvbuf} of the acceptor's (rcvbuf: the receive buffer the
 * kernel granted, which bounds what the other side keeps in flight). Each side connects its datagram socket to the
 * other's port at the address the handshake socket reached, so only the peer's datagrams are read.
 * Frame and datagram limits are the smaller of the two sides'.
 */
public final class UdpTransport implements Transport {
    private int datagram;
    private int frame;
    private int sockbuf;
    private String site;
    private TransportEnv env;
    private final SecureRandom random = new SecureRandom();
    /** Datagram sockets offered and not yet completed or abandoned, by their offer parameters. */
    private final Map<String, DatagramChannel> offered = new ConcurrentHashMap<>();

    @Override public String name() { return "udp"; }
    @Override public int priority() { return 40; }
    @Override public int maxFrame() { return frame; }

    private static final Set<Capability> CAPABILITIES = Capability.fixed(Capability.REMOTE, Capability.DETECTS_FAILURE);

    @Override
    public Set<Capability> capabilities() {
        return CAPABILITIES;
    }

    @Override
    public boolean start(TransportEnv env) {
        this.env = env;
        datagram = (int) Config.bytes(Config.UDP_DATAGRAM_PROP, Config.UDP_DATAGRAM_DEFAULT);
        frame = (int) Config.bytes(Config.UDP_FRAME_PROP, Config.UDP_FRAME_DEFAULT);
        sockbuf = (int) Config.bytes(Config.UDP_SOCKBUF_PROP, Config.UDP_SOCKBUF_DEFAULT);
        site = Config.string(Config.SITE_PROP, Config.SITE_DEFAULT);
        if (datagram < 512 || datagram > 65507) {
            throw new IllegalArgumentException("setting " + Config.UDP_DATAGRAM_PROP + " = " + datagram
                    + " is outside [512, 65507]");
        }
        if (frame < 4096) {
            throw new IllegalArgumentException("setting " + Config.UDP_FRAME_PROP + " = " + frame + " is below 4096");
        }
        if (site.contains("|")) {
            throw new IllegalArgumentException("setting " + Config.SITE_PROP + " must not contain '|'");
        }
        return true;
    }

    @Override
    public boolean reaches(AddressCard self, AddressCard peer) {
        return self.rank() != peer.rank() && !peer.handshake().isEmpty();
    }

    @Override
    public String offer(int peer, AddressCard peerCard) throws IOException {
        DatagramChannel dc = open();
        int token = random.nextInt() | 1;
        String params = port(dc) + "|" + token + "|" + site + "|" + env.node() + "|" + frame + "|" + datagram + "|"
                + receiveBuffer(dc);
        offered.put(params, dc);
        return params;
    }

    @Override
    public Link complete(int peer, String parameters, int maxFrame, SocketChannel handshake) throws IOException {
        throw new IOException("a udp link needs the acceptor's answer (its datagram port)");
    }

    @Override
    public Link complete(int peer, String parameters, String answer, int maxFrame, SocketChannel handshake)
            throws IOException {
        DatagramChannel dc = offered.remove(parameters);
        if (dc == null) {
            throw new IOException("no udp socket was offered with '" + parameters + "'");
        }
        try {
            String[] mine = split(parameters, 7);
            String[] theirs = split(answer, 5);
            int frameLimit = Math.min(frame, Integer.parseInt(mine[4]));
            return link(peer, dc, handshake, Integer.parseInt(theirs[0]), Integer.parseInt(mine[1]),
                    Integer.parseInt(theirs[1]), theirs[2], theirs[3], frameLimit, Math.min(datagram, maxFrame),
                    Integer.parseInt(theirs[4]));
        } catch (IOException | RuntimeException e) {
            dc.close();
            throw e instanceof IOException io ? io : new IOException("malformed udp answer '" + answer + "'", e);
        }
    }

    @Override
    public void abandon(int peer, String parameters) {
        DatagramChannel dc = offered.remove(parameters);
        if (dc != null) {
            try {
                dc.close();
            } catch (IOException ignored) {
                // nothing was sent on it
            }
        }
    }

    @Override
    public Link accept(int peer, String parameters, SocketChannel handshake) throws IOException {
        String[] p = split(parameters, 7);
        DatagramChannel dc = open();
        try {
            int token = random.nextInt() | 1;
            int frameLimit = Math.min(frame, Integer.parseInt(p[4]));
            int dg = Math.min(datagram, Integer.parseInt(p[5]));
            return link(peer, dc, handshake, Integer.parseInt(p[0]), token, Integer.parseInt(p[1]), p[2], p[3],
                    frameLimit, dg, Integer.parseInt(p[6]));
        } catch (IOException | RuntimeException e) {
            dc.close();
            throw e instanceof IOException io ? io : new IOException("malformed udp offer '" + parameters + "'", e);
        }
    }

    @Override
    public String answer(Link link) {
        UdpLink u = (UdpLink) link;
        return u.localPort() + "|" + u.token() + "|" + site + "|" + env.node() + "|" + u.receiveBuffer();
    }

    private UdpLink link(int peer, DatagramChannel dc, SocketChannel handshake, int peerPort, int token, int peerToken,
                         String peerSite, String peerNode, int frameLimit, int dg, int peerRcvBuf) throws IOException {
        InetSocketAddress remote = (InetSocketAddress) handshake.getRemoteAddress();
        dc.connect(new InetSocketAddress(remote.getAddress(), peerPort));
        boolean sameNode = peerNode.equals(env.node());
        boolean sameSite = peerSite.equals(site);
        return new UdpLink(this, peer, dc, handshake, dg, frameLimit, token, peerToken, sameNode, sameSite, peerRcvBuf,
                receiveBuffer(dc));
    }

    private DatagramChannel open() throws IOException {
        DatagramChannel dc = DatagramChannel.open(StandardProtocolFamily.INET);
        try {
            if (sockbuf > 0) {
                dc.setOption(StandardSocketOptions.SO_SNDBUF, sockbuf);
                dc.setOption(StandardSocketOptions.SO_RCVBUF, sockbuf);
            }
            dc.bind(new InetSocketAddress(0));
            dc.configureBlocking(false);
            return dc;
        } catch (IOException | RuntimeException e) {
            dc.close();
            throw e;
        }
    }

    private static int receiveBuffer(DatagramChannel dc) throws IOException {
        return dc.getOption(StandardSocketOptions.SO_RCVBUF);
    }

    private static int port(DatagramChannel dc) throws IOException {
        return ((InetSocketAddress) dc.getLocalAddress()).getPort();
    }

    private static String[] split(String s, int n) throws IOException {
        String[] p = s.split("\\|", -1);
        if (p.length != n) {
            throw new IOException("malformed udp parameters '" + s + "' (expected " + n + " fields)");
        }
        return p;
    }

    @Override
    public void close() {
        for (DatagramChannel dc : offered.values()) {
            try {
                dc.close();
            } catch (IOException ignored) {
                // closing anyway
            }
        }
        offered.clear();
    }
}
