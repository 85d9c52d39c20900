package org.railyard.transport.relay;

import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.Arrays;
import org.railyard.bootstrap.JobKeys;
import org.railyard.util.KeepAlive;
import org.railyard.wire.RelayFrame;

/**
 * One rank's connection to a relay server, blocking. {@link #connect} runs the handshake of
 * {@link RelayFrame} (the rank proves the job's relay verifier, the relay proves it back when it
 * already knows the job); then {@link #store} sends messages, {@link #next} reads what the relay
 * sends (STORED acknowledgements, DELIVERed messages) and {@link #delivered} acknowledges
 * consumption. Sending and receiving may run on two threads; each direction on one.
 *
 * <p>A connection opened over a {@link SocketChannel} ({@code channel} true) can, after the
 * handshake, be read without blocking by another reader ({@link #detachInput}, the rank's
 * {@link RelayReceiver}); its writes then go to the non-blocking channel, waiting on a selector
 * when the kernel's buffer is full (see {@link ChannelOutput}).
 */
public final class RelayClient implements AutoCloseable {
    /** Largest message body a client accepts from a relay. */
    public static final int MAX_BODY = 1 << 30;

    /** A frame the relay sent after the handshake. */
    public record Incoming(RelayFrame.Header header, byte[] body) { }

    private static final SecureRandom RANDOM = new SecureRandom();

    private final Socket socket;
    /** The channel under {@link #socket}, or null for a plain socket. */
    private final SocketChannel channel;
    private final Input buffered;
    private final DataInputStream in;
    /** Guards {@link #out}, and the frames written into it until their flush. */
    private final Object writeLock = new Object();
    private DataOutputStream out;
    /** The writer of a detached channel, or null. */
    private ChannelOutput channelOut;
    /** Bound on a write to a detached (non-blocking) channel waiting for room. */
    private final Duration timeout;
    private final byte[] inScratch = new byte[RelayFrame.HEADER];
    private final byte[] outScratch = new byte[RelayFrame.HEADER];
    private final int rank;
    /** True on a connection opened to receive (see {@link ChannelOutput}); set by {@link #connect}. */
    private boolean receiving;

    /** A buffered input that gives up the bytes it read ahead (see {@link #detachInput}). */
    private static final class Input extends BufferedInputStream {
        Input(java.io.InputStream in) {
            super(in, 1 << 16);
        }

        synchronized byte[] takeBuffered() {
            byte[] rest = Arrays.copyOfRange(buf, pos, count);
            pos = count;
            return rest;
        }
    }

    /** What {@link #detachInput} hands over: the non-blocking channel and the bytes already read from it. */
    public record Detached(SocketChannel channel, byte[] leftover) { }

    private RelayClient(Socket socket, SocketChannel channel, int rank, Duration timeout) throws IOException {
        this.socket = socket;
        this.channel = channel;
        this.rank = rank;
        this.timeout = timeout;
        this.buffered = new Input(socket.getInputStream());
        this.in = new DataInputStream(buffered);
        this.out = new DataOutputStream(new BufferedOutputStream(socket.getOutputStream(), 1 << 16));
    }

    /**
     * Connects and proves the job: every step bounded by {@code timeout}.
     *
     * @param receive true on the connection to this rank's owner relay: the relay delivers this
     *                rank's messages on it
     * @throws IOException naming the relay's reason when it refuses
     */
    public static RelayClient connect(InetSocketAddress relay, String jobId, byte[] secret, int rank, int size,
                                      boolean receive, Duration timeout) throws IOException {
        return connect(relay, jobId, secret, rank, size, receive, timeout, 0, false);
    }

    /**
     * As {@link #connect(InetSocketAddress, String, byte[], int, int, boolean, Duration)}, with the
     * socket's send and receive buffers asked to be {@code sockbuf} bytes (0: the kernel's
     * defaults), over a {@link SocketChannel} when {@code channel} (so that its input can be
     * detached, {@link #detachInput}).
     */
    public static RelayClient connect(InetSocketAddress relay, String jobId, byte[] secret, int rank, int size,
                                      boolean receive, Duration timeout, int sockbuf, boolean channel) throws IOException {
        SocketChannel ch = channel ? SocketChannel.open() : null;
        Socket s = ch != null ? ch.socket() : new Socket();
        try {
            s.setTcpNoDelay(true);
            if (sockbuf > 0) {
                s.setSendBufferSize(sockbuf);
                s.setReceiveBufferSize(sockbuf); // before connecting: the window scale is agreed then
            }
            s.connect(relay, (int) timeout.toMillis());
            // a relay that vanishes without closing (its host gone) ends this connection about
            // railyard.tcp.keepalive after its last traffic, and the port's reconnection starts
            KeepAlive.apply(s, KeepAlive.configured());
            s.setSoTimeout((int) timeout.toMillis());
            RelayClient c = new RelayClient(s, ch, rank, timeout);
            c.receiving = receive;
            c.handshake(relay, jobId, JobKeys.relayVerifier(jobId, secret), size, receive);
            s.setSoTimeout(0);
            return c;
        } catch (IOException | RuntimeException e) {
            s.close();
            throw e;
        }
    }

    private void handshake(InetSocketAddress relay, String jobId, byte[] verifier, int size, boolean receive)
            throws IOException {
        byte[] nonceC = new byte[RelayFrame.NONCE_BYTES];
        RANDOM.nextBytes(nonceC);
        byte[] hello = RelayFrame.helloBody(size, nonceC, jobId);
        send(RelayFrame.HELLO, receive ? RelayFrame.FLAG_RECEIVE : 0, rank, -1, 0, hello, 0, hello.length);
        Incoming c = expect(RelayFrame.CHALLENGE);
        boolean newJob = c.header().has(RelayFrame.FLAG_NEW_JOB);
        byte[] nonceR = RelayFrame.slice(c.body(), RelayFrame.CHALLENGE_NONCE_OFFSET, RelayFrame.NONCE_BYTES);
        if (!newJob) {
            byte[] proof = RelayFrame.slice(c.body(), RelayFrame.CHALLENGE_MAC_OFFSET, RelayFrame.MAC_BYTES);
            if (!JobKeys.same(proof, JobKeys.relayProof(verifier, "R", rank, nonceC, nonceR))) {
                throw new IOException("relay " + relay + " could not prove it serves job " + jobId
                        + " (another job by that id, or a stranger)");
            }
        }
        byte[] proof = RelayFrame.proofBody(JobKeys.relayProof(verifier, "C", rank, nonceR, nonceC),
                newJob ? verifier : null);
        send(RelayFrame.PROOF, newJob ? RelayFrame.FLAG_NEW_JOB : 0, rank, -1, 0, proof, 0, proof.length);
        expect(RelayFrame.WELCOME);
    }

    private Incoming expect(byte type) throws IOException {
        Incoming f = read();
        if (f.header().type() != type) {
            throw new IOException("relay answered " + RelayFrame.typeName(f.header().type()) + " where "
                    + RelayFrame.typeName(type) + " was due");
        }
        return f;
    }

    /** Reads the next frame; an ERROR from the relay becomes an IOException carrying its reason. */
    private Incoming read() throws IOException {
        RelayFrame.Header h;
        try {
            h = RelayFrame.readHeader(in, inScratch, MAX_BODY);
        } catch (EOFException e) {
            throw new EOFException("relay closed the connection");
        }
        byte[] body = RelayFrame.readBody(in, h);
        if (h.type() == RelayFrame.ERROR) {
            throw new IOException("relay refused: " + new String(body, StandardCharsets.UTF_8));
        }
        return new Incoming(h, body);
    }

    /** Asks the relay to store a message for {@code destination}; does not wait for its STORED. */
    public void store(int destination, long sequence, boolean control, byte[] message, int off, int len)
            throws IOException {
        send(RelayFrame.STORE, control ? RelayFrame.FLAG_CONTROL : 0, rank, destination, sequence, message, off, len);
    }

    /** Tells the relay this rank consumed every message of {@code source} up to {@code sequence}. */
    public void delivered(int source, long sequence) throws IOException {
        send(RelayFrame.DELIVERED, (byte) 0, source, rank, sequence, null, 0, 0);
    }

    /**
     * Like {@link #store}, but leaves the frame in the output buffer: several frames then share one
     * system call, and {@link #flush} sends them. For one sending thread only.
     */
    public void storeLater(int destination, long sequence, byte[] message, int length) throws IOException {
        synchronized (writeLock) {
            RelayFrame.write(out, outScratch, RelayFrame.STORE, (byte) 0, rank, destination, sequence, message, 0,
                    length);
        }
    }

    /** Like {@link #delivered}, but left in the output buffer until {@link #flush}. */
    public void deliveredLater(int source, long sequence) throws IOException {
        synchronized (writeLock) {
            RelayFrame.write(out, outScratch, RelayFrame.DELIVERED, (byte) 0, source, rank, sequence, null, 0, 0);
        }
    }

    /** Asks, in the output buffer until {@link #flush}, whether {@code rank} is connected to receive at this relay. */
    public void presenceLater(int rank) throws IOException {
        synchronized (writeLock) {
            RelayFrame.write(out, outScratch, RelayFrame.PRESENCE_REQUEST, (byte) 0, this.rank, rank, 0, null, 0, 0);
        }
    }

    /** Sends what {@link #storeLater} and {@link #deliveredLater} left in the output buffer. */
    public void flush() throws IOException {
        synchronized (writeLock) {
            out.flush();
        }
    }

    /** The next STORED, DELIVER or PRESENCE frame, waiting as long as it takes (until the connection closes). */
    public Incoming next() throws IOException {
        socket.setSoTimeout(0);
        return read();
    }

    /** The socket's send buffer, bytes (SO_SNDBUF as the kernel reports it). */
    public int sendBuffer() {
        try {
            return socket.getSendBufferSize();
        } catch (IOException e) {
            return 0; // closed: nothing will be written directly
        }
    }

    /**
     * Hands the input over to a non-blocking reader: the channel, switched to non-blocking, and
     * the bytes read ahead during the handshake. After it, this client only writes (see the class).
     *
     * @throws IllegalStateException if the client was not opened over a channel
     */
    public Detached detachInput() throws IOException {
        if (channel == null) {
            throw new IllegalStateException("a relay client over a plain socket cannot hand its input over");
        }
        synchronized (writeLock) {
            out.flush();
            channel.configureBlocking(false);
            channelOut = new ChannelOutput();
            out = new DataOutputStream(new BufferedOutputStream(channelOut, 1 << 16));
        }
        return new Detached(channel, buffered.takeBuffered());
    }

    /**
     * Writes to the detached channel, waiting for room when the kernel has none: on a receiving
     * connection (DELIVEREDs, which the relay always reads) at most the timeout; on a sending one
     * without bound, as a blocking socket would, since a relay whose store is full holds its
     * senders back by not reading them (its {@code --max-bytes}).
     */
    private final class ChannelOutput extends java.io.OutputStream {
        private Selector selector;

        @Override
        public void write(int b) throws IOException {
            write(new byte[] {(byte) b}, 0, 1);
        }

        @Override
        public void write(byte[] b, int off, int len) throws IOException {
            ByteBuffer buf = ByteBuffer.wrap(b, off, len);
            long deadline = receiving ? System.nanoTime() + timeout.toNanos() : Long.MAX_VALUE;
            while (buf.hasRemaining()) {
                if (channel.write(buf) == 0) { // a closed channel throws here, which ends a wait without bound
                    long left = deadline - System.nanoTime();
                    if (left <= 0) {
                        throw new IOException("relay " + socket.getRemoteSocketAddress() + " took nothing written to it for "
                                + timeout.toMillis() + " ms");
                    }
                    if (selector == null) {
                        selector = Selector.open();
                        channel.register(selector, SelectionKey.OP_WRITE);
                    }
                    selector.select(Math.clamp(left / 1_000_000, 1, 1_000));
                    selector.selectedKeys().clear();
                }
            }
        }

        @Override
        public void close() throws IOException {
            if (selector != null) {
                selector.close();
            }
        }
    }

    /** The address of the relay this client is connected to. */
    public InetSocketAddress relay() {
        return (InetSocketAddress) socket.getRemoteSocketAddress();
    }

    /**
     * The next STORED or DELIVER frame, waiting at most {@code timeout}.
     *
     * @throws java.net.SocketTimeoutException when nothing came in time
     */
    public Incoming next(Duration timeout) throws IOException {
        socket.setSoTimeout((int) Math.max(1, timeout.toMillis()));
        return read();
    }

    private void send(byte type, byte flags, int source, int destination, long sequence, byte[] body, int off, int len)
            throws IOException {
        synchronized (writeLock) {
            RelayFrame.write(out, outScratch, type, flags, source, destination, sequence, body, off, len);
            out.flush();
        }
    }

    /** The counters of the relay at {@code relay}, as its {@code name value} lines; bounded by {@code timeout}. */
    public static String stats(InetSocketAddress relay, Duration timeout) throws IOException {
        try (Socket s = new Socket()) {
            s.connect(relay, (int) timeout.toMillis());
            s.setSoTimeout((int) timeout.toMillis());
            RelayClient c = new RelayClient(s, null, -1, timeout);
            c.send(RelayFrame.STATS_REQUEST, (byte) 0, -1, -1, 0, null, 0, 0);
            return new String(c.expect(RelayFrame.STATS).body(), StandardCharsets.UTF_8);
        }
    }

    @Override
    public void close() throws IOException {
        socket.close();
        ChannelOutput co;
        synchronized (writeLock) {
            co = channelOut;
        }
        if (co != null) {
            co.close();
        }
    }
}
