package org.railyard.util;

import java.io.IOException;
import java.net.Socket;
import java.net.SocketOption;
import java.net.StandardSocketOptions;
import java.nio.channels.NetworkChannel;
import java.time.Duration;
import java.util.Set;
import jdk.net.ExtendedSocketOptions;

/**
 * When the kernel probes a silent TCP connection and when it gives up ({@code railyard.tcp.keepalive}):
 * {@code idle} seconds with nothing received, then {@code count} probes {@code interval} seconds
 * apart; a connection whose peer answers none of them ends with an error ("Connection timed out")
 * on its next read or write. A connection that waits for an acknowledgement of data it sent is
 * bounded by the kernel's retransmission limit instead; its peer's side, which has nothing to
 * send, is the one the probes end. A live peer answers from its kernel, even while its process
 * computes or is stopped.
 *
 * @param idle     seconds of silence before the first probe
 * @param interval seconds between probes
 * @param count    unanswered probes after which the connection ends
 */
public record KeepAlive(int idle, int interval, int count) {
    /** Unanswered probes after which the kernel closes a connection. */
    public static final int PROBES = 4;
    /** The shortest bound taken: half idle, then a probe a second. */
    public static final long MIN_SECONDS = 2L * PROBES;
    /** The longest bound taken (the kernel's idle time is at most 32767 s). */
    public static final long MAX_SECONDS = 9L * 3600;

    /**
     * The probes for a bound of {@code bound}: idle for half of it, then {@link #PROBES} probes
     * spread over the other half, so a silent connection ends about {@code bound} after the last
     * thing it received. Null for 0 (no probes).
     *
     * @throws IllegalArgumentException naming {@code railyard.tcp.keepalive}, for a bound that is
     *                                  negative, not whole seconds, or outside {@link #MIN_SECONDS}
     *                                  to {@link #MAX_SECONDS}
     */
    public static KeepAlive of(Duration bound) {
        if (bound.isZero()) {
            return null;
        }
        long s = bound.getSeconds();
        if (bound.isNegative() || bound.getNano() != 0 || s < MIN_SECONDS || s > MAX_SECONDS) {
            String given = bound.getNano() == 0 ? s + "s" : bound.toMillis() + "ms";
            throw new IllegalArgumentException("setting " + Config.TCP_KEEPALIVE_PROP + " = " + given + " is not whole"
                    + " seconds from " + MIN_SECONDS + " s to " + MAX_SECONDS + " s (0 turns the probes off)");
        }
        int idle = (int) (s / 2);
        return new KeepAlive(idle, (int) Math.max(1, (s - idle) / PROBES), PROBES);
    }

    /** The probes {@code railyard.tcp.keepalive} asks for in this process; null when it says 0. */
    public static KeepAlive configured() {
        return of(Config.duration(Config.TCP_KEEPALIVE_PROP, Config.TCP_KEEPALIVE_DEFAULT));
    }

    /**
     * Turns on the probes of {@code keepAlive} for {@code ch}; where the platform cannot set their
     * timing, the kernel's own (hours on Linux) apply. Nothing for null.
     */
    public static void apply(NetworkChannel ch, KeepAlive keepAlive) throws IOException {
        if (keepAlive != null) {
            set(ch.supportedOptions(), ch::setOption, keepAlive);
        }
    }

    /** As {@link #apply(NetworkChannel, KeepAlive)}, for a socket without a channel. */
    public static void apply(Socket s, KeepAlive keepAlive) throws IOException {
        if (keepAlive != null) {
            set(s.supportedOptions(), s::setOption, keepAlive);
        }
    }

    private interface Setter {
        <T> void set(SocketOption<T> option, T value) throws IOException;
    }

    private static void set(Set<SocketOption<?>> supported, Setter setter, KeepAlive k) throws IOException {
        setter.set(StandardSocketOptions.SO_KEEPALIVE, true);
        if (supported.contains(ExtendedSocketOptions.TCP_KEEPIDLE)) {
            setter.set(ExtendedSocketOptions.TCP_KEEPIDLE, k.idle());
            setter.set(ExtendedSocketOptions.TCP_KEEPINTERVAL, k.interval());
            setter.set(ExtendedSocketOptions.TCP_KEEPCOUNT, k.count());
        }
    }
}
