package org.railyard.channel;

import org.railyard.stats.RailStats;
import org.railyard.transport.Link;

/**
 * One rail (subchannel) of a virtual channel: a rail index that both ends agree on (a network path
 * and a connection number on it), the link that carries it now (none while it is down), its weight
 * for the scheduling policy, and the bookkeeping of acknowledgements and liveness on a multi-rail
 * channel. A rail outlives its links: when a link dies the rail goes {@link State#DOWN}, and a new
 * link for the same index brings it back {@link State#UP} with a fresh weight.
 *
 * <p>Driven only by the progress agent, like its channel.
 */
public final class Rail {
    /** Lifecycle of a rail. */
    public enum State { NEW, UP, DOWN }

    final int index;
    final RailStats stats;
    Link link;
    State state = State.NEW;
    /** Identifies the connector's link for this rail, so a late report about an older link is ignored. */
    long epoch;
    double weight = 1;
    /** Bytes per second its last timed stripe achieved; 0 until one was timed. */
    double measuredBandwidth;
    /** Policy bookkeeping (BSS: when it was last in a batch). */
    long lastUsed;

    // sender side, since the link was attached
    long linkBytesSent;
    long linkBytesAcked;
    long lastSendNanos;
    /** When the last timed stripe on this rail was acknowledged: a stripe handed off earlier waited for it. */
    long lastStripeDoneNanos;
    // receiver side, since the link was attached
    long linkBytesReceived;
    long lastReceiveNanos;
    long bytesAtLastAck;
    long psnAtLastAck;
    long lastAckNanos;
    boolean ackRequested;
    // reconnection
    long nextAttemptNanos;
    long backoffNanos;
    String lastFailure;

    /** Stripes handed off on this rail and not yet acknowledged, oldest first (a ring). */
    StripeTimer[] pendingTimers = new StripeTimer[8];
    int[] pendingStripe = new int[8];
    long[] pendingEnd = new long[8];
    int pendingHead;
    int pendingCount;

    Rail(int index, RailStats stats) {
        this.index = index;
        this.stats = stats;
    }

    /** The rail index, the same at both ends of the channel. */
    public int index() {
        return index;
    }

    /** The link carrying this rail now, or null while it is down. */
    public Link link() {
        return link;
    }

    public State state() {
        return state;
    }

    /** Current scheduling weight (meaningful relative to the other rails of the channel). */
    public double weight() {
        return weight;
    }

    public long framesSent() {
        return stats.framesSent();
    }

    public long bytesSent() {
        return stats.bytesSent();
    }

    public long framesReceived() {
        return stats.framesReceived();
    }

    public long bytesReceived() {
        return stats.bytesReceived();
    }

    /** Bytes handed to the current link and not yet acknowledged by the peer. */
    long inFlight() {
        return linkBytesSent - linkBytesAcked;
    }

    boolean up() {
        return state == State.UP;
    }

    /**
     * A new link carries this rail from {@code now}: the counters of the old link start again, and
     * the receiver's acknowledgements count from {@code expectedPsn}.
     */
    void attached(Link l, long linkEpoch, long now, long expectedPsn) {
        link = l;
        epoch = linkEpoch;
        linkBytesSent = 0;
        linkBytesAcked = 0;
        linkBytesReceived = 0;
        bytesAtLastAck = 0;
        psnAtLastAck = expectedPsn;
        lastReceiveNanos = now;
        lastSendNanos = now;
        lastAckNanos = now;
        lastStripeDoneNanos = 0;
        ackRequested = false;
        backoffNanos = 0;
        measuredBandwidth = 0;
        state = State.UP;
    }

    /** The stripe number of the oldest pending stripe. */
    int headStripe() {
        return pendingStripe[pendingHead];
    }

    /** Takes the oldest pending stripe's timer off the ring. */
    StripeTimer popTimer() {
        StripeTimer t = pendingTimers[pendingHead];
        pendingTimers[pendingHead] = null;
        pendingHead = (pendingHead + 1) % pendingTimers.length;
        pendingCount--;
        return t;
    }

    void pushTimer(StripeTimer t, int stripe, long endMark) {
        if (pendingCount == pendingTimers.length) {
            int n = pendingCount * 2;
            pendingTimers = Rings.unwrapped(pendingTimers, pendingHead, pendingCount, n);
            pendingStripe = Rings.unwrapped(pendingStripe, pendingHead, pendingCount, n);
            pendingEnd = Rings.unwrapped(pendingEnd, pendingHead, pendingCount, n);
            pendingHead = 0;
        }
        int k = (pendingHead + pendingCount) % pendingTimers.length;
        pendingTimers[k] = t;
        pendingStripe[k] = stripe;
        pendingEnd[k] = endMark;
        pendingCount++;
    }

    @Override
    public String toString() {
        return "rail " + index + " " + state + (link == null ? "" : " " + link.describe())
                + String.format(" weight %.3f", weight) + " (sent " + framesSent() + " frames / " + bytesSent()
                + " B, received " + framesReceived() + " frames / " + bytesReceived() + " B)";
    }

    /** Why this rail's link stopped: what the link says, or that the connection closed. */
    String whyBroken() {
        return link.failure() == null ? "connection closed" : link.failure();
    }
}
