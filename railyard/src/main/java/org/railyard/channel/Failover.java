package org.railyard.channel;

import java.lang.foreign.MemorySegment;
import org.railyard.transport.Link;
import org.railyard.wire.FrameHeader;
import org.railyard.wire.LinkControl;

/**
 * What lets a multi-rail channel lose no byte when rails fail (seed 002, chapter 10). TCP's own
 * acknowledgements are invisible from Java, so the channel keeps its own:
 * <ul>
 * <li>Every sequenced frame is copied into a bounded {@link RetransmitBuffer} when it is sent
 *     (sending waits while it is full) and released when the peer acknowledges it.</li>
 * <li>The receiver acknowledges each rail with the channel's expected PSN and the bytes received on
 *     that rail: at once when a frame asks for it (the last frame of every stripe does), otherwise
 *     every {@code ackBytes} bytes or {@code ackInterval}. A rail that sent nothing for
 *     {@code heartbeat} sends a heartbeat.</li>
 * <li>A rail is declared down on a socket error or when nothing arrived on it for
 *     {@code railTimeout}; every frame it carried that is not acknowledged is sent again on the rails
 *     that are left (the receiver drops the duplicates by PSN), and the lower-ranked side reconnects
 *     it with exponential backoff between {@code reconnectMin} and {@code reconnectMax}.</li>
 * <li>With no rail left (a partition) the channel probes the peer and waits up to
 *     {@code partitionTimeout} for a rail to return, then goes down naming the peer and the bound.</li>
 * <li>A rail whose link {@link Link#reroutes} can lose frames without breaking at this end (they
 *     were inside a gateway that died, or reached the peer's end of a link it was replacing). So
 *     when a live rerouting rail carries the channel and the peer's acknowledgements have not moved
 *     for a quarter of {@code railTimeout} while frames wait for them, that rail is declared down
 *     as if it had broken: its unacknowledged frames go again once it is linked anew, and both ends
 *     start the new link's byte counts together (a lost frame would otherwise leave the two ends'
 *     counts, and so the rail's window, apart for the link's life). The wait doubles, up to
 *     {@code railTimeout}, until an acknowledgement moves again.</li>
 * </ul>
 * A single-rail channel has none of this, unless its link {@link Link#reroutes}. Driven only by the
 * thread that drives its channel.
 */
final class Failover {
    private final VirtualChannel channel;
    private final ChannelTable table;
    private final RailSettings settings;
    private final RailScheduler rails;
    private final Sequencer order;
    private final RetransmitBuffer retransmit;
    private final LongQueue resend = new LongQueue();
    private int resendRotor;
    private long partitionSince = -1;
    private long nextProbe;
    /** When the peer's acknowledgements last moved, frames went again, or the first frame after none was waiting went. */
    private long ackMovedNanos;
    /** How long acknowledgements may stand still before the rerouting rails are relinked; 0: the first wait. */
    private long stillWaitNanos;
    private String lastRailFailure;

    /** The failover of a channel whose rails were just opened at {@code now}. */
    Failover(VirtualChannel channel, ChannelTable table, RailScheduler rails, Sequencer order, long now) {
        this.channel = channel;
        this.table = table;
        this.settings = table.settings();
        this.rails = rails;
        this.order = order;
        this.retransmit = new RetransmitBuffer(settings.retransmitBytes());
        for (int i = 0; i < rails.slots(); i++) {
            // the first attempts for the other rails are under way: reconnect only if they fail
            rails.rail(i).nextAttemptNanos = now + settings.reconnectMin().toNanos();
        }
    }

    /** True if a frame of {@code len} bytes may go now: nothing waits to be sent again and the buffer has room. */
    boolean clearFor(int len) {
        return resend.isEmpty() && retransmit.hasRoom(len);
    }

    /** True if the retransmit buffer can take a frame of {@code len} bytes. */
    boolean hasRoom(int len) {
        return retransmit.hasRoom(len);
    }

    /** True if everything sent has been acknowledged. */
    boolean drained() {
        return retransmit.isEmpty();
    }

    /** True while every rail is down and the channel waits for one to return. */
    boolean partitioned() {
        return partitionSince >= 0;
    }

    /** Frames waiting to be sent again. */
    int resendCount() {
        return resend.size();
    }

    /** A sequenced frame with {@code psn} went on {@code r}: kept until acknowledged. */
    void sent(long psn, Rail r, MemorySegment seg, long off, int len, long now) {
        if (retransmit.isEmpty()) {
            ackMovedNanos = now;
        }
        retransmit.add(psn, r.index, seg, off, len);
        r.linkBytesSent += len;
        r.lastSendNanos = now;
    }

    /** A rail is up again: the partition, if any, is over; returns true if there was one. */
    boolean railBack() {
        boolean was = partitionSince >= 0;
        partitionSince = -1;
        return was;
    }

    /** A sequenced frame arrived on {@code r}: counts it for the acknowledgement, which it may ask for at once. */
    void received(Rail r, MemorySegment seg, long off, int len) {
        r.linkBytesReceived += len;
        if ((FrameHeader.flags(seg, off) & FrameHeader.FLAG_ACK_REQUEST) != 0) {
            r.ackRequested = true;
        }
    }

    /** After a poll of {@code r}: acknowledges now if a frame asked for it or enough bytes came. */
    void ackIfDue(Rail r, long now) {
        if (r.ackRequested || r.linkBytesReceived - r.bytesAtLastAck >= settings.ackBytes()) {
            sendAck(r, now);
        }
    }

    /** An acknowledgement from the peer for rail {@code r}. */
    void onAck(Rail r, MemorySegment seg, long off, long now) {
        long next = LinkControl.nextExpectedPsn(seg, off);
        long bytes = LinkControl.railBytes(seg, off);
        // a rerouted rail's two ends change links at slightly different frames: its byte count may run ahead
        if (r.link.reroutes()) {
            bytes = Math.min(bytes, r.linkBytesSent);
        }
        if (next > order.nextPsn() || bytes > r.linkBytesSent) {
            channel.protocolError("acknowledgement of packets below " + next + " and " + bytes + " bytes on rail " + r.index
                    + ", but only " + order.nextPsn() + " packets and " + r.linkBytesSent + " bytes were sent");
            return;
        }
        if (bytes > r.linkBytesAcked) {
            r.linkBytesAcked = bytes;
            rails.stripesAcknowledged(r, bytes, now);
        }
        if (next > order.acked()) {
            retransmit.release(next);
            order.acknowledged(next);
            ackMovedNanos = now;
            stillWaitNanos = 0;
        }
    }

    private void sendAck(Rail r, long now) {
        Link link = r.link;
        long off = link.tryClaim(LinkControl.LENGTH);
        if (off < 0) {
            return; // next time: the rail is full, so acknowledgements are not urgent for it
        }
        LinkControl.writeAck(link.claimSegment(), off, table.rank(), r.index, order.expected(), r.linkBytesReceived);
        link.commit();
        r.bytesAtLastAck = r.linkBytesReceived;
        r.psnAtLastAck = order.expected();
        r.lastAckNanos = now;
        r.lastSendNanos = now;
        r.ackRequested = false;
    }

    private void sendHeartbeat(Rail r, long now) {
        Link link = r.link;
        long off = link.tryClaim(LinkControl.LENGTH);
        if (off < 0) {
            return;
        }
        LinkControl.writeHeartbeat(link.claimSegment(), off, table.rank(), r.index);
        link.commit();
        link.flush();
        r.lastSendNanos = now;
    }

    /**
     * Rail {@code r} failed: its unacknowledged frames go again on the others, its stripes are no
     * longer timed, and it is reconnected. The caller took it out of the live rails.
     */
    void railDown(Rail r, String why, long now) {
        lastRailFailure = why;
        int before = resend.size();
        retransmit.collect(r.index, resend);
        rails.abandonStripes(r);
        int peer = channel.peer();
        table.links().railLost(peer, r.index, r.epoch);
        r.backoffNanos = 0;
        r.nextAttemptNanos = now + settings.reconnectMin().toNanos();
        int left = rails.liveCount;
        table.log("rank " + table.rank() + ": rail " + r.index + " to rank " + peer + " down (" + why + "); "
                + (resend.size() - before) + " unacknowledged frames go again on " + left + " other rail"
                + (left == 1 ? "" : "s"));
        if (left == 0) {
            partitionSince = now;
            nextProbe = now;
            table.log("rank " + table.rank() + ": no rail left to rank " + peer + "; waiting up to "
                    + settings.partitionTimeout().toMillis() + " ms (railyard.partition.timeout) for one to return");
        }
    }

    /** True if frames of failed rails wait to be sent again. */
    boolean resending() {
        return !resend.isEmpty();
    }

    /** Sends again, on the rails that are up, the frames of rails that died; returns frames sent. */
    int sendAgain(long now) {
        int sent = 0;
        int blocked = 0;
        while (!resend.isEmpty() && rails.liveCount > 0 && blocked < rails.liveCount) {
            long psn = resend.peek();
            if (psn < order.acked() || !retransmit.contains(psn)) {
                resend.poll();
                continue;
            }
            Rail r = rails.live[Math.floorMod(resendRotor, rails.liveCount)];
            resendRotor++;
            if (r.inFlight() >= rails.window(r)) {
                blocked++;
                continue;
            }
            int len = retransmit.length(psn);
            long off = r.link.tryClaim(len);
            if (off < 0) {
                if (off == Link.CLOSED) {
                    channel.railBroken(r, r.whyBroken());
                    blocked = 0;
                } else {
                    blocked++;
                }
                continue;
            }
            blocked = 0;
            MemorySegment seg = r.link.claimSegment();
            MemorySegment.copy(retransmit.segment(), retransmit.offset(psn), seg, off, len);
            FrameHeader.addFlags(seg, off, FrameHeader.FLAG_ACK_REQUEST);
            r.link.commit();
            retransmit.rail(psn, r.index);
            r.linkBytesSent += len;
            r.lastSendNanos = now;
            r.stats.sent(len);
            r.stats.retransmitted(len);
            resend.poll();
            sent++;
        }
        if (sent > 0) {
            ackMovedNanos = now; // the peer's acknowledgements are awaited afresh for what went again
        }
        return sent;
    }

    /**
     * The timed work, about every millisecond: acknowledgements due by time, heartbeats, silent
     * rails, reconnections, and the partition bound.
     */
    void tick(long now) {
        long timeout = settings.railTimeout().toNanos();
        int peer = channel.peer();
        for (int i = 0; i < rails.slots() && channel.state() == VirtualChannel.State.UP; i++) {
            Rail r = rails.rail(i);
            if (r.up()) {
                if (now - r.lastReceiveNanos > timeout) {
                    channel.railBroken(r, "nothing received for " + settings.railTimeout().toMillis() + " ms (railyard.rail.timeout)");
                    continue;
                }
                if ((r.linkBytesReceived > r.bytesAtLastAck || order.expected() > r.psnAtLastAck)
                        && now - r.lastAckNanos >= settings.ackInterval().toNanos()) {
                    sendAck(r, now);
                    r.link.flush();
                }
                if (now - r.lastSendNanos >= settings.heartbeat().toNanos()) {
                    sendHeartbeat(r, now);
                }
            } else if ((table.rank() < peer || (r.link != null && r.link.reroutes())) && now - r.nextAttemptNanos >= 0) {
                // the lower rank reconnects (a rerouted rail: both, there is no handshake to break a tie);
                // the connector ignores the request while an attempt is under way
                r.backoffNanos = r.backoffNanos == 0 ? settings.reconnectMin().toNanos()
                        : Math.min(settings.reconnectMax().toNanos(), 2 * r.backoffNanos);
                r.nextAttemptNanos = now + r.backoffNanos;
                table.links().connectRail(peer, i);
            }
        }
        if (channel.state() == VirtualChannel.State.UP) {
            relinkIfAcksStand(now);
        }
        if (channel.state() == VirtualChannel.State.UP && partitionSince >= 0) {
            if (now - partitionSince > settings.partitionTimeout().toNanos()) {
                channel.fail("no rail to rank " + peer + " for " + settings.partitionTimeout().toMillis()
                        + " ms (the bound railyard.partition.timeout): every path to it is down; the last rail failed with: "
                        + lastRailFailure);
            } else if (now - nextProbe >= 0) {
                nextProbe = now + settings.reconnectMax().toNanos();
                table.links().probe(peer);
            }
        }
    }

    /**
     * On a rerouting rail, frames the peer never got leave no trace here: when its acknowledgements
     * stood still too long while frames wait for them, the live rerouting rails are declared down
     * (and linked again, with what they carried sent again).
     */
    private void relinkIfAcksStand(long now) {
        if (retransmit.isEmpty() || !resend.isEmpty() || rails.liveCount == 0) {
            return;
        }
        long timeout = settings.railTimeout().toNanos();
        long wait = stillWaitNanos == 0 ? timeout / 4 : stillWaitNanos;
        if (now - ackMovedNanos < wait) {
            return;
        }
        Rail[] rerouting = new Rail[rails.liveCount];
        int n = 0;
        for (int i = 0; i < rails.liveCount; i++) {
            if (rails.live[i].link.reroutes()) {
                rerouting[n++] = rails.live[i];
            }
        }
        if (n == 0) {
            return;
        }
        String why = "rank " + channel.peer() + " acknowledged nothing beyond packet " + order.acked() + " for "
                + (now - ackMovedNanos) / 1_000_000 + " ms over a rerouting rail: frames may have been lost on the way";
        stillWaitNanos = Math.min(timeout, 2 * wait);
        ackMovedNanos = now;
        for (int i = 0; i < n; i++) {
            channel.railBroken(rerouting[i], why);
        }
    }

    /** The channel is down: nothing will be sent again. */
    void clear() {
        resend.clear();
    }
}
