package org.railyard.stack;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/** TCPNewRenoCA in the other-site synchronous composition: slow start, fast recovery with partial acks, timeout. */
class TcpNewRenoCaTest {
    private static final List<String> STACK = List.of("SequencedSegment", "ReliableFIFO", "PositiveAck", "WindCongCtrl",
            "TCPNewRenoCA", "DuplicateAck", "Retransmit", "RTTEstimation", "TransportDrive");

    private static StackSettings settings() {
        return new StackSettings(256, Duration.ofMillis(20), Duration.ofMillis(2), Duration.ofMillis(500),
                Duration.ofMillis(50), 4);
    }

    /** The stack over a network of 0.5 ms each way. */
    private static Harness harness() {
        Harness h = new Harness(STACK, settings(), "");
        h.delayNanos = 500_000;
        return h;
    }

    /**
     * Keeps the sender's queue full for {@code rounds} round trips of {@code rtt}, numbering the
     * frames from {@code sent}; returns the number of the next frame.
     */
    private static int pump(Harness h, int sent, long rtt, int rounds) {
        int next = sent;
        for (int r = 0; r < rounds; r++) {
            for (int k = 0; k < 10; k++) {
                next = h.sendWhileWritable(next, 100);
                h.step(rtt / 10);
            }
        }
        return next;
    }

    @Test
    void slowStartDoublesTheWindowEachRoundTripUpToTheThreshold() {
        Harness h = harness();
        assertThat(h.sender.cwnd).isEqualTo(10.0);
        int sent = pump(h, 0, 1_000_000, 1);
        assertThat(h.sender.cwnd).isBetween(18.0, 22.0);
        pump(h, sent, 1_000_000, 1);
        assertThat(h.sender.cwnd).isBetween(36.0, 44.0);
        h.close();
    }

    @Test
    void aLossHalvesTheWindowAndASecondLossInTheSameWindowIsRepairedByAPartialAck() {
        Harness h = harness();
        int sent = pump(h, 0, 1_000_000, 3);
        double before = h.sender.cwnd;
        TcpNewRenoCa reno = h.sender.find(TcpNewRenoCa.class);
        // lose two segments of the same window
        long base = h.dataFaults.index();
        h.dataFaults.dropAt.add(base + 5);
        h.dataFaults.dropAt.add(base + 9);
        double peakFlight = 0;
        for (int r = 0; r < 60; r++) {
            if (reno.recoveries == 0) {
                peakFlight = Math.max(peakFlight, h.sender.sndMax - h.sender.sndUna);
            }
            sent = pump(h, sent, 100_000, 1);
        }
        assertThat(reno.recoveries).isEqualTo(1);
        assertThat(h.sender.find(Retransmit.class).timeouts).isZero();
        assertThat(reno.ssthresh()).as("half the flight at the loss").isBetween(peakFlight / 2 - 10, peakFlight / 2 + 10);
        assertThat(h.runUntil(h.sender::drained, 100_000, 10_000)).isTrue();
        for (int i = 0; i < h.delivered.size(); i++) {
            assertThat(Harness.numberOf(h.delivered.get(i))).isEqualTo(i);
        }
        assertThat(h.delivered).hasSize(sent);
        h.close();
    }

    @Test
    void aTimeoutRestartsFromAWindowOfOne() {
        Harness h = harness();
        int sent = pump(h, 0, 1_000_000, 2);
        h.dataFaults.drop = 1.0;
        pump(h, sent, 1_000_000, 30);
        assertThat(h.sender.find(Retransmit.class).timeouts).isPositive();
        assertThat(h.sender.cwnd).isEqualTo(1.0);
        h.close();
    }
}
