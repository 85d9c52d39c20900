package org.railyard.stack;

import java.lang.foreign.MemorySegment;
import org.railyard.wire.SegmentHeader;

/**
 * Resize: segmentation and reassembly to the link's datagram size (P2PSAP's Resize, which gives
 * the layer below a fixed largest segment).
 *
 * <p>Send path: a frame becomes {@code ceil(length / datagram payload)} segments, numbered
 * (message id, fragment index, fragment count); the frame is copied out, so a borrowed frame may
 * be reused as soon as the call returns. Room: a frame fits if the layers below take its
 * segments. Receive path: fragments are put back together in a frame segment; a frame goes up
 * only when every fragment is in. A handful of frames can be under reassembly at once (the
 * setting {@link StackSettings#reassembly}); a fragment of a newer message evicts the oldest
 * partial frame when all places are taken, and a fragment older than every frame under way is
 * dropped: over an unreliable flow a frame with a lost fragment is lost, never delivered in part.
 *
 * <p>Needs from below: nothing (loss, duplication and reordering are tolerated). Gives above: whole
 * frames only; every frame, in order, when the layers below are reliable and ordered.
 */
public final class Resize extends MicroProtocol {
    private int nextMessage;
    private Assembly[] slots;

    private static final class Assembly {
        boolean busy;
        int message;
        int count;
        int got;
        int bytes;
        long[] have = new long[1];
        Segment frame;
    }

    @Override
    protected void init() {
        slots = new Assembly[session.settings.reassembly()];
        for (int i = 0; i < slots.length; i++) {
            slots[i] = new Assembly();
        }
    }

    @Override
    protected void down(Segment frame) {
        int len = frame.payloadLength();
        int chunk = session.pool.datagramPayload();
        int count = Math.max(1, (len + chunk - 1) / chunk);
        if (count > 0xffff) {
            throw new IllegalArgumentException("frame of " + len + " bytes needs more than 65535 segments");
        }
        int message = ++nextMessage;
        for (int i = 0; i < count; i++) {
            int off = i * chunk;
            int n = Math.min(chunk, len - off);
            Segment s = session.pool.datagramSegment();
            MemorySegment.copy(frame.mem, SegmentHeader.LENGTH + off, s.mem, SegmentHeader.LENGTH, n);
            s.length = SegmentHeader.LENGTH + n;
            SegmentHeader.fragment(s.mem, 0, message, i, count);
            below.down(s);
        }
        frame.release();
    }

    @Override
    protected void up(Segment s) {
        int count = SegmentHeader.fragmentCount(s.mem, 0);
        int index = SegmentHeader.fragmentIndex(s.mem, 0);
        int chunk = session.pool.datagramPayload();
        int n = s.payloadLength();
        if (count == 0 || index >= count || (long) count * chunk > (long) chunk + session.pool.frameLimit()
                || (index < count - 1 && n != chunk)) {
            session.dropped++;
            s.release();
            return;
        }
        if (count == 1) {
            Segment f = session.pool.frameSegment();
            MemorySegment.copy(s.mem, SegmentHeader.LENGTH, f.mem, SegmentHeader.LENGTH, n);
            f.length = SegmentHeader.LENGTH + n;
            s.release();
            above.up(f);
            return;
        }
        int message = SegmentHeader.messageId(s.mem, 0);
        Assembly a = slotFor(message, count);
        if (a == null || a.count != count || (a.have[index >> 6] & (1L << index)) != 0) {
            session.dropped++;
            s.release();
            return;
        }
        a.have[index >> 6] |= 1L << index;
        a.got++;
        MemorySegment.copy(s.mem, SegmentHeader.LENGTH, a.frame.mem, SegmentHeader.LENGTH + (long) index * chunk, n);
        if (index == count - 1) {
            a.bytes = index * chunk + n;
        }
        s.release();
        if (a.got == count) {
            Segment f = a.frame;
            f.length = SegmentHeader.LENGTH + a.bytes;
            a.frame = null;
            a.busy = false;
            above.up(f);
        }
    }

    /** The assembly of {@code message}, a new one, or null when the fragment is older than all under way. */
    private Assembly slotFor(int message, int count) {
        Assembly free = null;
        Assembly oldest = null;
        for (Assembly a : slots) {
            if (a.busy && a.message == message) {
                return a;
            }
            if (!a.busy) {
                free = a;
            } else if (oldest == null || a.message - oldest.message < 0) {
                oldest = a;
            }
        }
        if (free == null) {
            if (message - oldest.message < 0) {
                return null;
            }
            // the oldest partial frame will not be completed in time to matter: drop it
            session.dropped++;
            oldest.frame.release();
            free = oldest;
        }
        free.busy = true;
        free.message = message;
        free.count = count;
        free.got = 0;
        free.bytes = 0;
        int words = (count + 63) >> 6;
        if (free.have.length < words) {
            free.have = new long[words];
        } else {
            java.util.Arrays.fill(free.have, 0L);
        }
        free.frame = session.pool.frameSegment();
        return free;
    }

    @Override
    protected void onClose() {
        for (Assembly a : slots) {
            if (a.busy) {
                a.frame.release();
                a.frame = null;
                a.busy = false;
            }
        }
    }
}
