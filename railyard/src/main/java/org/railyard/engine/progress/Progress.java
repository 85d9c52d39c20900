package org.railyard.engine.progress;

import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.BooleanSupplier;
import java.util.function.IntSupplier;
import java.util.function.IntUnaryOperator;
import org.railyard.util.BackoffIdle;

/**
 * Who drives progress: the progress lock, the waiters that drive while they wait, and the agent
 * that drives while the application is away. The protocol, its states and its bounds are in the
 * package documentation; the bounds are the constants below. The duty cycle is given as parts
 * ({@code part.applyAsInt(i)} for {@code i} in {@code [0, parts)}), each run holding the lock; the
 * agent looks between two parts whether the application came in.
 */
public final class Progress {
    /** The agent's shortest park between two looks (watching) or after a cycle without work (driving). */
    public static final long LOOK_MIN_NANOS = 100_000;
    /** The agent's longest park between two looks; its parks double from {@link #LOOK_MIN_NANOS} to this. */
    public static final long LOOK_MAX_NANOS = 1_000_000;
    /** The least bound of the agent's rest (the bound is {@code railyard.idle.maxsleep} when longer). */
    public static final long REST_MIN_NANOS = 1_000_000;
    /** A waiter's first park once its spins and yields are spent; its parks double up to {@code railyard.idle.maxpark}. */
    public static final long WAITER_MIN_PARK_NANOS = 1_000;
    /** How long {@link #stopAgent} waits for the agent to end. */
    public static final long STOP_JOIN_MILLIS = 2_000;

    /** The agent's state (package documentation), as {@link #agentState()} reports it. */
    public enum AgentState { NOT_STARTED, WATCHING, DRIVING, STOPPED }

    /** The doorbell that waiting threads may sleep on (the channel floor's, in the engine). */
    public interface Bell {
        /** A bell that is never usable: every waiter parks. */
        Bell NONE = new Bell() {
            @Override
            public boolean usable() {
                return false;
            }

            @Override
            public boolean sleep(long nanos, IntSupplier lastLook) {
                return false;
            }

            @Override
            public void wakeSleepers() {
            }

            @Override
            public boolean allRing() {
                return false;
            }
        };

        /** True if a thread of this process can sleep on it now. */
        boolean usable();

        /**
         * Sleeps at most {@code nanos} or until rung, after {@code lastLook} (made once the sleeper
         * can be woken) found nothing (0); false if it could not sleep.
         */
        boolean sleep(long nanos, IntSupplier lastLook);

        /** Wakes this process's threads that sleep on it, if any. */
        void wakeSleepers();

        /** True if every frame this process can receive now rings it; called holding the progress lock. */
        boolean allRing();
    }

    private final ProgressLock lock = new ProgressLock();
    private final Bell bell;
    private final int parts;
    private final IntUnaryOperator part;
    /** True if the agent has work to advance while the application is away (lock held); see "Resting". */
    private final BooleanSupplier agentNeeded;
    /** What {@link #agentNeeded} said at the end of the agent's last whole cycle (agent thread only). */
    private boolean needed = true;
    /** The entry mark when {@link #needed} was asked (agent thread only). */
    private long neededMark;
    private final ThreadLocal<BackoffIdle> waiterIdle;
    /** Longest doorbell sleep when every channel rings (railyard.idle.maxsleep). */
    private final long maxSleepNanos;
    /** Application threads in a wait loop; part of "inside" (package documentation). */
    private final AtomicInteger waiting = new AtomicInteger();
    private Thread agent;
    private volatile boolean closed;
    /** True while the agent rests; {@link #leftWork} then asks whether to end the rest. */
    private volatile boolean resting;
    /** True while the agent sleeps on the doorbell; {@link #wakeAgent} and close then ring it. */
    private volatile boolean agentOnBell;
    /** Set by {@link #wakeAgent}: the agent drives at its first look with nobody inside. */
    private volatile boolean wanted;
    private volatile AgentState state = AgentState.NOT_STARTED;
    /** Duty cycles the agent began (read by tests and diagnostics; written by the agent only). */
    private volatile long agentCycles;
    /** Rests the agent began (read by tests and diagnostics; written by the agent only). */
    private volatile long agentRests;
    /** The entry mark when the agent began driving (agent thread only). */
    private long driveMark;

    /**
     * @param bell          the doorbell waiters and the agent sleep on ({@link Bell#NONE}: they park)
     * @param parts         the parts of one duty cycle
     * @param part          runs part {@code i} holding the lock; returns the work done
     * @param spins         a waiter's polls before it yields ({@code railyard.idle.spins})
     * @param yields        a waiter's yields before it parks
     * @param maxParkNanos  a waiter's longest park
     * @param maxSleepNanos longest doorbell sleep when every channel rings
     */
    public Progress(Bell bell, int parts, IntUnaryOperator part, long spins, long yields, long maxParkNanos,
                    long maxSleepNanos) {
        this(bell, parts, part, () -> true, spins, yields, maxParkNanos, maxSleepNanos);
    }

    /**
     * As above, with the question whether the agent has anything to advance while the
     * application is away ({@code agentNeeded}, asked holding the lock): when it says no, a
     * driving agent rests instead of polling and sleeping on the doorbell (package documentation).
     */
    public Progress(Bell bell, int parts, IntUnaryOperator part, BooleanSupplier agentNeeded, long spins, long yields,
                    long maxParkNanos, long maxSleepNanos) {
        this(bell, parts, part, agentNeeded, spins, yields, maxParkNanos, maxSleepNanos, false);
    }

    /**
     * As above; with {@code sleepFirst} a waiter sleeps on the doorbell from its first park on
     * ({@code railyard.idle.sleepfirst}) instead of once its parks reached {@code maxParkNanos}.
     */
    public Progress(Bell bell, int parts, IntUnaryOperator part, BooleanSupplier agentNeeded, long spins, long yields,
                    long maxParkNanos, long maxSleepNanos, boolean sleepFirst) {
        if (parts < 1) {
            throw new IllegalArgumentException("a duty cycle needs at least one part, not " + parts);
        }
        this.bell = bell;
        this.parts = parts;
        this.part = part;
        this.agentNeeded = agentNeeded;
        this.maxSleepNanos = maxSleepNanos;
        this.waiterIdle = ThreadLocal.withInitial(() -> new BackoffIdle(spins, yields, WAITER_MIN_PARK_NANOS,
                maxParkNanos, this::sleepWaiting, sleepFirst));
    }

    /** Starts the agent thread (it inherits the calling thread's processor binding). */
    public void startAgent(String name) {
        state = AgentState.WATCHING;
        agent = Thread.ofPlatform().daemon().name(name).start(this::agentLoop);
    }

    /** The progress lock; held by whoever advances transfers and collective schedules. */
    public ReentrantLock lock() {
        return lock;
    }

    /** True once {@link #stopAgent} was called. */
    public boolean closed() {
        return closed;
    }

    /** What the agent is doing now. */
    public AgentState agentState() {
        return state;
    }

    /** Rests the agent has begun since it started (package documentation, "Resting"). */
    public long agentRests() {
        return agentRests;
    }

    /** Duty cycles the agent has begun since it started. */
    public long agentCycles() {
        return agentCycles;
    }

    /**
     * Asks the agent to drive as soon as no application thread is inside, without waiting for a
     * quiet look (package documentation, "Asking for the agent"): for a caller that leaves work only
     * the agent will advance while the application computes. Cheap; callable from any thread, with
     * or without the lock.
     */
    public void wakeAgent() {
        wanted = true;
        LockSupport.unpark(agent);
        if (agentOnBell) {
            bell.wakeSleepers();
        }
    }

    /** One duty cycle by an application thread holding the lock; returns the work done. */
    public int dutyLocked() {
        lock.mark();
        return cycle();
    }

    /** One duty cycle of a caller holding the lock that then wakes sleepers if it did work (a probe). */
    public void dutyAndWake() {
        if (cycle() > 0) {
            bell.wakeSleepers();
        }
    }

    /** One duty cycle of an application thread, if no other thread holds the lock; the work it did. */
    public int tryDuty() {
        if (!lock.tryLock()) {
            return 0;
        }
        int work;
        try {
            lock.mark();
            work = cycle();
        } finally {
            lock.unlock();
        }
        if (work > 0) {
            // the work may have ended another thread's wait, and that thread may sleep
            bell.wakeSleepers();
        }
        return work;
    }

    private int cycle() {
        int work = 0;
        for (int i = 0; i < parts; i++) {
            work += part.applyAsInt(i);
        }
        return work;
    }

    /** Waits until {@code done} holds (evaluated without the lock), driving progress; false after {@code timeoutNanos}. */
    public boolean await(BooleanSupplier done, long timeoutNanos) {
        if (done.getAsBoolean()) {
            return true;
        }
        BackoffIdle idle = waiterIdle.get();
        idle.reset();
        long start = timeoutNanos == Long.MAX_VALUE ? 0 : System.nanoTime();
        waiting.incrementAndGet();
        try {
            while (!done.getAsBoolean()) {
                int work = tryDuty();
                if (done.getAsBoolean()) {
                    break;
                }
                if (timeoutNanos != Long.MAX_VALUE && System.nanoTime() - start > timeoutNanos) {
                    return false;
                }
                idle.idle(work, done);
            }
        } finally {
            leave();
        }
        return true;
    }

    /** Waits until one of {@code conditions} (nulls ignored) holds, driving progress; returns its index. */
    public int awaitAny(BooleanSupplier[] conditions) {
        BackoffIdle idle = waiterIdle.get();
        idle.reset();
        BooleanSupplier anyDone = () -> first(conditions) >= 0;
        waiting.incrementAndGet();
        try {
            while (true) {
                int i = first(conditions);
                if (i >= 0) {
                    return i;
                }
                idle.idle(tryDuty(), anyDone);
            }
        } finally {
            leave();
        }
    }

    /** The index of the first of {@code conditions} (nulls ignored) that holds, or -1. */
    private static int first(BooleanSupplier[] conditions) {
        for (int i = 0; i < conditions.length; i++) {
            if (conditions[i] != null && conditions[i].getAsBoolean()) {
                return i;
            }
        }
        return -1;
    }

    /**
     * Drives progress, as {@link #await} does but taking the lock for each cycle, until
     * {@code done} (evaluated under the lock) holds; false if {@code timeoutNanos} pass first.
     */
    public boolean driveUntil(BooleanSupplier done, long timeoutNanos) {
        BackoffIdle idle = waiterIdle.get();
        idle.reset();
        long start = System.nanoTime();
        waiting.incrementAndGet();
        try {
            while (true) {
                int work;
                lock.lock();
                try {
                    if (done.getAsBoolean()) {
                        return true;
                    }
                    work = dutyLocked();
                    if (done.getAsBoolean()) {
                        return true;
                    }
                } finally {
                    lock.unlock();
                }
                if (System.nanoTime() - start > timeoutNanos) {
                    return false;
                }
                idle.idle(work);
            }
        } finally {
            leave();
        }
    }

    /** The calling thread's waiter idle strategy, reset (for a wait loop that drives progress itself, a probe). */
    public BackoffIdle waiterIdle() {
        BackoffIdle idle = waiterIdle.get();
        idle.reset();
        return idle;
    }

    /**
     * A waiter's sleep: on the doorbell (a peer of this node that writes rings it), after one last
     * duty cycle; false if the doorbell cannot be used (the waiter parks).
     */
    private boolean sleepWaiting(long nanos, BooleanSupplier done) {
        if (!bell.usable()) {
            return false;
        }
        if (done == null) {
            return bell.sleep(nanos, dutyLook);
        }
        // another thread may have ended this wait after the waiter looked and before it could be
        // woken: the last look asks the condition too. The look is the thread's own, reused, so
        // that a sleep allocates nothing
        WaiterLook look = waiterLook.get();
        look.done = done;
        try {
            return bell.sleep(sleepBound(nanos), look);
        } finally {
            look.done = null;
        }
    }

    /** A waiter's last look before a doorbell sleep: one duty cycle, then the waiter's condition. */
    private final class WaiterLook implements IntSupplier {
        private BooleanSupplier done;

        @Override
        public int getAsInt() {
            return tryDuty() > 0 || done.getAsBoolean() ? 1 : 0;
        }
    }

    private final IntSupplier dutyLook = this::tryDuty;
    private final ThreadLocal<WaiterLook> waiterLook = ThreadLocal.withInitial(WaiterLook::new);

    /**
     * How long a doorbell sleep may last: {@code nanos}, or {@code railyard.idle.maxsleep} when
     * every frame this process can receive rings (any frame ends the sleep, so it may be long).
     */
    private long sleepBound(long nanos) {
        if (maxSleepNanos > nanos && lock.tryLock()) {
            try {
                if (bell.allRing()) {
                    return maxSleepNanos;
                }
            } finally {
                lock.unlock();
            }
        }
        return nanos;
    }

    /** Who is inside and what the agent does, in one line (diagnostics: the stall report). */
    public String describe() {
        return waiting.get() + " application threads waiting, progress lock held by " + lock.holder() + ", agent "
                + state + " (" + agentCycles + " cycles, " + agentRests + " rests)";
    }

    /** Application threads in a wait loop now (diagnostics: the stall report). */
    public int waiters() {
        return waiting.get();
    }

    /**
     * A thread that waits outside {@link #await} (on a word of node memory another process sets)
     * and runs a duty cycle now and then itself ({@link #tryDuty}) counts in as a waiter: the agent
     * rests meanwhile and the stall watch sees the wait. {@link #leaveOutside} when it ends.
     */
    public void enterOutside() {
        waiting.incrementAndGet();
    }

    /** The end of a wait of {@link #enterOutside}. */
    public void leaveOutside() {
        leave();
    }

    /** A waiting thread leaves. */
    private void leave() {
        waiting.decrementAndGet();
    }

    // ================================================================== the agent

    /** True if an application thread is inside: waiting, holding the lock or queued for it. */
    private boolean inside() {
        return waiting.get() > 0 || lock.isLocked() || lock.hasQueuedThreads();
    }

    /** True if the application came in since the entry mark read {@code mark} (the agent may hold the lock). */
    private boolean cameIn(long mark) {
        return waiting.get() > 0 || lock.hasQueuedThreads() || lock.entries() != mark;
    }

    private void agentLoop() {
        BackoffIdle watch = new BackoffIdle(0, 0, LOOK_MIN_NANOS, LOOK_MAX_NANOS);
        BackoffIdle idle = new BackoffIdle(0, 0, LOOK_MIN_NANOS, LOOK_MAX_NANOS, this::agentSleep);
        long seen = lock.entries();
        boolean quietBefore = false;
        while (!closed) {
            long mark = lock.entries();
            boolean inside = inside();
            if (!wanted && (waiting.get() > 0 ? rest(0, true) : !inside && restIfUnneeded())) {
                // rested: the application may have come and gone meanwhile; look afresh
                watch.reset();
                seen = lock.entries();
                quietBefore = false;
                continue;
            }
            if (!inside && (wanted || (quietBefore && mark == seen))) {
                // the application is away and left work: drive until it comes back
                wanted = false;
                state = AgentState.DRIVING;
                drive(idle, mark);
                state = closed ? AgentState.STOPPED : AgentState.WATCHING;
                watch.reset();
                seen = lock.entries();
                quietBefore = false;
                continue;
            }
            seen = mark;
            quietBefore = !inside;
            if (wanted) {
                // asked for: look again soon
                watch.reset();
            }
            watch.idle(0);
        }
        state = AgentState.STOPPED;
    }

    private long restBound() {
        return Math.max(maxSleepNanos, REST_MIN_NANOS);
    }

    /** DRIVING: duty cycles while the application stays away (entry mark {@code mark}); returns when it comes back or on close. */
    private void drive(BackoffIdle idle, long mark) {
        driveMark = mark;
        idle.reset();
        while (!closed && !cameIn(mark)) {
            if (wanted) {
                wanted = false; // a request made while the agent drives is served by this cycle
            }
            int work = agentCycle();
            if (work < 0) {
                return;
            }
            if (work > 0) {
                bell.wakeSleepers();
            } else if (!needed) {
                rest(neededMark, false);
                idle.reset();
                continue;
            }
            idle.idle(work);
        }
    }

    /**
     * At a look with nobody inside: asks, holding the lock, whether the agent has anything to
     * advance, and rests if not. False (and no rest) if the lock was taken or there is work.
     */
    private boolean restIfUnneeded() {
        if (!lock.tryLock()) {
            return false;
        }
        long mark;
        try {
            if (agentNeeded.getAsBoolean()) {
                return false;
            }
            mark = lock.entries();
        } finally {
            lock.unlock();
        }
        return rest(mark, false);
    }

    /**
     * Resting: parks, not on the doorbell, for at most {@link #restBound}, until the application
     * leaves work for the agent ({@link #leftWork}), {@link #wakeAgent} or close. Frames that
     * arrive meanwhile wait in their links for the next reader. The reason to rest is checked
     * again once {@link #resting} is set, so that a {@link #leftWork} that came before is not
     * missed: with {@code forWaiter}, that an application thread still waits (it drives progress
     * itself); else that no application thread came in since the entry mark read {@code mark},
     * when the agent found nothing to do (one that came in may have left work before it could see
     * the agent rest; the agent then looks again instead).
     *
     * @return true (the agent rested, or found its reason to rest gone): the caller looks afresh
     */
    private boolean rest(long mark, boolean forWaiter) {
        resting = true;
        try {
            boolean stillIdle = forWaiter ? waiting.get() > 0 : !cameIn(mark);
            if (!wanted && !closed && stillIdle) {
                agentRests++;
                LockSupport.parkNanos(restBound());
            }
        } finally {
            resting = false;
        }
        return true;
    }

    /**
     * Called by an application thread as it leaves the library with work under way that it does
     * not wait for (a non-blocking call returned its request): if the agent rests and nobody waits,
     * asks, holding the lock, whether the agent has work to advance, and ends the rest if so. Costs
     * a volatile read when the agent is not resting.
     */
    public void leftWork() {
        if (!resting || waiting.get() > 0 || !lock.tryLock()) {
            // nobody to wake, or a thread waits and drives progress; else the rest ends within its bound
            return;
        }
        boolean need;
        try {
            need = agentNeeded.getAsBoolean();
        } finally {
            lock.unlock();
        }
        if (need) {
            LockSupport.unpark(agent);
        }
    }

    /**
     * One cycle of the agent, looking before each part whether the application came in (then it
     * stops and releases the lock); the work done, or -1 if it could not take the lock or stopped
     * before doing anything.
     */
    private int agentCycle() {
        if (!lock.tryLock()) {
            return -1;
        }
        int work = 0;
        try {
            for (int i = 0; i < parts; i++) {
                if (closed || cameIn(driveMark)) {
                    return i == 0 ? -1 : work;
                }
                if (i == 0) {
                    agentCycles++;
                }
                work += part.applyAsInt(i);
            }
            needed = agentNeeded.getAsBoolean();
            neededMark = lock.entries();
        } finally {
            lock.unlock();
        }
        return work;
    }

    /**
     * The agent's sleep once its parks reached their bound with nothing to do and the application
     * away: on the doorbell, so that a frame that comes while the application computes is taken at
     * once (long when every channel rings). Its last look runs one more cycle unless the
     * application came back.
     */
    private boolean agentSleep(long nanos, BooleanSupplier unused) {
        if (!bell.usable()) {
            return false;
        }
        agentOnBell = true;
        try {
            if (wanted || closed) {
                return true;
            }
            return bell.sleep(sleepBound(nanos), agentLastLook);
        } finally {
            agentOnBell = false;
        }
    }

    /** The agent's last look before a doorbell sleep (1 keeps it awake): made once rather than per sleep. */
    private final IntSupplier agentLastLook = this::lastLook;

    /**
     * 1 (stay awake) if the application came back, the agent was asked for or stopped, or one more
     * cycle did work or could not run; 0 to sleep. Runs once the agent can be woken, so that a
     * {@link #wakeAgent} or close that rang too early is seen here.
     */
    private int lastLook() {
        if (wanted || closed || cameIn(driveMark)) {
            return 1;
        }
        int work = agentCycle();
        if (work > 0) {
            bell.wakeSleepers();
        }
        return work == 0 ? 0 : 1;
    }

    /** Stops the agent: it runs no part from now on; waits for it, at most {@link #STOP_JOIN_MILLIS}. */
    public void stopAgent() {
        closed = true;
        if (agent == null) {
            state = AgentState.STOPPED;
            return;
        }
        LockSupport.unpark(agent);
        if (agentOnBell) {
            bell.wakeSleepers();
        }
        try {
            agent.join(STOP_JOIN_MILLIS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
