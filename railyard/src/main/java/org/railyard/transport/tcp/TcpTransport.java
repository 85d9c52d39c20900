package org.railyard.transport.tcp;

import java.io.IOException;
import java.net.StandardSocketOptions;
import java.nio.channels.SocketChannel;
import org.railyard.bootstrap.AddressCard;
import org.railyard.transport.Link;
import org.railyard.transport.Transport;
import org.railyard.transport.TransportEnv;
import org.railyard.util.Config;
import org.railyard.util.KeepAlive;

/**
 * TCP: the handshake socket itself becomes the data connection (Nagle off, large socket buffers).
 * Reaches any peer whose handshake address is reachable, on this node or another.
 */
public final class TcpTransport implements Transport {
    /** Smallest frame limit of a tcp link, set here or offered by a peer. */
    private static final int MIN_FRAME = 4096;
    /** The smallest {@code railyard.tcp.sockbuf} taken: {@link #sockbuf}. */
    static final int MIN_SOCKBUF = 64 * 1024;
    /** The largest {@code railyard.tcp.sockbuf} taken. */
    static final int MAX_SOCKBUF = 1 << 30;
    private int maxFrame;
    private int sockbuf;
    /** The keepalive of every data connection; null: none. */
    private KeepAlive keepAlive;

    @Override public String name() { return "tcp"; }
    @Override public int priority() { return 50; }
    @Override public int maxFrame() { return maxFrame; }

    @Override
    public boolean start(TransportEnv env) {
        maxFrame = (int) Config.bytes(Config.TCP_FRAME_PROP, Config.TCP_FRAME_DEFAULT);
        if (maxFrame < MIN_FRAME) {
            throw new IllegalArgumentException("setting " + Config.TCP_FRAME_PROP + " = " + maxFrame + " is below " + MIN_FRAME);
        }
        sockbuf = sockbuf(Config.bytes(Config.TCP_SOCKBUF_PROP, Config.TCP_SOCKBUF_DEFAULT));
        keepAlive = KeepAlive.configured();
        return true;
    }

    /**
     * The socket buffer size asked of the kernel for {@code railyard.tcp.sockbuf} = {@code bytes}: 0
     * leaves the kernel's sizes (and its autotuning); else at least {@link #MIN_SOCKBUF}. A buffer set
     * after the connection is made can end up smaller than one segment of the path (a loopback
     * segment is about 64 KiB), and a sender whose every segment overflows the peer's window stalls
     * without an error.
     *
     * @throws IllegalArgumentException naming the setting, for a size that is negative, below
     *                                  {@link #MIN_SOCKBUF} or above 1 GiB
     */
    static int sockbuf(long bytes) {
        if (bytes != 0 && (bytes < MIN_SOCKBUF || bytes > MAX_SOCKBUF)) {
            throw new IllegalArgumentException("setting " + Config.TCP_SOCKBUF_PROP + " = " + bytes + " is outside "
                    + MIN_SOCKBUF + " to " + MAX_SOCKBUF + " bytes (0 leaves the kernel's sizes): a socket buffer"
                    + " below one TCP segment stalls the connection");
        }
        return (int) bytes;
    }

    @Override
    public boolean reaches(AddressCard self, AddressCard peer) {
        return self.rank() != peer.rank() && !peer.handshake().isEmpty();
    }

    @Override
    public String offer(int peer, AddressCard peerCard) {
        return Integer.toString(maxFrame);
    }

    @Override
    public Link complete(int peer, String parameters, int maxFrame, SocketChannel handshake) throws IOException {
        return link(peer, Integer.toString(maxFrame), handshake);
    }

    @Override
    public void abandon(int peer, String parameters) {
    }

    @Override
    public Link accept(int peer, String parameters, SocketChannel handshake) throws IOException {
        return link(peer, parameters, handshake);
    }

    private Link link(int peer, String parameters, SocketChannel ch) throws IOException {
        int frame;
        try {
            frame = Math.min(maxFrame, Integer.parseInt(parameters));
        } catch (NumberFormatException e) {
            throw new IOException("malformed tcp offer '" + parameters + "'");
        }
        if (frame < MIN_FRAME) {
            throw new IOException("tcp frame limit " + frame + " from the peer is below " + MIN_FRAME);
        }
        ch.setOption(StandardSocketOptions.TCP_NODELAY, true);
        if (sockbuf > 0) {
            ch.setOption(StandardSocketOptions.SO_SNDBUF, sockbuf);
            ch.setOption(StandardSocketOptions.SO_RCVBUF, sockbuf);
        }
        KeepAlive.apply(ch, keepAlive);
        return new TcpLink(this, peer, ch, frame);
    }

    @Override
    public void close() {
    }
}
