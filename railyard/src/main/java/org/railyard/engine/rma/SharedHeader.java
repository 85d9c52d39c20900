package org.railyard.engine.rma;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.VarHandle;
import org.railyard.error.ErrorClass;
import org.railyard.error.RailyardException;
import org.railyard.util.NodeBarrier;
import org.railyard.util.WaitPlan;

/**
 * The synchronisation words at the head of a mapped window (every member's memory in one mapping,
 * {@link Rma}): the node barrier that a fence is, and one accumulate lock per member. Each word
 * has a cache line of its own:
 *
 * <pre>
 *  0                   8                                                  64
 *  +-------------------+--------------------------------------------------+
 *  | arrived (long)    |                                                  |  barrier: members arrived
 *  +-------------------+--------------------------------------------------+
 *  | gen (int) | sleepers (int) |                                        |  barrier: passages so far; futex word
 *  +-------------------+--------------------------------------------------+
 *  | lock of member 0  |                                                  |  accumulate lock, 64 * (2 + r)
 *  +-------------------+--------------------------------------------------+
 *  | ... one line per member                                              |
 *  +----------------------------------------------------------------------+
 *  | passive-target locks, bells, post and complete counters               |  {@link SharedSync}, 64 * (2 + members)
 *  +----------------------------------------------------------------------+
 * </pre>
 *
 * <p>Barrier: the first two lines are a {@link NodeBarrier} (its rules are there). A waiter polls a
 * little, then sleeps on {@code gen} as a futex: a 2-core node with more runnable threads than
 * cores cannot afford spinning members.
 *
 * <p>Accumulate lock of a member (a reader-writer word over that member's part): {@link #WRITER} set
 * by one holder that applies a block with plain loads and stores; the low bits count holders that
 * update single values with atomic {@link VarHandle} operations, which may run together. A writer
 * claims {@link #WRITER} first and then waits for the holders of single values to leave, so a
 * stream of single updates cannot starve it. Every wait is bounded by the RMA timeout: a member that
 * died holding a lock makes the others fail with TIMEOUT rather than hang.
 */
final class SharedHeader {
    static final int LINE = 64;
    private static final long LOCKS = 2 * LINE;
    static final long WRITER = 1L << 40;
    private static final VarHandle WORD = ValueLayout.JAVA_LONG.varHandle();
    /** A sleep of a barrier waiter lasts at most this long before it looks again (a lost wake costs no more). */
    private static final long SLEEP_SLICE_NANOS = 2_000_000;

    private final MemorySegment words;
    private final NodeBarrier barrier;
    private final int members;
    private final RmaWindow w;
    private final SharedSync sync;

    /** Bytes of the header of a window of {@code members} members; a multiple of {@link #LINE}. */
    static long bytes(int members) {
        return syncAt(members) + SharedSync.bytes(members);
    }

    private static long syncAt(int members) {
        return LOCKS + (long) LINE * members;
    }

    SharedHeader(MemorySegment words, int members, RmaWindow w, WaitPlan plan) {
        this.words = words;
        this.barrier = new NodeBarrier(words.asSlice(0, NodeBarrier.BYTES), members);
        this.members = members;
        this.w = w;
        this.sync = new SharedSync(words.asSlice(syncAt(members), SharedSync.bytes(members)), members, plan);
    }

    /** The passive-target locks and the post/complete counters of the window. */
    SharedSync sync() {
        return sync;
    }

    // ================================================================== barrier

    /** Arrives at the barrier; returns the generation to wait past ({@link #passed}). */
    int arrive() {
        return barrier.arrive();
    }

    /** True once every member arrived at the barrier that returned {@code gen}. */
    boolean passed(int gen) {
        return barrier.passed(gen);
    }

    /** True if a waiter of the barrier may sleep on the futex word. */
    static boolean canSleep() {
        return NodeBarrier.canSleep();
    }

    /**
     * Waits until the barrier of {@code gen} passed, as the window's plan polls and yields, then in
     * sleeps of a slice, running {@code between} after each ({@link NodeBarrier#await}); {@link #canSleep} holds.
     */
    void awaitBarrier(int gen, Runnable between) {
        barrier.await(gen, sync.plan(), SLEEP_SLICE_NANOS, between);
    }

    // ================================================================== accumulate locks

    /** Takes member {@code t}'s lock for a block applied with plain loads and stores. */
    void lockBlock(int t) {
        long at = LOCKS + (long) LINE * t;
        long deadline = 0;
        int spins = 0;
        while (((long) WORD.getAndBitwiseOr(words, at, WRITER) & WRITER) != 0) {
            deadline = spin(deadline, ++spins, t);
        }
        while (((long) WORD.getAcquire(words, at) & ~WRITER) != 0) {
            deadline = spin(deadline, ++spins, t);
        }
    }

    void unlockBlock(int t) {
        WORD.getAndAdd(words, LOCKS + (long) LINE * t, -WRITER);
    }

    /** Takes member {@code t}'s lock for updates of single values by atomic operations. */
    void lockSingle(int t) {
        long at = LOCKS + (long) LINE * t;
        long deadline = 0;
        int spins = 0;
        while (true) {
            if (((long) WORD.getAndAdd(words, at, 1L) & WRITER) == 0) {
                return;
            }
            WORD.getAndAdd(words, at, -1L);
            while (((long) WORD.getAcquire(words, at) & WRITER) != 0) {
                deadline = spin(deadline, ++spins, t);
            }
        }
    }

    void unlockSingle(int t) {
        WORD.getAndAdd(words, LOCKS + (long) LINE * t, -1L);
    }

    /** One turn of a wait for a lock; yields after a while, fails after the RMA timeout. */
    private long spin(long deadline, int spins, int t) {
        if ((spins & 0x3FF) != 0) {
            Thread.onSpinWait();
            return deadline;
        }
        long now = System.nanoTime();
        if (deadline == 0) {
            return now + Rma.timeoutNanos();
        }
        if (now - deadline > 0) {
            throw new RailyardException(ErrorClass.TIMEOUT, "window " + w.name() + ": waited "
                    + Rma.timeoutNanos() / 1_000_000_000L + " s (" + Rma.TIMEOUT_PROP + ") for the accumulate lock of rank "
                    + t + " (did a member die holding it?)");
        }
        Thread.yield();
        return deadline;
    }
}
