package org.railyard.engine;

import org.railyard.types.Kind;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.railyard.channel.VirtualChannel;
import org.railyard.stack.Scheme;
import org.railyard.stack.SeededFaults;
import org.railyard.stack.Stack;

/**
 * Value flows (the engine's half of IterativeComm) between engines over real transports: the
 * asynchronous and synchronous semantics, and a sync-async-sync reconfiguration in the middle of
 * a stream, checked value by value by sequence numbers.
 */
class ValueFlowsTest {
    private static final long SECONDS = 1_000_000_000L;

    /** A value carrying its own number in every element, so a torn or mixed value shows. */
    private static long[] value(long n) {
        long[] v = new long[64];
        java.util.Arrays.fill(v, n);
        return v;
    }

    private static void checkWhole(long[] v, long seq) {
        for (long x : v) {
            assertThat(x).isEqualTo(seq);
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"tcp", "udp"})
    void anAsynchronousFlowHoldsOnlyItsNewestValueHoweverFarTheSenderIsAhead(String tr) throws Exception {
        CyclicBarrier sent = new CyclicBarrier(2);
        InMemoryJob.run(2, tr, (e, w) -> {
            ValueFlows f = e.values();
            int n = 20_000;
            if (e.rank() == 0) {
                for (long i = 1; i <= n; i++) {
                    f.send(w, value(i), Kind.LONG, 0, 64, 1, 5, true);
                }
                assertThat(f.flush(30 * SECONDS)).isTrue();
                sent.await(60, TimeUnit.SECONDS);
                // the receiver's answer: the last value it got
                long[] got = new long[1];
                e.recv(w, got, Kind.LONG, 0, 1, 1, 9, new PointToPointTest.St());
                assertThat(got[0]).isEqualTo(n);
                assertThat(f.supersededBeforeSending()).as("a sender far ahead replaces queued values").isPositive();
            } else {
                sent.await(60, TimeUnit.SECONDS);
                long[] v = new long[64];
                long last = 0;
                // everything sent has been handed to the link; take what arrives until the newest
                while (last < n) {
                    assertThat(f.await(w, 0, 5, 30 * SECONDS)).as("value %d of %s", n, tr).isTrue();
                    long seq = f.receive(w, v, Kind.LONG, 0, 64, 0, 5);
                    assertThat(seq).isGreaterThan(last);
                    checkWhole(v, seq);
                    last = seq;
                }
                assertThat(f.receive(w, v, Kind.LONG, 0, 64, 0, 5)).isEqualTo(ValueFlows.NONE);
                e.send(w, new long[] {last}, Kind.LONG, 0, 1, 0, 9, Engine.MODE_STANDARD);
            }
        });
    }

    @ParameterizedTest
    @ValueSource(strings = {"tcp", "udp"})
    void aSynchronousFlowDeliversEveryValueInOrder(String tr) throws Exception {
        InMemoryJob.run(2, tr, (e, w) -> {
            ValueFlows f = e.values();
            int n = 3000;
            if (e.rank() == 0) {
                for (long i = 1; i <= n; i++) {
                    assertThat(f.send(w, value(i), Kind.LONG, 0, 64, 1, 5, false)).isEqualTo(i);
                }
                assertThat(f.flush(30 * SECONDS)).isTrue();
            } else {
                long[] v = new long[64];
                for (long i = 1; i <= n; i++) {
                    assertThat(f.await(w, 0, 5, 30 * SECONDS)).isTrue();
                    assertThat(f.receive(w, v, Kind.LONG, 0, 64, 0, 5)).isEqualTo(i);
                    checkWhole(v, i);
                }
            }
        });
    }

    /**
     * Rank 0 streams values without pause, numbered 1, 2, 3, ..., switching its scheme from
     * synchronous to asynchronous after {@code A} values and back after {@code B}; rank 1 takes them
     * more slowly, so values are queued and in flight at each switch. Nothing may come twice or out of
     * order; every value of the synchronous phases, and the last of the asynchronous one, must come.
     */
    @ParameterizedTest
    @ValueSource(strings = {"udp", "udp+loss", "tcp"})
    void aSyncAsyncSyncReconfigurationMidStreamLosesReordersAndDuplicatesNothing(String variant) throws Exception {
        boolean loss = variant.endsWith("+loss");
        boolean udp = variant.startsWith("udp");
        String old = System.getProperty("railyard.stack.inject");
        // the compositions and each reconfiguration must be told with the library's choices
        System.setProperty("railyard.print.choices", Boolean.toString(udp));
        if (loss) {
            System.setProperty("railyard.stack.inject", "org.railyard.stack.SeededFaults:drop=0.05,reorder=0.05,seed=77");
        }
        long a = 3000;
        long b = 9000;
        long c = 12_000;
        try {
            InMemoryJob.run(2, variant.replace("+loss", ""), (e, w) -> {
                ValueFlows f = e.values();
                if (e.rank() == 0) {
                    for (long i = 1; i <= c; i++) {
                        f.send(w, value(i), Kind.LONG, 0, 64, 1, 3, i > a && i <= b);
                    }
                    assertThat(f.flush(60 * SECONDS)).isTrue();
                    long[] done = new long[1];
                    e.recv(w, done, Kind.LONG, 0, 1, 1, 8, new PointToPointTest.St());
                    Stack s = stackTo(e, 1);
                    assertThat(s != null).isEqualTo(udp);
                    if (s != null) {
                        assertThat(s.switches()[0]).as("value sender reconfigured sync>async>sync").isEqualTo(2);
                        assertThat(s.valueScheme()).isEqualTo(Scheme.SYNC);
                        assertThat(e.describeChoices()).contains("rank 0 -> rank 1: stack over udp (same-node): frames [sync]"
                                + " Synchronous > Resize > SequencedSegment > ReliableFIFO > PositiveAck > Retransmit > "
                                + "RTTEstimation > TransportDrive", "rank 0 -> rank 1: value flow to rank 1: switched to async",
                                "rank 0 -> rank 1: value flow to rank 1: switched to sync");
                    }
                } else {
                    List<Long> got = new ArrayList<>();
                    long[] v = new long[64];
                    long last = 0;
                    while (last < c) {
                        assertThat(f.await(w, 0, 3, 60 * SECONDS)).as("after value %d", last).isTrue();
                        long seq = f.receive(w, v, Kind.LONG, 0, 64, 0, 3);
                        checkWhole(v, seq);
                        assertThat(seq).as("no value twice, none out of order").isGreaterThan(last);
                        got.add(seq);
                        last = seq;
                        if (got.size() % 50 == 0) {
                            // a slower receiver: the sender's values pile up in flight
                            Thread.onSpinWait();
                            java.util.concurrent.locks.LockSupport.parkNanos(200_000);
                        }
                    }
                    for (long i = 1; i <= a; i++) {
                        assertThat(got).as("synchronous value %d", i).contains(i);
                    }
                    for (long i = b + 1; i <= c; i++) {
                        assertThat(got).as("synchronous value %d", i).contains(i);
                    }
                    assertThat(got).as("the newest asynchronous value survives the switch back").contains(b);
                    e.send(w, new long[] {1}, Kind.LONG, 0, 1, 0, 8, Engine.MODE_STANDARD);
                    Stack s = stackTo(e, 0);
                    if (s != null) {
                        assertThat(s.switches()[1]).as("value receiver reconfigured twice").isEqualTo(2);
                        assertThat(e.describeChoices()).contains("value flow from rank 0: switched to async (epoch 1): "
                                + "Asynchronous > Resize > TransportDrive");
                    }
                }
            });
        } finally {
            System.clearProperty("railyard.print.choices");
            if (old == null) {
                System.clearProperty("railyard.stack.inject");
            } else {
                System.setProperty("railyard.stack.inject", old);
            }
        }
        if (loss) {
            assertThat(SeededFaults.DROPPED_EVERYWHERE.get()).isPositive();
        }
    }

    private static Stack stackTo(Engine e, int peer) {
        VirtualChannel ch = e.channels().existing(peer);
        return ch.rails()[0].link() instanceof Stack s ? s : null;
    }
}
