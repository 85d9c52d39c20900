package org.railyard.transport.relay;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.railyard.wire.RelayFrame;

/**
 * A waiting thread's sleep on its relay connection ({@link RelayReceiver#sleepUntilReadable}):
 * input that comes after the last look ends it, so does a wake that comes after the look began,
 * nothing coming it lasts its bound; one thread sleeps at a time, and a caller told to stay, a
 * connection that ended, or input left unread since the last sleep (no poll came) does not sleep.
 * A back-pressured rank's sleep also watches its sending connection: a STORED there ends it, and
 * is read by the next poll of that connection; left unread, it makes the next sleep a park.
 */
class RelayInputSleepTest {
    /** A bound long enough that a sleep which reaches it has missed what should have ended it. */
    private static final long LONG_NANOS = TimeUnit.SECONDS.toNanos(10);

    private RelayLoopback connection;
    private RelayReceiver receiver;
    private final AtomicInteger delivered = new AtomicInteger();

    @BeforeEach
    void connect() throws IOException {
        connection = RelayLoopback.open();
        receiver = new RelayReceiver(connection.rankSide(), new byte[0], 4096, (h, body) -> delivered.incrementAndGet());
    }

    @AfterEach
    void close() throws IOException {
        receiver.close();
        connection.close();
    }

    private void deliver(long sequence) throws IOException {
        connection.writeFrame(RelayFrame.DELIVER, 1, 0, sequence, 8);
    }

    @Test
    void aDeliverWrittenAfterTheLastLookEndsTheSleepAndTheNextPollTakesIt() throws Exception {
        CountDownLatch looked = new CountDownLatch(1);
        Thread relay = Thread.ofPlatform().start(() -> {
            try {
                looked.await();
                deliver(1);
            } catch (IOException | InterruptedException e) {
                throw new RuntimeException(e);
            }
        });
        long start = System.nanoTime();
        boolean slept = receiver.sleepUntilReadable(LONG_NANOS, () -> {
            looked.countDown();
            return 0;
        }, () -> false);
        long took = System.nanoTime() - start;
        relay.join();
        assertThat(slept).isTrue();
        assertThat(took).as("the sleep ended by the input, not its bound").isLessThan(LONG_NANOS / 2);
        assertThat(receiver.sleepWakes()).isEqualTo(1);
        assertThat(receiver.poll()).isEqualTo(1);
        assertThat(delivered.get()).isEqualTo(1);
    }

    @Test
    void inputLeftUnreadBecauseNoPollCameDoesNotEndEverySleepAtOnceTheWaiterParksUntilAPoll() throws Exception {
        deliver(1);
        // the last look could not poll (another thread held the progress lock): the select returns at once
        assertThat(receiver.sleepUntilReadable(LONG_NANOS, () -> 0, () -> false)).isTrue();
        long start = System.nanoTime();
        assertThat(receiver.sleepUntilReadable(LONG_NANOS, () -> 0, () -> false))
                .as("still readable and nobody polled: park instead of selecting in a loop").isFalse();
        assertThat(System.nanoTime() - start).isLessThan(LONG_NANOS / 2);
        assertThat(receiver.poll()).isEqualTo(1);
        start = System.nanoTime();
        assertThat(receiver.sleepUntilReadable(TimeUnit.MILLISECONDS.toNanos(5), () -> 0, () -> false)).isTrue();
        assertThat(System.nanoTime() - start).as("after the poll it sleeps again").isGreaterThanOrEqualTo(4_000_000);
    }

    @Test
    void aWakeThatComesDuringTheLastLookIsNotLost() {
        long start = System.nanoTime();
        boolean slept = receiver.sleepUntilReadable(LONG_NANOS, () -> {
            receiver.wakeSleeper(); // another thread did work: rung after the sleeper armed, before it sleeps
            return 0;
        }, () -> false);
        assertThat(slept).isTrue();
        assertThat(System.nanoTime() - start).isLessThan(LONG_NANOS / 2);
        assertThat(delivered.get()).isZero();
    }

    @Test
    void aWakeFromAnotherThreadEndsASleepThatBegan() throws Exception {
        CountDownLatch looked = new CountDownLatch(1);
        Thread waker = Thread.ofPlatform().start(() -> {
            try {
                looked.await();
            } catch (InterruptedException e) {
                return;
            }
            receiver.wakeSleeper();
        });
        long start = System.nanoTime();
        boolean slept = receiver.sleepUntilReadable(LONG_NANOS, () -> {
            looked.countDown();
            return 0;
        }, () -> false);
        waker.join();
        assertThat(slept).isTrue();
        assertThat(System.nanoTime() - start).isLessThan(LONG_NANOS / 2);
    }

    @Test
    void nothingComingTheSleepLastsItsBoundRoundedUpToAMillisecond() {
        for (long nanos : new long[] {1_000, TimeUnit.MILLISECONDS.toNanos(30)}) {
            long start = System.nanoTime();
            assertThat(receiver.sleepUntilReadable(nanos, () -> 0, () -> false)).isTrue();
            long took = System.nanoTime() - start;
            assertThat(took).as("bound %d ns", nanos).isGreaterThanOrEqualTo(Math.max(nanos, 1_000_000) * 9 / 10);
        }
        assertThat(receiver.sleepWakes()).isZero();
    }

    @Test
    void aLastLookThatFoundWorkEndsItWithoutASleep() {
        long start = System.nanoTime();
        assertThat(receiver.sleepUntilReadable(LONG_NANOS, () -> 1, () -> false)).isTrue();
        assertThat(System.nanoTime() - start).isLessThan(LONG_NANOS / 2);
    }

    @Test
    void oneThreadSleepsAtATimeTheOthersAreToldToPark() throws Exception {
        CountDownLatch inside = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        Thread first = Thread.ofPlatform().start(() -> receiver.sleepUntilReadable(LONG_NANOS, () -> {
            inside.countDown();
            try {
                release.await();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            return 1;
        }, () -> false));
        assertThat(inside.await(10, TimeUnit.SECONDS)).isTrue();
        assertThat(receiver.sleepUntilReadable(LONG_NANOS, () -> 0, () -> false)).isFalse();
        release.countDown();
        first.join(TimeUnit.SECONDS.toMillis(10));
        assertThat(first.isAlive()).isFalse();
    }

    @Test
    void aCallerToldToStayAndAClosedConnectionDoNotSleep() {
        int[] looks = {0};
        long start = System.nanoTime();
        assertThat(receiver.sleepUntilReadable(LONG_NANOS, () -> looks[0]++, () -> true)).isFalse();
        assertThat(looks[0]).as("the last look ran before the caller was told to stay").isEqualTo(1);
        receiver.close();
        assertThat(receiver.sleepUntilReadable(LONG_NANOS, () -> looks[0]++, () -> false)).isFalse();
        assertThat(System.nanoTime() - start).isLessThan(LONG_NANOS / 2);
    }

    /** A second connection, as a sending port's: its STOREDs counted, and a writer for its relay side. */
    private record Sending(RelayLoopback connection, RelayReceiver receiver, AtomicInteger stored)
            implements AutoCloseable {
        static Sending open() throws IOException {
            RelayLoopback connection = RelayLoopback.open();
            AtomicInteger stored = new AtomicInteger();
            return new Sending(connection, new RelayReceiver(connection.rankSide(), new byte[0], 4096,
                    (h, body) -> stored.incrementAndGet()), stored);
        }

        void stored(long sequence) throws IOException {
            connection.writeFrame(RelayFrame.STORED, 0, 1, sequence, 0);
        }

        @Override
        public void close() throws IOException {
            receiver.close();
            connection.close();
        }
    }

    @Test
    void aStoredOnTheWatchedSendingConnectionEndsTheSleepAndItsNextPollTakesIt() throws Exception {
        try (Sending sending = Sending.open()) {
            long start = System.nanoTime();
            assertThat(receiver.sleepUntilReadable(TimeUnit.MILLISECONDS.toNanos(30), () -> 0, () -> false, sending.receiver()))
                    .isTrue();
            assertThat(System.nanoTime() - start).as("nothing came on either: the bound").isGreaterThanOrEqualTo(27_000_000);
            CountDownLatch looked = new CountDownLatch(1);
            Thread relay = Thread.ofPlatform().start(() -> {
                try {
                    looked.await();
                    sending.stored(1);
                } catch (IOException | InterruptedException e) {
                    throw new RuntimeException(e);
                }
            });
            start = System.nanoTime();
            boolean slept = receiver.sleepUntilReadable(LONG_NANOS, () -> {
                looked.countDown();
                return 0;
            }, () -> false, sending.receiver());
            long took = System.nanoTime() - start;
            relay.join();
            assertThat(slept).isTrue();
            assertThat(took).as("the STORED on the sending connection ended the sleep").isLessThan(LONG_NANOS / 2);
            assertThat(sending.receiver().poll()).isEqualTo(1);
            assertThat(sending.stored().get()).isEqualTo(1);
            assertThat(delivered.get()).isZero();
            start = System.nanoTime();
            assertThat(receiver.sleepUntilReadable(TimeUnit.MILLISECONDS.toNanos(5), () -> 0, () -> false)).isTrue();
            assertThat(System.nanoTime() - start).as("unwatched, the sending connection wakes nobody")
                    .isGreaterThanOrEqualTo(4_000_000);
        }
    }

    @Test
    void aStoredLeftUnreadOnTheWatchedConnectionMakesTheNextSleepAParkUntilThatConnectionIsPolled() throws Exception {
        try (Sending sending = Sending.open()) {
            sending.stored(1);
            // the last look could not read the sending connection (its reader thread held it): at once
            long start = System.nanoTime();
            assertThat(receiver.sleepUntilReadable(LONG_NANOS, () -> 0, () -> false, sending.receiver())).isTrue();
            assertThat(receiver.sleepUntilReadable(LONG_NANOS, () -> 0, () -> false, sending.receiver()))
                    .as("still readable and nobody polled it: park instead of selecting in a loop").isFalse();
            assertThat(System.nanoTime() - start).isLessThan(LONG_NANOS / 2);
            receiver.poll(); // a poll of the receiving connection alone does not read the STORED
            assertThat(receiver.sleepUntilReadable(LONG_NANOS, () -> 0, () -> false, sending.receiver())).isFalse();
            assertThat(sending.receiver().poll()).isEqualTo(1);
            start = System.nanoTime();
            assertThat(receiver.sleepUntilReadable(TimeUnit.MILLISECONDS.toNanos(5), () -> 0, () -> false, sending.receiver()))
                    .isTrue();
            assertThat(System.nanoTime() - start).as("read, it sleeps again").isGreaterThanOrEqualTo(4_000_000);
        }
    }
}
