package org.railyard.engine.progress;

import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.BooleanSupplier;
import java.util.function.IntSupplier;
import org.railyard.channel.ChannelTable;
import org.railyard.util.BackoffIdle;

/**
 * Who drives progress: the progress lock, the waiters that drive while they wait, and the agent
 * that drives when the application is away. The protocol is described in the package
 * documentation. The duty cycle it runs is given ({@code duty}); it is always run holding the lock.
 */
public final class Progress {
    /** Parks of the agent in a row with the application in the library before it parks long (about 4 ms). */
    private static final int AGENT_BUSY_PARKS = 8;

    private final ReentrantLock lock = new ReentrantLock();
    private final ChannelTable channels;
    private final IntSupplier duty;
    private final ThreadLocal<BackoffIdle> waiterIdle;
    /** Longest doorbell sleep when every channel rings (railyard.idle.maxsleep). */
    private final long maxSleepNanos;
    private Thread agent;
    private volatile boolean closed;
    /** Callers driving progress in a wait loop; while there is one, the agent stays out of the way. */
    private final AtomicInteger drivers = new AtomicInteger();
    /** True while the agent parks long because the application has been waiting in the library a long while. */
    private volatile boolean agentParked;
    /**
     * Bumped by every call that posts or drives progress. The agent steps in only after a whole
     * idle period without a bump: the application is then computing or blocked elsewhere, and
     * nobody else moves its messages. While the application is active the agent stays off the
     * lock, so a posting call never queues behind it.
     */
    private volatile int activity;

    /**
     * @param channels      the channel floor, whose doorbell waiters sleep on
     * @param duty          one duty cycle, run holding the lock; returns the work done
     * @param spins         a waiter's polls before it yields ({@code railyard.idle.spins})
     * @param yields        a waiter's yields before it parks
     * @param maxParkNanos  a waiter's longest park
     * @param maxSleepNanos longest doorbell sleep when every channel rings
     */
    public Progress(ChannelTable channels, IntSupplier duty, long spins, long yields, long maxParkNanos, long maxSleepNanos) {
        this.channels = channels;
        this.duty = duty;
        this.maxSleepNanos = maxSleepNanos;
        this.waiterIdle = ThreadLocal.withInitial(() -> new BackoffIdle(spins, yields, 1000, maxParkNanos, this::sleepWaiting));
    }

    /** Starts the agent thread (it inherits the calling thread's processor binding). */
    public void startAgent(String name) {
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

    /** A posting call was made (lock held): the agent keeps off for another period. */
    public void touch() {
        activity++;
    }

    /** One duty cycle by a caller holding the lock; returns the work done. */
    public int dutyLocked() {
        activity++;
        return duty.getAsInt();
    }

    /** One duty cycle of a caller holding the lock that then wakes sleepers if it did work (a probe). */
    public void dutyAndWake() {
        if (duty.getAsInt() > 0) {
            channels.wakeSleepers();
        }
    }

    /** One duty cycle of an application thread, if no other thread is in one; the work it did. */
    public int tryDuty() {
        return dutyIfFree(false);
    }

    /** Waits until {@code done} holds (evaluated without the lock), driving progress; false after {@code timeoutNanos}. */
    public boolean await(BooleanSupplier done, long timeoutNanos) {
        if (done.getAsBoolean()) {
            return true;
        }
        BackoffIdle idle = waiterIdle.get();
        idle.reset();
        long start = timeoutNanos == Long.MAX_VALUE ? 0 : System.nanoTime();
        drivers.incrementAndGet();
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
        drivers.incrementAndGet();
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
        drivers.incrementAndGet();
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
     * A waiter's sleep: on the doorbell of the shared rings (a peer of this node that writes wakes
     * it), after one last duty cycle; false if the doorbell cannot be used (the waiter parks).
     */
    private boolean sleepWaiting(long nanos, BooleanSupplier done) {
        if (!channels.bellUsable()) {
            return false;
        }
        if (done == null) {
            return channels.sleepOnBell(nanos, this::tryDuty);
        }
        // another thread may have ended this wait after the waiter looked and before it could be
        // woken: the last look asks the condition too
        return channels.sleepOnBell(sleepBound(nanos), () -> tryDuty() > 0 || done.getAsBoolean() ? 1 : 0);
    }

    /**
     * One duty cycle if no other thread is in one; the work it did. The application's cycles
     * bump {@link #activity} (the agent keeps off while they come); the agent's do not, and stop
     * once closed.
     */
    private int dutyIfFree(boolean byAgent) {
        if (!lock.tryLock()) {
            return 0;
        }
        int work = 0;
        try {
            if (!byAgent) {
                activity++;
            }
            if (!byAgent || !closed) {
                work = duty.getAsInt();
            }
        } finally {
            lock.unlock();
        }
        if (work > 0) {
            // the work may have ended another thread's wait, and that thread may sleep
            channels.wakeSleepers();
        }
        return work;
    }

    /**
     * How long a doorbell sleep may last: {@code nanos}, or {@code railyard.idle.maxsleep} when
     * every channel rings (any frame ends the sleep, so it may be long and cost no processor).
     */
    private long sleepBound(long nanos) {
        if (maxSleepNanos > nanos && lock.tryLock()) {
            try {
                if (channels.allRing()) {
                    return maxSleepNanos;
                }
            } finally {
                lock.unlock();
            }
        }
        return nanos;
    }

    /**
     * The agent's sleep once its parks reached their bound, with nothing to do and the
     * application outside the library: on the doorbell, so that a frame that comes while the
     * application computes is taken at once (long when every channel rings).
     */
    private boolean agentSleep(long nanos, BooleanSupplier unused) {
        if (!channels.bellUsable()) {
            return false;
        }
        return channels.sleepOnBell(sleepBound(nanos), agentLastLook);
    }

    /**
     * The agent's last look before it sleeps on the doorbell, made once rather than per sleep: a
     * duty if the application is outside the library; if it came back in, 1, and the loop keeps off it.
     */
    private final IntSupplier agentLastLook = () -> drivers.get() > 0 ? 1 : dutyIfFree(true);

    /**
     * A waiting thread leaves the library; the last one out wakes the agent if it parks long, so
     * that progress goes on while the application computes.
     */
    private void leave() {
        if (drivers.decrementAndGet() == 0 && agentParked) {
            LockSupport.unpark(agent);
        }
    }

    private void agentLoop() {
        // while the application is in the library: park, and park long once it stays there
        BackoffIdle keepOff = new BackoffIdle(0, 0, 100_000, 1_000_000);
        // while it is away (computing): progress, and when there is none, park, then sleep on the bell
        BackoffIdle idle = new BackoffIdle(0, 0, 100_000, 1_000_000, this::agentSleep);
        int seen = activity;
        int busy = 0;
        while (!closed) {
            int now = activity;
            if (drivers.get() > 0 || now != seen) {
                // the application is in the library, or was during the last period: keep off its
                // core and its lock
                seen = now;
                idle.reset();
                if (drivers.get() > 0 && ++busy >= AGENT_BUSY_PARKS) {
                    // a long wait: park until the last waiter leaves (it unparks us) or the bound
                    long bound = Math.max(maxSleepNanos, 1_000_000);
                    long start = System.nanoTime();
                    agentParked = true;
                    if (drivers.get() > 0) {
                        LockSupport.parkNanos(bound);
                    }
                    agentParked = false;
                    if (System.nanoTime() - start < bound / 2) {
                        // woken early: the application is busy with short calls, where each
                        // unpark would cost it a system call; ramp up again before parking long
                        busy = 0;
                    }
                } else {
                    keepOff.idle(0);
                }
                continue;
            }
            busy = 0;
            keepOff.reset();
            idle.idle(dutyIfFree(true));
        }
    }

    /** Stops the agent: it runs no cycle from now on; waits for it (bounded). */
    public void stopAgent() {
        closed = true;
        LockSupport.unpark(agent);
        try {
            agent.join(2000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
