package org.railyard.transport.relay;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** The sending port's frame arrays: sizes, reuse after a give, no array to two holders, the bounds kept. */
class FramePoolTest {
    @Test
    void arraysArePowersOfTwoLargeEnoughForTheFrame() {
        FramePool pool = new FramePool();
        assertThat(pool.take(0)).hasSize(FramePool.MIN_SIZE);
        assertThat(pool.take(8 + 40)).hasSize(FramePool.MIN_SIZE);
        assertThat(pool.take(65)).hasSize(128);
        assertThat(pool.take(256 << 10)).hasSize(256 << 10);
        assertThat(pool.take((256 << 10) + 1)).hasSize(512 << 10);
    }

    @Test
    void anArrayGivenBackIsTakenAgainForAFrameOfItsSize() {
        FramePool pool = new FramePool();
        byte[] a = pool.take(100);
        pool.give(a);
        assertThat(pool.take(70)).isSameAs(a);
        assertThat(pool.take(70)).isNotSameAs(a); // taken once: a second taker gets another
    }

    @Test
    void arraysHeldAreNeverHandedOutTwice() {
        FramePool pool = new FramePool();
        Set<byte[]> held = Collections.newSetFromMap(new IdentityHashMap<>());
        for (int round = 0; round < 50; round++) {
            for (int i = 0; i < 10; i++) {
                assertThat(held.add(pool.take(1000))).as("round %d, take %d", round, i).isTrue();
            }
            int n = 0;
            for (var it = held.iterator(); it.hasNext() && n < 7; n++) {
                pool.give(it.next());
                it.remove();
            }
        }
    }

    @Test
    void itKeepsAtMostItsBoundPerSize() {
        FramePool pool = new FramePool();
        int size = 1 << 20;
        byte[][] taken = new byte[10][];
        for (int i = 0; i < taken.length; i++) {
            taken[i] = pool.take(size);
        }
        for (byte[] a : taken) {
            pool.give(a);
        }
        int kept = (int) (FramePool.KEEP_BYTES / size);
        Set<byte[]> again = Collections.newSetFromMap(new IdentityHashMap<>());
        for (int i = 0; i < taken.length; i++) {
            again.add(pool.take(size));
        }
        long reused = again.stream().filter(a -> java.util.Arrays.stream(taken).anyMatch(t -> t == a)).count();
        assertThat(reused).isEqualTo(kept);
    }

    @Test
    void aForeignArrayIsNotKeptAndABadLengthIsRefusedNamingIt() {
        FramePool pool = new FramePool();
        byte[] odd = new byte[100];
        pool.give(odd);
        assertThat(pool.take(100)).isNotSameAs(odd);
        assertThatThrownBy(() -> pool.take(-1)).hasMessageContaining("frame length -1");
        assertThatThrownBy(() -> pool.take(FramePool.MAX_LENGTH + 1)).hasMessageContaining("frame length");
    }
}
