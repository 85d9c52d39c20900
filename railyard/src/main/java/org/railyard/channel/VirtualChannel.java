package org.railyard.channel;

import java.lang.foreign.MemorySegment;
import org.railyard.transport.Link;
import org.railyard.wire.FrameHeader;
import org.railyard.wire.FrameType;

/**
 * Everything that goes to and comes from one peer: its rails, the order of frames (one packet
 * sequence number per direction), and the queue of what waits to be sent. Driven only by the
 * progress agent (or a caller holding the progress lock).
 *
 * <p>Two send queues: envelopes (eager messages, requests to send, clear-to-send answers) and bulk
 * (rendezvous data). Envelopes go first, so a large transfer under way never holds back the small
 * messages behind it; order among envelopes is the order of posting, which is what MPI's
 * non-overtaking rule needs. The receive side checks that sequence numbers come without gap; with
 * several rails it will restore their order before frames go up.
 */
public final class VirtualChannel implements Link.FrameHandler {
    /** Lifecycle of a channel. */
    public enum State { IDLE, CONNECTING, UP, DOWN, CLOSED }

    private final int peer;
    private final ChannelTable table;
    private final Rail[] rails = new Rail[4];
    private int railCount;
    private RailPolicy policy = RailPolicy.BINDING;
    private State state = State.IDLE;
    private long nextPsn;
    private long expectedPsn;
    private long connectDeadline;
    private String failure;
    private boolean byeSent;
    private boolean byeReceived;

    private Outbound envHead, envTail, bulkHead, bulkTail;

    VirtualChannel(ChannelTable table, int peer) {
        this.table = table;
        this.peer = peer;
    }

    /** The peer's world rank. */
    public int peer() {
        return peer;
    }

    public State state() {
        return state;
    }

    /** Why the channel is down, or null. */
    public String failure() {
        return failure;
    }

    public RailPolicy policy() {
        return policy;
    }

    /** The rails, for observation. */
    public Rail[] rails() {
        return java.util.Arrays.copyOf(rails, railCount);
    }

    /** True if nothing waits to be sent. */
    public boolean idle() {
        return envHead == null && bulkHead == null;
    }

    /** True once the peer said it leaves the job. */
    public boolean peerLeft() {
        return byeReceived;
    }

    /** Queues an envelope (eager message, RTS, CTS); starts connecting if needed. */
    public void sendEnvelope(Outbound o) {
        o.nextOut = null;
        if (envTail == null) {
            envHead = o;
        } else {
            envTail.nextOut = o;
        }
        envTail = o;
        wake();
    }

    /** Queues rendezvous data. */
    public void sendBulk(Outbound o) {
        o.nextOut = null;
        if (bulkTail == null) {
            bulkHead = o;
        } else {
            bulkTail.nextOut = o;
        }
        bulkTail = o;
        wake();
    }

    /** Asks for a connection if there is none yet. */
    public void wake() {
        if (state == State.IDLE) {
            state = State.CONNECTING;
            connectDeadline = System.nanoTime() + table.connectTimeoutNanos();
            table.connector().connect(peer);
        }
    }

    void attach(Link link) {
        if (railCount == rails.length) {
            link.close();
            return;
        }
        rails[railCount++] = new Rail(link);
        if (state == State.IDLE || state == State.CONNECTING) {
            state = State.UP;
        }
        table.printChoice("rank " + table.rank() + " -> rank " + peer + ": transport " + link.transport().name()
                + " (" + link.describe() + "), rail policy " + policy.name());
    }

    private Link directLink;
    private long directOffset;

    /**
     * The short path for a frame that can go at once: when the channel is up and nothing is queued
     * ahead of it, reserves {@code frameLength} bytes on the rail the policy picks and returns their
     * offset in {@link #directSegment()}; the caller writes the whole frame there and calls
     * {@link #commitDirect()}. Returns -1 when the frame must be queued instead (order first).
     */
    public long claimDirect(int frameLength) {
        if (state != State.UP || envHead != null) {
            return -1;
        }
        Rail rail = rails[policy.select(rails, railCount, frameLength)];
        if (frameLength > rail.link.maxFrame()) {
            return -1;
        }
        long off = rail.link.tryClaim(frameLength);
        if (off < 0) {
            return -1;
        }
        directLink = rail.link;
        directOffset = off;
        rail.framesSent++;
        rail.bytesSent += frameLength;
        return off;
    }

    /** The memory of the last {@link #claimDirect}. */
    public MemorySegment directSegment() {
        return directLink.claimSegment();
    }

    /** Stamps the sequence number on the frame written after {@link #claimDirect}, publishes and flushes it. */
    public void commitDirect() {
        FrameHeader.psn(directLink.claimSegment(), directOffset, nextPsn++);
        directLink.commit();
        directLink.flush();
    }

    /** Writes queued frames while the rails take them; returns the number of frames written. */
    public int progressSend() {
        if (state != State.UP) {
            return 0;
        }
        int work = 0;
        Rail rail = rails[0];
        Link link = rail.link;
        while (true) {
            boolean bulk = envHead == null;
            Outbound o = bulk ? bulkHead : envHead;
            if (o == null) {
                break;
            }
            int len = o.nextFrameLength(link.maxFrame());
            int idx = policy.select(rails, railCount, len);
            rail = rails[idx];
            link = rail.link;
            long off = link.tryClaim(len);
            if (off < 0) {
                if (off == Link.CLOSED) {
                    linkBroken(link);
                }
                break;
            }
            MemorySegment seg = link.claimSegment();
            boolean last = o.writeFrame(seg, off, len);
            FrameHeader.psn(seg, off, nextPsn++);
            link.commit();
            rail.framesSent++;
            rail.bytesSent += len;
            work++;
            if (last) {
                if (bulk) {
                    bulkHead = o.nextOut;
                    if (bulkHead == null) {
                        bulkTail = null;
                    }
                } else {
                    envHead = o.nextOut;
                    if (envHead == null) {
                        envTail = null;
                    }
                }
                o.nextOut = null;
                o.onWritten();
            }
        }
        for (int i = 0; i < railCount; i++) {
            if (rails[i].link.flush() > 0) {
                work++;
            }
        }
        return work;
    }

    /** Reads what the rails received and hands it up; returns frames delivered. */
    int progressReceive() {
        if (state != State.UP) {
            return 0;
        }
        int n = 0;
        for (int i = 0; i < railCount; i++) {
            Link link = rails[i].link;
            n += link.poll(this, 64);
            if (!link.isOpen() && state == State.UP) {
                linkBroken(link);
                break;
            }
        }
        return n;
    }

    @Override
    public boolean onFrame(Link link, MemorySegment seg, long offset, int length) {
        long psn = FrameHeader.psn(seg, offset);
        if (psn != expectedPsn) {
            link.close();
            linkBroken(link, "frame out of sequence from rank " + peer + ": packet " + psn + ", expected " + expectedPsn);
            return false;
        }
        expectedPsn++;
        Rail r = rails[0];
        r.framesReceived++;
        r.bytesReceived += length;
        if (FrameHeader.type(seg, offset) == FrameType.BYE) {
            byeReceived = true;
            return true;
        }
        table.sink().onFrame(this, seg, offset, length);
        return state == State.UP;
    }

    /** Called periodically: gives up on a connection that did not come in time. */
    void checkDeadline(long now) {
        if (state == State.CONNECTING && now - connectDeadline > 0) {
            down("no connection to rank " + peer + " within " + table.connectTimeoutNanos() / 1_000_000 + " ms", false);
        }
    }

    void connectFailed(String why) {
        if (state == State.CONNECTING || state == State.IDLE) {
            down(why, false);
        }
    }

    private void linkBroken(Link link) {
        linkBroken(link, link.failure() == null ? "connection closed" : link.failure());
    }

    private void linkBroken(Link link, String why) {
        if (state != State.UP) {
            return;
        }
        if (byeReceived) {
            down("rank " + peer + " has left the job (finalized)", true);
            return;
        }
        table.log("rank " + table.rank() + ": link to rank " + peer + " (" + link.transport().name() + ") closed: " + why);
        down("connection to rank " + peer + " lost: " + why, false);
    }

    private void down(String why, boolean orderly) {
        state = orderly ? State.CLOSED : State.DOWN;
        failure = why;
        for (int i = 0; i < railCount; i++) {
            rails[i].link.close();
        }
        table.connector().lost(peer);
        envHead = envTail = bulkHead = bulkTail = null;
        table.sink().onChannelDown(this, why, orderly);
    }

    /**
     * The engine found a frame from this peer it cannot accept (an unknown request id, a length
     * that contradicts its envelope): the connection is closed with the reason logged.
     */
    public void protocolError(String why) {
        if (state != State.UP) {
            return;
        }
        table.log("rank " + table.rank() + ": closing connection to rank " + peer + ": " + why);
        down("protocol error from rank " + peer + ": " + why, false);
    }

    /** Queues a goodbye after everything else; the peer then reads our end of stream as orderly. */
    void sendBye() {
        if (state != State.UP || byeSent) {
            return;
        }
        byeSent = true;
        sendEnvelope(new Bye(table.rank()));
    }

    void closeRails() {
        for (int i = 0; i < railCount; i++) {
            rails[i].link.close();
        }
        if (state == State.UP) {
            state = State.CLOSED;
        }
    }

    /** Envelopes (first) and bulk outbounds still queued, for the engine to fail on a down channel. */
    boolean contains(Outbound o) {
        for (Outbound x = envHead; x != null; x = x.nextOut) {
            if (x == o) {
                return true;
            }
        }
        for (Outbound x = bulkHead; x != null; x = x.nextOut) {
            if (x == o) {
                return true;
            }
        }
        return false;
    }

    @Override
    public String toString() {
        return "VirtualChannel[rank " + peer + ", " + state + (failure == null ? "" : ", " + failure) + ", rails " + railCount + "]";
    }

    private static final class Bye extends Outbound {
        private final int source;

        Bye(int source) {
            this.source = source;
        }

        @Override
        protected int nextFrameLength(int maxFrame) {
            return FrameHeader.LENGTH;
        }

        @Override
        protected boolean writeFrame(MemorySegment seg, long offset, int frameLength) {
            FrameHeader.write(seg, offset, frameLength, FrameType.BYE, (byte) 0, 0, source, 0, 0, 0, 0);
            return true;
        }

        @Override
        protected void onWritten() {
        }
    }
}
