package org.railyard.channel;

import java.time.Duration;
import org.railyard.util.Config;

/**
 * The settings of the channel floor's multi-rail machinery, read once when the floor opens (see
 * {@link Config} for each {@code railyard.*} name and its default). Tests build their own.
 *
 * @param policy          policy spec ({@link RailPolicies})
 * @param stripeThreshold rendezvous data of at least this many bytes may be striped
 * @param railTimeout     a rail with nothing received for this long is down
 * @param heartbeat       a rail with nothing sent for this long sends a heartbeat
 * @param partitionTimeout with no rail left, how long to wait for one before failing
 * @param retransmitBytes bound of the retransmit buffer
 * @param railWindow      unacknowledged bytes one rail may carry
 * @param ackBytes        acknowledge a rail after this many bytes
 * @param ackInterval     ... or after this long
 * @param reconnectMin    first reconnection delay (doubles per failure)
 * @param reconnectMax    longest reconnection delay
 */
public record RailSettings(String policy, long stripeThreshold, Duration railTimeout, Duration heartbeat,
                           Duration partitionTimeout, long retransmitBytes, long railWindow, long ackBytes,
                           Duration ackInterval, Duration reconnectMin, Duration reconnectMax) {

    public RailSettings {
        RailPolicies.create(policy, 0, 1); // fails early, naming the setting, if the spec is wrong
        if (railWindow < 64 * 1024) {
            throw new IllegalArgumentException("setting " + Config.RAIL_WINDOW_PROP + " = " + railWindow + " is below 64 KiB");
        }
        if (!heartbeat.isPositive() || heartbeat.compareTo(railTimeout) >= 0) {
            throw new IllegalArgumentException("setting " + Config.RAIL_HEARTBEAT_PROP + " (" + heartbeat
                    + ") must be positive and below " + Config.RAIL_TIMEOUT_PROP + " (" + railTimeout + ")");
        }
    }

    /** The settings as configured ({@link Config}). */
    public static RailSettings fromConfig() {
        return new RailSettings(
                Config.string(Config.RAIL_POLICY_PROP, Config.RAIL_POLICY_DEFAULT),
                Config.bytes(Config.STRIPE_THRESHOLD_PROP, Config.STRIPE_THRESHOLD_DEFAULT),
                Config.duration(Config.RAIL_TIMEOUT_PROP, Config.RAIL_TIMEOUT_DEFAULT),
                Config.duration(Config.RAIL_HEARTBEAT_PROP, Config.RAIL_HEARTBEAT_DEFAULT),
                Config.duration(Config.PARTITION_TIMEOUT_PROP, Config.PARTITION_TIMEOUT_DEFAULT),
                Config.bytes(Config.RETRANSMIT_BUFFER_PROP, Config.RETRANSMIT_BUFFER_DEFAULT),
                Config.bytes(Config.RAIL_WINDOW_PROP, Config.RAIL_WINDOW_DEFAULT),
                Config.bytes(Config.ACK_BYTES_PROP, Config.ACK_BYTES_DEFAULT),
                Config.duration(Config.ACK_INTERVAL_PROP, Config.ACK_INTERVAL_DEFAULT),
                Config.duration(Config.RECONNECT_MIN_PROP, Config.RECONNECT_MIN_DEFAULT),
                Config.duration(Config.RECONNECT_MAX_PROP, Config.RECONNECT_MAX_DEFAULT));
    }

    /** A copy with another policy spec. */
    public RailSettings withPolicy(String spec) {
        return new RailSettings(spec, stripeThreshold, railTimeout, heartbeat, partitionTimeout, retransmitBytes,
                railWindow, ackBytes, ackInterval, reconnectMin, reconnectMax);
    }

    /** The choice log's words for a channel of {@code slots} rails under policy {@code policyName}. */
    String describe(int slots, String policyName, boolean reliable) {
        return slots + (slots == 1 ? " rail" : " rails") + ", rail policy " + policyName
                + (reliable ? ", striping from " + stripeThreshold + " B, acknowledged with retransmission ("
                + (retransmitBytes >> 20) + " MiB buffer)" : "");
    }
}
