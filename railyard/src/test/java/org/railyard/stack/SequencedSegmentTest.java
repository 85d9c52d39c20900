package org.railyard.stack;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.stream.LongStream;
import org.junit.jupiter.api.Test;

/** SequencedSegment alone: consecutive numbers from 1 on the data segments, in sending order. */
class SequencedSegmentTest {
    @Test
    void dataSegmentsAreNumberedConsecutivelyFromOneInSendingOrder() {
        Harness h = new Harness(List.of("Resize", "SequencedSegment", "TransportDrive"), StackSettings.defaults(), "");
        h.send(Harness.numbered(0, 1000));
        h.send(Harness.numbered(1, 10));
        h.send(Harness.numbered(2, 2000));
        // Resize is below: each fragment is a data segment and gets its own number
        assertThat(h.seqs).containsExactlyElementsOf(LongStream.rangeClosed(1, 3 + 1 + 5).boxed().toList());
        assertThat(h.sender.sndNext).isEqualTo(10);
        h.step(100_000);
        assertThat(h.delivered).hasSize(3);
        h.close();
    }
}
