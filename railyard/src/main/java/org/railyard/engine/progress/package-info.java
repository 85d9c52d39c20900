/**
 * Who drives progress, and how threads wait: the progress lock, the background agent, the idle
 * strategies of waiters and of the agent, and the doorbell sleeps. One {@link
 * org.railyard.engine.progress.Progress} per process; it knows nothing of messages, only a duty
 * cycle made of parts (the channel floor's pass, the collective schedules', the windows') and the
 * conditions threads wait for. The bounds named below are constants of {@code Progress}.
 *
 * <h2>The protocol: the calling thread while it waits, the agent otherwise</h2>
 * The rule in one line: <b>an application thread that is inside the library drives progress
 * itself, and the agent drives only while the application is away</b>. A blocking ping-pong
 * therefore never hands a message to another thread: the thread that waits for the answer is the
 * one that reads it.
 *
 * <h3>The guard</h3>
 * All engine state (channels, transfers, matching, schedules, windows) is guarded by one lock, the
 * {@link org.railyard.engine.progress.ProgressLock}. Whoever holds it may run a duty cycle or a part
 * of one; nobody else touches that state. Application threads take it with {@code lock()} to post
 * (a send, a receive, a collective's start, an RMA operation, a cancel, a probe) and with {@code
 * tryLock()} to run a cycle while they wait; the agent only ever uses {@code tryLock()}.
 *
 * <h3>Presence: when is the application inside</h3>
 * An application thread is <em>inside</em> the library while it
 * <ul>
 * <li>holds the progress lock or is queued for it (every posting call, a probe, close), or</li>
 * <li>is in a wait loop ({@code await}, {@code awaitAny}, {@code driveUntil}): it counts itself in
 *     {@code waiting} on entry and out on exit; or</li>
 * <li>waits on a word of node memory that another process sets (the counter barrier of a one-node
 *     communicator) between {@code enterOutside} and {@code leaveOutside}, running a duty cycle
 *     itself between its sleeps.</li>
 * </ul>
 * Besides who is inside now, the agent needs to know whether anybody came in lately: the
 * <em>entry mark</em> of the lock is a counter bumped, under the lock, by every outermost {@code
 * lock()} of an application thread and by every duty cycle an application thread runs. Reading
 * it costs the agent a load; bumping it costs the application a plain store (no fence, no atomic):
 * it is written only by the lock's holder.
 *
 * <h3>The agent's states</h3>
 * <ol>
 * <li><b>RESTING</b> (part of WATCHING, as {@code agentState()} reports it). The agent has nothing
 *     to do when a thread waits (the waiter drives) or when, asked holding the lock, the engine
 *     says it has no work the agent could advance while the application is away ({@code
 *     agentNeeded}: no rendezvous under way or possible, no collective schedule, no open window,
 *     nothing queued to send, no channel with acknowledgements and timers of its own). Eager
 *     frames do not count: they wait in their links until the application reads them, as they do
 *     in an MPI without a progress thread. The agent then parks, off the doorbell, for {@code
 *     railyard.idle.maxsleep} (at least {@code REST_MIN_NANOS}); on a node whose ranks fill its
 *     processors this keeps it from taking a core from a computing rank at every frame and every
 *     look. The rest ends at its bound, by {@code wakeAgent}, by close, and by {@code leftWork}:
 *     every non-blocking call returns its request through {@code leftWork}, which, if the agent
 *     rests and nobody waits, asks {@code agentNeeded} holding the lock and unparks the agent if
 *     there is work. A rest starts only if the entry mark did not move since the question was
 *     asked, so a thread that came in meanwhile and left work is not missed. What a rest can
 *     delay, by at most its bound: work left by a blocking call that returns while an earlier
 *     non-blocking operation is still under way (its {@code leftWork} found a waiter inside).</li>
 * <li><b>WATCHING</b> (the application is inside without waiting, or there is work and the
 *     application was inside during the last look). The agent runs no cycle and keeps off the
 *     lock and the processor: it parks from {@code LOOK_MIN_NANOS} doubling to {@code
 *     LOOK_MAX_NANOS} between two looks.</li>
 * <li><b>WATCHING &rarr; DRIVING: how the agent learns the application is away.</b> At a look,
 *     nobody is inside (no waiter, the lock free with nobody queued), there is work for the agent,
 *     and the entry mark has not moved since the previous look, at which nobody was inside
 *     either: the application made no call for a whole look interval (it computes, or is blocked
 *     elsewhere). Or a thread asked for the agent ({@code wakeAgent}, see below) and nobody is
 *     inside now.</li>
 * <li><b>DRIVING</b>. The agent runs duty cycles through {@code tryLock}. Before each part of a
 *     cycle it checks that the application is still away (nobody waiting, nobody queued for the
 *     lock, the entry mark unmoved); if one came in, it releases the lock at once and goes back to
 *     WATCHING, so a posting call that comes while the agent is in a cycle waits for at most the
 *     rest of <em>one part</em> of that cycle (one pass of the channel floor, which reads at most a
 *     batch of frames per rail, or one pass over the schedules or the windows). A waiter that
 *     comes never blocks on the agent: its {@code tryLock} fails, it idles, it tries again. When a
 *     cycle finds nothing to do and the engine says the agent has no more work, it rests; when
 *     there is work but nothing came, it idles on its own backoff: parks from {@code
 *     LOOK_MIN_NANOS} to {@code LOOK_MAX_NANOS}, then sleeps on the doorbell (long when every frame
 *     it can receive rings), its last look before each sleep being one more cycle unless the
 *     application came back.</li>
 * <li><b>DRIVING &rarr; WATCHING</b> when anybody comes in (above), or when its {@code tryLock}
 *     fails (an application thread holds the lock).</li>
 * <li><b>STOPPED</b> once {@code stopAgent} was called: the agent runs no part after it sees the
 *     flag (it looks before each part) and ends.</li>
 * </ol>
 *
 * <h3>Waiters</h3>
 * A thread waiting for a condition loops: one duty cycle if the lock is free ({@code tryLock},
 * never blocking on it), then the condition, then its own {@link org.railyard.util.BackoffIdle}
 * (spins, yields, parks from {@code WAITER_MIN_PARK_NANOS} up to {@code railyard.idle.maxpark}; once
 * the parks reach their bound a sleep on the doorbell when every frame it can receive rings it).
 * Several waiting threads (MPI_THREAD_MULTIPLE) take turns through {@code tryLock}; one that finds
 * the lock taken does no work and idles. A cycle that did work wakes the doorbell's sleepers: it
 * may have ended another thread's wait. {@code driveUntil} takes the lock with {@code lock()} for
 * each cycle, because its condition is read under the lock.
 *
 * <h3>Asking for the agent</h3>
 * {@code wakeAgent()} is for a thread that leaves work only the agent will advance once the
 * application is away (a passive-target operation to serve, an operation queued to go out while
 * the program computes). It ends any park or doorbell sleep of the agent, and the agent starts
 * DRIVING at its first look with nobody inside, without waiting for a quiet look interval.
 *
 * <h3>How long a thread can wait for another</h3>
 * <ul>
 * <li>A posting call: for the lock's holder, that is another application thread's posting call
 *     or one duty cycle, or the rest of one part of an agent cycle.</li>
 * <li>A waiter: never for another thread; the lock taken, it idles and tries again within its
 *     backoff (its longest park is {@code railyard.idle.maxpark}; a doorbell sleep is ended by any
 *     frame that rings and by a cycle of another thread that did work).</li>
 * <li>The agent: never blocks on the lock; it parks at most {@code LOOK_MAX_NANOS} while watching,
 *     rests at most the rest bound, and sleeps at most {@code railyard.idle.maxsleep} on the
 *     doorbell while driving with nothing to do.</li>
 * <li>Close: the closing thread runs the channel floor under the lock until everything is sent
 *     (bounded by the engine), then {@code stopAgent} sets {@code closed}, unparks the agent, wakes
 *     the doorbell and joins the agent for at most {@code STOP_JOIN_MILLIS} (2 s).</li>
 * </ul>
 */
package org.railyard.engine.progress;
