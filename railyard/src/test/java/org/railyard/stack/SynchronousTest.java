package org.railyard.stack;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

/** Synchronous alone: every frame passes, and a full network makes the stack refuse rather than drop. */
class SynchronousTest {
    @Test
    void framesPassInOrderAndAFullPathIsReportedUpInsteadOfDroppingAnything() {
        Harness h = new Harness(List.of("Synchronous", "Resize", "TransportDrive"), StackSettings.defaults(),
                "reorder=0.0,seed=1");
        h.sendNumbered(0, 20, 100);
        h.runUntil(() -> h.delivered.size() == 20, 100_000, 10);
        for (int i = 0; i < 20; i++) {
            assertThat(Harness.numberOf(h.delivered.get(i))).isEqualTo(i);
        }
        assertThat(h.sender.writable(100)).isTrue();
        h.aWritable = false;
        assertThat(h.sender.writable(100)).as("Synchronous passes the refusal up").isFalse();
        h.close();
    }
}
