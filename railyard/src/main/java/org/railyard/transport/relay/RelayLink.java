package org.railyard.transport.relay;

import java.lang.foreign.MemorySegment;
import java.util.concurrent.ConcurrentLinkedQueue;
import org.railyard.transport.Link;
import org.railyard.transport.Transport;
import org.railyard.wire.RelayFrame;

/**
 * A rail through relays: frames to the peer go as STOREs to the peer's owner relay (through
 * {@link RelayPort}, which keeps each until its STORED and writes it again after a reconnection);
 * frames from the peer come as DELIVERs from this rank's owner relay into the peer's
 * {@link Inbox}, are handed to {@link #poll}, and are acknowledged (DELIVERED) once handed over.
 * A poll that finds the inbox empty reads the receiving connection itself ({@link RelayReceiver}).
 *
 * <p>Sequence numbers: the link numbers the frames it sends to the peer from 1 (the relay's
 * per-pair sequence); the inbox drops a frame at or below the last one it took, which is what a
 * relay that restarted, or a receiving connection opened again, delivers a second time. The
 * channel above needs this: a single-rail channel breaks the link on a packet out of sequence,
 * it does not skip a duplicate.
 *
 * <p>Replay mode ({@code railyard.restarts} above 0, see {@link RelayTransport#turnOf}): nothing
 * is acknowledged, and a frame goes up only in its turn of the owner relay's delivery order.
 */
final class RelayLink implements Link {
    /** What arrived from one peer and was not yet handed over; the owner relay's reader fills it. */
    static final class Inbox {
        record Frame(long sequence, byte[] bytes) { }

        final ConcurrentLinkedQueue<Frame> frames = new ConcurrentLinkedQueue<>();
        /** Highest sequence queued; by the thread reading the receiving connection (under its lock). */
        long lastQueued;
        /**
         * Highest sequence handed to the channel: the replay position a checkpoint records. Written
         * and read under the progress lock (by {@link #poll} and by the checkpoint).
         */
        long lastHanded;
        /** The link that drains it, null until the peer is joined. */
        volatile RelayLink link;
        /** True once the connector was told that this peer's first frame arrived. */
        volatile boolean announced;
    }

    private final RelayTransport transport;
    private final int peer;
    private final int maxFrame;
    private final RelayPort out;
    private final RelayPort in;
    private final Inbox inbox;
    private final long window;
    private final String description;
    private final Direct direct = new Direct();
    private byte[] claimed;
    private int claimedLength;
    private MemorySegment claimSegment = MemorySegment.NULL;
    private volatile boolean open = true;
    private volatile String failure;

    RelayLink(RelayTransport transport, int peer, int maxFrame, RelayPort out, RelayPort in, Inbox inbox, long window) {
        this.transport = transport;
        this.peer = peer;
        this.maxFrame = maxFrame;
        this.out = out;
        this.in = in;
        this.inbox = inbox;
        this.window = window;
        this.description = "relay: to rank " + peer + " via " + text(out) + ", from it via " + text(in)
                + ", frames up to " + (maxFrame >> 10) + " KiB";
    }

    private static String text(RelayPort p) {
        return p.relay().getHostString() + ":" + p.relay().getPort();
    }

    @Override public Transport transport() { return transport; }
    @Override public int peer() { return peer; }
    @Override public int maxFrame() { return maxFrame; }

    @Override
    public long tryClaim(int frameLength) {
        if (!open) {
            return CLOSED;
        }
        if (frameLength > maxFrame) {
            throw new IllegalArgumentException("frame of " + frameLength + " bytes on a relay link of " + maxFrame);
        }
        if (out.held() > window) {
            out.pollInput(); // the STOREDs that came meanwhile free room
            if (out.held() > window) {
                out.pressed = true; // the STORED that frees room rings the doorbell
                return BACK_PRESSURED;
            }
        }
        claimed = out.claim(frameLength); // the port keeps it until the relay STOREd it
        claimedLength = frameLength;
        claimSegment = MemorySegment.ofArray(claimed).asSlice(0, frameLength);
        return 0;
    }

    @Override
    public MemorySegment claimSegment() {
        return claimSegment;
    }

    @Override
    public void commit() {
        out.send(new RelayPort.Out(peer, transport.nextSequence(peer), claimed, claimedLength));
        claimed = null;
    }

    @Override
    public int flush() {
        return 0; // the port's runner writes
    }

    @Override
    public int poll(FrameHandler handler, int limit) {
        if (!open) {
            return 0;
        }
        int n = 0;
        long last = 0;
        boolean replay = transport.replay();
        boolean stopped = false;
        if (inbox.frames.isEmpty()) {
            // read the relay's connection here, as a tcp link's waiter reads its socket, this peer's
            // frames handed up from the input buffer while none wait in the inbox; when nothing
            // came, take the STOREDs of what this rank sent, so that no thread wakes for them
            int read;
            if (replay) {
                read = in.pollInput(); // frames go up in the relay's order: through the inbox
            } else {
                direct.start(handler, limit);
                try {
                    read = in.pollInput(direct);
                } finally {
                    direct.handler = null;
                }
                n = direct.taken;
                last = direct.last;
                stopped = direct.stopped;
            }
            if (read == 0 && out != in && out.awaitsStored()) {
                out.pollInput();
            }
        }
        while (n < limit && !stopped) {
            if (replay && !transport.turnOf(peer)) {
                break; // another peer's frame came first from the relay: it goes up first
            }
            Inbox.Frame f = inbox.frames.poll();
            if (f == null) {
                break;
            }
            if (replay) {
                transport.turnTaken();
            }
            n++;
            last = f.sequence();
            inbox.lastHanded = last;
            if (!handler.onFrame(this, MemorySegment.ofArray(f.bytes()), 0, f.bytes().length)) {
                break;
            }
        }
        if (last > 0 && !replay) {
            in.ack(peer, last); // replay mode: the relay keeps every frame for a restart of this rank
        }
        return n;
    }

    /**
     * A poll's offer to take this peer's DELIVERs from the receiving connection's input buffer
     * (no copy into an inbox frame): only while the inbox is empty (so the peer's order holds), up
     * to the poll's limit and until the handler asks to stop; the rest go to the inboxes as before.
     * Used by the polling thread only, under the connection's read lock.
     */
    private final class Direct implements RelayReceiver.Direct {
        FrameHandler handler;
        int limit;
        int taken;
        long last;
        boolean stopped;

        void start(FrameHandler h, int max) {
            handler = h;
            limit = max;
            taken = 0;
            last = 0;
            stopped = false;
        }

        @Override
        public boolean take(RelayFrame.Header h, MemorySegment segment, long offset, int length) {
            if (h.source() != peer || stopped || taken >= limit || !inbox.frames.isEmpty()) {
                return false;
            }
            long sequence = h.sequence();
            if (sequence <= inbox.lastQueued) {
                return true; // delivered again after a reconnection or a relay restart: already taken
            }
            inbox.lastQueued = sequence;
            inbox.lastHanded = sequence;
            taken++;
            last = sequence;
            if (!handler.onFrame(RelayLink.this, segment, offset, length)) {
                stopped = true;
            }
            return true;
        }
    }

    /** True while frames sent through this link's relay are not yet STORED (an orderly close waits). */
    @Override
    public boolean hasPendingOutput() {
        return open && out.held() > 0;
    }

    /** The port this link's frames go through (the peer's owner relay). */
    RelayPort port() {
        return out;
    }

    /** True if this link's frames go through {@code port}. */
    boolean sendsThrough(RelayPort port) {
        return out == port;
    }

    @Override
    public boolean isOpen() {
        return open;
    }

    @Override
    public String failure() {
        return failure;
    }

    /** The relay path failed for good: the link closes saying why. */
    void fail(String why) {
        if (open) {
            failure = why;
            open = false;
        }
    }

    @Override
    public String describe() {
        return description;
    }

    @Override
    public void close() {
        open = false;
        transport.unlinked(peer, this);
    }
}
