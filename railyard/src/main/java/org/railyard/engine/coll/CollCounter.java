package org.railyard.engine.coll;

import java.lang.foreign.MemorySegment;
import java.util.concurrent.locks.ReentrantLock;
import org.railyard.engine.comm.CommState;
import org.railyard.error.ErrorClass;
import org.railyard.error.RailyardException;
import org.railyard.types.Kind;
import org.railyard.types.Reduction;
import org.railyard.util.Config;
import org.railyard.util.NodeBarrier;
import org.railyard.util.WaitPlan;

/**
 * The blocking barrier, small allreduce and bcast of a communicator whose members all run on one node,
 * done with one {@link NodeBarrier} over the words its shared segment ({@link CollShm}) keeps for
 * it, instead of log p rounds of messages. Each waiting member is woken once per call, by one
 * system call of the last to arrive: on a node with more ranks than processors, where every wake-up
 * of a message round costs a pass through the scheduler, this is what keeps a barrier short.
 *
 * <p>Allreduce: each member writes its vector into its slot of the half the use writes into
 * ({@link CollShm#next}), passes the barrier, and folds all the slots in rank order
 * ({@code x0 op (x1 op (... op x(p-1)))}), so every member computes the same result bit for bit, a
 * non-commutative operation included. The halves alternate as for the segment's other uses, and the
 * argument there holds: a member that passed the barrier of use {@code k - 1} knows every member
 * had finished reading use {@code k - 2}, the last one of the half it now writes.
 *
 * <p>A waiting member counts as one of the engine's waiters (the agent rests, a stall report names
 * the wait) and drives progress itself, one duty cycle between two sleeps, so what else is under
 * way moves at that pace. After each sleep it looks at the other members' channels and processes; a
 * member whose channel went down or whose process is gone ends the wait with PEER_FAILED. A member
 * that is alive but never comes keeps the others waiting, as with every barrier of MPI.
 */
final class CollCounter {
    /** The algorithm's name in the choice log and for {@code railyard.coll.<collective>}. */
    static final String NAME = "node-counter";
    /**
     * Yields of a waiter on a crowded node before it sleeps (where {@link WaitPlan} gives none, and
     * {@code railyard.node.yields} is not set). Every member of a counter barrier waits on the same
     * word, so yielding passes the processor round the members until the last one arrives, as Open
     * MPI's ranks do when they outnumber the processors; a sleep and its wake-up cost each member a
     * pass through the scheduler (figures: bench/results/log/2026-11-29-0121-quiet-window.md).
     */
    static final int CROWDED_YIELDS = 2000;
    /** A waiter's sleep lasts at most this long before it looks at the members' channels. */
    private static final long SLICE_NANOS = 2_000_000;
    /**
     * Members whose process one look checks ({@link #lookAtMembers}), the next ones at the next look
     * that is due. Asking the system whether a process lives reads its /proc entry, which costs a
     * few tens of microseconds of processor; every member checked at every look would, on a
     * crowded node, take from the members still to arrive the processor the waiters wait for.
     */
    static final int PIDS_PER_LOOK = 8;
    /** The least time between two looks at the members' processes of one waiter. */
    static final long PID_LOOK_NANOS = 100_000_000;

    private final CollServices e;
    private final CommState c;
    /** The segment whose last words {@link #barrier} is, and whose halves the allreduce writes into. */
    private final CollShm shm;
    private final NodeBarrier barrier;
    /** Each member's process id, as it wrote it at attach (0 if it did not). */
    private final MemorySegment pids;
    private final WaitPlan plan;
    private final Runnable lookAtMembers = this::lookAtMembers;
    /** Two scratch arrays per kind for the allreduce (the fold's result and the next operand), grown on demand. */
    private final Object[][] scratch = new Object[2][Kind.values().length];
    /** True while a thread waits in {@link #pass}: for a stall report, read by another thread. */
    private volatile boolean waiting;
    /** What the wait under way is for (the collective's name), for its error. */
    private String waitingIn = "";
    /** The member whose process the next look at processes checks first. */
    private int pidCursor;
    /** When the next look at the members' processes is due ({@link System#nanoTime}). */
    private long nextPidLook;

    CollCounter(CollServices e, CommState c, CollShm shm, MemorySegment words, MemorySegment pids) {
        this.e = e;
        this.c = c;
        this.shm = shm;
        this.pids = pids;
        this.barrier = new NodeBarrier(words, c.size());
        // the communicator is on one node: at least its members are there
        this.plan = planOf(WaitPlan.forThisNode(c.size()), Config.string(Config.NODE_YIELDS_PROP, null));
    }

    /**
     * A counter waiter's plan: the node's plan ({@code node}), with {@link #CROWDED_YIELDS} where it
     * neither polls nor yields (a crowded node) and {@code railyard.node.yields} is not set
     * ({@code setting} null).
     */
    static WaitPlan planOf(WaitPlan node, String setting) {
        return node.yields() == 0 && !node.spins() && setting == null
                ? new WaitPlan(0, CROWDED_YIELDS, node.ranks(), node.processors()) : node;
    }

    /** The barrier; blocking. */
    void barrier() {
        pass("barrier");
    }

    /**
     * Allreduce of {@code count} elements of {@code k} from {@code sbuf} into {@code rbuf}: folded
     * in {@code rbuf} itself when it is {@code direct} (a Java array of {@code k}), else in a scratch
     * array and copied out; {@code sbuf} may be {@code rbuf} itself. The vector must fit a slot
     * ({@link CollShm#slot}).
     */
    void allreduce(Object sbuf, int soff, Object rbuf, int roff, boolean direct, Kind k, int count, Reduction op) {
        int p = c.size();
        long slot = shm.slot(p);
        int at = shm.next();
        MemorySegment seg = shm.segment();
        CollSchedule.copyNow(k, sbuf, soff, count, Kind.BYTE, seg, (int) (at + c.rank * slot));
        Object acc = direct ? rbuf : scratch(0, k, count);
        int accOff = direct ? roff : 0;
        Object tmp = scratch(1, k, count);
        pass("allreduce");
        CollSchedule.copyNow(Kind.BYTE, seg, (int) (at + (p - 1) * slot), count * k.size, k, acc, accOff);
        for (int q = p - 2; q >= 0; q--) {
            CollSchedule.copyNow(Kind.BYTE, seg, (int) (at + q * slot), count * k.size, k, tmp, 0);
            op.apply(k, tmp, 0, acc, accOff, count);
        }
        if (!direct) {
            CollSchedule.copyNow(k, acc, 0, count, k, rbuf, roff);
        }
    }

    /** Scratch array {@code which} (0 or 1) of kind {@code k}, of at least {@code count}; kept for the next calls. */
    private Object scratch(int which, Kind k, int count) {
        Object a = scratch[which][k.ordinal()];
        if (a == null || java.lang.reflect.Array.getLength(a) < count) {
            a = k.newArray(count);
            scratch[which][k.ordinal()] = a;
        }
        return a;
    }

    /**
     * Broadcast of {@code count} elements of {@code k} from {@code root}: the root copies them
     * into the half the use writes into, every member passes the barrier, the others copy them out.
     * The bytes must fit a half ({@link CollShm#halfBytes}).
     */
    void bcast(int root, Object buf, Kind k, int off, int count) {
        int at = shm.next();
        MemorySegment seg = shm.segment();
        if (c.rank == root) {
            CollSchedule.copyNow(k, buf, off, count, Kind.BYTE, seg, at);
        }
        pass("bcast");
        if (c.rank != root) {
            CollSchedule.copyNow(Kind.BYTE, seg, at, count * k.size, k, buf, off);
        }
    }

    /**
     * Arrives and waits for the others, counted as a waiter of the engine meanwhile (the agent
     * rests: this thread runs a duty cycle between its sleeps; a stall report names the wait).
     */
    private void pass(String what) {
        waitingIn = what;
        int gen = barrier.arrive();
        if (barrier.passed(gen)) {
            return;
        }
        e.waitingOutside(true);
        waiting = true;
        try {
            barrier.await(gen, plan, SLICE_NANOS, lookAtMembers);
        } finally {
            waiting = false;
            e.waitingOutside(false);
        }
    }

    /** A line for a stall report if a thread waits here now. */
    void describe(StringBuilder sb) {
        if (waiting) {
            sb.append("  waiting in ").append(waitingIn).append(" on ").append(c.name()).append(" (").append(NAME)
                    .append("): ").append(barrier.describe()).append('\n');
        }
    }

    /**
     * Between two sleeps: one duty cycle, then PEER_FAILED naming every member whose channel is
     * down or whose process is gone (a member may have left only after failing on another's death;
     * one this rank never talked to has no channel to tell, but all run on this node). Channels are
     * looked at every time; processes {@link #PIDS_PER_LOOK} at a time, round the members, at most
     * once per {@link #PID_LOOK_NANOS}: a member that died without its channel telling is named
     * within (members / PIDS_PER_LOOK + 1) such periods.
     */
    private void lookAtMembers() {
        e.tryDuty();
        StringBuilder failed = null;
        ReentrantLock lock = e.progressLock();
        lock.lock();
        try {
            for (int q = 0; q < c.size(); q++) {
                String why = q == c.rank ? null : e.channelFailure(c.worldRanks[q]);
                if (why != null) {
                    failed = named(failed, q, why);
                }
            }
        } finally {
            lock.unlock();
        }
        long now = System.nanoTime();
        if (failed == null && now - nextPidLook >= 0) {
            nextPidLook = now + PID_LOOK_NANOS;
            int p = c.size();
            for (int i = 0; i < Math.min(PIDS_PER_LOOK, p); i++) {
                int q = pidCursor;
                pidCursor = (pidCursor + 1) % p;
                long pid = q == c.rank ? 0 : pids.getAtIndex(java.lang.foreign.ValueLayout.JAVA_LONG, q);
                if (pid > 0 && ProcessHandle.of(pid).map(h -> !h.isAlive()).orElse(true)) {
                    failed = named(failed, q, "its process " + pid + " is gone");
                }
            }
        }
        if (failed != null) {
            throw new RailyardException(ErrorClass.PEER_FAILED, waitingIn + " on " + c.name() + " (" + NAME + ") failed: "
                    + failed);
        }
    }

    /** {@code failed} with member {@code q}'s failure added. */
    private StringBuilder named(StringBuilder failed, int q, String why) {
        StringBuilder sb = failed == null ? new StringBuilder() : failed.append("; ");
        return sb.append("rank ").append(q).append(" (world rank ").append(c.worldRanks[q]).append(") failed: ").append(why);
    }
}
