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
        for (int i = 0; i < 4; i++) {
            // a record: its word, four unused bytes, the frame
            assertThat(write(200, (byte) i)).isEqualTo(FrameRing.HEADER + 208L * i + FrameRing.RECORD);
            read(200, (byte) i);
        }
        // index 832: 192 bytes to the end, too few for a record of 208
        long off = write(200, (byte) 9);
        assertThat(off).as("written at the start of the data").isEqualTo(FrameRing.HEADER + FrameRing.RECORD);
        assertThat(memory.get(INT, FrameRing.HEADER + 832)).as("padding record").isEqualTo(-192);
        assertThat(memory.get(INT, FrameRing.HEADER)).as("the frame's record").isEqualTo(200);
        assertThat(memory.get(LONG, 0)).as("producer position counts the padding").isEqualTo(832 + 192 + 208);
        assertThat(read(200, (byte) 9)).as("the reader skips the padding").isEqualTo(FrameRing.HEADER + FrameRing.RECORD);
        assertThat(memory.get(LONG, 128)).as("consumer position").isEqualTo(1232);
        assertThat(reader.peek()).as("nothing more").isEqualTo(-1);
    }

    @Test
    void lengthsAreAlignedToEightBytes() {
        write(61, (byte) 1);
        assertThat(write(64, (byte) 2)).isEqualTo(FrameRing.HEADER + 72 + FrameRing.RECORD);
        read(61, (byte) 1);
        read(64, (byte) 2);
    }

    @Test
    void aFullRingRefusesAClaimUntilTheReaderReleases() {
        for (int i = 0; i < 3; i++) {
            write(248, (byte) i);
        }
        assertThat(writer.tryClaim(248)).as("full: a record of 256 and the zero word after it need 264 of the 256 free")
                .isEqualTo(-1);
        assertThat(writer.tryClaim(240)).as("a record of 248 and the zero word fit").isEqualTo(FrameRing.HEADER + 768 + 8);
        read(248, (byte) 0);
        assertThat(writer.tryClaim(248)).as("room again").isEqualTo(FrameRing.HEADER + 768 + 8);
    }

    @Test
    void theReaderIsToldToRingTheWriterOnlyAfterAClaimFoundTheRingFull() {
        write(248, (byte) 0);
        read(248, (byte) 0);
        assertThat(reader.roomWanted()).as("a writer that never lacked room sleeps for a frame, not for room").isFalse();
        for (int i = 1; i <= 3; i++) {
            write(248, (byte) i);
        }
        assertThat(writer.tryClaim(248)).as("full").isEqualTo(-1);
        read(248, (byte) 1);
        assertThat(reader.roomWanted()).as("the writer found the ring full").isTrue();
        read(248, (byte) 2);
        assertThat(reader.roomWanted()).as("told once per refused claim").isFalse();
    }

    @Test
    void aWrapThatNeedsMoreThanTheFreeRoomIsRefusedWithoutWritingPadding() {
        write(240, (byte) 0);
        write(248, (byte) 1);
        write(248, (byte) 2);
        write(192, (byte) 3);
        read(240, (byte) 0);
        // 64 bytes to the end + 256 at the start + the zero word = 328 > 312 free
        assertThat(writer.tryClaim(248)).isEqualTo(-1);
        assertThat(memory.get(INT, FrameRing.HEADER + 960)).as("no padding written").isZero();
        read(248, (byte) 1);
        assertThat(writer.tryClaim(248)).isEqualTo(FrameRing.HEADER + FrameRing.RECORD);
    }

    @Test
    void aClaimedFrameIsUnseenUntilItsCommit() {
        long off = writer.tryClaim(64);
        memory.set(INT, off, 64);
        memory.asSlice(off + 4, 60).fill((byte) 3);
        assertThat(reader.peek()).as("written, not committed").isEqualTo(-1);
        assertThat(reader.hasData()).isFalse();
        writer.commit();
        assertThat(reader.hasData()).isTrue();
        read(64, (byte) 3);
        assertThat(reader.hasData()).isFalse();
    }

    @Test
    void bytesOfAnEarlierLapAreNeverTakenForARecord() {
        // every byte of the data non-zero, as old frames leave it, but the word at both positions
        memory.asSlice(FrameRing.HEADER, CAPACITY).fill((byte) 0x11);
        memory.set(LONG, FrameRing.HEADER, 0L);
        Random random = new Random(11);
        for (int i = 0; i < 500; i++) {
            int len = 8 + random.nextInt(MAX_FRAME - 7);
            write(len, (byte) i);
            assertThat(read(len, (byte) i)).isPositive();
            assertThat(reader.peek()).as("after frame " + i + " the next record's word is zero").isEqualTo(-1);
        }
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
        // the reader trusts a record word only once the frame under it is written: a word seen
        // early, or the bytes of an earlier lap, would show here as a torn or foreign frame
        int frames = 50_000;
        Thread producer = new Thread(() -> {
            Random random = new Random(3);
            for (int i = 0; i < frames; i++) {
                int len = 8 + 8 * random.nextInt(20);
                long off;
                long deadline = System.nanoTime() + 10_000_000_000L;
                while ((off = writer.tryClaim(len)) < 0) {
                    if (System.nanoTime() > deadline) {
                        throw new AssertionError("no room for frame " + i + " within 10 s");
                    }
                    Thread.onSpinWait();
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
        long deadline = System.nanoTime() + 30_000_000_000L;
        for (int i = 0; i < frames; i++) {
            int expected = 8 + 8 * random.nextInt(20);
            long off;
            while ((off = reader.peek()) < 0) {
                assertThat(System.nanoTime()).as("frame " + i + " within 30 s").isLessThan(deadline);
                Thread.onSpinWait();
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
        producer.join(10_000);
        assertThat(producer.isAlive()).isFalse();
        assertThat(reader.peek()).isEqualTo(-1);
    }

    @Test
    void aRingOverMemoryInUseContinuesFromItsPositions() {
        write(100, (byte) 5);
        FrameRing later = new FrameRing(memory, CAPACITY, MAX_FRAME);
        assertThat(later.peek()).isEqualTo(FrameRing.HEADER + FrameRing.RECORD);
        assertThat(later.plausible(100)).isTrue();
    }

    @Test
    void paddingThatDoesNotRunToTheEndIsReportedAsAnImplausibleLength() {
        write(64, (byte) 1);
        memory.set(INT, FrameRing.HEADER, -40);
        long off = reader.peek();
        assertThat(off).as("the corrupt record is handed over, not skipped").isEqualTo(FrameRing.HEADER);
        assertThat(reader.plausible(memory.get(INT, off))).isFalse();
        // padding that claims the whole ring from its start would send the reader round forever
        memory.set(INT, FrameRing.HEADER, (int) -CAPACITY);
        assertThat(reader.peek()).isEqualTo(FrameRing.HEADER);
        assertThat(reader.plausible(64)).isFalse();
    }

    @Test
    void aLengthOtherThanItsRecordsOrPastTheEndIsImplausible() {
        write(64, (byte) 1);
        assertThat(reader.peek()).isEqualTo(FrameRing.HEADER + FrameRing.RECORD);
        assertThat(reader.plausible(64)).isTrue();
        assertThat(reader.plausible(72)).as("not the length its record announced").isFalse();
        assertThat(reader.plausible(0)).isFalse();
        assertThat(reader.plausible(MAX_FRAME + 1)).isFalse();
        // a record at index 1000 announcing 64 bytes would run off the end
        memory.set(LONG, 0, 1000 + 80);
        memory.set(LONG, 128, 1000);
        FrameRing atEnd = new FrameRing(memory, CAPACITY, MAX_FRAME);
        memory.set(INT, FrameRing.HEADER + 1000, 64);
        assertThat(atEnd.peek()).isEqualTo(FrameRing.HEADER + 1008);
        assertThat(atEnd.plausible(64)).isFalse();
        memory.set(INT, FrameRing.HEADER + 1000, 16);
        assertThat(atEnd.peek()).isEqualTo(FrameRing.HEADER + 1008);
        assertThat(atEnd.plausible(16)).isTrue();
        // a record in the last 8 bytes has no room for any frame: handed over at its word
        memory.set(LONG, 128, 1016);
        FrameRing last = new FrameRing(memory, CAPACITY, MAX_FRAME);
        memory.set(INT, FrameRing.HEADER + 1016, 8);
        assertThat(last.peek()).isEqualTo(FrameRing.HEADER + 1016);
        assertThat(last.plausible(8)).isFalse();
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
