package org.railyard.channel;

/**
 * A scheduling policy of a virtual channel (seed 002, sec. 4.1.2): decides which rail carries a
 * message that goes whole, whether rendezvous data is striped over several rails, how the bytes
 * are split, and (for the adaptive policies) how the rails' weights follow the measured stripe
 * times. One instance per channel, driven by the progress agent only; selectable with
 * {@code railyard.rail.policy} and printed by {@code --print-choices} ({@link #name()}).
 *
 * <p>The channel hands a policy only rails that are up, in rail-index order ({@code live[0..count)},
 * {@code count >= 1}). Rendezvous data below {@code railyard.stripe.threshold} never reaches
 * {@link #plan}; it goes whole through {@link #select}. Weights live in the rails
 * ({@link Rail#weight}); the channel gives a rail that comes up {@link #freshWeight}.
 *
 * <p>Patterns (the EPC communication marker, seed 002 sec. 6.2.3) are {@link Outbound#BLOCKING},
 * {@link Outbound#NONBLOCKING} and {@link Outbound#COLLECTIVE}, set by the engine.
 */
public interface RailPolicy {
    /** Name and parameters, e.g. {@code bss(4,2) alpha 0.9}. */
    String name();

    /**
     * Index in {@code live} of the rail for a message of {@code bytes} that goes whole on one rail:
     * an envelope (eager message, RTS, CTS; {@code bulk} false) or rendezvous data that is not
     * striped ({@code bulk} true). Policies that rotate keep the two apart, so that the envelope and
     * the data of one rendezvous do not fall into lockstep on the same rails.
     */
    int select(Rail[] live, int count, long bytes, int pattern, boolean bulk);

    /** True if rendezvous data of at least the striping threshold, with this pattern, is striped. */
    default boolean stripes(int pattern) {
        return false;
    }

    /**
     * Splits {@code bytes} of a striped message: sets {@code share[i]} to the bytes for
     * {@code live[i]} (0 for a rail left out), multiples of 8 except where the message ends, summing
     * to {@code bytes}. By default in proportion to the rails' weights.
     */
    default void plan(Rail[] live, int count, long bytes, long[] share) {
        Stripes.byWeight(live, count, bytes, share);
    }

    /** True if the policy learns from stripe times (the channel then times every striped message). */
    default boolean adaptive() {
        return false;
    }

    /**
     * Every stripe of one message is acknowledged: {@code bytes[i]} went on {@code used[i]} and took
     * {@code nanos[i]} from hand-off of its first frame to the acknowledgement of its last byte.
     */
    default void feedback(Rail[] used, long[] bytes, long[] nanos, int count) {
    }

    /** Weight of a rail that comes up (first time, or after it died), given the rails already up. */
    default double freshWeight(Rail rail, Rail[] live, int count) {
        return Stripes.meanWeight(live, count);
    }
}
