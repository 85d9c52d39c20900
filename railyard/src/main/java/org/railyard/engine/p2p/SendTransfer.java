package org.railyard.engine.p2p;

import java.lang.foreign.MemorySegment;
import org.railyard.channel.FrameFields;
import org.railyard.channel.VirtualChannel;
import org.railyard.engine.request.Transfer;
import org.railyard.wire.FrameHeader;
import org.railyard.wire.FrameType;

/**
 * A send: one EAGER frame for a small message; for a large or synchronous one, an RTS frame, then
 * (once the receiver's CTS names its request) the payload as DATA frames on the bulk queue, unless
 * the CTS says the receiver has read the payload from this process's memory itself.
 */
final class SendTransfer extends Transfer {
    static final int PHASE_EAGER = 0;
    static final int PHASE_RTS = 1;
    static final int PHASE_WAIT_CTS = 2;
    static final int PHASE_DATA = 3;

    int phase;
    int sourceWorld;
    long remoteCookie;
    long sent;
    /**
     * Address of the payload in this process when the receiver may read it itself (native memory,
     * a peer on this node; see {@link FrameHeader#FLAG_REMOTE_READ}), else 0.
     */
    long readAddress;
    /** The protocol that offered the read when {@link #readAddress} is set: it writes the offer's token. */
    CrossMemoryRead reads;
    /** False for a send whose receiver must not be offered a read of the buffer (a collective's copied send). */
    boolean mayBeRead = true;

    SendTransfer(Owner owner) {
        super(owner);
    }

    @Override
    public String describe() {
        String[] phases = {"eager", "request to send queued", "waiting for the receiver's CTS", "data"};
        return "send to rank " + peer + ", context " + context + ", tag 0x" + Integer.toHexString(tag) + ", "
                + capacityBytes + " B, " + phases[phase] + (phase == PHASE_DATA ? ", " + sent + " B sent" : "");
    }

    long bytes() {
        return capacityBytes;
    }

    /** Enters {@code firstPhase} and queues this send's first frame on {@code ch} (a protocol starts it). */
    void go(int firstPhase, VirtualChannel ch) {
        phase = firstPhase;
        ch.sendEnvelope(this);
    }

    @Override
    protected int nextFrame(FrameFields header, int maxPayload) {
        switch (phase) {
            case PHASE_EAGER -> {
                header.set(FrameType.EAGER, (byte) 0, context, sourceWorld, tag, (int) capacityBytes, 0, 0);
                return (int) capacityBytes;
            }
            case PHASE_RTS -> {
                byte flags = readAddress != 0 ? FrameHeader.FLAG_REMOTE_READ : 0;
                header.set(FrameType.RTS, flags, context, sourceWorld, tag, (int) capacityBytes, id, readAddress);
                return readAddress != 0 ? FrameHeader.REMOTE_READ_PAYLOAD : 0;
            }
            default -> {
                header.set(FrameType.DATA, (byte) 0, context, sourceWorld, tag, (int) capacityBytes, remoteCookie, sent);
                return (int) Math.min((maxPayload / 8) * 8, capacityBytes - sent);
            }
        }
    }

    @Override
    protected boolean writePayload(MemorySegment seg, long off, int length) {
        switch (phase) {
            case PHASE_EAGER -> {
                kind.copyOut(buf, offset, 0, seg, off, capacityBytes);
                return true;
            }
            case PHASE_RTS -> {
                if (readAddress != 0) {
                    reads.writeOffer(seg, off - FrameHeader.LENGTH);
                }
                return true;
            }
            default -> {
                writeBulk(seg, off, length, sent);
                sent += length;
                return sent == capacityBytes;
            }
        }
    }

    /** In the data phase the payload may go as offset-addressed frames, striped over rails. */
    @Override
    protected long bulkBytes() {
        return phase == PHASE_DATA ? capacityBytes : -1;
    }

    @Override
    protected void bulkHeader(FrameFields header) {
        header.set(FrameType.DATA, (byte) 0, context, sourceWorld, tag, (int) capacityBytes, remoteCookie, 0);
    }

    @Override
    protected void writeBulk(MemorySegment seg, long off, int length, long messageOffset) {
        kind.copyOut(buf, offset, messageOffset, seg, off, length);
    }

    @Override
    protected void onWritten() {
        switch (phase) {
            case PHASE_EAGER, PHASE_DATA -> complete();
            case PHASE_RTS -> phase = PHASE_WAIT_CTS;
            default -> { }
        }
    }

    @Override
    public String toString() {
        return "send to world rank " + peer + " tag " + tag + ", " + capacityBytes + " B";
    }
}
