package org.railyard.transport.relay;

import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import org.railyard.wire.RelayFrame;

/**
 * A rank's connection to its relay over loopback, for tests: the rank's side non-blocking, as a
 * {@link RelayReceiver} reads it, and the relay's side blocking, written by the test as the relay
 * would. {@link #close} closes both sides and the listening socket.
 */
final class RelayLoopback implements AutoCloseable {
    private final ServerSocketChannel server;
    private final SocketChannel rankSide;
    private final SocketChannel relaySide;

    private RelayLoopback(ServerSocketChannel server, SocketChannel rankSide, SocketChannel relaySide) {
        this.server = server;
        this.rankSide = rankSide;
        this.relaySide = relaySide;
    }

    static RelayLoopback open() throws IOException {
        ServerSocketChannel server = ServerSocketChannel.open().bind(new InetSocketAddress("127.0.0.1", 0));
        SocketChannel rank = SocketChannel.open(server.getLocalAddress());
        SocketChannel relay = server.accept();
        rank.configureBlocking(false);
        return new RelayLoopback(server, rank, relay);
    }

    /** The rank's end, non-blocking. */
    SocketChannel rankSide() {
        return rankSide;
    }

    /** The relay's end, blocking. */
    SocketChannel relaySide() {
        return relaySide;
    }

    /** Writes all of {@code b}'s remaining bytes from the relay's side. */
    void write(ByteBuffer b) throws IOException {
        while (b.hasRemaining()) {
            relaySide.write(b);
        }
    }

    /** Writes a frame of {@code type} with a body of {@code bodyBytes} zeros from the relay's side. */
    void writeFrame(byte type, int source, int destination, long sequence, int bodyBytes) throws IOException {
        byte[] f = new byte[RelayFrame.HEADER + bodyBytes];
        RelayFrame.writeHeader(MemorySegment.ofArray(f), 0, f.length, type, (byte) 0, source, destination, sequence);
        write(ByteBuffer.wrap(f));
    }

    @Override
    public void close() throws IOException {
        rankSide.close();
        relaySide.close();
        server.close();
    }
}
