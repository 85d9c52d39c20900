package org.railyard.engine.p2p;

import java.lang.foreign.MemorySegment;
import org.railyard.channel.VirtualChannel;
import org.railyard.engine.request.Transfer;
import org.railyard.error.ErrorClass;
import org.railyard.wire.FrameHeader;

/**
 * The rendezvous protocol, for messages above the eager limit and every synchronous send: the
 * sender's RTS carries the envelope and its transfer id; the receiver, once a receive matches,
 * answers CTS naming its own; the payload then follows as DATA frames on the channel's bulk queue
 * (striped on a multi-rail channel), each naming its offset. On a node, the
 * {@link CrossMemoryRead} variant replaces the DATA frames by one read; its CTS and a CTS of this
 * protocol are told apart by {@link FrameHeader#FLAG_READ_DONE}, and both arrive here. Driven
 * under the progress lock.
 */
final class Rendezvous implements Protocol {
    private final TransferTable table;

    Rendezvous(TransferTable table) {
        this.table = table;
    }

    @Override
    public void start(SendTransfer t, VirtualChannel ch) {
        t.go(SendTransfer.PHASE_RTS, ch);
    }

    /** A receive matched an RTS: answers CTS. */
    @Override
    public void matched(RecvTransfer t, VirtualChannel ch, MemorySegment seg, long at, long cookie, long readAddress) {
        if (accept(t, ch, cookie)) {
            ch.sendEnvelope(t);
        }
    }

    /**
     * Records that {@code t} takes the rendezvous message of the sender's transfer {@code senderCookie}
     * on {@code ch}; false (and {@code t} failed) if the channel is no longer up. The caller then
     * answers with CTS ({@code ch.sendEnvelope(t)}).
     */
    boolean accept(RecvTransfer t, VirtualChannel ch, long senderCookie) {
        t.rendezvous = true;
        t.senderCookie = senderCookie;
        t.channel = ch;
        if (ch.state() != VirtualChannel.State.UP) {
            t.fail(ErrorClass.PEER_FAILED, "rank " + t.statusSource + " of " + t.comm.name() + " is gone: " + ch.failure());
            return false;
        }
        return true;
    }

    /** The receiver's CTS: the send is done (the payload was read) or its DATA frames go on the bulk queue. */
    void onCts(VirtualChannel from, MemorySegment seg, long off) {
        Transfer x = table.get(FrameHeader.cookie(seg, off));
        if (!(x instanceof SendTransfer s) || s.phase != SendTransfer.PHASE_WAIT_CTS || s.peer != from.peer()) {
            from.protocolError("CTS names no rendezvous send waiting for it (id " + FrameHeader.cookie(seg, off) + ")");
            return;
        }
        s.remoteCookie = FrameHeader.arg(seg, off);
        if ((FrameHeader.flags(seg, off) & FrameHeader.FLAG_READ_DONE) != 0) {
            if (s.readAddress == 0) {
                from.protocolError("CTS says the payload was read from memory the send never offered (id "
                        + FrameHeader.cookie(seg, off) + ")");
                return;
            }
            s.complete();
            return;
        }
        if (s.capacityBytes == 0) {
            s.complete();
            return;
        }
        s.phase = SendTransfer.PHASE_DATA;
        from.sendBulk(s);
    }

    /** A DATA frame: its bytes go to the receive it names, at the offset it names. */
    void onData(VirtualChannel from, MemorySegment seg, long off, int length) {
        Transfer x = table.get(FrameHeader.cookie(seg, off));
        long msgOff = FrameHeader.arg(seg, off);
        long len = length - FrameHeader.LENGTH;
        if (!(x instanceof RecvTransfer r) || !r.rendezvous || r.matchedSource != from.peer()
                || msgOff < 0 || msgOff + len > r.messageBytes) {
            from.protocolError("DATA frame for no receive expecting it (id " + FrameHeader.cookie(seg, off) + ", offset "
                    + msgOff + ", " + len + " bytes)");
            return;
        }
        r.deliver(seg, off + FrameHeader.LENGTH, msgOff, len);
        r.finishIfComplete();
    }
}
