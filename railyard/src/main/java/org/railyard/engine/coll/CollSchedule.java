package org.railyard.engine.coll;

import org.railyard.types.Reduction;

import java.lang.foreign.MemorySegment;
import java.lang.reflect.Array;
import java.nio.ByteBuffer;
import java.util.Arrays;
import org.railyard.types.Kind;
import org.railyard.engine.request.Transfer;
import org.railyard.engine.comm.CommState;
import org.railyard.error.ErrorClass;
import org.railyard.error.RailyardException;

/**
 * One collective operation under way, as a schedule in the manner of Hoefler's LibNBC: a sequence
 * of rounds, each a list of steps taken in order when the round starts. Local steps (copy,
 * reduce) run at once; sends and receives are posted; the round ends when all of them are
 * complete, and the next one starts. The progress engine advances active schedules after each
 * duty cycle ({@link Collectives#progress}), so a non-blocking collective moves while the program
 * computes, and a blocking collective is the same schedule waited for: one implementation of each
 * algorithm serves both.
 *
 * <p>A schedule is built completely before it starts, intermediate buffers included, so advancing
 * it allocates nothing beyond the point-to-point requests it posts. It is a {@link Transfer}, so
 * every wait and test of the engine works on it unchanged. Blocking collectives give their
 * schedule back to a pool when done ({@link #reset} makes it new), keeping its step arrays and its
 * small intermediate buffers ({@link #scratch}): a repeated small collective allocates only its
 * point-to-point requests.
 *
 * <p>Messages travel on the collective context of their communicator ({@code context + 1}) with
 * the tag {@code tagBase | sub}: {@code tagBase} is the communicator's collective sequence number
 * shifted left by 8, so collectives outstanding at once on one communicator (which all members
 * start in the same order) never match each other's messages, and {@code sub} (0 to 255) lets an
 * algorithm tell apart two messages between one pair that must not match in FIFO order.
 *
 * <p>Threads: built by the calling thread; from {@link Collectives#start} on, touched only under
 * the engine's progress lock.
 */
final class CollSchedule extends Transfer {
    private static final byte SEND = 0;
    private static final byte RECV = 1;
    private static final byte COPY = 2;
    private static final byte REDUCE = 3;
    /** A send whose receiver is not offered a read of the buffer: see {@link #sendCopied}. */
    private static final byte SEND_COPIED = 4;
    /** Builds the rest of the schedule: see {@link #then}. */
    private static final byte EXTEND = 5;

    /**
     * Intermediate buffers up to this size stay with a pooled schedule for its next use
     * ({@code railyard.coll.scratch.keep}). A buffer allocated per call costs more than its
     * allocation: fresh memory is zeroed and cold in the caches, and a large collective called in a
     * loop spends its time in young collections (figures: bench/results/coll-thresholds.md).
     */
    private final long scratchKeep;
    private final CollServices p2p;
    private static final Transfer.Owner NOBODY = t -> { };

    CommState comm;
    /** The communicator the next sends and receives go on: {@link #comm} unless switched by {@link #on}. */
    private CommState target;
    String what;
    Reduction op;
    private int tagBase;
    String algorithm = "";
    /**
     * Sends of fewer bytes than this go as {@link #sendCopied}: set by an exchange (alltoall,
     * allgather) whose every member sends and receives at once ({@code railyard.coll.exchange.reads}).
     */
    long copiedBelow;
    private boolean started;
    /** Intermediate buffers kept for later calls, and the call ({@link #useStamp}) each was last lent to. */
    private final Object[] kept = new Object[KEPT];
    private final long[] keptUse = new long[KEPT];
    private int keptCount;
    private long useStamp;
    private static final int KEPT = 6;

    private int n;
    private byte[] type = new byte[16];
    private Object[] bufA = new Object[16];
    private Object[] bufB = new Object[16];
    private int[] offA = new int[16];
    private int[] offB = new int[16];
    private int[] count = new int[16];
    private int[] peer = new int[16];
    private Kind[] kindA = new Kind[16];
    private Kind[] kindB = new Kind[16];
    private CommState[] comms = new CommState[16];

    private int[] roundEnd = new int[8];
    private int rounds;
    private int postsInRound;
    private int maxPosts;

    private int round;
    private Transfer[] inflight;
    private int inflightCount;
    private int checked;
    /** Link in the owner's list of active schedules. */
    CollSchedule nextActive;
    /** Small int arrays the algorithms build with (offsets, counts, children), kept for the next use. */
    private final int[][] ints = new int[4][];
    private int intsUsed;

    /**
     * What a blocking collective that ran to its end in the calling thread returns (the counter
     * barrier's, {@link CollCounter}): complete, never started, never pooled ({@link Collectives#finish}).
     */
    static final CollSchedule DONE = new CollSchedule(null, 0);

    static {
        DONE.nothingToDo();
    }

    CollSchedule(CollServices p2p, long scratchKeep) {
        // never in the engine's transfer table: nobody is told when it completes
        super(NOBODY);
        this.p2p = p2p;
        this.scratchKeep = scratchKeep;
    }

    /** Makes this (new or recycled) schedule the empty schedule of the next collective on {@code c}. */
    CollSchedule reset(CommState c, String name, Reduction reduction) {
        comm = c;
        target = c;
        what = name;
        op = reduction;
        tagBase = c.nextCollectiveTag();
        n = 0;
        rounds = 0;
        postsInRound = 0;
        maxPosts = 0;
        round = 0;
        inflightCount = 0;
        checked = 0;
        started = false;
        useStamp++;
        intsUsed = 0;
        algorithm = "";
        copiedBelow = 0;
        nextActive = null;
        error = null;
        state = PENDING;
        return this;
    }

    /**
     * An int array of at least {@code n} elements, contents undefined, for building this schedule
     * (offsets of blocks, counts, the children of a tree): the first few a build asks for are kept
     * with the schedule, so a collective called in a loop allocates none. Apart from
     * {@link #scratch}, whose large buffers would crowd them out.
     */
    int[] ints(int n) {
        if (intsUsed == ints.length) {
            return new int[n];
        }
        int[] a = ints[intsUsed];
        if (a == null || a.length < n) {
            a = new int[Math.max(n, 16)];
            ints[intsUsed] = a;
        }
        intsUsed++;
        return a;
    }

    /**
     * An intermediate Java array of at least {@code count} elements of {@code k}, contents
     * undefined: every algorithm writes what it later reads. Those up to {@link #scratchKeep} bytes
     * are kept for the next use of this schedule.
     */
    Object scratch(Kind k, int count) {
        // the smallest kept buffer of this kind that is free in this call and large enough
        int best = -1;
        for (int i = 0; i < keptCount; i++) {
            Object b = kept[i];
            if (keptUse[i] != useStamp && Kind.ofBuffer(b) == k && Array.getLength(b) >= count
                    && (best < 0 || Array.getLength(b) < Array.getLength(kept[best]))) {
                best = i;
            }
        }
        if (best >= 0) {
            keptUse[best] = useStamp;
            return kept[best];
        }
        Object a = k.newArray(count);
        if ((long) count * k.size <= scratchKeep) {
            keep(a);
        }
        return a;
    }

    /**
     * Keeps {@code a} (in use in this call) for later calls: in a free slot, else in place of the
     * smallest buffer not in use in this call if that is smaller than {@code a}. Collectives of
     * other kinds and sizes that borrow this pooled schedule in between therefore do not make a
     * large collective called in a loop allocate its buffers again.
     */
    private void keep(Object a) {
        if (keptCount < kept.length) {
            kept[keptCount] = a;
            keptUse[keptCount++] = useStamp;
            return;
        }
        int victim = -1;
        for (int i = 0; i < keptCount; i++) {
            if (keptUse[i] != useStamp && (victim < 0 || Array.getLength(kept[i]) < Array.getLength(kept[victim]))) {
                victim = i;
            }
        }
        if (victim >= 0 && Array.getLength(kept[victim]) * (long) Kind.ofBuffer(kept[victim]).size
                < Array.getLength(a) * (long) Kind.ofBuffer(a).size) {
            kept[victim] = a;
            keptUse[victim] = useStamp;
        }
    }

    // ------------------------------------------------------------------ building

    private int add(byte t) {
        if (n == type.length) {
            int len = n * 2;
            type = Arrays.copyOf(type, len);
            bufA = Arrays.copyOf(bufA, len);
            bufB = Arrays.copyOf(bufB, len);
            offA = Arrays.copyOf(offA, len);
            offB = Arrays.copyOf(offB, len);
            count = Arrays.copyOf(count, len);
            peer = Arrays.copyOf(peer, len);
            kindA = Arrays.copyOf(kindA, len);
            kindB = Arrays.copyOf(kindB, len);
            comms = Arrays.copyOf(comms, len);
        }
        type[n] = t;
        return n++;
    }

    /**
     * Makes the sends and receives added from now on go to {@code c} (an intercommunicator's local
     * view, say); they keep the schedule's tags.
     */
    void on(CommState c) {
        target = c;
    }

    /** Sends {@code count} elements to rank {@code to} of the current communicator. */
    void send(Object buf, Kind k, int off, int count, int to) {
        post((long) count * k.size < copiedBelow ? SEND_COPIED : SEND, target, buf, k, off, count, to, 0);
    }

    /**
     * As {@link #send(Object, Kind, int, int, int)}, but a receiver on this node is never offered a
     * read of the buffer (cross-memory attach): the message goes through the channel, where the
     * sender's copy in and the receiver's copy out overlap on two processors. For a message that
     * one side only sends while the other only receives; a read leaves the sender idle.
     */
    void sendCopied(Object buf, Kind k, int off, int count, int to) {
        post(SEND_COPIED, target, buf, k, off, count, to, 0);
    }

    /** Receives at most {@code count} elements from rank {@code from} of the current communicator. */
    void recv(Object buf, Kind k, int off, int count, int from) {
        post(RECV, target, buf, k, off, count, from, 0);
    }

    /** A send on communicator {@code c} (an intercommunicator's local view, say) with sub-tag {@code sub}. */
    void send(CommState c, Object buf, Kind k, int off, int count, int to, int sub) {
        post((long) count * k.size < copiedBelow ? SEND_COPIED : SEND, c, buf, k, off, count, to, sub);
    }

    void recv(CommState c, Object buf, Kind k, int off, int count, int from, int sub) {
        post(RECV, c, buf, k, off, count, from, sub);
    }

    private void post(byte t, CommState c, Object buf, Kind k, int off, int cnt, int rank, int sub) {
        if (rank == CommState.PROC_NULL) {
            return;
        }
        int i = add(t);
        comms[i] = c;
        bufA[i] = buf;
        kindA[i] = k;
        offA[i] = off;
        count[i] = cnt;
        peer[i] = rank;
        offB[i] = sub; // a message has no second buffer: its slot holds the sub-tag
        if (++postsInRound > maxPosts) {
            maxPosts = postsInRound;
        }
    }

    /** Copies {@code count} elements of kind {@code k}; either buffer may be of any supported class. */
    void copy(Kind k, Object src, int srcOff, Object dst, int dstOff, int count) {
        copy(k, src, srcOff, count, k, dst, dstOff);
    }

    /** Copies the bytes of {@code srcCount} elements of {@code sk} into {@code dst}, read as elements of {@code dk}. */
    void copy(Kind sk, Object src, int srcOff, int srcCount, Kind dk, Object dst, int dstOff) {
        if (srcCount == 0 || (src == dst && srcOff == dstOff && sk == dk)) {
            return;
        }
        int i = add(COPY);
        kindA[i] = sk;
        bufA[i] = src;
        offA[i] = srcOff;
        count[i] = srcCount;
        kindB[i] = dk;
        bufB[i] = dst;
        offB[i] = dstOff;
    }

    /** {@code inout = in op inout} over {@code count} elements (both Java arrays of {@code k}). */
    void reduce(Kind k, Object in, int inOff, Object inout, int ioOff, int count) {
        if (count == 0) {
            return;
        }
        int i = add(REDUCE);
        kindA[i] = k;
        bufA[i] = in;
        offA[i] = inOff;
        bufB[i] = inout;
        offB[i] = ioOff;
        this.count[i] = count;
    }

    /**
     * {@code acc = acc op other}, where {@code acc} holds the lower ranks' part: the operand order a
     * tree or a doubling step needs when it receives the higher ranks' part. Costs a copy for a
     * non-commutative operation, whose result can only be written into its right operand.
     */
    void reduceHigher(Kind k, Object acc, int accOff, Object other, int otherOff, int count) {
        if (op.commutative()) {
            reduce(k, other, otherOff, acc, accOff, count);
        } else {
            reduce(k, acc, accOff, other, otherOff, count);
            copy(k, other, otherOff, acc, accOff, count);
        }
    }

    /**
     * Ends the current round with a step that builds the rest of the schedule once every round
     * before it is complete: for an algorithm whose later rounds depend on what the earlier ones
     * received (the sizes a site leader collects for a non-blocking gatherv, scatterv or
     * alltoallv). {@code rest} runs under the progress lock, adds steps and rounds as a builder
     * would, and may allocate; the schedule is not built completely before it starts.
     */
    void then(Runnable rest) {
        round();
        int i = add(EXTEND);
        bufA[i] = rest;
        comms[i] = target;
        round();
    }

    /** Ends the current round: what follows starts once every send and receive before is complete. */
    void round() {
        int start = rounds == 0 ? 0 : roundEnd[rounds - 1];
        if (n == start) {
            return;
        }
        if (rounds == roundEnd.length) {
            roundEnd = Arrays.copyOf(roundEnd, rounds * 2);
        }
        roundEnd[rounds++] = n;
        postsInRound = 0;
    }

    // ------------------------------------------------------------------ running (progress lock held)

    /**
     * Starts rounds as far as completed requests allow; returns how many it started. Called with
     * the progress lock held; the first call starts the schedule.
     */
    int advance() {
        if (!started) {
            started = true;
            round();
            if (inflight == null || inflight.length < maxPosts) {
                inflight = new Transfer[Math.max(4, maxPosts)];
            }
        }
        int started = 0;
        while (!isDone()) {
            while (checked < inflightCount) {
                Transfer t = inflight[checked];
                if (!t.isDone()) {
                    return started;
                }
                if (!t.succeeded()) {
                    RailyardException err = t.error();
                    abandon();
                    fail(err == null ? ErrorClass.INTERNAL : err.errorClass(), what + " on " + comm.name()
                            + " (" + algorithm + ") failed: " + (err == null ? "request cancelled" : err.getMessage()));
                    return started;
                }
                // nothing else holds a request of a schedule: back to the engine's pool
                p2p.recycle(t);
                inflight[checked++] = null;
            }
            if (round == rounds) {
                release();
                complete();
                return started;
            }
            try {
                runRound();
            } catch (RuntimeException e) {
                // a user-defined operation threw, or a datatype did not fit: the collective fails, not the agent
                abandon();
                fail(e instanceof org.railyard.error.RailyardException r ? r.errorClass() : ErrorClass.OP,
                        what + " on " + comm.name() + " (" + algorithm + ") failed: " + e);
                return started;
            }
            started++;
        }
        return started;
    }

    private void runRound() {
        int from = round == 0 ? 0 : roundEnd[round - 1];
        int to = roundEnd[round++];
        inflightCount = 0;
        checked = 0;
        if (inflight.length < maxPosts) {
            inflight = new Transfer[maxPosts]; // rounds added by an EXTEND step post more
        }
        for (int i = from; i < to; i++) {
            switch (type[i]) {
                case SEND, SEND_COPIED -> {
                    CommState c = comms[i];
                    // a small message goes straight into the rail when it can: complete at once, no request
                    if (!p2p.sendEagerDirect(c, c.context + 1, bufA[i], kindA[i], offA[i], count[i], c.worldRanks[peer[i]],
                            tagBase | offB[i])) {
                        inflight[inflightCount++] = p2p.isendScheduled(c, c.context + 1, bufA[i], kindA[i], offA[i],
                                count[i], peer[i], tagBase | offB[i], type[i] == SEND);
                    }
                }
                case RECV -> inflight[inflightCount++] = p2p.irecvScheduled(comms[i], comms[i].context + 1, bufA[i],
                        kindA[i], offA[i], count[i], peer[i], tagBase | offB[i]);
                case COPY -> copyNow(kindA[i], bufA[i], offA[i], count[i], kindB[i], bufB[i], offB[i]);
                case EXTEND -> {
                    target = comms[i];
                    ((Runnable) bufA[i]).run();
                    round();
                }
                default -> op.apply(kindA[i], bufA[i], offA[i], bufB[i], offB[i], count[i]);
            }
        }
    }

    /** After a failure: takes back the receives still posted, so they hold no user buffer. */
    private void abandon() {
        for (int i = checked; i < inflightCount; i++) {
            if (inflight[i] != null && !inflight[i].isDone()) {
                p2p.cancel(inflight[i]);
            }
        }
        release();
    }

    /** Drops the references to buffers and requests so a finished schedule pins nothing. */
    private void release() {
        Arrays.fill(bufA, 0, n, null);
        Arrays.fill(bufB, 0, n, null);
        Arrays.fill(inflight, null);
    }

    static boolean isArray(Object buf) {
        return !(buf instanceof ByteBuffer) && !(buf instanceof MemorySegment);
    }

    static MemorySegment segment(Object buf) {
        return buf instanceof ByteBuffer b ? MemorySegment.ofBuffer(b) : (MemorySegment) buf;
    }

    /** Copies the bytes of {@code srcCount} {@code sk} elements into {@code dst} read as {@code dk} elements. */
    static void copyNow(Kind sk, Object src, int srcOff, int srcCount, Kind dk, Object dst, int dstOff) {
        long bytes = (long) srcCount * sk.size;
        if (sk == dk && isArray(src) && src.getClass() == dst.getClass()) {
            System.arraycopy(src, srcOff, dst, dstOff, srcCount);
        } else if (!isArray(dst)) {
            sk.copyOut(src, srcOff, 0, segment(dst), (long) dstOff * dk.size, bytes);
        } else if (!isArray(src)) {
            dk.copyIn(segment(src), (long) srcOff * sk.size, dst, dstOff, 0, bytes);
        } else {
            // two primitive arrays of different kinds: through the wire layout, as a message would go
            MemorySegment scratch = MemorySegment.ofArray(new byte[(int) bytes]);
            sk.copyOut(src, srcOff, 0, scratch, 0, bytes);
            dk.copyIn(scratch, 0, dst, dstOff, 0, bytes);
        }
    }

    /** Appends the sends and receives of the current round not yet complete (progress lock held). */
    void describePending(StringBuilder sb) {
        for (int i = checked; i < inflightCount; i++) {
            Transfer t = inflight[i];
            if (t != null && !t.isDone()) {
                sb.append("    pending: ").append(t.describe()).append('\n');
            }
        }
    }

    @Override
    public String toString() {
        return what + " on " + comm.name() + " (" + algorithm + "), round " + round + " of " + rounds
                + (comm.collState instanceof CollState st && st.shmSetup ? ", mapping the communicator's shared segment" : "");
    }
}
