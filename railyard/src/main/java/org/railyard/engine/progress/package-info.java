/**
 * Who drives progress, and how threads wait: the progress lock, the background agent, the idle
 * strategies of waiters and of the agent, and the doorbell sleeps. One {@link
 * org.railyard.engine.progress.Progress} per process; it knows nothing of messages, only a duty
 * cycle to run (the channel floor's and the schedules' work) and conditions to wait for.
 *
 * <h2>The protocol today</h2>
 * <ol>
 * <li><b>One lock.</b> All engine state (channels, transfers, matching, schedules) is guarded by one
 *     {@code ReentrantLock}. Whoever holds it may run a duty cycle; nobody else touches that state.
 *     A call that posts (send, receive, a collective's start, cancel) takes the lock with a blocking
 *     {@code lock()}, so it may wait for a cycle under way; it posts and may run the channel's send
 *     side at once (an eager message goes out during the call). A probe takes the lock the same
 *     way and runs one cycle under it; so does {@code driveUntil} for each of its cycles.</li>
 * <li><b>Waiters drive.</b> A thread waiting for a request ({@code await}, {@code awaitAny},
 *     {@code driveUntil}, {@code test}) counts itself in {@code drivers} and loops: one duty cycle
 *     if the lock is free ({@code tryLock}, never blocking on it), then the condition, then its own
 *     {@link org.railyard.util.BackoffIdle} (spins, yields, parks; and once parks reach their bound
 *     a sleep on the doorbell when every frame it can receive rings it). Several waiting threads
 *     take turns through {@code tryLock}; one that finds the lock taken does no work and idles. A
 *     cycle that did work wakes the doorbell's sleepers: it may have ended another thread's wait.</li>
 * <li><b>The activity mark.</b> The volatile counter {@code activity} is bumped by every posting
 *     call ({@code Progress.touch}: a send or receive posted, an eager message offered directly)
 *     and by every cycle an application thread runs ({@code tryDuty}, {@code dutyLocked}); not by
 *     the agent's cycles, nor by a probe's.</li>
 * <li><b>The agent steps in only when the application is away.</b> The agent thread loops until
 *     close. If a waiter is in the library ({@code drivers > 0}) or {@code activity} changed since
 *     its last look, it keeps off the lock and the processor: it parks (100 us growing to 1 ms),
 *     and after {@code AGENT_BUSY_PARKS} such parks in a row with a waiter present it parks long
 *     (up to {@code railyard.idle.maxsleep}, at least 1 ms), setting {@code agentParked}; the last
 *     waiter to leave unparks it. Woken early (before half the bound), it ramps up again from
 *     short parks. Only after a whole look with no waiter and no change of {@code activity} (the
 *     application is computing or blocked elsewhere) does it run duty cycles itself, through the
 *     same {@code tryLock}, idling on its own backoff (parks, then doorbell sleeps whose last look
 *     runs one more cycle unless a waiter came back).</li>
 * <li><b>Close.</b> The closing thread runs the channel floor under the lock until everything is
 *     sent (bounded), then sets {@code closed}, unparks the agent and joins it (bounded); the agent
 *     runs no cycle once {@code closed} is set.</li>
 * </ol>
 * The cost of this design is that ownership of progress moves between threads by a heuristic;
 * its benefit is that a blocking ping-pong never hands a message to another thread. A replacement
 * (one owner per cycle, the calling thread while it waits, the agent otherwise) must keep that.
 */
package org.railyard.engine.progress;
