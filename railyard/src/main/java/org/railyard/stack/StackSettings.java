package org.railyard.stack;

import java.time.Duration;
import org.railyard.util.Config;

/**
 * The numbers a stack's micro-protocols work with. Read once per stack from the settings
 * ({@link Config}), or given by a test.
 *
 * @param window segments a reliable flow keeps unacknowledged at most (retransmit buffer, flow
 *        window, receive reorder buffer), and the largest congestion window
 * @param rtoInitial retransmission timeout before the first round-trip sample (RFC 6298: 1 s; here
 *        far less, the stack runs inside a machine room)
 * @param rtoMin lower bound of the retransmission timeout
 * @param rtoMax upper bound, backing off included
 * @param congestionTimeout an unreliable flow whose window stays full this long without an
 *        acknowledgement counts everything in flight as lost (DCCP-like flows have no retransmission
 *        timer)
 * @param reassembly frames an unreliable flow reassembles at once (older partial frames are dropped)
 */
public record StackSettings(int window, Duration rtoInitial, Duration rtoMin, Duration rtoMax,
                            Duration congestionTimeout, int reassembly) {

    public StackSettings {
        if (window < 8 || window > 4096) {
            throw new IllegalArgumentException("stack window " + window + " is outside [8, 4096] segments");
        }
        if (rtoMin.isNegative() || rtoMin.isZero() || rtoMax.compareTo(rtoMin) < 0) {
            throw new IllegalArgumentException("stack timeouts: need 0 < rto.min <= rto.max, got " + rtoMin + ", " + rtoMax);
        }
    }

    /** From the settings. */
    public static StackSettings fromConfig() {
        Duration min = Config.duration(Config.STACK_RTO_MIN_PROP, Config.STACK_RTO_MIN_DEFAULT);
        Duration max = Config.duration(Config.STACK_RTO_MAX_PROP, Config.STACK_RTO_MAX_DEFAULT);
        return new StackSettings((int) Config.number(Config.STACK_WINDOW_PROP, Config.STACK_WINDOW_DEFAULT),
                Duration.ofMillis(Math.max(20, min.toMillis())), min, max, Duration.ofMillis(50), 4);
    }

    /**
     * These settings with the window cut to what the peer can take: half its receive buffer, counted
     * in datagrams of this link (the kernel charges each datagram more than its payload).
     */
    public StackSettings fitting(org.railyard.transport.DatagramLink link) {
        int fit = Math.max(8, link.peerReceiveBuffer() / (2 * link.maxFrame()));
        return fit >= window ? this : new StackSettings(fit, rtoInitial, rtoMin, rtoMax, congestionTimeout, reassembly);
    }

    /** Defaults for tests. */
    public static StackSettings defaults() {
        return new StackSettings(64, Duration.ofMillis(20), Duration.ofMillis(2), Duration.ofMillis(500),
                Duration.ofMillis(50), 4);
    }
}
