package org.railyard.util;

import java.util.function.BooleanSupplier;
import java.util.function.LongUnaryOperator;

/**
 * How a wait on a word of node memory that another member of the node sets (a mapped window's
 * fence barrier, lock, post/start/complete/wait in {@code engine.rma}; the counter barrier of a
 * one-node communicator, {@link NodeBarrier}) passes the time before it sleeps on its futex word:
 * it polls for {@code spinNanos}, then yields {@code yields} times. Decided as the engine's waiters are
 * ({@link IdlePlan}), from the ranks on this node against the processors this process may use:
 * <ul>
 *   <li>where {@link IdlePlan#spins} polls at all (no more ranks than processors), for
 *       {@link Config#RMA_SPIN_PROP} microseconds (such a wait is for another member, which answers
 *       within microseconds when it runs); with more ranks than processors, not at all:
 *       the member waited for may need this very processor;</li>
 *   <li>{@value #YIELDS} yields where {@link IdlePlan#yields} yields, none on a crowded node (at
 *       least {@link IdlePlan#CROWDED_SHARE} ranks per processor).</li>
 * </ul>
 * A value given for {@link Config#RMA_SPIN_PROP} or {@link Config#NODE_YIELDS_PROP} is used whatever the node.
 */
public record WaitPlan(long spinNanos, int yields, int ranks, int processors) {
    /** Yields of a wait after its polls, where the node is not crowded. */
    public static final int YIELDS = 16;
    /** Polls between two reads of the clock while polling. */
    public static final int SPINS_PER_LOOK = 32;

    /** The plan for {@code ranks} ranks on {@code processors} processors, {@link Config#RMA_SPIN_PROP} as set. */
    public static WaitPlan of(int ranks, int processors) {
        return of(ranks, processors, micros -> Config.number(Config.RMA_SPIN_PROP, micros));
    }

    /** As above, the poll time in microseconds {@code setting} gives for the node's default (0 where none). */
    public static WaitPlan of(int ranks, int processors, LongUnaryOperator setting) {
        long defaultMicros = IdlePlan.spins(ranks, processors) > 0 ? Config.RMA_SPIN_DEFAULT : 0;
        long spinMicros = Math.max(0, setting.applyAsLong(defaultMicros));
        int yields = (int) Math.max(0, Math.min(Integer.MAX_VALUE,
                Config.number(Config.NODE_YIELDS_PROP, IdlePlan.yields(ranks, processors) > 0 ? YIELDS : 0)));
        return new WaitPlan(spinMicros * 1000, yields, ranks, processors);
    }

    /**
     * The plan of this process in a job of {@code jobSize} ranks: the ranks on this node as the
     * launcher tells ({@link IdlePlan#ranksOnNode}), the processors as counted before the engine
     * bound its thread ({@link IdlePlan#processorsBeforeBinding}), as the engine's plan was made.
     */
    public static WaitPlan forThisNode(int jobSize) {
        return of(IdlePlan.ranksOnNode(Config.env(), jobSize), IdlePlan.processorsBeforeBinding());
    }

    /** True if a wait polls before it yields and sleeps. */
    public boolean spins() {
        return spinNanos > 0;
    }

    /**
     * The part of a wait before it sleeps: polls {@code done} for {@link #spinNanos} (reading the
     * clock every {@link #SPINS_PER_LOOK} polls), then between {@link #yields} yields. True as soon
     * as {@code done} is; false if it is not by the end, and the caller sleeps.
     */
    public boolean pollThenYield(BooleanSupplier done) {
        long spinUntil = 0;
        for (int i = 1; spins(); i++) {
            if (done.getAsBoolean()) {
                return true;
            }
            if (i % SPINS_PER_LOOK == 0) {
                long now = System.nanoTime();
                if (spinUntil == 0) {
                    spinUntil = now + spinNanos;
                } else if (now - spinUntil > 0) {
                    break;
                }
            }
            Thread.onSpinWait();
        }
        for (int i = 0; i < yields; i++) {
            if (done.getAsBoolean()) {
                return true;
            }
            Thread.yield();
        }
        return false;
    }

    /** For the choice log. */
    public String describe() {
        return (spins() ? "poll " + spinNanos / 1000 + " us, " : "no polling, ") + yields + " yields, then sleep ("
                + ranks + " ranks on " + processors + " processors)";
    }
}
