package org.railyard.transport.ring;

import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import java.io.IOException;
import org.railyard.transport.AbstractLink;
import org.railyard.transport.Transport;
import org.railyard.wire.FrameHeader;

/**
 * A link made of two {@link FrameRing}s, one per direction: shared memory between processes of one
 * node (shm), or a process talking to itself (self). For shm between two processes, the handshake
 * socket stays open as a liveness line: the kernel closes it when the peer process dies, however it
 * dies, which the shared memory alone would never tell. Between two ranks of one process (threads
 * of one JVM) there is no such death to tell and no line: the handshake's ends close its socket
 * ({@link #holdsHandshake()}), so that a job of N ranks as threads holds no N(N-1) sockets. A link
 * without the line (these, and a self link, whose peer is itself) learns that the peer closed its
 * end (its rank finalized or left) from the flag the peer's release sets in the ring it writes
 * ({@link FrameRing#markClosed}), looked at as the socket would be.
 *
 * <p>With a {@link Doorbell}, the link registers the bell of the ring it reads, and rings the
 * peer's bell (the one of the ring it writes) after each frame it publishes, and after a batch of
 * frames it consumes only if the peer found that ring full ({@link FrameRing#roomWanted}): a peer
 * that sleeps waiting for a message is not woken because its last message was read.
 */
public final class RingLink extends AbstractLink {
    private static final int LIVENESS_EVERY = 64;
    private static final long LIVENESS_NANOS = 20_000_000L;

    private final FrameRing out;
    private final FrameRing in;
    private final SocketChannel lifeline;
    private final Runnable onClose;
    private final Doorbell doorbell;
    private final MemorySegment myBell;
    private final MemorySegment peerBell;
    private final ByteBuffer probe = ByteBuffer.allocateDirect(16);
    private int pollsSinceCheck;
    private int seenQuiet;
    private long lastCheck = System.nanoTime();

    public RingLink(Transport transport, int peer, FrameRing out, FrameRing in, SocketChannel lifeline,
                    Runnable onClose, String description, Doorbell doorbell) throws IOException {
        super(transport, peer, description);
        this.out = out;
        this.in = in;
        this.lifeline = lifeline;
        this.onClose = onClose;
        this.doorbell = doorbell != null && doorbell.enabled() ? doorbell : null;
        this.myBell = in.bell();
        this.peerBell = out.bell();
        if (this.doorbell != null) {
            this.doorbell.add(myBell);
        }
    }

    @Override public int maxFrame() { return out.maxFrame(); }

    @Override public boolean holdsHandshake() { return lifeline != null; }

    @Override
    public long tryClaim(int frameLength) {
        if (!isOpen()) {
            return CLOSED;
        }
        return out.tryClaim(frameLength);
    }

    @Override public MemorySegment claimSegment() { return out.segment(); }
    @Override
    public void commit() {
        out.commit();
        if (doorbell != null) {
            Doorbell.ring(peerBell);
        }
    }
    @Override public int flush() { return 0; }

    @Override
    public int poll(FrameHandler handler, int limit) {
        if (!isOpen()) {
            return 0;
        }
        int n = 0;
        MemorySegment seg = in.segment();
        while (n < limit) {
            long off = in.peek();
            if (off < 0) {
                break;
            }
            int len = FrameHeader.frameLength(seg, off);
            if (!in.plausible(len)) {
                fail("corrupt shared-memory ring: frame length " + len);
                return n;
            }
            String bad = FrameHeader.validate(seg, off, in.maxFrame());
            if (bad != null) {
                fail(bad);
                return n;
            }
            n++;
            boolean more = handler.onFrame(this, seg, off, len);
            in.release(len);
            if (!more || !isOpen()) {
                break;
            }
        }
        if (n > 0 && doorbell != null && isOpen() && in.roomWanted()) {
            Doorbell.ring(peerBell);
        }
        if (n == 0 && (++pollsSinceCheck >= LIVENESS_EVERY
                || (doorbell != null && doorbell.quiet() != seenQuiet))) {
            pollsSinceCheck = 0;
            seenQuiet = doorbell == null ? 0 : doorbell.quiet();
            long now = System.nanoTime();
            if (now - lastCheck > LIVENESS_NANOS) {
                lastCheck = now;
                checkLifeline();
            }
        }
        return n;
    }

    private void checkLifeline() {
        if (lifeline == null) {
            if (in.closedByProducer() && !in.hasData()) {
                fail("peer closed its end (its rank finalized or left this process)");
            }
            return;
        }
        try {
            probe.clear();
            int r = lifeline.read(probe);
            if (r < 0) {
                // Drain what the peer wrote before it went away, then report.
                if (!in.hasData()) {
                    fail("peer closed its end (process gone or finalized)");
                }
            }
        } catch (IOException e) {
            fail("liveness line broke: " + e.getMessage());
        }
    }


    @Override
    protected void release() {
        out.markClosed();
        if (doorbell != null) {
            Doorbell.ring(peerBell); // a peer asleep on its bell looks at the flag now
        }
        if (doorbell != null) {
            doorbell.remove(myBell);
        }
        try {
            if (lifeline != null) {
                lifeline.close();
            }
        } catch (IOException ignored) {
            // closing; nothing left to tell
        }
        if (onClose != null) {
            onClose.run();
        }
    }
}
