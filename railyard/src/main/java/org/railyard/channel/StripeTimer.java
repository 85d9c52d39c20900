package org.railyard.channel;

/**
 * Times the stripes of one striped message for an adaptive policy: each stripe from the hand-off of
 * its first frame to the acknowledgement that covers its last byte on its rail (seed 002, sec.
 * 7.1.2: a stripe's delivery time is what the feedback loop balances). When every stripe is timed
 * the policy gets the bytes and times; if one of its rails died meanwhile the measurement is void
 * and dropped (the failover already changed the weights). Pooled by the channel.
 *
 * <p>One refinement over the paper: when messages are pipelined, a stripe is handed to a rail that
 * still carries the previous message's stripe, and hand-off-to-acknowledgement would count that
 * wait too. The wait is longest, relative to the stripe, on the slowest rail, whose weight would
 * then fall further with every message (a feedback loop that starves it). So a stripe's time
 * starts at its hand-off or at the acknowledgement of the previous timed stripe on its rail,
 * whichever is later: the time the rail spent carrying this stripe.
 */
final class StripeTimer {
    final Rail[] rails = new Rail[VirtualChannel.MAX_RAILS];
    final long[] bytes = new long[VirtualChannel.MAX_RAILS];
    final long[] start = new long[VirtualChannel.MAX_RAILS];
    final long[] nanos = new long[VirtualChannel.MAX_RAILS];
    int count;
    int pending;
    boolean invalid;
    StripeTimer nextFree;

    void reset() {
        count = 0;
        pending = 0;
        invalid = false;
        for (int i = 0; i < rails.length; i++) {
            rails[i] = null;
        }
    }

    /** Adds a stripe of {@code n} bytes on {@code rail}; returns its number. */
    int add(Rail rail, long n) {
        rails[count] = rail;
        bytes[count] = n;
        start[count] = -1;
        pending++;
        return count++;
    }

    /** The stripe's last byte is acknowledged; true when that was the last stripe outstanding. */
    boolean done(int stripe, long now) {
        nanos[stripe] = Math.max(1, now - start[stripe]);
        return --pending == 0;
    }

    /** The stripe will never be timed (its rail died); true when nothing is outstanding any more. */
    boolean abandon() {
        invalid = true;
        return --pending == 0;
    }
}
