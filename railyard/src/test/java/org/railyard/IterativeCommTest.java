package org.railyard;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.railyard.error.ErrorClass;
import org.railyard.error.RailyardException;
import org.railyard.testkit.SingletonJob;

/**
 * The IterativeComm API on a job of one (a process exchanging values with itself); the exchange
 * between processes and over udp is tested in the engine (ValueFlowsTest) and by the asynchronous
 * solver's system tests.
 */
class IterativeCommTest {
    @RegisterExtension
    static final SingletonJob job = new SingletonJob();

    @Test
    void asynchronousReceiveGivesTheNewestValueOnceAndThenNone() {
        try (IterativeComm it = IterativeComm.create(job.world(), IterativeComm.Scheme.ASYNCHRONOUS)) {
            double[] v = new double[3];
            assertThat(it.receive(v, 0, 3, 0, 1)).isEqualTo(IterativeComm.NONE);
            for (int i = 1; i <= 100; i++) {
                it.send(new double[] {i, i, i}, 0, 3, 0, 1);
            }
            // values sent while an older one waited replaced it: a receive sees the newest that has
            // arrived, never an older one than the last it saw; the last value sent comes in the end
            // (values still in flight when a receive runs may arrive after it, so the 100th is not
            // necessarily the first one taken)
            long last = 0;
            int takes = 0;
            while (last < 100) {
                assertThat(it.await(0, 1, Duration.ofSeconds(10))).as("value after %d", last).isTrue();
                long seq = it.receive(v, 0, 3, 0, 1);
                assertThat(seq).isGreaterThan(last);
                assertThat(v).containsExactly(seq, seq, seq);
                last = seq;
                takes++;
            }
            assertThat(last).isEqualTo(100);
            // first in, first out would take all 100: the superseded ones were never delivered
            assertThat(takes).isLessThan(50);
            assertThat(it.receive(v, 0, 3, 0, 1)).isEqualTo(IterativeComm.NONE);
        }
    }

    @Test
    void synchronousReceiveGivesEveryValueInOrderAndTheSchemeCanChangeBetweenSends() {
        try (IterativeComm it = IterativeComm.create(job.world(), IterativeComm.Scheme.SYNCHRONOUS)) {
            int[] v = new int[1];
            for (int i = 1; i <= 5; i++) {
                it.send(new int[] {i}, 0, 1, 0, 2);
            }
            it.scheme(IterativeComm.Scheme.ASYNCHRONOUS);
            for (int i = 6; i <= 9; i++) {
                it.send(new int[] {i}, 0, 1, 0, 2);
            }
            it.scheme(IterativeComm.Scheme.SYNCHRONOUS);
            it.send(new int[] {10}, 0, 1, 0, 2);
            assertThat(it.flush(Duration.ofSeconds(10))).isTrue();
            StringBuilder got = new StringBuilder();
            while (it.await(0, 2, Duration.ofMillis(200))) {
                long seq = it.receive(v, 0, 1, 0, 2);
                assertThat(seq).isEqualTo(v[0]);
                got.append(v[0]).append(' ');
            }
            // 1..5 each (synchronous), of 6..9 at least the newest, then 10
            assertThat(got.toString()).startsWith("1 2 3 4 5 ").endsWith("9 10 ");
        }
    }

    @Test
    void argumentsAreChecked() {
        try (IterativeComm it = IterativeComm.create(job.world(), IterativeComm.Scheme.ASYNCHRONOUS)) {
            assertThatThrownBy(() -> it.send(new double[1], 0, 1, 3, 0))
                    .isInstanceOf(RailyardException.class).hasMessageContaining("rank 3 is out of range");
            assertThatThrownBy(() -> it.send(new double[1], 0, 1, 0, -1)).hasMessageContaining("tag -1");
            assertThatThrownBy(() -> it.send(new byte[1 << 20], 0, 1 << 20, 0, 0))
                    .hasMessageContaining("split it over several tags");
            it.send(new double[4], 0, 4, 0, 7);
            it.await(0, 7, Duration.ofSeconds(10));
            assertThatThrownBy(() -> it.receive(new double[2], 0, 2, 0, 7))
                    .extracting(x -> ((RailyardException) x).errorClass()).isEqualTo(ErrorClass.TRUNCATE);
        }
    }
}
