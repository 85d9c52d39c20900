package org.railyard.engine.rma;

import java.lang.invoke.VarHandle;
import java.util.function.BooleanSupplier;
import java.util.function.IntConsumer;
import org.railyard.engine.comm.CommState;
import org.railyard.error.ErrorClass;
import org.railyard.error.RailyardException;
import org.railyard.util.WaitPlan;
import org.railyard.wire.RmaHeader;

/**
 * The synchronisation of one window ({@link RmaWindow}) at this process: which epochs are open
 * (fence, the access epoch of start/complete, the exposure epoch of post/waitFor/test, the locks of
 * one rank or of all) and the counts of the GRANT, POST and COMPLETE messages the targets sent.
 * Post, start, complete, wait and test are its part {@link Pscw}.
 *
 * <p>Contract: {@link #inEpoch} says whether an operation to a rank may be issued now; flush, unlock
 * and complete return once the operations they cover are complete (remotely, except a local flush)
 * and throw what a target deferred; every wait is bounded by the RMA timeout and ends early when the
 * peer failed. The on* methods are called from {@link Target} with the progress lock held.
 *
 * <p>Paths: on a mapped window ({@link SharedSync} not null) locks and PSCW are words of the
 * mapping's header and send nothing; otherwise LOCK, GRANT, UNLOCK, POST and COMPLETE messages
 * (the target's {@link LockTable}).
 */
final class Epochs {
    private final RmaWindow w;
    private final RmaServices s;
    private final CommState comm;
    private final Outbound out;
    private final Target target;
    /** The node barrier of a mapped window, else null. */
    private final SharedHeader shared;
    /** The passive-target locks and PSCW counters of a mapped window, else null: no message then. */
    private final SharedSync sync;
    private final int n;
    private final int me;
    /** {@link #lockWatch(int)}, made once (a lock of a mapped window allocates nothing). */
    private final IntConsumer lockWatch = this::lockWatch;
    /** Members known to have failed, as last read under the progress lock (mapped windows' waits). */
    final boolean[] dead;
    /** {@link Outbound#failures} when {@link #dead} was last copied (mapped windows look again only when it moved). */
    private int deadSeen;
    /** {@link #refreshDead()} and what it runs under the lock, made once (a mapped epoch allocates nothing). */
    final Runnable refresh = this::refreshDead;
    private final Outbound.Locked<Void> readFailed = this::readFailed;
    /** {@link #anyFailed()} for a look under the lock between two sleeps of the fence's barrier, made once. */
    private final Outbound.Locked<Integer> anyFailedLocked = this::anyFailed;
    /** The generation the fence's barrier waits to pass, and the test of it, made once (a fence allocates nothing). */
    private int fenceGen;
    private final BooleanSupplier fencePassed = this::passedFence;
    /** When the fence's sleeps began, and the look between two of them, made once. */
    private long fenceStart;
    private final Runnable lookAtFence = this::lookAtFence;
    /** {@link Outbound#anyBatched()} for the fence's look under the lock, made once. */
    private final Outbound.Locked<Boolean> anyBatchedLocked;

    boolean fenceOpen;
    final int[] lockType;
    final boolean[] lockNoCheck;
    boolean lockAllOn;
    boolean lockAllNoCheck;

    private final long[] grantsWanted;
    private final long[] grants;
    /** Post, start, complete, wait and test. */
    final Pscw pscw;

    Epochs(RmaWindow w, RmaServices s, CommState comm, Outbound out, Target target, SharedHeader shared, int n) {
        this.w = w;
        this.s = s;
        this.comm = comm;
        this.out = out;
        this.anyBatchedLocked = out::anyBatched;
        this.target = target;
        this.shared = shared;
        this.sync = shared == null ? null : shared.sync();
        this.n = n;
        this.me = comm.rank();
        this.dead = new boolean[n];
        this.lockType = new int[n];
        this.lockNoCheck = new boolean[n];
        this.grantsWanted = new long[n];
        this.grants = new long[n];
        this.pscw = new Pscw(this, w, s, comm, out, target, sync, n);
    }

    void onGrant(int src) {
        grants[src]++;
    }


    // ================================================================== passive target

    void flush(int t, boolean local) {
        w.checkUsable();
        if (t == CommState.PROC_NULL) {
            return;
        }
        w.checkRank(t, "target rank");
        // nothing issued by this thread is under way (the counts it wrote itself, under the lock, are 0)
        if (out.pendingTo[t] == 0 && (local || out.opsSince[t] == 0) && out.batchLongs[t] == 0
                && out.failed[t] == null && out.deferred[t] == null) {
            VarHandle.fullFence();
            return;
        }
        out.locked(() -> {
            if (local) {
                out.push(t);
            } else {
                out.startFlush(t);
            }
            return null;
        });
        out.waitUntil(() -> out.flushed(t, local),
                (local ? "local" : "remote") + " completion of the operations to rank " + t);
        VarHandle.fullFence();
        out.throwDeferred(t);
    }

    void flushAll(boolean local) {
        w.checkUsable();
        out.locked(() -> {
            for (int t = 0; t < n; t++) {
                if (local) {
                    out.push(t);
                } else {
                    out.startFlush(t);
                }
            }
            return null;
        });
        out.waitUntil(() -> {
            for (int t = 0; t < n; t++) {
                if (!out.flushed(t, local)) {
                    return false;
                }
            }
            return true;
        }, (local ? "local" : "remote") + " completion of the operations to every rank");
        VarHandle.fullFence();
        for (int t = 0; t < n; t++) {
            out.throwDeferred(t);
        }
    }

    void lock(int type, int t, int assertions) {
        w.checkUsable();
        if (type != RmaWindow.LOCK_EXCLUSIVE && type != RmaWindow.LOCK_SHARED) {
            throw new RailyardException(ErrorClass.ARG, "lock type " + type + " on window " + w.name()
                    + " is neither RmaWindow.LOCK_EXCLUSIVE nor RmaWindow.LOCK_SHARED");
        }
        if (t == CommState.PROC_NULL) {
            return;
        }
        w.checkRank(t, "target rank");
        if (lockType[t] != 0 || lockAllOn) {
            throw new RailyardException(ErrorClass.RMA_SYNC, "lock of rank " + t + " on window " + w.name()
                    + ": this process already holds a lock on it (unlock first)");
        }
        if (out.failed[t] != null) {
            throw out.peerFailed(t);
        }
        if ((assertions & RmaWindow.MODE_NOCHECK) != 0) {
            lockType[t] = type;
            lockNoCheck[t] = true;
            return;
        }
        if (sync != null) {
            sync.lock(t, me, type == RmaWindow.LOCK_EXCLUSIVE, lockWatch, w.name());
            lockType[t] = type;
            lockNoCheck[t] = false;
            return;
        }
        long wanted = out.locked(() -> {
            out.control(t, RmaHeader.OP_LOCK, type, 0);
            return ++grantsWanted[t];
        });
        try {
            out.waitUntil(() -> grants[t] >= wanted || out.failed[t] != null, "the lock of rank " + t);
        } catch (RailyardException e) {
            withdraw(new int[] {t});
            throw e;
        }
        if (out.failed[t] != null) {
            throw out.peerFailed(t);
        }
        lockType[t] = type;
        lockNoCheck[t] = false;
    }

    void unlock(int t) {
        w.checkUsable();
        if (t == CommState.PROC_NULL) {
            return;
        }
        w.checkRank(t, "target rank");
        if (lockType[t] == 0) {
            throw new RailyardException(ErrorClass.RMA_SYNC, "unlock of rank " + t + " on window " + w.name()
                    + ": this process holds no lock on it");
        }
        boolean noCheck = lockNoCheck[t];
        lockType[t] = 0;
        if (sync != null) {
            // the epoch's puts were stores; the release of the lock word publishes them
            sync.unlock(t, me);
            if (out.failed[t] != null) {
                throw failedPeer(t);
            }
            return;
        }
        release(new int[] {t}, noCheck);
    }

    void lockAll(int assertions) {
        w.checkUsable();
        for (int t = 0; t < n; t++) {
            if (lockType[t] != 0 || lockAllOn) {
                throw new RailyardException(ErrorClass.RMA_SYNC, "lockAll on window " + w.name()
                        + ": this process already holds a lock on rank " + t + " (unlock first)");
            }
        }
        if ((assertions & RmaWindow.MODE_NOCHECK) != 0) {
            lockAllOn = true;
            lockAllNoCheck = true;
            return;
        }
        if (sync != null) {
            lockAllMapped();
            return;
        }
        long[] wanted = new long[n];
        out.locked(() -> {
            for (int t = 0; t < n; t++) {
                if (out.failed[t] == null) {
                    out.control(t, RmaHeader.OP_LOCK, RmaWindow.LOCK_SHARED, 0);
                    wanted[t] = ++grantsWanted[t];
                }
            }
            return null;
        });
        try {
            out.waitUntil(() -> {
                for (int t = 0; t < n; t++) {
                    if (out.failed[t] == null && grants[t] < wanted[t]) {
                        return false;
                    }
                }
                return true;
            }, "the shared lock of every rank");
        } catch (RailyardException e) {
            int[] all = new int[n];
            for (int t = 0; t < n; t++) {
                all[t] = t;
            }
            withdraw(all);
            throw e;
        }
        lockAllOn = true;
        lockAllNoCheck = false;
        for (int t = 0; t < n; t++) {
            if (out.failed[t] != null) {
                throw out.peerFailed(t);
            }
        }
    }

    void unlockAll() {
        w.checkUsable();
        if (!lockAllOn) {
            throw new RailyardException(ErrorClass.RMA_SYNC, "unlockAll on window " + w.name() + " without lockAll");
        }
        lockAllOn = false;
        int[] all = new int[n];
        for (int t = 0; t < n; t++) {
            all[t] = t;
        }
        release(all, lockAllNoCheck);
    }

    /**
     * A lock wait on the message path gave up: each target drops the request still queued, or
     * releases the lock it granted meanwhile (see {@link RmaHeader#OP_WITHDRAW}), so that a lock
     * no one waits for any more holds no later request back. Sent, not waited for.
     */
    private void withdraw(int[] targets) {
        out.locked(() -> {
            for (int t : targets) {
                if (out.failed[t] == null) {
                    out.control(t, RmaHeader.OP_WITHDRAW, 0, 0);
                }
            }
            return null;
        });
    }

    /** Completes every operation to {@code targets} remotely and releases their locks (unless taken with NOCHECK). */
    void release(int[] targets, boolean noCheck) {
        if (sync != null) {
            // the operations were loads and stores, complete when issued; the release of the lock
            // word orders them before the next holder's acquire
            for (int t : targets) {
                sync.unlock(t, me);
            }
            refreshDead();
            for (int t : targets) {
                if (dead[t]) {
                    throw failedPeer(t);
                }
            }
            return;
        }
        out.locked(() -> {
            for (int t : targets) {
                if (out.failed[t] != null) {
                    continue;
                }
                if (noCheck) {
                    out.startFlush(t);
                } else {
                    out.opsSince[t] = 0;
                    out.control(t, RmaHeader.OP_UNLOCK, 0, ++out.flushSent[t]);
                }
            }
            return null;
        });
        out.waitUntil(() -> {
            for (int t : targets) {
                if (!out.flushed(t, false)) {
                    return false;
                }
            }
            return true;
        }, "the unlock of " + (targets.length == 1 ? "rank " + targets[0] : "every rank"));
        VarHandle.fullFence();
        for (int t : targets) {
            out.throwDeferred(t);
        }
    }

    /** Between two sleeps of a wait for {@code t}'s mapped lock: fails if {@code t} failed, reclaims failed holders' shares. */
    private void lockWatch(int t) {
        refreshDead();
        if (dead[t]) {
            throw failedPeer(t);
        }
        for (int o = 0; o < n; o++) {
            if (dead[o] && o != me && sync.reclaim(t, o)) {
                s.choice("rank " + s.rank() + ": window " + w.name() + ": released the lock share of failed rank "
                        + o + " at rank " + t);
            }
        }
    }

    /** lockAll on a mapped window: the shared lock of every live member, in rank order; all or none. */
    private void lockAllMapped() {
        refreshDead();
        int taken = 0;
        try {
            for (; taken < n; taken++) {
                int t = taken;
                if (!dead[t]) {
                    sync.lock(t, me, false, lockWatch, w.name());
                }
            }
        } catch (RuntimeException e) {
            for (int t = 0; t < taken; t++) {
                sync.unlock(t, me);
            }
            throw e;
        }
        lockAllOn = true;
        lockAllNoCheck = false;
        for (int t = 0; t < n; t++) {
            if (dead[t]) {
                throw failedPeer(t);
            }
        }
    }

    /** The PEER_FAILED error of member {@code t}, read under the progress lock. */
    RailyardException failedPeer(int t) {
        return out.locked(() -> out.peerFailed(t));
    }

    /** Copies which members failed into {@link #dead}, under the progress lock, if any failed since the last copy. */
    void refreshDead() {
        if (out.failures != deadSeen) {
            out.locked(readFailed);
        }
    }

    private Void readFailed() {
        deadSeen = out.failures;
        for (int t = 0; t < n; t++) {
            dead[t] = out.failed[t] != null;
        }
        return null;
    }

    void sync() {
        w.checkUsable();
        VarHandle.fullFence();
    }

    // ================================================================== active target

    void fence(int assertions) {
        w.checkUsable();
        if (lockAllOn || pscw.startGroup != null || anyLock()) {
            throw new RailyardException(ErrorClass.RMA_SYNC, "fence on window " + w.name()
                    + " inside a lock or start epoch (unlock or complete first)");
        }
        boolean alone = (assertions & (RmaWindow.MODE_NOPRECEDE | RmaWindow.MODE_NOSUCCEED))
                == (RmaWindow.MODE_NOPRECEDE | RmaWindow.MODE_NOSUCCEED);
        if (alone && out.pending.isEmpty() && !out.locked(anyBatchedLocked)) {
            // ends no epoch and opens none (every member asserts both, MPI-3 11.5): nothing to
            // complete and nobody to wait for
            VarHandle.fullFence();
        } else if (shared != null) {
            // every member's memory is mapped: the operations were loads and stores, complete once
            // issued; only synchronisation messages (of earlier locks) may still be under way
            if (!out.pending.isEmpty()) {
                flushAll(false);
            }
            VarHandle.fullFence();
            nodeBarrier();
        } else {
            if ((assertions & RmaWindow.MODE_NOPRECEDE) == 0 || !out.pending.isEmpty()
                    || out.locked(anyBatchedLocked)) {
                flushAll(false);
            }
            s.barrier(comm);
        }
        VarHandle.fullFence();
        fenceOpen = (assertions & RmaWindow.MODE_NOSUCCEED) == 0;
    }


    /** The fence's barrier over the mapped header; bounded, and ends with PEER_FAILED if a member failed. */
    private void nodeBarrier() {
        int gen = shared.arrive();
        fenceGen = gen;
        if (SharedHeader.canSleep()) {
            // polls and yields as the window's WaitPlan says, then sleeps a slice at a time
            fenceStart = System.nanoTime();
            try {
                shared.awaitBarrier(gen, lookAtFence);
            } finally {
                if (fenceAwaiting) {
                    fenceAwaiting = false;
                    out.awaiting(false);
                }
            }
        } else if (!shared.sync().plan().pollThenYield(fencePassed)) {
            out.waitUntil(() -> shared.passed(gen) || anyFailed() >= 0, "the other members' fence");
        }
        if (!shared.passed(gen) && anyFailed() >= 0) {
            throw out.locked(this::membersFailed);
        }
    }

    /** True while a long fence counts the members as awaited ({@link Outbound#awaiting}). */
    private boolean fenceAwaiting;

    /**
     * Between two sleeps of the fence's barrier: the members count as awaited once the fence has
     * lasted {@link Outbound#AWAIT_MEMBERS_AFTER_NANOS}; PEER_FAILED once a member failed, TIMEOUT
     * after the RMA timeout.
     */
    private void lookAtFence() {
        if (!fenceAwaiting && System.nanoTime() - fenceStart > Outbound.AWAIT_MEMBERS_AFTER_NANOS) {
            fenceAwaiting = true;
            out.awaiting(true);
        }
        if (out.locked(anyFailedLocked) >= 0) {
            throw out.locked(this::membersFailed);
        }
        if (System.nanoTime() - fenceStart > Rma.timeoutNanos()) {
            throw new RailyardException(ErrorClass.TIMEOUT, "window " + w.name() + ": waited "
                    + Rma.timeoutNanos() / 1_000_000_000L + " s (" + Rma.TIMEOUT_PROP + ") for the other members' fence");
        }
    }

    private boolean passedFence() {
        return shared.passed(fenceGen);
    }

    /**
     * PEER_FAILED naming every member known to have failed (a fence waits for all of them, and the
     * first in rank order may only have left after failing on another's death); lock held.
     */
    private RailyardException membersFailed() {
        StringBuilder sb = new StringBuilder();
        for (int t = 0; t < n; t++) {
            if (out.failed[t] != null) {
                sb.append(sb.isEmpty() ? "" : "; ").append("rank ").append(t).append(" failed: ").append(out.failed[t]);
            }
        }
        return new RailyardException(ErrorClass.PEER_FAILED, "window " + w.name() + ": " + sb);
    }

    /** A member known to have failed, or -1; lock held. */
    private int anyFailed() {
        for (int t = 0; t < n; t++) {
            if (out.failed[t] != null) {
                return t;
            }
        }
        return -1;
    }

    boolean anyLock() {
        for (int t = 0; t < n; t++) {
            if (lockType[t] != 0) {
                return true;
            }
        }
        return false;
    }

    boolean inEpoch(int t) {
        return fenceOpen || lockAllOn || lockType[t] != 0 || (pscw.startGroup != null && contains(pscw.startGroup, t));
    }

    static boolean contains(int[] a, int v) {
        for (int x : a) {
            if (x == v) {
                return true;
            }
        }
        return false;
    }

}
