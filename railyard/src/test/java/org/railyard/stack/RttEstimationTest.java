package org.railyard.stack;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/** RTTEstimation (in a reliable flow) alone: samples from echoed timestamps, RFC 6298 smoothing and bounds. */
class RttEstimationTest {
    private static final List<String> STACK = List.of("SequencedSegment", "ReliableFIFO", "PositiveAck", "Retransmit",
            "RTTEstimation", "TransportDrive");

    private static StackSettings settings(Duration min) {
        return new StackSettings(64, Duration.ofMillis(20), min, Duration.ofMillis(500), Duration.ofMillis(50), 4);
    }

    @Test
    void theSmoothedRoundTripFollowsThePathAndTheTimeoutKeepsItsBounds() {
        Harness h = new Harness(STACK, settings(Duration.ofMillis(2)), "");
        h.delayNanos = 50_000;
        for (int i = 0; i < 30; i++) {
            h.send(Harness.numbered(i, 10));
            h.runUntil(h.sender::drained, 10_000, 100);
        }
        // two 50 us crossings, measured at a 10 us step
        assertThat(h.sender.srttNanos).isBetween(100_000L, 120_000L);
        assertThat(h.sender.rtoNanos).as("held up by the lower bound").isEqualTo(2_000_000L);
        h.delayNanos = 5_000_000;
        for (int i = 30; i < 80; i++) {
            h.send(Harness.numbered(i, 10));
            h.runUntil(h.sender::drained, 100_000, 1000);
        }
        assertThat(h.sender.srttNanos).isBetween(9_500_000L, 10_500_000L);
        assertThat(h.sender.rtoNanos).isBetween(10_000_000L, 20_000_000L);
        assertThat(h.sender.retransmitted).as("the timeout grew with the path before it fired").isLessThan(5);
        h.close();
    }

    @Test
    void aSpuriousTimeoutIsRecognisedByItsEchoAndCostsNoMoreRetransmissions() {
        Harness h = new Harness(STACK, settings(Duration.ofMillis(1)), "");
        h.delayNanos = 100_000;
        h.send(Harness.numbered(0, 10));
        h.runUntil(h.sender::drained, 10_000, 1000);
        long rto = h.sender.rtoNanos;
        // the path suddenly takes far longer than the timeout: the first timeout is spurious
        h.delayNanos = 3 * rto;
        for (int i = 1; i <= 20; i++) {
            h.send(Harness.numbered(i, 10));
        }
        h.runUntil(h.sender::drained, 10_000, 100_000);
        Retransmit r = h.sender.find(Retransmit.class);
        assertThat(r.timeouts).isPositive();
        assertThat(r.spurious).isPositive();
        assertThat(h.delivered).hasSize(21);
        assertThat(h.sender.retransmitted).as("no go-back-N after a spurious timeout").isLessThanOrEqualTo(r.timeouts);
        h.close();
    }
}
