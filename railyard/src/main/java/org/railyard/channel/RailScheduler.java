package org.railyard.channel;

import org.railyard.stats.StatsGroup;
import org.railyard.wire.FrameHeader;

/**
 * Which rail carries what, for one channel: the rails by index and those up now, the scheduling
 * {@link RailPolicy}, the window of unacknowledged bytes each rail may carry, and the plan of the
 * bulk message being handed off (one contiguous range per rail it goes on, fed frame by frame as
 * each rail has room, so every rail runs at its own speed). Striped messages of an adaptive policy
 * are timed ({@link StripeTimer}) and the times fed back to the policy when the peer acknowledges
 * them.
 *
 * <p>Driven only by the thread that drives its channel.
 */
final class RailScheduler {
    /** A rail's window is never below this, so a rail with a tiny weight still carries its stripe. */
    private static final long MIN_WINDOW = 256 * 1024;

    private final int peer;
    private final StatsGroup stats;
    private final long railWindow;
    private final Rail[] rails = new Rail[VirtualChannel.MAX_RAILS];
    private int railSlots;
    /** The rails that are up, in rail-index order (what the policy sees). */
    final Rail[] live = new Rail[VirtualChannel.MAX_RAILS];
    int liveCount;
    private RailPolicy policy;

    // the plan of the bulk message being handed off
    private boolean planned;
    private boolean striped;
    private int rangeCount;
    private int rangeCursor;
    private final long[] rangeNext = new long[2 * VirtualChannel.MAX_RAILS];
    private final long[] rangeEnd = new long[2 * VirtualChannel.MAX_RAILS];
    private final int[] rangeRail = new int[2 * VirtualChannel.MAX_RAILS];
    private final int[] rangeStripe = new int[2 * VirtualChannel.MAX_RAILS];
    private final long[] share = new long[VirtualChannel.MAX_RAILS];
    private StripeTimer timer;
    private StripeTimer freeTimers;

    /** A rail that received nothing for this long counts as quiet ({@link #skipsQuiet}). */
    private static final long QUIET_NANOS = 1_000_000L;
    private static final int QUIET_POLL_MASK = 15;
    /** Polls of the channel's rails so far ({@link #pollBegins}). */
    private int polls;

    RailScheduler(int peer, StatsGroup stats, long railWindow) {
        this.peer = peer;
        this.stats = stats;
        this.railWindow = railWindow;
    }

    /** Fixes the number of rail indexes (at the first link) and the policy. */
    void open(int slots, RailPolicy p) {
        railSlots = slots;
        policy = p;
    }

    int slots() {
        return railSlots;
    }

    RailPolicy policy() {
        return policy;
    }

    /** The rail of {@code index}, created on first use. */
    Rail rail(int index) {
        Rail r = rails[index];
        if (r == null) {
            r = new Rail(index, stats.rail(peer, index));
            rails[index] = r;
        }
        return r;
    }

    /** The rail of {@code index} if it was ever attached, else null. */
    Rail existing(int index) {
        return rails[index];
    }

    /** The rails that were ever attached, by index. */
    Rail[] attached() {
        int n = 0;
        for (int i = 0; i < railSlots; i++) {
            if (rails[i] != null) {
                n++;
            }
        }
        Rail[] out = new Rail[n];
        n = 0;
        for (int i = 0; i < railSlots; i++) {
            if (rails[i] != null) {
                out[n++] = rails[i];
            }
        }
        return out;
    }

    /** Puts a rail that came up among the live ones, with the weight the policy gives a newcomer. */
    void up(Rail r) {
        r.weight = policy.freshWeight(r, live, liveCount);
        int i = liveCount++;
        while (i > 0 && live[i - 1].index > r.index) {
            live[i] = live[i - 1];
            i--;
        }
        live[i] = r;
    }

    /** Takes a rail that went down out of the live ones. */
    void down(Rail r) {
        int j = 0;
        for (int i = 0; i < liveCount; i++) {
            if (live[i] != r) {
                live[j++] = live[i];
            }
        }
        for (int i = j; i < liveCount; i++) {
            live[i] = null;
        }
        liveCount = j;
    }

    /**
     * Closes every rail's link; a rail that was up goes down, its state change recorded as
     * {@code state} for {@code why}.
     */
    void closeAll(long now, String state, String why) {
        for (int i = 0; i < railSlots; i++) {
            Rail r = rails[i];
            if (r != null && r.link != null) {
                r.link.close();
                if (r.up()) {
                    r.state = Rail.State.DOWN;
                    r.stats.state(now, state, why, null);
                }
            }
        }
        liveCount = 0;
    }

    /** Copies the rails' counters into their time series. */
    void sample(long now) {
        for (int i = 0; i < railSlots; i++) {
            if (rails[i] != null) {
                rails[i].stats.sample(now);
            }
        }
    }

    /** The rail for a frame of {@code payload} bytes (an envelope, or unstriped bulk data). */
    Rail pick(long payload, int pattern, boolean bulk) {
        return live[policy.select(live, liveCount, payload, pattern, bulk)];
    }

    /**
     * How many unacknowledged bytes rail {@code r} may carry: {@code railWindow} per rail, shared
     * out by weight. The queue of a rail is then about as long in time on every rail (a slow rail
     * gets a short queue), so frames handed off at the same moment arrive at about the same moment
     * whatever rail they took, and the receiver holds few frames out of order.
     */
    long window(Rail r) {
        double total = 0;
        for (int i = 0; i < liveCount; i++) {
            total += live[i].weight;
        }
        long w = total <= 0 ? railWindow : (long) (railWindow * liveCount * (r.weight / total));
        return Math.max(MIN_WINDOW, w);
    }

    // ================================================================== the bulk plan

    /** True while a bulk message is planned and not yet handed off in full. */
    boolean planned() {
        return planned;
    }

    /** True if the planned message is striped (it then completes only once acknowledged). */
    boolean striped() {
        return striped;
    }

    /**
     * Splits a bulk message of {@code n} bytes into ranges, one per rail it goes on: stripes by the
     * policy when {@code mayStripe} and it has several rails for it, else one range on the rail the
     * policy picks.
     */
    void plan(Outbound o, long n, boolean mayStripe, long now) {
        planned = true;
        rangeCount = 0;
        rangeCursor = 0;
        striped = mayStripe && liveCount > 1 && policy.stripes(o.pattern());
        if (!striped) {
            addRange(0, n, pick(n, o.pattern(), true).index);
            return;
        }
        policy.plan(live, liveCount, n, share);
        if (policy.adaptive()) {
            timer = acquireTimer();
        }
        long at = 0;
        for (int i = 0; i < liveCount; i++) {
            if (share[i] > 0) {
                addRange(at, at + share[i], live[i].index);
                if (timer != null) {
                    rangeStripe[rangeCount - 1] = timer.add(live[i], share[i]);
                }
                live[i].lastUsed = now;
                at += share[i];
            }
        }
        if (timer != null && timer.count < 2) {
            timer.invalid = true; // one stripe tells nothing about the others
        }
    }

    private void addRange(long from, long to, int railIndex) {
        rangeNext[rangeCount] = from;
        rangeEnd[rangeCount] = to;
        rangeRail[rangeCount] = railIndex;
        rangeStripe[rangeCount] = -1;
        rangeCount++;
    }

    /** Ranges of the plan, tried from the one after the last that sent; see {@link #range}. */
    int ranges() {
        return rangeCount;
    }

    /** The {@code k}-th range to try now (round robin from the cursor), or -1 if that one is through. */
    int range(int k) {
        int i = (rangeCursor + k) % rangeCount;
        return rangeNext[i] < rangeEnd[i] ? i : -1;
    }

    /**
     * The rail that carries range {@code i}: its own, or if that one died, the heaviest rail up
     * (null if none is), which then keeps the rest of the range.
     */
    Rail railOf(int i) {
        Rail r = rails[rangeRail[i]];
        if (r.up()) {
            return r;
        }
        if (liveCount == 0) {
            return null;
        }
        Rail to = live[Stripes.heaviest(live, liveCount)];
        rangeRail[i] = to.index;
        if (timer != null) {
            timer.invalid = true;
        }
        return to;
    }

    /** The message offset of the next frame of range {@code i}. */
    long next(int i) {
        return rangeNext[i];
    }

    /** Payload bytes of the next frame of range {@code i} on a link that takes {@code maxFrame}. */
    long payload(int i, int maxFrame) {
        return Math.min(((maxFrame - FrameHeader.LENGTH) / 8) * 8, rangeEnd[i] - rangeNext[i]);
    }

    /** True if a frame of {@code payload} bytes ends a stripe of a striped message (it asks for an acknowledgement). */
    boolean endsStripe(int i, long payload) {
        return striped && rangeNext[i] + payload == rangeEnd[i];
    }

    /** A frame of range {@code i} is about to go on {@code r}: starts its stripe's clock if it is the first. */
    void handingOff(int i, long now) {
        int stripe = rangeStripe[i];
        if (timer != null && stripe >= 0 && timer.start[stripe] < 0) {
            timer.start[stripe] = now;
        }
    }

    /**
     * A frame of {@code payload} bytes of range {@code i} went on {@code r}; returns true if that
     * was the last frame of the message (the plan is then through).
     */
    boolean handedOff(int i, Rail r, long payload) {
        boolean stripeEnd = rangeNext[i] + payload == rangeEnd[i];
        rangeNext[i] += payload;
        int stripe = rangeStripe[i];
        if (stripeEnd && timer != null && stripe >= 0) {
            r.pushTimer(timer, stripe, r.linkBytesSent);
        }
        rangeCursor = i + 1;
        for (int k = 0; k < rangeCount; k++) {
            if (rangeNext[k] < rangeEnd[k]) {
                return false;
            }
        }
        return true;
    }

    /** The plan is through (or empty): its timer is released once nothing on it is pending. */
    void finishPlan() {
        planned = false;
        StripeTimer t = timer;
        timer = null;
        if (t != null && t.pending == 0) {
            releaseTimer(t);
        }
    }

    /** Forgets the plan (the channel is down). */
    void dropPlan() {
        planned = false;
    }

    // ================================================================== stripe timing

    /**
     * Times the stripes on {@code r} that the acknowledgement of {@code bytes} completes. A stripe
     * started when it was handed off, or when the stripe before it on the rail was through,
     * whichever was later (the rail was carrying that one until then). When one acknowledgement
     * completes several stripes (the receiver read them in one go), their span is shared out by
     * bytes: the rail carried all of them in that time, and giving the last one only the gap since
     * the one before would credit the rail with an absurd speed.
     */
    void stripesAcknowledged(Rail r, long bytes, long now) {
        if (r.pendingCount == 0 || r.pendingEnd[r.pendingHead] > bytes) {
            return;
        }
        int n = 0;
        long spanBytes = 0;
        long spanStart = Long.MAX_VALUE;
        for (int i = 0; i < r.pendingCount; i++) {
            int k = (r.pendingHead + i) % r.pendingTimers.length;
            if (r.pendingEnd[k] > bytes) {
                break;
            }
            StripeTimer t = r.pendingTimers[k];
            int stripe = r.pendingStripe[k];
            spanStart = Math.min(spanStart, Math.max(t.start[stripe], r.lastStripeDoneNanos));
            spanBytes += t.bytes[stripe];
            n++;
        }
        long span = Math.max(1, now - spanStart);
        r.lastStripeDoneNanos = now;
        for (int i = 0; i < n; i++) {
            int stripe = r.headStripe();
            StripeTimer t = r.popTimer();
            t.start[stripe] = now - Math.max(1, spanBytes == 0 ? span : span * t.bytes[stripe] / spanBytes);
            if (t.done(stripe, now)) {
                if (!t.invalid && t != timer) {
                    policy.feedback(t.rails, t.bytes, t.nanos, t.count);
                    for (int j = 0; j < t.count; j++) {
                        t.rails[j].stats.weight(t.rails[j].weight);
                    }
                }
                if (t != timer) {
                    releaseTimer(t);
                }
            }
        }
    }

    /** Rail {@code r} died: its pending stripes will never be timed, nor will the message being planned. */
    void abandonStripes(Rail r) {
        while (r.pendingCount > 0) {
            StripeTimer t = r.popTimer();
            if (t.abandon()) {
                releaseTimer(t);
            }
        }
        if (timer != null) {
            timer.invalid = true;
        }
    }

    private StripeTimer acquireTimer() {
        StripeTimer t = freeTimers;
        if (t == null) {
            t = new StripeTimer();
        } else {
            freeTimers = t.nextFree;
        }
        t.reset();
        return t;
    }

    private void releaseTimer(StripeTimer t) {
        t.nextFree = freeTimers;
        freeTimers = t;
    }

    /** A poll of the channel's rails begins ({@link #skipsQuiet} counts them). */
    void pollBegins() {
        polls++;
    }

    /**
     * True if this poll of a multi-rail channel leaves rail {@code r} unread: a quiet rail (nothing
     * received for {@link #QUIET_NANOS}) that owes no acknowledgement is read every 16th poll only.
     * Reading an idle socket is a system call, and with four rails it would slow the one that
     * carries a ping-pong; a rail with data in flight is read every time, so the acknowledgements
     * that time its stripes are seen at once.
     */
    boolean skipsQuiet(Rail r, long now) {
        return r.inFlight() == 0 && now - r.lastReceiveNanos > QUIET_NANOS && (polls & QUIET_POLL_MASK) != 0;
    }
}
