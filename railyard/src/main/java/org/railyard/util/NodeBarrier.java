package org.railyard.util;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.VarHandle;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;

/**
 * A barrier of the members of one node over two cache lines of memory they all map: a counter of
 * arrivals and a generation word that is also a futex word. A message barrier of p members wakes
 * each member once per round (log p rounds); this one wakes each waiting member once, with one
 * system call by the last to arrive, which is what a node with more ranks than processors cannot
 * afford to do otherwise.
 *
 * <pre>
 *  0                   8                                                  64
 *  +-------------------+--------------------------------------------------+
 *  | arrived (long)    |                                                  |  members arrived
 *  +-------------------+--------------------------------------------------+
 *  | gen (int) | sleepers (int) |                                        |  passages so far; futex word
 *  +-------------------+--------------------------------------------------+
 * </pre>
 *
 * <p>Rules. A member reads {@code gen}, then adds one to {@code arrived}; the last to arrive sets
 * {@code arrived} back to 0 and then bumps {@code gen}; the others wait until {@code gen} moved.
 * Since nobody passes before the last arrives, the generation read first cannot move before that
 * member's own arrival, and nobody can arrive at the next passage before {@code arrived} is back
 * to 0. A waiter counts itself in {@code sleepers} and looks at {@code gen} once more before it
 * sleeps on it, and the last to arrive wakes the sleepers after its bump when it sees any (both
 * sides order their store before their load, so one of them sees the other). The words start at
 * zero (a new mapping); every member must use the same {@code members}.
 *
 * <p>One thread of a process uses an instance at a time (a communicator's blocking collectives
 * never overlap); the instance keeps the generation it waits for, so a wait allocates nothing.
 */
public final class NodeBarrier {
    /** Bytes of the barrier's words; the memory given must start on a cache line. */
    public static final long BYTES = 128;
    private static final long ARRIVED = 0;
    private static final long GENERATION = 64;
    private static final long SLEEPERS = 68;
    private static final VarHandle WORD = ValueLayout.JAVA_LONG.varHandle();
    private static final VarHandle INT = ValueLayout.JAVA_INT.varHandle();
    /** Without futexes: the park between two looks of a waiter that has stopped polling. */
    private static final long PARK_NANOS = 50_000;
    private static final ThreadLocal<Futex.Waiter> WAITER = ThreadLocal.withInitial(Futex.Waiter::new);

    private final MemorySegment words;
    /** The generation word as a 4-byte segment for the futex calls, made once (a slice per call would allocate). */
    private final MemorySegment generationWord;
    private final int members;
    private int waitGen;
    private final BooleanSupplier passedWaited = () -> passed(waitGen);

    /** The barrier of {@code members} members over {@code words} ({@link #BYTES} bytes of node memory). */
    public NodeBarrier(MemorySegment words, int members) {
        if (words.byteSize() < BYTES) {
            throw new IllegalArgumentException("a node barrier needs " + BYTES + " bytes, not " + words.byteSize());
        }
        if (members < 1) {
            throw new IllegalArgumentException("a node barrier needs at least one member, not " + members);
        }
        this.words = words;
        this.generationWord = words.asSlice(GENERATION, 4);
        this.members = members;
    }

    /** Arrives at the barrier; returns the generation to wait past ({@link #passed}). */
    public int arrive() {
        int gen = (int) INT.getAcquire(words, GENERATION);
        long arrived = (long) WORD.getAndAdd(words, ARRIVED, 1L) + 1;
        if (arrived == members) {
            WORD.setVolatile(words, ARRIVED, 0L);
            INT.setVolatile(words, GENERATION, gen + 1);
            if ((int) INT.getVolatile(words, SLEEPERS) > 0) {
                Futex.wakeAll(generationWord);
            }
        }
        return gen;
    }

    /** True once every member arrived at the barrier whose {@link #arrive} returned {@code gen}. */
    public boolean passed(int gen) {
        return (int) INT.getAcquire(words, GENERATION) != gen;
    }

    /** The members arrived at the passage under way, and the passages so far: for a report. */
    public String describe() {
        return WORD.getVolatile(words, ARRIVED) + " of " + members + " arrived, generation "
                + (int) INT.getVolatile(words, GENERATION);
    }

    /** True if a waiter may sleep on the futex word on this machine. */
    public static boolean canSleep() {
        return Futex.available();
    }

    /** Sleeps while the barrier of {@code gen} has not passed, at most {@code nanos}; {@link #canSleep} holds. */
    public void sleepPast(int gen, long nanos) {
        INT.getAndAdd(words, SLEEPERS, 1);
        try {
            if (passed(gen)) {
                return;
            }
            Futex.Waiter waiter = WAITER.get();
            waiter.clear();
            waiter.add(generationWord, gen);
            waiter.sleep(nanos);
        } finally {
            INT.getAndAdd(words, SLEEPERS, -1);
        }
    }

    /**
     * Waits until the barrier of {@code gen} passed: polls and yields as {@code plan} says, then
     * sleeps at most {@code sliceNanos} at a time (parks, where there are no futexes), running
     * {@code between} after each sleep that did not end the wait. {@code between} bounds the wait:
     * it throws when the wait should end otherwise (a member failed), unless the barrier passed
     * meanwhile, which ends the wait as passed.
     */
    public void await(int gen, WaitPlan plan, long sliceNanos, Runnable between) {
        waitGen = gen;
        if (plan.pollThenYield(passedWaited)) {
            return;
        }
        boolean sleep = canSleep();
        while (!passed(gen)) {
            if (sleep) {
                sleepPast(gen, sliceNanos);
            } else {
                LockSupport.parkNanos(Math.min(sliceNanos, PARK_NANOS));
            }
            if (passed(gen)) {
                return;
            }
            try {
                between.run();
            } catch (RuntimeException e) {
                // The barrier may have passed while between looked, and a member that passed it
                // may have ended since (its process gone): no failure of this wait.
                if (passed(gen)) {
                    return;
                }
                throw e;
            }
        }
    }
}
