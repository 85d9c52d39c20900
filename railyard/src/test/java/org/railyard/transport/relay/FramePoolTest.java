package org.railyard.transport.relay;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.ByteBuffer;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.railyard.wire.RelayFrame;

/**
 * The sending port's frame buffers: direct, the STORE header's room in front of a power-of-two
 * class, reuse after a give, no buffer to two holders, the bounds kept.
 */
class FramePoolTest {
    private static final int H = RelayFrame.HEADER;

    @Test
    void buffersAreDirectWithTheHeadersRoomInFrontOfAPowerOfTwo() {
        FramePool pool = new FramePool();
        assertThat(FramePool.FRAME_OFFSET).isEqualTo(H);
        assertThat(pool.take(0).capacity()).isEqualTo(FramePool.MIN_SIZE + H);
        assertThat(pool.take(8 + 40).capacity()).isEqualTo(FramePool.MIN_SIZE + H);
        assertThat(pool.take(65).capacity()).isEqualTo(128 + H);
        assertThat(pool.take(256 << 10).capacity()).isEqualTo((256 << 10) + H);
        assertThat(pool.take((256 << 10) + 1).capacity()).isEqualTo((512 << 10) + H);
        ByteBuffer b = pool.take(1000);
        assertThat(b.isDirect()).isTrue();
        assertThat(b.position()).isZero();
        assertThat(b.limit()).isEqualTo(b.capacity());
    }

    @Test
    void aBufferGivenBackIsTakenAgainForAFrameOfItsClassWithItsPositionReset() {
        FramePool pool = new FramePool();
        ByteBuffer a = pool.take(100);
        a.position(50).limit(60);
        pool.give(a);
        ByteBuffer again = pool.take(70);
        assertThat(again).isSameAs(a);
        assertThat(again.position()).isZero();
        assertThat(again.limit()).isEqualTo(again.capacity());
        assertThat(pool.take(70)).isNotSameAs(a); // taken once: a second taker gets another
    }

    @Test
    void buffersHeldAreNeverHandedOutTwice() {
        FramePool pool = new FramePool();
        Set<ByteBuffer> held = Collections.newSetFromMap(new IdentityHashMap<>());
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
    void itKeepsAtMostItsBoundPerClass() {
        FramePool pool = new FramePool();
        int size = 4 << 20;
        ByteBuffer[] taken = new ByteBuffer[10];
        for (int i = 0; i < taken.length; i++) {
            taken[i] = pool.take(size);
        }
        for (ByteBuffer b : taken) {
            pool.give(b);
        }
        int kept = (int) (FramePool.KEEP_BYTES / size);
        Set<ByteBuffer> again = Collections.newSetFromMap(new IdentityHashMap<>());
        for (int i = 0; i < taken.length; i++) {
            again.add(pool.take(size));
        }
        long reused = again.stream().filter(b -> java.util.Arrays.stream(taken).anyMatch(t -> t == b)).count();
        assertThat(kept).isLessThan(taken.length);
        assertThat(reused).isEqualTo(kept);
    }

    @Test
    void aForeignBufferIsNotKeptAndABadLengthIsRefusedNamingIt() {
        FramePool pool = new FramePool();
        ByteBuffer odd = ByteBuffer.allocateDirect(100);
        ByteBuffer heap = ByteBuffer.allocate(128 + H);
        pool.give(odd);
        pool.give(heap);
        assertThat(pool.take(100)).isNotSameAs(odd).isNotSameAs(heap);
        assertThatThrownBy(() -> pool.take(-1)).hasMessageContaining("frame length -1");
        assertThatThrownBy(() -> pool.take(FramePool.MAX_LENGTH + 1)).hasMessageContaining("frame length");
    }
}
