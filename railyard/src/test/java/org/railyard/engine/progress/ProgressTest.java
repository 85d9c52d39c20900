package org.railyard.engine.progress;

import static org.assertj.core.api.Assertions.assertThat;
import static org.railyard.testkit.Await.awaitUntil;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The progress protocol with real threads (package documentation of {@code engine.progress}): the
 * agent drives for an application that computes, a waiting thread drives its own progress, several
 * threads wait at once, a posting call waits for at most one part of an agent cycle, and close ends
 * an agent that is in a cycle. A {@link Node} stands for one process: a queue of incoming messages
 * (its "wire", filled by another thread as a peer's transport would) that part 0 of its duty cycle
 * delivers, recording which thread delivered each.
 */
class ProgressTest {
    private static final Duration BOUND = Duration.ofSeconds(30);
    private static final long WAIT_NANOS = BOUND.toNanos();
    /** A message {@code m} belongs to waiter {@code m % OWNERS} (several threads waiting at once). */
    private static final int OWNERS = 8;

    private final List<Node> nodes = new ArrayList<>();

    @AfterEach
    void stop() {
        for (Node n : nodes) {
            n.progress.stopAgent();
        }
    }

    /** One process: its progress, its wire, and what its duty cycle did. */
    private final class Node {
        final String agentName;
        final Progress progress;
        final ConcurrentLinkedQueue<Long> wire = new ConcurrentLinkedQueue<>();
        /** Messages delivered (written under the lock, read by waiters without it). */
        volatile long delivered;
        final AtomicLongArray byOwner = new AtomicLongArray(OWNERS);
        final AtomicLong deliveredByAgent = new AtomicLong();
        final AtomicLong partsByAgent = new AtomicLong();
        final AtomicLong partsByAgentAfterClose = new AtomicLong();
        /** Threads inside a part at once; more than one would break the lock's guarantee. */
        final AtomicInteger inPart = new AtomicInteger();
        final AtomicInteger overlaps = new AtomicInteger();
        /** Set by a test: the agent's next part 0 blocks until {@link #release} counts down. */
        volatile CountDownLatch release;
        final CountDownLatch agentBlocked = new CountDownLatch(1);

        /** What the node's engine would answer to "has the agent work to advance?" (its agentNeeded). */
        volatile boolean pending = true;

        Node(String name) {
            this(name, 20_000_000);
        }

        /** A node whose agent rests for up to {@code maxSleepNanos} when {@link #pending} is false. */
        Node(String name, long maxSleepNanos) {
            agentName = "test-progress-" + name;
            progress = new Progress(Progress.Bell.NONE, 3, this::part, () -> pending, 1000, 100, 100_000, maxSleepNanos);
            nodes.add(this);
        }

        Node start() {
            progress.startAgent(agentName);
            return this;
        }

        private int part(int i) {
            if (inPart.incrementAndGet() != 1) {
                overlaps.incrementAndGet();
            }
            try {
                boolean byAgent = Thread.currentThread().getName().equals(agentName);
                if (byAgent) {
                    partsByAgent.incrementAndGet();
                    if (progress.closed()) {
                        partsByAgentAfterClose.incrementAndGet();
                    }
                }
                if (i != 0) {
                    return 0;
                }
                CountDownLatch r = release;
                if (byAgent && r != null) {
                    agentBlocked.countDown();
                    await(r);
                }
                int work = 0;
                Long m;
                while ((m = wire.poll()) != null) {
                    delivered = Math.max(delivered, m);
                    byOwner.incrementAndGet((int) (m % OWNERS));
                    if (byAgent) {
                        deliveredByAgent.incrementAndGet();
                    }
                    work++;
                }
                return work;
            } finally {
                inPart.decrementAndGet();
            }
        }

        /** A posting call: takes the lock, as the engine's posting calls do. */
        void post() {
            progress.lock().lock();
            progress.lock().unlock();
        }

        /** A send to {@code peer}: posted under this node's lock, where its transport writes it. */
        void send(Node peer, Long m) {
            progress.lock().lock();
            try {
                peer.wire.add(m);
            } finally {
                progress.lock().unlock();
            }
        }

        /** Waits, driving progress, until message {@code m} was delivered here. */
        void awaitMessage(long m) {
            if (!progress.await(() -> delivered >= m, WAIT_NANOS)) {
                throw new AssertionError("message " + m + " not delivered to " + agentName + " within " + BOUND);
            }
        }
    }

    private static void await(CountDownLatch latch) {
        try {
            if (!latch.await(BOUND.toSeconds(), TimeUnit.SECONDS)) {
                throw new AssertionError("latch not released within " + BOUND);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError(e);
        }
    }

    private static Thread run(String name, Runnable r, AtomicReference<Throwable> failure) {
        return Thread.ofPlatform().name(name).start(() -> {
            try {
                r.run();
            } catch (Throwable t) {
                failure.compareAndSet(null, t);
            }
        });
    }

    private static void join(Thread t) throws InterruptedException {
        t.join(BOUND.toMillis());
        assertThat(t.isAlive()).as("%s ended within %s", t.getName(), BOUND).isFalse();
    }

    @Test
    void theAgentDeliversForAnApplicationThatComputes() {
        Node n = new Node("computes").start();
        // the application was in the library a moment ago, and is now away (this thread only reads state)
        n.post();
        n.awaitMessage(0);
        for (long m = 1; m <= 100; m++) {
            n.wire.add(m);
            long want = m;
            awaitUntil(() -> n.delivered == want, BOUND, () -> "message " + want + " delivered by the agent alone, "
                    + "agent " + n.progress.agentState() + " after " + n.progress.agentCycles() + " cycles");
        }
        assertThat(n.deliveredByAgent.get()).isEqualTo(100);
        assertThat(n.overlaps.get()).isZero();
    }

    @Test
    void anAgentWithNothingToAdvanceRestsUntilTheApplicationLeavesItWork() {
        // rests last up to a minute here: only the call below can end this one in time
        Node n = new Node("rests", TimeUnit.MINUTES.toNanos(1));
        n.pending = false;
        n.start();
        n.post(); // the application came in, and is now away with nothing for the agent
        awaitUntil(() -> n.progress.agentRests() >= 1, BOUND, () -> "the agent to rest, agent "
                + n.progress.agentState() + " after " + n.progress.agentCycles() + " cycles");
        n.wire.add(1L); // a frame arrives for no posted receive: it waits for a reader
        n.pending = true;
        n.post(); // a non-blocking call that leaves work (a large receive posted) ...
        n.progress.leftWork(); // ... and returns its request: that ends the rest
        awaitUntil(() -> n.delivered == 1, Duration.ofSeconds(20), () -> "the agent woken from its rest to deliver, agent "
                + n.progress.agentState() + ", " + n.progress.agentRests() + " rests");
        assertThat(n.deliveredByAgent.get()).isEqualTo(1);
    }

    @Test
    void aPingPongIsDrivenByItsWaitersWithoutAgentCycles() throws InterruptedException {
        Node a = new Node("ping").start();
        Node b = new Node("pong").start();
        int rounds = 5000;
        AtomicReference<Throwable> failure = new AtomicReference<>();
        CountDownLatch go = new CountDownLatch(1);
        long[] cyclesAtStart = new long[2];
        Long[] messages = new Long[rounds + 1];
        for (int i = 0; i <= rounds; i++) {
            messages[i] = (long) i;
        }
        // between two calls each thread only counts its loop: little time outside the library
        Thread ping = run("ping", () -> {
            await(go);
            for (int i = 1; i <= rounds; i++) {
                a.send(b, messages[i]);
                a.post(); // the receive posted
                a.awaitMessage(i);
            }
        }, failure);
        Thread pong = run("pong", () -> {
            await(go);
            for (int i = 1; i <= rounds; i++) {
                b.post();
                b.awaitMessage(i);
                b.send(a, messages[i]);
            }
        }, failure);
        // both applications enter at once; the agents may be driving from the quiet before
        cyclesAtStart[0] = a.progress.agentCycles();
        cyclesAtStart[1] = b.progress.agentCycles();
        go.countDown();
        join(ping);
        join(pong);
        assertThat(failure.get()).isNull();
        long agentCycles = a.progress.agentCycles() - cyclesAtStart[0] + b.progress.agentCycles() - cyclesAtStart[1];
        long hops = a.deliveredByAgent.get() + b.deliveredByAgent.get();
        // the thread that waits reads its message. Each agent may run a cycle before it sees the
        // application come in, and some while a thread is descheduled between two calls for more
        // than a look (on a loaded machine, for tens of milliseconds); never one per exchange
        assertThat(hops).as("messages handed to an agent thread in %d round trips", rounds).isLessThanOrEqualTo(rounds / 100);
        assertThat(agentCycles).as("agent cycles in %d round trips", rounds).isLessThanOrEqualTo(rounds / 10);
        assertThat(a.overlaps.get() + b.overlaps.get()).isZero();
    }

    @Test
    void severalThreadsWaitAtOnce() throws InterruptedException {
        Node n = new Node("multiple").start();
        int threads = 4;
        int perThread = 1000;
        AtomicReference<Throwable> failure = new AtomicReference<>();
        // each thread sends itself a message (m & 7 names its owner) and waits for it, driving
        // progress: the threads' waits overlap and they take turns in the duty cycle
        List<Thread> waiters = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
            int me = t;
            waiters.add(run("waiter-" + t, () -> {
                for (int k = 1; k <= perThread; k++) {
                    long want = k;
                    n.post();
                    n.wire.add((long) k * OWNERS + me);
                    assertThat(n.progress.await(() -> n.byOwner.get(me) >= want, WAIT_NANOS))
                            .as("message %d of thread %d delivered", want, me).isTrue();
                }
            }, failure));
        }
        for (Thread t : waiters) {
            join(t);
        }
        assertThat(failure.get()).isNull();
        for (int t = 0; t < threads; t++) {
            assertThat(n.byOwner.get(t)).as("messages delivered to thread %d", t).isEqualTo(perThread);
        }
        assertThat(n.overlaps.get()).as("threads inside a duty part at once").isZero();
    }

    @Test
    void aPostingCallWaitsForOnePartOfAnAgentCycleOnly() throws InterruptedException {
        Node n = new Node("posting");
        n.release = new CountDownLatch(1);
        n.start();
        await(n.agentBlocked); // the agent is in part 0 of a cycle, holding the lock
        AtomicReference<Throwable> failure = new AtomicReference<>();
        CountDownLatch posted = new CountDownLatch(1);
        CountDownLatch done = new CountDownLatch(1);
        Thread app = run("app", () -> {
            n.progress.lock().lock();
            try {
                posted.countDown();
                await(done);
            } finally {
                n.progress.lock().unlock();
            }
        }, failure);
        awaitUntil(() -> n.progress.lock().hasQueuedThreads(), BOUND, "the posting call queued for the lock");
        long partsBefore = n.partsByAgent.get();
        n.release.countDown();
        await(posted);
        // the agent finished part 0 and, seeing the caller queued, released the lock before part 1
        assertThat(n.partsByAgent.get()).isEqualTo(partsBefore);
        awaitUntil(() -> n.progress.agentState() == Progress.AgentState.WATCHING, BOUND, "the agent back to watching");
        n.release = null;
        done.countDown();
        join(app);
        assertThat(failure.get()).isNull();
    }

    @Test
    void closeEndsAnAgentThatIsInACycle() throws InterruptedException {
        Node n = new Node("close");
        n.release = new CountDownLatch(1);
        n.start();
        await(n.agentBlocked);
        assertThat(n.progress.agentState()).isEqualTo(Progress.AgentState.DRIVING);
        AtomicReference<Throwable> failure = new AtomicReference<>();
        Thread closer = run("closer", n.progress::stopAgent, failure);
        awaitUntil(n.progress::closed, BOUND, "stopAgent marked the progress closed");
        n.release.countDown();
        join(closer);
        assertThat(failure.get()).isNull();
        awaitUntil(() -> n.progress.agentState() == Progress.AgentState.STOPPED, BOUND, "the agent stopped");
        assertThat(n.partsByAgentAfterClose.get()).as("parts the agent ran once closed").isZero();
        // the application may still drive (the engine's close sends its goodbyes that way)
        n.wire.add(1L);
        n.awaitMessage(1);
        assertThat(n.deliveredByAgent.get()).isZero();
    }
}
