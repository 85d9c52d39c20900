package org.railyard.stack;

import java.lang.foreign.MemorySegment;
import java.util.function.Consumer;
import org.railyard.util.LongMap;
import org.railyard.wire.FrameHeader;
import org.railyard.wire.FrameType;
import org.railyard.wire.SegmentHeader;

/**
 * Asynchronous: the scheme protocol of asynchronous iterations, where only the most recent value
 * of a flow matters. A flow is a (context, tag) pair of {@link FrameType#VALUE} frames; a value's
 * sequence number is the frame's cookie.
 *
 * <p>Send path: a value goes down at once when the layers below have room; otherwise it waits in
 * its flow's single slot, and a newer value of the same flow replaces it there (it is
 * <em>superseded</em>). Slots are sent, oldest waiting first, when room comes back. So the stack
 * never refuses a value ({@link #writable} is always true) and holds at most one value per flow:
 * nothing grows when the sender is faster than the network or the receiver. The last value sent
 * on each flow is kept too, so a reconfiguration can replay it on the next composition ({@link
 * #forEachLatest}).
 *
 * <p>Receive path: a value older than (or equal to) the newest one already delivered on its flow
 * is dropped as stale; the rest go up.
 *
 * <p>Needs from below: nothing (values may be lost, duplicated, reordered). Gives above: for each
 * flow, values in increasing sequence order, each at most once, the newest eventually if the
 * network delivers anything.
 */
public final class Asynchronous extends MicroProtocol {
    private final LongMap<Flow> flows = new LongMap<>();
    private Flow waitingHead, waitingTail;
    private int waiting;

    /** One flow: its newest delivered value (receiver), its waiting and last sent values (sender). */
    private static final class Flow {
        long delivered;
        MemorySegment pending = MemorySegment.NULL;
        int pendingLength;
        MemorySegment last = MemorySegment.NULL;
        int lastLength;
        boolean queued;
        Flow nextWaiting;
        Segment view;
    }

    private static long key(MemorySegment frame) {
        long o = SegmentHeader.LENGTH;
        return ((long) FrameHeader.context(frame, o) << 32) | (FrameHeader.tag(frame, o) & 0xffffffffL);
    }

    private Flow flow(long key) {
        Flow f = flows.get(key);
        if (f == null) {
            f = new Flow();
            flows.put(key, f);
        }
        return f;
    }

    @Override
    protected boolean writable(int frameBytes) {
        return true;
    }

    @Override
    protected void down(Segment frame) {
        if (FrameHeader.type(frame.mem, SegmentHeader.LENGTH) != FrameType.VALUE) {
            below.down(frame);
            return;
        }
        Flow f = flow(key(frame.mem));
        int len = frame.payloadLength();
        if (!f.queued && waiting == 0 && below.writable(len)) {
            f.last = store(f.last, frame.mem, len);
            f.lastLength = len;
            below.down(frame);
            return;
        }
        if (f.queued) {
            session.superseded++;
        } else {
            f.queued = true;
            f.nextWaiting = null;
            if (waitingTail == null) {
                waitingHead = f;
            } else {
                waitingTail.nextWaiting = f;
            }
            waitingTail = f;
            waiting++;
        }
        f.pending = store(f.pending, frame.mem, len);
        f.pendingLength = len;
        frame.release();
    }

    /** Copies the frame in {@code src}'s payload into {@code buf} (grown if needed); returns the buffer. */
    private static MemorySegment store(MemorySegment buf, MemorySegment src, int len) {
        MemorySegment b = buf;
        if (b.byteSize() < SegmentHeader.LENGTH + len) {
            b = MemorySegment.ofArray(new long[(SegmentHeader.LENGTH + len + 7) / 8]);
        }
        MemorySegment.copy(src, SegmentHeader.LENGTH, b, SegmentHeader.LENGTH, len);
        return b;
    }

    /** Sends waiting values while the layers below have room. */
    private void pump() {
        while (waitingHead != null && below.writable(waitingHead.pendingLength)) {
            Flow f = waitingHead;
            waitingHead = f.nextWaiting;
            if (waitingHead == null) {
                waitingTail = null;
            }
            waiting--;
            f.queued = false;
            MemorySegment sent = f.pending;
            f.pending = f.last;
            f.last = sent;
            f.lastLength = f.pendingLength;
            below.down(view(f, sent, f.lastLength));
        }
    }

    private static Segment view(Flow f, MemorySegment mem, int len) {
        Segment v = Segment.borrowed(mem);
        v.length = SegmentHeader.LENGTH + len;
        f.view = v;
        return v;
    }

    @Override
    protected void up(Segment frame) {
        if (FrameHeader.type(frame.mem, SegmentHeader.LENGTH) != FrameType.VALUE) {
            above.up(frame);
            return;
        }
        Flow f = flow(key(frame.mem));
        long seq = FrameHeader.cookie(frame.mem, SegmentHeader.LENGTH);
        if (seq <= f.delivered) {
            session.stale++;
            frame.release();
            return;
        }
        f.delivered = seq;
        above.up(frame);
    }

    @Override
    protected void onSignal(Signal signal, long arg) {
        pump();
    }

    @Override
    protected void onTick(long now) {
        pump();
    }

    @Override
    protected void onBatchEnd() {
        pump();
    }

    @Override
    protected boolean drained() {
        return waiting == 0;
    }

    /**
     * Each flow's newest value handed to this protocol (waiting, or else last sent), as a borrowed
     * frame segment, oldest flows first in no promised order: what a reconfiguration replays.
     */
    public void forEachLatest(Consumer<Segment> action) {
        flows.forEachValue(f -> {
            if (f.queued) {
                action.accept(view(f, f.pending, f.pendingLength));
            } else if (f.lastLength > 0) {
                action.accept(view(f, f.last, f.lastLength));
            }
        });
    }

    /** Values waiting for room. */
    public int waiting() {
        return waiting;
    }

    @Override
    public String state() {
        return flows.size() + " flows, " + waiting + " waiting";
    }
}
