package org.railyard.transport.udp;

import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.net.PortUnreachableException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.DatagramChannel;
import java.nio.channels.SocketChannel;
import org.railyard.transport.AbstractLink;
import org.railyard.transport.DatagramLink;
import org.railyard.transport.Transport;

/**
 * One udp connection: a connected non-blocking datagram socket and the control line (the handshake
 * socket, non-blocking once the handshake is over). A claim is the single datagram buffer; commit
 * sends it. When the kernel has no room for a datagram the link keeps it and reports
 * {@link #BACK_PRESSURED} until {@link #flush} got it out, so nothing written is dropped here (the
 * network may still drop it). Received datagrams are read one system call each and handed over in
 * the link's receive buffer.
 */
final class UdpLink extends AbstractLink implements DatagramLink {
    /** Unwritten control output above which {@link #sendControl} refuses: a peer that reads nothing. */
    private static final int CONTROL_OUT_LIMIT = 64 * 1024;

    private final DatagramChannel dc;
    private final SocketChannel control;
    private final int datagram;
    private final int frameLimit;
    private final int token;
    private final int peerToken;
    private final boolean sameNode;
    private final boolean sameSite;
    private final int peerRcvBuf;
    private final int rcvBuf;
    private final ByteBuffer out;
    private final MemorySegment outSeg;
    private final ByteBuffer in;
    private final MemorySegment inSeg;
    private ByteBuffer ctlOut = ByteBuffer.allocateDirect(4096).order(ByteOrder.LITTLE_ENDIAN);
    private final ByteBuffer ctlIn = ByteBuffer.allocateDirect(4096).order(ByteOrder.LITTLE_ENDIAN);
    private final MemorySegment ctlInSeg = MemorySegment.ofBuffer(ctlIn);
    /** Length of a committed datagram the kernel did not take yet, or 0. */
    private int pending;
    private int claimed;

    UdpLink(Transport transport, int peer, DatagramChannel dc, SocketChannel control, int datagram, int frameLimit,
            int token, int peerToken, boolean sameNode, boolean sameSite, int peerRcvBuf, int rcvBuf) throws IOException {
        super(transport, peer, "udp " + dc.getLocalAddress() + " -> " + dc.getRemoteAddress() + ", datagrams up to "
                + datagram + " B, control line " + control.getLocalAddress() + " -> " + control.getRemoteAddress());
        this.dc = dc;
        this.control = control;
        this.datagram = datagram;
        this.frameLimit = frameLimit;
        this.token = token;
        this.peerToken = peerToken;
        this.sameNode = sameNode;
        this.sameSite = sameSite;
        this.peerRcvBuf = peerRcvBuf;
        this.rcvBuf = rcvBuf;
        out = ByteBuffer.allocateDirect(datagram);
        outSeg = MemorySegment.ofBuffer(out);
        in = ByteBuffer.allocateDirect(datagram);
        inSeg = MemorySegment.ofBuffer(in);
        ctlIn.limit(0);
        ctlOut.limit(0);
    }

    int localPort() {
        return dc.socket().getLocalPort();
    }

    @Override public int maxFrame() { return datagram; }
    @Override public int frameLimit() { return frameLimit; }
    @Override public int token() { return token; }
    @Override public int peerToken() { return peerToken; }
    @Override public boolean sameNode() { return sameNode; }
    @Override public boolean sameSite() { return sameSite; }
    @Override public int peerReceiveBuffer() { return peerRcvBuf; }

    int receiveBuffer() {
        return rcvBuf;
    }

    @Override
    public long tryClaim(int frameLength) {
        if (!isOpen()) {
            return CLOSED;
        }
        if (frameLength > datagram) {
            throw new IllegalArgumentException("datagram of " + frameLength + " bytes exceeds the limit of " + datagram);
        }
        if (pending > 0 && flushDatagram() == 0) {
            return BACK_PRESSURED;
        }
        claimed = frameLength;
        return 0;
    }

    @Override public MemorySegment claimSegment() { return outSeg; }

    @Override
    public void commit() {
        pending = claimed;
        flushDatagram();
    }

    private int flushDatagram() {
        if (pending == 0 || !isOpen()) {
            return 0;
        }
        try {
            out.clear().limit(pending);
            int n = dc.write(out);
            if (n > 0) {
                pending = 0;
            }
            return n;
        } catch (PortUnreachableException e) {
            // The peer's socket is not there (yet, or any more): the datagram is lost, as the
            // network could have lost it; the control line tells whether the peer is gone.
            pending = 0;
            return 0;
        } catch (IOException e) {
            fail("datagram send failed: " + e.getMessage());
            return 0;
        }
    }

    @Override
    public int flush() {
        int moved = flushDatagram();
        if (isOpen() && ctlOut.hasRemaining()) {
            try {
                moved += control.write(ctlOut);
            } catch (IOException e) {
                fail("control line write failed: " + e.getMessage());
            }
        }
        return moved;
    }

    @Override
    public int poll(FrameHandler handler, int limit) {
        int n = 0;
        while (isOpen() && n < limit) {
            in.clear();
            int r;
            try {
                r = dc.read(in);
            } catch (PortUnreachableException e) {
                continue;
            } catch (IOException e) {
                fail("datagram receive failed: " + e.getMessage());
                return n;
            }
            if (r <= 0) {
                break;
            }
            n++;
            if (!handler.onFrame(this, inSeg, 0, r)) {
                break;
            }
        }
        return n;
    }

    @Override
    public boolean send(ByteBuffer datagram) {
        if (!isOpen() || pending > 0 && flushDatagram() == 0) {
            return false;
        }
        try {
            return dc.write(datagram) > 0;
        } catch (PortUnreachableException e) {
            return false;
        } catch (IOException e) {
            fail("datagram send failed: " + e.getMessage());
            return false;
        }
    }

    @Override
    public int receive(ByteBuffer into) {
        while (isOpen()) {
            try {
                int r = dc.read(into);
                return Math.max(r, 0);
            } catch (PortUnreachableException e) {
                // an earlier datagram found no socket at the peer (not yet open, or closed): skip it
                continue;
            } catch (IOException e) {
                fail("datagram receive failed: " + e.getMessage());
            }
        }
        return 0;
    }

    @Override
    public boolean sendControl(MemorySegment message, long offset, int length) {
        if (!isOpen()) {
            return false;
        }
        if (ctlOut.remaining() + length > CONTROL_OUT_LIMIT) {
            return false;
        }
        if (ctlOut.capacity() - ctlOut.limit() < length) {
            ctlOut.compact().flip();
            if (ctlOut.capacity() - ctlOut.limit() < length) {
                ByteBuffer bigger = ByteBuffer.allocateDirect(Math.max(2 * ctlOut.capacity(), ctlOut.remaining() + length))
                        .order(ByteOrder.LITTLE_ENDIAN);
                bigger.put(ctlOut).flip();
                ctlOut = bigger;
            }
        }
        int start = ctlOut.limit();
        ctlOut.limit(start + length);
        MemorySegment.copy(message, offset, MemorySegment.ofBuffer(ctlOut.duplicate().clear()), start, length);
        flush();
        return isOpen();
    }

    @Override
    public int pollControl(FrameHandler handler) {
        if (!isOpen()) {
            return 0;
        }
        int r = readInto(control, ctlIn, "control line broke");
        if (r == READ_FAILED) {
            return 0;
        }
        int n = 0;
        while (isOpen() && ctlIn.remaining() >= 2) {
            int p = ctlIn.position();
            int len = 2 + (ctlIn.getShort(p) & 0xffff);
            if (len > ctlIn.capacity()) {
                fail("control message of " + len + " bytes is longer than the line's buffer");
                return n;
            }
            if (ctlIn.remaining() < len) {
                break;
            }
            n++;
            handler.onFrame(this, ctlInSeg, p, len);
            ctlIn.position(p + len);
        }
        ctlIn.compact().flip();
        if (r < 0 && isOpen()) {
            fail("peer closed the control line (process gone or finalized)");
        }
        return n;
    }


    @Override
    protected void release() {
        try {
            dc.close();
        } catch (IOException ignored) {
            // closing anyway
        }
        try {
            control.close();
        } catch (IOException ignored) {
            // closing anyway
        }
    }
}
