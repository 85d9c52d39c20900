package org.railyard.engine;

import java.lang.foreign.MemorySegment;
import org.railyard.util.ProcessMemory;
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
    /** False for a send whose receiver must not be offered a read of the buffer ({@code CollSchedule.sendCopied}). */
    boolean mayBeRead = true;

    SendTransfer(Engine engine) {
        super(engine);
    }

    long bytes() {
        return capacityBytes;
    }

    @Override
    protected int nextFrameLength(int maxFrame) {
        if (phase == PHASE_DATA) {
            long room = ((maxFrame - FrameHeader.LENGTH) / 8) * 8;
            return (int) (FrameHeader.LENGTH + Math.min(room, capacityBytes - sent));
        }
        if (phase == PHASE_EAGER) {
            return FrameHeader.LENGTH + (int) capacityBytes;
        }
        return readAddress != 0 ? FrameHeader.LENGTH + FrameHeader.REMOTE_READ_PAYLOAD : FrameHeader.LENGTH;
    }

    @Override
    protected boolean writeFrame(MemorySegment seg, long off, int frameLength) {
        switch (phase) {
            case PHASE_EAGER -> {
                FrameHeader.write(seg, off, frameLength, FrameType.EAGER, (byte) 0, context, sourceWorld, tag,
                        (int) capacityBytes, 0, 0);
                kind.copyOut(buf, offset, 0, seg, off + FrameHeader.LENGTH, capacityBytes);
                return true;
            }
            case PHASE_RTS -> {
                byte flags = readAddress != 0 ? FrameHeader.FLAG_REMOTE_READ : 0;
                FrameHeader.write(seg, off, frameLength, FrameType.RTS, flags, context, sourceWorld, tag, (int) capacityBytes,
                        id, readAddress);
                if (readAddress != 0) {
                    ProcessMemory.Identity me = ProcessMemory.identity();
                    FrameHeader.writeReadOffer(seg, off, me.address(), me.word0(), me.word1());
                }
                return true;
            }
            default -> {
                writeBulk(seg, off, frameLength, sent);
                sent += frameLength - FrameHeader.LENGTH;
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
    protected void writeBulk(MemorySegment seg, long off, int frameLength, long messageOffset) {
        FrameHeader.write(seg, off, frameLength, FrameType.DATA, (byte) 0, context, sourceWorld, tag,
                (int) capacityBytes, remoteCookie, messageOffset);
        kind.copyOut(buf, offset, messageOffset, seg, off + FrameHeader.LENGTH, frameLength - FrameHeader.LENGTH);
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
