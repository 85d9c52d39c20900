package org.railyard.transport.ring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.Random;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * {@link FrameRing} on its own: positions, wrap-around with a padding record, back pressure, and
 * the reader's defence against a ring a peer wrote over. Writer and reader are two objects over
 * one memory, as in two processes.
 */
class FrameRingTest {
    private static final long CAPACITY = 1024;
    private static final int MAX_FRAME = 256;
    private static final ValueLayout.OfInt INT = ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);
    private static final ValueLayout.OfLong LONG = ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);

    private final Arena arena = Arena.ofShared();
    private final MemorySegment memory = arena.allocate(FrameRing.bytesFor(CAPACITY), 4096);
    private final FrameRing writer = new FrameRing(memory, CAPACITY, MAX_FRAME);
    private final FrameRing reader = new FrameRing(memory, CAPACITY, MAX_FRAME);

    @AfterEach
    void free() {
        arena.close();
    }

    /** Writes a frame of {@code length} bytes: its length, then bytes {@code fill}; returns its offset. */
    private long write(int length, byte fill) {
        long off = writer.tryClaim(length);
        assertThat(off).as("room for a frame of " + length).isGreaterThanOrEqualTo(FrameRing.HEADER);
        memory.set(INT, off, length);
        memory.asSlice(off + 4, length - 4).fill(fill);
        writer.commit();
        return off;
    }

    /** Reads the next frame, checks it is {@code length} bytes of {@code fill}, and releases it. */
    private long read(int length, byte fill) {
        long off = reader.peek();
        assertThat(off).as("a frame waits").isGreaterThanOrEqualTo(FrameRing.HEADER);
        int len = memory.get(INT, off);
        assertThat(len).isEqualTo(length);
        assertThat(reader.plausible(len)).isTrue();
        for (int i = 4; i < len; i++) {
            assertThat(memory.get(ValueLayout.JAVA_BYTE, off + i)).as("byte " + i).isEqualTo(fill);
        }
        reader.release(len);
        return off;
    }

    @Test
    void aFrameThatWouldStraddleTheEndIsPrecededByPaddingAndWrittenAtTheStart() {
        for (int i = 0; i < 5; i++) {
            assertThat(write(200, (byte) i)).isEqualTo(FrameRing.HEADER + 200L * i);
            read(200, (byte) i);
        }
        // index 1000: 24 bytes to the end, too few for 200
        long off = write(200, (byte) 9);
        assertThat(off).as("written at the start of the data").isEqualTo(FrameRing.HEADER);
        assertThat(memory.get(INT, FrameRing.HEADER + 1000)).as("padding record").isEqualTo(-24);
        assertThat(memory.get(LONG, 0)).as("producer position counts the padding").isEqualTo(1000 + 24 + 200);
        assertThat(read(200, (byte) 9)).as("the reader skips the padding").isEqualTo(FrameRing.HEADER);
        assertThat(memory.get(LONG, 128)).as("consumer position").isEqualTo(1224);
        assertThat(reader.peek()).as("nothing more").isEqualTo(-1);
    }

    @Test
    void lengthsAreAlignedToEightBytes() {
        write(61, (byte) 1);
        assertThat(write(64, (byte) 2)).isEqualTo(FrameRing.HEADER + 64);
        read(61, (byte) 1);
        read(64, (byte) 2);
    }

    @Test
    void aFullRingRefusesAClaimUntilTheReaderReleases() {
        for (int i = 0; i < 4; i++) {
            write(256, (byte) i);
        }
        assertThat(writer.tryClaim(8)).as("full").isEqualTo(-1);
        read(256, (byte) 0);
        assertThat(writer.tryClaim(256)).as("room again").isEqualTo(FrameRing.HEADER);
    }

    @Test
    void theReaderIsToldToRingTheWriterOnlyAfterAClaimFoundTheRingFull() {
        write(256, (byte) 0);
        read(256, (byte) 0);
        assertThat(reader.roomWanted()).as("a writer that never lacked room sleeps for a frame, not for room").isFalse();
        for (int i = 1; i <= 4; i++) {
            write(256, (byte) i);
        }
        assertThat(writer.tryClaim(8)).as("full").isEqualTo(-1);
        read(256, (byte) 1);
        assertThat(reader.roomWanted()).as("the writer found the ring full").isTrue();
        read(256, (byte) 2);
        assertThat(reader.roomWanted()).as("told once per refused claim").isFalse();
    }

    @Test
    void aWrapThatNeedsMoreThanTheFreeRoomIsRefusedWithoutWritingPadding() {
        write(248, (byte) 0);
        write(256, (byte) 1);
        write(256, (byte) 2);
        write(200, (byte) 3);
        read(248, (byte) 0);
        // 64 bytes to the end + 256 at the start = 320 > 312 free
        assertThat(writer.tryClaim(256)).isEqualTo(-1);
        assertThat(memory.get(INT, FrameRing.HEADER + 960)).as("no padding written").isZero();
        read(256, (byte) 1);
        assertThat(writer.tryClaim(256)).isEqualTo(FrameRing.HEADER);
    }

    @Test
    void framesOfManySizesComeOutInOrderAndIntactOverManyWraps() {
        Random random = new Random(7);
        Deque<int[]> inFlight = new ArrayDeque<>();
        int written = 0;
        int readCount = 0;
        while (readCount < 2000) {
            if (written < 2000 && random.nextBoolean()) {
                int len = 8 + random.nextInt(MAX_FRAME - 7);
                long off = writer.tryClaim(len);
                if (off >= 0) {
                    memory.set(INT, off, len);
                    memory.asSlice(off + 4, len - 4).fill((byte) written);
                    writer.commit();
                    inFlight.add(new int[] {len, written++});
                    continue;
                }
            }
            if (!inFlight.isEmpty()) {
                int[] f = inFlight.poll();
                read(f[0], (byte) f[1]);
                readCount++;
            }
        }
        assertThat(memory.get(LONG, 0)).as("positions only grow, far past the capacity").isGreaterThan(100 * CAPACITY);
    }

    @Test
    void aWriterAndAReaderOnTwoThreadsPassEveryFrameWholeAndInOrder() throws Exception {
        // the reader takes a frame only once all of it is written: a position published before the
        // frame, or a wrap that reuses unread room, would show here as a torn or foreign frame
        int frames = 20_000;
        Thread producer = new Thread(() -> {
            Random random = new Random(3);
            for (int i = 0; i < frames; i++) {
                int len = 8 + 8 * random.nextInt(20);
                long off;
                long deadline = System.nanoTime() + 60_000_000_000L;
                while ((off = writer.tryClaim(len)) < 0) {
                    if (System.nanoTime() > deadline) {
                        throw new AssertionError("no room for frame " + i + " within 60 s");
                    }
                    Thread.yield(); // a loaded machine may run both threads on one processor
                }
                memory.set(INT, off + 4, i);
                for (int b = 8; b < len; b += 8) {
                    memory.set(LONG, off + b, ((long) i << 32) | b);
                }
                memory.set(INT, off, len);
                writer.commit();
            }
        });
        producer.start();
        Random random = new Random(3);
        long deadline = System.nanoTime() + 60_000_000_000L;
        for (int i = 0; i < frames; i++) {
            int expected = 8 + 8 * random.nextInt(20);
            long off;
            while ((off = reader.peek()) < 0) {
                assertThat(System.nanoTime()).as("frame " + i + " within 60 s").isLessThan(deadline);
                Thread.yield();
            }
            int len = memory.get(INT, off);
            assertThat(len).as("length of frame " + i).isEqualTo(expected);
            assertThat(reader.plausible(len)).isTrue();
            assertThat(memory.get(INT, off + 4)).as("number of frame " + i).isEqualTo(i);
            for (int b = 8; b < len; b += 8) {
                assertThat(memory.get(LONG, off + b)).as("frame " + i + " at " + b).isEqualTo(((long) i << 32) | b);
            }
            reader.release(len);
        }
        producer.join(60_000);
        assertThat(producer.isAlive()).isFalse();
        assertThat(reader.peek()).isEqualTo(-1);
    }

    @Test
    void aRingOverMemoryInUseContinuesFromItsPositions() {
        write(100, (byte) 5);
        FrameRing later = new FrameRing(memory, CAPACITY, MAX_FRAME);
        assertThat(later.peek()).isEqualTo(FrameRing.HEADER);
        assertThat(later.plausible(100)).isTrue();
    }

    @Test
    void paddingThatDoesNotRunToTheEndIsReportedAsAnImplausibleLength() {
        write(64, (byte) 1);
        memory.set(INT, FrameRing.HEADER, -40);
        long off = reader.peek();
        assertThat(off).as("the corrupt record is handed over, not skipped").isEqualTo(FrameRing.HEADER);
        assertThat(reader.plausible(memory.get(INT, off))).isFalse();
    }

    @Test
    void aLengthPastWhatWasPublishedOrPastTheEndIsImplausible() {
        write(64, (byte) 1);
        assertThat(reader.peek()).isEqualTo(FrameRing.HEADER);
        assertThat(reader.plausible(64)).isTrue();
        assertThat(reader.plausible(72)).as("more than was published").isFalse();
        assertThat(reader.plausible(0)).isFalse();
        assertThat(reader.plausible(MAX_FRAME + 1)).isFalse();
        // a frame published at index 1016 claiming 64 bytes would run off the end
        memory.set(LONG, 0, 1016 + 64);
        memory.set(LONG, 128, 1016);
        FrameRing atEnd = new FrameRing(memory, CAPACITY, MAX_FRAME);
        memory.set(INT, FrameRing.HEADER + 1016, 64);
        assertThat(atEnd.peek()).isEqualTo(FrameRing.HEADER + 1016);
        assertThat(atEnd.plausible(64)).isFalse();
        assertThat(atEnd.plausible(8)).isTrue();
    }

    @Test
    void badGeometryIsRefusedNamingTheValue() {
        assertThatThrownBy(() -> new FrameRing(memory, 1000, 64)).hasMessageContaining("1000")
                .hasMessageContaining("power of two");
        assertThatThrownBy(() -> new FrameRing(memory, CAPACITY, 512)).hasMessageContaining("512")
                .hasMessageContaining("capacity/4 = 256");
        assertThatThrownBy(() -> new FrameRing(memory, CAPACITY, 32)).hasMessageContaining("32");
    }
}
