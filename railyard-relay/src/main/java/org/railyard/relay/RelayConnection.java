package org.railyard.relay;

import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import org.railyard.wire.RelayFrame;

/**
 * One connection of a {@link RelayServer}: the two streams of its socket, the STOREDs its reader
 * owes, and the frames written to it. Sends are serialized (the reader acknowledges, the deliverer
 * delivers, a reader of another connection passes a message on); the server's watcher reads
 * {@link #writeSince} to close a connection whose writes are not taken, and {@link #readSince} to
 * close one whose peer stalls inside a frame or its handshake.
 *
 * <p>Reads are blocking reads of a socket that never has a read timeout: the JDK would otherwise
 * keep the socket non-blocking from its first timed read on, and every wait for a frame would cost
 * a read that finds nothing, a poll and the read again. The frame bound is the watcher's instead.
 *
 * <p>The socket is a channel's ({@link SocketChannel}, blocking). Frames go through the streams;
 * the body of a passing message ({@link #readPart}, {@link #pass}) goes through the channel, into
 * and out of one direct buffer per connection, so that it is copied once from the kernel, once
 * back to it, and once into the stored message (a stream would add a copy through the JDK's
 * temporary direct buffer on each side).
 */
final class RelayConnection {
    private final RelayServer.Settings settings;
    private final RelayStore store;
    final Socket socket;
    private final Input input;
    final DataInputStream in;
    final DataOutputStream out;
    final byte[] inScratch = new byte[RelayFrame.HEADER];
    final byte[] outScratch = new byte[RelayFrame.HEADER];
    private final SocketChannel channel;
    /** The pieces of a passing message read from this connection (reader thread only); made at the first. */
    private ByteBuffer passBuffer;
    /** The DELIVER header of a passing message written on this connection, sent with its first piece. */
    private final ByteBuffer passHeader = ByteBuffer.allocateDirect(RelayFrame.HEADER);
    private final ByteBuffer[] passWrite = {passHeader, null};
    /** Set once the handshake is done: from then on, reads between frames may wait without bound. */
    boolean proven;
    /** STOREDs not yet written (reader thread only): their frames, and the log position they wait for. */
    int acks;
    private final int[] ackSource = new int[RelayServer.ACK_BATCH];
    private final int[] ackDestination = new int[RelayServer.ACK_BATCH];
    private final long[] ackSequence = new long[RelayServer.ACK_BATCH];
    private long ackPosition;

    /** Who it is, for notices. */
    volatile String who;
    /** When (System.nanoTime) the write under way began; 0 while none is (see the class). */
    volatile long writeSince;
    /** When (System.nanoTime) the read under way, which the peer must finish within the frame bound, began; 0 while none is. */
    volatile long readSince;
    /** Set by the watcher when it closed the connection because a read outlasted the frame bound. */
    volatile boolean stalled;

    RelayConnection(Socket socket, String who, RelayServer.Settings settings, RelayStore store) throws IOException {
        this.settings = settings;
        this.store = store;
        this.socket = socket;
        this.channel = socket.getChannel();
        if (channel == null) {
            throw new IllegalArgumentException("a relay connection needs a socket of a SocketChannel: " + who);
        }
        this.who = who;
        this.input = new Input(socket.getInputStream());
        this.in = new DataInputStream(input);
        this.out = new DataOutputStream(new BufferedOutputStream(socket.getOutputStream(), 1 << 16));
    }

    /**
     * The next frame's header. Waiting for a frame to start has no bound once the handshake is done
     * (a rank may be silent as long as it likes); once its first byte is in, the rest of the frame
     * must follow within the handshake timeout, so a peer that stalls mid-frame cannot hold the
     * connection. Before that, the whole wait is bounded.
     */
    RelayFrame.Header readHeader() throws IOException {
        if (proven && input.buffered() == 0) {
            in.mark(1);
            if (in.read() < 0) {
                throw new EOFException();
            }
            in.reset();
        }
        readSince = System.nanoTime() | 1;
        try {
            return RelayFrame.readHeader(in, inScratch, settings.maxMessage());
        } finally {
            readSince = 0;
        }
    }

    byte[] body(RelayFrame.Header h) throws IOException {
        readSince = System.nanoTime() | 1;
        try {
            return RelayFrame.readBody(in, h);
        } finally {
            readSince = 0;
        }
    }

    /** This connection's buffer for the pieces of a passing message, {@code capacity} bytes (made at the first use). */
    ByteBuffer passBuffer(int capacity) {
        if (passBuffer == null) {
            passBuffer = ByteBuffer.allocateDirect(capacity);
        }
        return passBuffer;
    }

    /**
     * Reads part of a frame's body (a passing message) into {@code dst}, up to its limit, within
     * the frame bound: the bytes read ahead into the stream's buffer first, then from the channel.
     * Returns the bytes read, -1 at the end of the stream.
     */
    int readPart(ByteBuffer dst) throws IOException {
        if (input.buffered() > 0) {
            return input.drainTo(dst);
        }
        readSince = System.nanoTime() | 1;
        try {
            return channel.read(dst);
        } finally {
            readSince = 0;
        }
    }

    /**
     * Whether the reader would wait before the next frame's header, so that the STOREDs it owes
     * should go out now. A header not read ahead counts as a wait without asking the kernel (a
     * ping-pong's reader finds its buffer empty after every message), unless the log group-commits,
     * where STOREDs held across what the kernel already has share one force.
     */
    boolean waitsForHeader() throws IOException {
        return input.buffered() < RelayFrame.HEADER
                && (!store.groupCommits() || in.available() < RelayFrame.HEADER);
    }

    /** Whether the reader would wait for part of a body of {@code length} bytes. */
    boolean waitsFor(int length) throws IOException {
        return input.buffered() < length && in.available() < length;
    }

    void send(byte type, byte flags, int source, int destination, long sequence, byte[] body) throws IOException {
        synchronized (this) {
            writeSince = System.nanoTime() | 1;
            try {
                RelayFrame.write(out, outScratch, type, flags, source, destination, sequence, body, 0, body.length);
                out.flush();
            } finally {
                writeSince = 0;
            }
        }
    }

    /**
     * Notes the STORED owed for {@code h}, whose record is at log {@code position}; writes the
     * STOREDs held when they reach {@value RelayServer#ACK_BATCH}.
     */
    void ack(RelayFrame.Header h, long position) throws IOException, InterruptedException {
        ackSource[acks] = h.source();
        ackDestination[acks] = h.destination();
        ackSequence[acks] = h.sequence();
        acks++;
        ackPosition = Math.max(ackPosition, position);
        if (acks == RelayServer.ACK_BATCH) {
            flushAcks();
        }
    }

    /** Waits until the records of the STOREDs held are durable (fsync policy), then writes them, one flush. */
    void flushAcks() throws IOException, InterruptedException {
        if (acks == 0) {
            return;
        }
        store.awaitDurable(ackPosition);
        synchronized (this) {
            writeSince = System.nanoTime() | 1;
            try {
                for (int i = 0; i < acks; i++) {
                    RelayFrame.write(out, outScratch, RelayFrame.STORED, (byte) 0, ackSource[i], ackDestination[i],
                            ackSequence[i], null, 0, 0);
                }
                out.flush();
            } finally {
                writeSince = 0;
            }
        }
        acks = 0;
        ackPosition = 0;
    }

    /** Writes DELIVERs of {@code messages} to {@code rank}, in order, one flush. */
    void deliver(int rank, java.util.List<Mailbox.Message> messages) throws IOException {
        synchronized (this) {
            writeSince = System.nanoTime() | 1;
            try {
                for (Mailbox.Message m : messages) {
                    writeSince = System.nanoTime() | 1; // the bound is per message
                    RelayFrame.write(out, outScratch, RelayFrame.DELIVER, m.control ? RelayFrame.FLAG_CONTROL : 0,
                            m.source, rank, m.sequence, m.body, 0, m.body.length);
                }
                out.flush();
            } finally {
                writeSince = 0;
            }
        }
    }

    /**
     * Begins a DELIVER of {@code h} whose body follows in pieces ({@link #pass}); its header goes
     * out with the first piece. The caller holds this connection's monitor until the last piece.
     */
    void beginPassage(RelayFrame.Header h) {
        RelayFrame.writeHeader(MemorySegment.ofBuffer(passHeader.clear()), 0, RelayFrame.HEADER + h.bodyLength(),
                RelayFrame.DELIVER, h.has(RelayFrame.FLAG_CONTROL) ? RelayFrame.FLAG_CONTROL : 0, h.source(),
                h.destination(), h.sequence());
    }

    /**
     * Writes a piece of the body of the DELIVER begun by {@link #beginPassage} (its remaining
     * bytes, which it consumes), with the header before the first: one gathering write through
     * the channel, past the stream (which every other writer leaves flushed).
     */
    void pass(ByteBuffer piece) throws IOException {
        writeSince = System.nanoTime() | 1;
        try {
            out.flush(); // empty: every send flushes before it lets go of the monitor
            passWrite[1] = piece;
            while (passHeader.hasRemaining() || piece.hasRemaining()) {
                channel.write(passWrite);
            }
        } finally {
            passWrite[1] = null;
            writeSince = 0;
        }
    }

    /** Best effort: the ERROR naming why the connection closes. */
    void error(String reason) {
        byte[] text = (reason != null ? reason : "connection failed").getBytes(StandardCharsets.UTF_8);
        try {
            send(RelayFrame.ERROR, (byte) 0, -1, -1, 0, text.length > RelayFrame.MAX_TEXT
                    ? RelayFrame.slice(text, 0, RelayFrame.MAX_TEXT) : text);
        } catch (IOException ignored) {
            // the socket is closing
        }
    }

    /** The socket's read buffer, which tells how much is read ahead without a system call. */
    private static final class Input extends BufferedInputStream {
        Input(java.io.InputStream in) {
            super(in, 1 << 16);
        }

        int buffered() {
            return count - pos;
        }

        /** Moves up to {@code dst.remaining()} of the bytes read ahead into {@code dst}; how many. */
        int drainTo(ByteBuffer dst) {
            int n = Math.min(count - pos, dst.remaining());
            dst.put(buf, pos, n);
            pos += n;
            return n;
        }
    }
}
