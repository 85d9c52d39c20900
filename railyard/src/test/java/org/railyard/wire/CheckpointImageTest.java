package org.railyard.wire;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The checkpoint file: every section comes back as written; a file changed in any byte, cut
 * short, or of another rank is refused with an IOException naming the fault, never another
 * exception; writing replaces the previous image whole.
 */
class CheckpointImageTest {
    private static CheckpointImage sample(int rank) {
        CheckpointImage img = new CheckpointImage(rank, 3);
        img.app = new byte[] {1, 2, 3, 4, 5};
        for (int p = 0; p < 3; p++) {
            img.consumed[p] = 10 + p;
            img.sent[p] = 20 + p;
            img.nextPsn[p] = 30 + p;
            img.expectedPsn[p] = 40 + p;
            img.ackedPsn[p] = 50 + p;
        }
        img.nextContext = 8;
        img.agreed.add(4);
        img.agreed.add(6);
        img.comms.add(new CheckpointImage.CommCounters(0, 17, 2));
        img.comms.add(new CheckpointImage.CommCounters(4, 5, 0));
        img.generations = new int[] {3, 1, 4};
        img.freeSlots = new int[] {2, 0, 1};
        img.held.add(new CheckpointImage.HeldMessage(4, 2, 99, new byte[] {9, 8, 7}));
        img.held.add(new CheckpointImage.HeldMessage(0, 0, 1, new byte[0]));
        return img;
    }

    @Test
    void everySectionComesBackAsWritten() throws IOException {
        CheckpointImage back = CheckpointImage.decode(sample(1).encode(), 1, 3);
        assertThat(back.app).containsExactly(1, 2, 3, 4, 5);
        assertThat(back.consumed).containsExactly(10, 11, 12);
        assertThat(back.sent).containsExactly(20, 21, 22);
        assertThat(back.nextPsn).containsExactly(30, 31, 32);
        assertThat(back.expectedPsn).containsExactly(40, 41, 42);
        assertThat(back.ackedPsn).containsExactly(50, 51, 52);
        assertThat(back.nextContext).isEqualTo(8);
        assertThat(back.agreed).containsExactly(4, 6);
        assertThat(back.comms).containsExactly(new CheckpointImage.CommCounters(0, 17, 2), new CheckpointImage.CommCounters(4, 5, 0));
        assertThat(back.generations).containsExactly(3, 1, 4);
        assertThat(back.freeSlots).containsExactly(2, 0, 1);
        assertThat(back.held).hasSize(2);
        assertThat(back.held.get(0).payload()).containsExactly(9, 8, 7);
        assertThat(back.held.get(0).tag()).isEqualTo(99);
        assertThat(back.held.get(1).payload()).isEmpty();
    }

    @Test
    void anotherRanksImageIsRefusedNamingBoth() {
        assertThatThrownBy(() -> CheckpointImage.decode(sample(1).encode(), 2, 3)).isInstanceOf(IOException.class)
                .hasMessage("checkpoint of rank 1 of 3, expected rank 2 of 3");
    }

    @Test
    void aChangedOrShortenedFileIsRefusedWithAnIoExceptionOnly() {
        byte[] good = sample(0).encode();
        Random random = new Random(22);
        for (int round = 0; round < 1000; round++) {
            byte[] bad = good.clone();
            if (round % 2 == 0) {
                bad[random.nextInt(bad.length)] ^= (byte) (1 + random.nextInt(255));
            } else {
                bad = java.util.Arrays.copyOf(bad, random.nextInt(bad.length));
            }
            byte[] input = bad;
            assertThatThrownBy(() -> CheckpointImage.decode(input, 0, 3)).as("round %d", round)
                    .isInstanceOf(IOException.class).hasMessageContaining("checkpoint");
        }
    }

    @Test
    void writingReplacesTheImageWholeAndAMissingOneReadsAsNone(@TempDir Path dir) throws IOException {
        assertThat(CheckpointImage.read(dir, 0, 3)).isNull();
        sample(0).write(dir);
        CheckpointImage next = sample(0);
        next.app = new byte[] {42};
        next.write(dir);
        assertThat(CheckpointImage.read(dir, 0, 3).app).containsExactly(42);
        assertThat(Files.list(dir).map(p -> p.getFileName().toString()).toList()).containsExactly("rank-0.ckpt");
        Files.write(CheckpointImage.file(dir, 0), new byte[] {1, 2, 3});
        assertThatThrownBy(() -> CheckpointImage.read(dir, 0, 3)).isInstanceOf(IOException.class)
                .hasMessageContaining("rank-0.ckpt").hasMessageContaining("shorter than its header");
    }
}
