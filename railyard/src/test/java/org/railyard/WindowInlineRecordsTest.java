package org.railyard;

import static org.assertj.core.api.Assertions.assertThat;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.management.ManagementFactory;
import java.nio.ByteOrder;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * Small puts and accumulates to a remote target are written straight into the target's batch as
 * records (header and inline data), over the real tcp transport: every size up to the inline
 * bound, at any displacement, in batches whose buffers are reused, lands as issued; and an origin
 * issuing 8-byte puts in windows of 64 allocates no header or copy per put.
 */
class WindowInlineRecordsTest {
    private static final ValueLayout.OfInt INT = ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);

    /**
     * Rank 1 puts byte runs of 1 to 256 bytes (the inline bound) and 257 (past it) at random places
     * of the first 3 KiB of rank 0's window, and SUM-accumulates ints at random places of the last
     * KiB (MPI leaves a put and an accumulate to one place in one epoch undefined; a put past the
     * bound, whose data travels apart, is flushed before and after), in lock epochs
     * of a few hundred operations (batches fill, leave, and their buffers come back); rank 0 then
     * holds exactly what rank 1's model of the window holds.
     */
    @Test
    void recordsOfEverySizeLandAsIssuedAcrossReusedBatches() throws Exception {
        int bytes = 4096;
        int puts = 3072;
        WorldJob.run(2, "tcp", (w, me) -> {
            try (Window win = Window.allocate(w, bytes, 1)) {
                win.fence();
                byte[] model = new byte[bytes];
                if (me == 1) {
                    MemorySegment m = MemorySegment.ofArray(model);
                    Random rnd = new Random(24);
                    for (int epoch = 0; epoch < 20; epoch++) {
                        win.lock(Window.LOCK_EXCLUSIVE, 0);
                        for (int op = 0; op < 300; op++) {
                            if (rnd.nextInt(3) == 0) {
                                int at = puts + rnd.nextInt((bytes - puts) / 4) * 4;
                                int v = rnd.nextInt();
                                win.accumulate(new int[] {v}, 0, 1, 0, at, Op.SUM);
                                m.set(INT, at, m.get(INT, at) + v);
                            } else {
                                int len = op % 50 == 0 ? 257 : 1 + rnd.nextInt(256);
                                int at = rnd.nextInt(puts - len + 1);
                                byte[] data = new byte[len + 3];
                                rnd.nextBytes(data);
                                if (len > 256) { // its data travels apart: MPI orders overlapping puts only by a flush
                                    win.flush(0);
                                }
                                win.put(data, 3, len, 0, at);
                                if (len > 256) {
                                    win.flush(0);
                                }
                                System.arraycopy(data, 3, model, at, len);
                            }
                        }
                        win.unlock(0);
                    }
                    w.send(model, 0, bytes, 0, 7);
                } else {
                    w.recv(model, 0, bytes, 1, 7);
                }
                win.fence();
                if (me == 0) {
                    byte[] held = new byte[bytes];
                    MemorySegment.copy(win.memory(), ValueLayout.JAVA_BYTE, 0, held, 0, bytes);
                    int at = java.util.Arrays.mismatch(held, model);
                    assertThat(at).as("first byte that differs (" + (at < 0 ? "" : held[at] + " held, " + model[at] + " put") + ")")
                            .isEqualTo(-1);
                }
            }
        });
    }

    /**
     * The bandwidth benchmark's pattern: 8-byte puts in windows of 64, each window flushed. Once
     * warm, the origin's thread allocates under 16 bytes per put (a header array, an access record,
     * a capture and a copy per put were about 250 bytes); what remains is per batch, not per put.
     */
    @Test
    void eightBytePutsAllocateNothingPerPutOnceWarm() throws Exception {
        WorldJob.run(2, "tcp", (w, me) -> {
            try (Window win = Window.allocate(w, 64 * 8, 1)) {
                win.fence();
                double perPut = Double.NaN;
                if (me == 1) {
                    byte[] data = new byte[64 * 8];
                    win.lock(Window.LOCK_SHARED, 0);
                    com.sun.management.ThreadMXBean mx =
                            (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
                    long start = 0;
                    int warm = 2000;
                    int timed = 2000;
                    for (int i = 0; i < warm + timed; i++) {
                        if (i == warm) {
                            start = mx.getCurrentThreadAllocatedBytes();
                        }
                        for (int j = 0; j < 64; j++) {
                            win.put(data, j * 8, 8, 0, j * 8L);
                        }
                        win.flush(0);
                    }
                    perPut = (mx.getCurrentThreadAllocatedBytes() - start) / (64.0 * timed);
                    win.unlock(0);
                }
                win.fence();
                if (me == 1) {
                    assertThat(perPut).as("bytes allocated per 8-byte put").isLessThan(16);
                }
            }
        });
    }
}
