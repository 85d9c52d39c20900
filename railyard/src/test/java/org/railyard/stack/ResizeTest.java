package org.railyard.stack;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** Resize alone (with TransportDrive under it), over a clean and over a damaging network. */
class ResizeTest {
    private static final List<String> ALONE = List.of("Resize", "TransportDrive");

    @Test
    void framesOfEverySizeAreCutToTheDatagramAndPutBackTogether() {
        Harness h = new Harness(ALONE, StackSettings.defaults(), 256, 16 * 1024, "");
        int payload = 256 - org.railyard.wire.SegmentHeader.LENGTH;
        int[] sizes = {0, 1, payload - 1, payload, payload + 1, 3 * payload, 16 * 1024};
        long before = h.datagramsAtoB;
        int expectedSegments = 0;
        for (int i = 0; i < sizes.length; i++) {
            h.send(Harness.numbered(i, sizes[i]));
            expectedSegments += Math.max(1, (Math.max(8, sizes[i]) + payload - 1) / payload);
        }
        assertThat(h.datagramsAtoB - before).isEqualTo(expectedSegments);
        h.runUntil(() -> h.delivered.size() == sizes.length, 100_000, 100);
        assertThat(h.delivered).hasSize(sizes.length);
        for (int i = 0; i < sizes.length; i++) {
            assertThat(Harness.numberOf(h.delivered.get(i))).isEqualTo(i);
            assertThat(h.delivered.get(i)).hasSize(Math.max(8, sizes[i]));
        }
        h.close();
        assertThat(h.poolA.outstanding()).isZero();
        assertThat(h.poolB.outstanding()).isZero();
    }

    @Test
    void overLossDuplicationAndReorderingOnlyWholeFramesComeUpAndEachAtMostOnce() {
        Harness h = new Harness(ALONE, StackSettings.defaults(), 256, 4096, "drop=0.03,dup=0.05,reorder=0.2,seed=11");
        int n = 300;
        h.sendNumbered(0, n, 1000, 10_000);
        h.runUntil(() -> h.inFlight() == 0, 100_000, 100);
        Set<Long> seen = new HashSet<>();
        for (byte[] f : h.delivered) {
            assertThat(f).hasSize(1000);
            // numberOf checks every byte: a frame stitched from two messages would fail here
            seen.add(Harness.numberOf(f));
        }
        assertThat(h.dataFaults.dropped).isPositive();
        assertThat(h.dataFaults.reordered).isPositive();
        // a frame is lost when any of its 5 fragments is: most survive, not all
        assertThat(seen.size()).isBetween(n / 2, n - 1);
        assertThat(h.receiver.dropped).isPositive();
        h.close();
        assertThat(h.poolB.outstanding()).isZero();
    }
}
