package org.railyard.engine.rma;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.VarHandle;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;
import java.util.function.IntConsumer;
import java.util.function.Supplier;
import org.railyard.error.ErrorClass;
import org.railyard.error.RailyardException;
import org.railyard.util.Config;
import org.railyard.util.Futex;
import org.railyard.util.WaitPlan;

/**
 * Passive-target locks and post/start/complete/wait of a mapped window, as words in the mapping's
 * header ({@link SharedHeader} places this part after its accumulate locks): no message to a
 * target's progress. For {@code n} members, from the start of this part:
 *
 * <pre>
 *  +----------------+-------------+---------------+-----------------+
 *  | lock word long | bell (int)  | sleepers (int)|                 |  passive lock of target t: line t
 *  +----------------+-------------+---------------+-----------------+
 *  | bell (int)     | sleepers    |                                 |  bell of member r: line n + r
 *  +----------------+-------------+---------------------------------+
 *  | holds[t * n + o] (int): what origin o has at target t           |  NONE, EXCLUSIVE, SHARED, WAITING
 *  | posted[t * n + o] (long): posts of target t to origin o          |  rounded to a line
 *  | completed[t * n + o] (long): completes of origin o at target t   |
 *  +-----------------------------------------------------------------+
 * </pre>
 *
 * <p><b>Lock word</b> of a target: the number of origins waiting for it exclusively in the low 32
 * bits, and above them ({@link #OWNER_SHIFT}) the exclusive holder's rank plus one, 0 if none.
 * Shared holders are not counted in the word: each one's own record ({@code holds}) says SHARED.
 * MPI-3: an exclusive holder excludes every other origin's epoch at that target; shared holders
 * coexist. A shared locker writes its record, then reads the word: if it is 0 (no writer holds it
 * <em>or waits for it</em>) it holds the lock, else it clears its record and tries again later. A
 * writer counts itself waiting, takes the word's owner field with a compare-and-set (which takes
 * its waiting count back), then holds the lock once no other origin's record says SHARED. Both
 * sides write, then read the other's word (volatile accesses are sequentially consistent), so
 * either the shared locker sees the writer or the writer sees the shared record. <b>Fairness rule:
 * writers first.</b> A stream of shared lockers cannot starve a writer (it gets the lock once the
 * holders present when it came have left). Writers among themselves are not queued: whoever's
 * compare-and-set lands first.
 *
 * <p><b>Memory order</b>: taking a lock is a volatile compare-and-set (an acquire: the epoch sees
 * every store of the previous holder's epoch); releasing is a volatile add (a release: every put
 * of the epoch is visible before the lock can be taken again). So unlock and flush on a mapped
 * window need no message: an origin's puts are stores, complete when issued. Post, complete and
 * the counters they bump pair the same way: a release on the bump after a full fence, an acquire
 * on the read of the waiter.
 *
 * <p><b>Waits</b> poll and yield as the {@link WaitPlan} says (not at all on a node with more
 * ranks than processors), then sleep on a bell (a futex word where futexes
 * work, else parks of growing length): a lock's bell rings when it is released, a member's when a
 * post or a complete is meant for it. Between two sleeps the waiter's {@code between} check runs
 * (the caller's: failed peers), and the wait fails with TIMEOUT after {@value Rma#TIMEOUT_PROP}
 * naming what it waited for and, for a lock, its holders.
 *
 * <p><b>A holder that died</b>: {@link #holds} records, per target and origin, what each origin
 * holds or waits for, so a survivor that waits on a lock and learns that a holder failed
 * ({@link #reclaim}) releases that holder's share in its place (the first to claim the record
 * does it; the dead holder's stores may be half done, as MPI leaves them). The waiters then go on.
 * No moment of a locker's path leaves a share nobody can release: a shared share is the record
 * itself, and a writer that died between its compare-and-set and its record still owns the word's
 * owner field, which names it.
 */
final class SharedSync {
    static final int NONE = 0;
    static final int EXCLUSIVE = 1;
    static final int SHARED = 2;
    static final int WAITING = 3;

    /** Where the exclusive holder's rank plus one starts in a lock word; below it, the writers waiting. */
    static final int OWNER_SHIFT = 32;

    private static final int LINE = SharedHeader.LINE;
    private static final VarHandle LONG = ValueLayout.JAVA_LONG.varHandle();
    private static final VarHandle INT = ValueLayout.JAVA_INT.varHandle();

    /** The longest sleep between two looks (a lost wake, or a park without futexes, costs no more). */
    private static final long SLICE_MAX_NANOS = 2_000_000;
    private static final long PARK_MIN_NANOS = 20_000;
    private static final ThreadLocal<Futex.Waiter> WAITER = ThreadLocal.withInitial(Futex.Waiter::new);

    private final MemorySegment words;
    private final int n;
    /** How a wait polls and yields before it sleeps (here, and at the fence's barrier in {@link Epochs}). */
    private final WaitPlan plan;
    private final long bells;
    private final long holds;
    private final long posted;
    private final long completed;
    /**
     * Each target's lock bell and each member's PSCW bell as a 4-byte segment, made once: the
     * futex calls take a segment, and a slice made per ring or per sleep would allocate.
     */
    private final MemorySegment[] lockBells;
    private final MemorySegment[] memberBells;

    /** Bytes of this part for {@code n} members; a multiple of {@link SharedHeader#LINE}. */
    static long bytes(int n) {
        return 2L * LINE * n + round(4L * n * n) + round(8L * n * n) * 2;
    }

    private static long round(long b) {
        return (b + LINE - 1) & -LINE;
    }

    SharedSync(MemorySegment words, int n) {
        this(words, n, WaitPlan.forThisNode(n));
    }

    SharedSync(MemorySegment words, int n, WaitPlan plan) {
        this.words = words;
        this.n = n;
        this.plan = plan;
        this.bells = (long) LINE * n;
        this.holds = 2L * LINE * n;
        this.posted = holds + round(4L * n * n);
        this.completed = posted + round(8L * n * n);
        this.lockBells = new MemorySegment[n];
        this.memberBells = new MemorySegment[n];
        for (int r = 0; r < n; r++) {
            lockBells[r] = words.asSlice(lockAt(r) + 8, 4);
            memberBells[r] = words.asSlice(bellOf(r), 4);
        }
    }

    WaitPlan plan() {
        return plan;
    }

    // ================================================================== passive target

    /** Offset of target {@code t}'s lock word; its bell follows it. */
    private static long lockAt(int t) {
        return (long) LINE * t;
    }

    private long holdAt(int t, int o) {
        return holds + 4L * (t * n + o);
    }

    /** What origin {@code o} holds (or waits for) at target {@code t}. */
    int held(int t, int o) {
        return (int) INT.getVolatile(words, holdAt(t, o));
    }

    /** Announces that {@code me} wants {@code t}'s lock exclusively (counted before it tries: writers first). */
    void announceExclusive(int t, int me) {
        INT.setVolatile(words, holdAt(t, me), WAITING);
        LONG.getAndAdd(words, lockAt(t), 1L);
    }

    private static long owner(int rank) {
        return (rank + 1L) << OWNER_SHIFT;
    }

    /** One try at {@code t}'s lock for {@code me}; an exclusive try needs {@link #announceExclusive} first. */
    boolean tryLock(int t, int me, boolean exclusive) {
        long at = lockAt(t);
        if (!exclusive) {
            if ((long) LONG.getVolatile(words, at) != 0) {
                return false; // a writer holds it or waits: no record written, none for it to see
            }
            INT.setVolatile(words, holdAt(t, me), SHARED);
            if ((long) LONG.getVolatile(words, at) == 0) {
                return true;
            }
            // a writer came between the two reads; it may have seen the record and sleeps at most a slice
            INT.setVolatile(words, holdAt(t, me), NONE);
            return false;
        }
        long v = (long) LONG.getVolatile(words, at);
        // not the owner yet: take the owner field, and the waiting count back, in one step
        if (v >>> OWNER_SHIFT != me + 1L
                && (v >>> OWNER_SHIFT != 0 || !LONG.compareAndSet(words, at, v, v - 1 + owner(me)))) {
            return false;
        }
        // the owner (its record still WAITING) holds the lock once the shared holders have left
        for (int o = 0; o < n; o++) {
            if (o != me && held(t, o) == SHARED) {
                return false;
            }
        }
        INT.setVolatile(words, holdAt(t, me), EXCLUSIVE);
        return true;
    }

    /** Releases what {@code me} holds or waits for at {@code t} (nothing if it holds nothing); true if it held some. */
    boolean unlock(int t, int me) {
        int h = held(t, me);
        if (h == NONE) {
            return false;
        }
        INT.setVolatile(words, holdAt(t, me), NONE);
        giveBack(t, me, h);
        return true;
    }

    /**
     * Releases the share of origin {@code o} (which failed) at {@code t}, if another survivor has
     * not already; true if this call did.
     */
    boolean reclaim(int t, int o) {
        int h = held(t, o);
        if (h == NONE || !INT.compareAndSet(words, holdAt(t, o), h, NONE)) {
            return false;
        }
        giveBack(t, o, h);
        return true;
    }

    /**
     * Gives back what origin {@code o}, whose record said {@code h} (now NONE), had of {@code t}'s
     * lock, and rings the lock's bell. A shared share was the record alone. A writer gives back the
     * owner field if the word names it (its record says WAITING until the shared holders left, and
     * EXCLUSIVE after), else its waiting count.
     */
    private void giveBack(int t, int o, int h) {
        long at = lockAt(t);
        while (h != SHARED) {
            long v = (long) LONG.getVolatile(words, at);
            if (v >>> OWNER_SHIFT != o + 1L) {
                if (h == WAITING) {
                    LONG.getAndAdd(words, at, -1L);
                }
                break;
            }
            if (LONG.compareAndSet(words, at, v, v - owner(o))) {
                break;
            }
        }
        ring(at + 8, lockBells[t]);
    }

    /** Who holds or waits for {@code t}'s lock, for an error message. */
    String holders(int t) {
        StringBuilder sb = new StringBuilder();
        for (int o = 0; o < n; o++) {
            int h = held(t, o);
            if (h != NONE) {
                sb.append(sb.isEmpty() ? "" : ", ").append("rank ").append(o).append(switch (h) {
                    case EXCLUSIVE -> " holds it exclusively";
                    case SHARED -> " holds it shared";
                    default -> " waits for it exclusively";
                });
            }
        }
        return sb.isEmpty() ? "nobody holds it" : sb.toString();
    }

    /** Waits until {@code me} holds {@code t}'s lock; {@code between} runs with {@code t} between sleeps and may throw. */
    void lock(int t, int me, boolean exclusive, IntConsumer between, String window) {
        if (exclusive) {
            announceExclusive(t, me);
        }
        if (tryLock(t, me, exclusive)) {
            return;
        }
        try {
            await(() -> tryLock(t, me, exclusive), lockAt(t) + 8, lockBells[t], () -> between.accept(t),
                    () -> "window " + window + ": the " + (exclusive ? "exclusive" : "shared") + " lock of rank " + t
                            + " (" + holders(t) + ")");
        } catch (RuntimeException e) {
            if (exclusive) {
                unlock(t, me);
            }
            throw e;
        }
    }

    // ================================================================== post, start, complete, wait

    private long postedAt(int t, int o) {
        return posted + 8L * (t * n + o);
    }

    private long completedAt(int t, int o) {
        return completed + 8L * (t * n + o);
    }

    private long bellOf(int r) {
        return bells + (long) LINE * r;
    }

    /** Target {@code me} exposes its memory to origin {@code o}: one more post (after a full fence). */
    void post(int me, int o) {
        LONG.getAndAdd(words, postedAt(me, o), 1L);
        ring(bellOf(o), memberBells[o]);
    }

    /** Posts of target {@code t} to origin {@code me} so far. */
    long posts(int t, int me) {
        return (long) LONG.getAcquire(words, postedAt(t, me));
    }

    /** Origin {@code me} ends its access epoch at target {@code t}: one more complete (after a full fence). */
    void complete(int me, int t) {
        LONG.getAndAdd(words, completedAt(t, me), 1L);
        ring(bellOf(t), memberBells[t]);
    }

    /** Completes of origin {@code o} at target {@code me} so far. */
    long completes(int me, int o) {
        return (long) LONG.getAcquire(words, completedAt(me, o));
    }

    /** Waits on member {@code me}'s bell until {@code done}; see {@link #await}. */
    void awaitBell(int me, BooleanSupplier done, Runnable between, Supplier<String> what) {
        await(done, bellOf(me), memberBells[me], between, what);
    }

    // ================================================================== waiting

    /** Rings the bell at offset {@code bell}, whose word is {@code word}: wakes its sleepers if any. */
    private void ring(long bell, MemorySegment word) {
        INT.getAndAdd(words, bell, 1);
        if ((int) INT.getVolatile(words, bell + 4) > 0) {
            Futex.wakeAll(word);
        }
    }

    /**
     * Waits until {@code done} (which may act: a try at a lock), spinning and yielding as the
     * {@link WaitPlan} says, then sleeping on the bell at {@code bell} (its word {@code word}); runs {@code between} after each sleep; fails with TIMEOUT after
     * the RMA timeout, naming {@code what}.
     */
    private void await(BooleanSupplier done, long bell, MemorySegment word, Runnable between, Supplier<String> what) {
        if (plan.pollThenYield(done)) {
            return;
        }
        boolean futex = Futex.available();
        long start = System.nanoTime();
        long park = PARK_MIN_NANOS;
        while (true) {
            int seq = (int) INT.getVolatile(words, bell);
            if (done.getAsBoolean()) {
                return;
            }
            if (futex) {
                INT.getAndAdd(words, bell + 4, 1);
                try {
                    // a ring after the read of seq changes the word: the sleep returns at once
                    Futex.Waiter waiter = WAITER.get();
                    waiter.clear();
                    waiter.add(word, seq);
                    waiter.sleep(SLICE_MAX_NANOS);
                } finally {
                    INT.getAndAdd(words, bell + 4, -1);
                }
            } else {
                LockSupport.parkNanos(park);
                park = Math.min(2 * park, SLICE_MAX_NANOS);
            }
            if (done.getAsBoolean()) {
                return;
            }
            between.run();
            if (System.nanoTime() - start > Rma.timeoutNanos()) {
                throw new RailyardException(ErrorClass.TIMEOUT, "waited " + Rma.timeoutNanos() / 1_000_000_000L
                        + " s (" + Rma.TIMEOUT_PROP + ") for " + what.get());
            }
        }
    }
}
