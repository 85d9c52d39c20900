package org.railyard;

import static org.assertj.core.api.Assertions.assertThat;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.management.ManagementFactory;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.railyard.engine.rma.Rma;

/**
 * Puts of every size, across the inline bound and past it, with accumulates and gets between them
 * to the same places, over the real tcp transport and without a flush between them: the target
 * applies one origin's operations in the order it issued them, whether a record is applied straight
 * from its batch, waits in the queue behind an operation whose data travels apart, or carries a
 * result. And a window of 1 KiB puts costs the job (origin and target together) no copy of the
 * data on the heap per put.
 */
class WindowBatchedDataTest {
    private static final ValueLayout.OfInt INT = ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);

    /** A get issued in an epoch: where, how long, and what the window held then by the model. */
    private record Got(byte[] into, byte[] expected, int at) {
    }

    /**
     * Rank 1 issues, in exclusive lock epochs of 150 operations to rank 0 with no flush inside,
     * puts of 1 byte to 12 KiB at any byte of a 24 KiB window (a third of them between 257 bytes and
     * 8 KiB, the old bound and the new one; some past the new one, whose data travels apart), SUM
     * and REPLACE accumulates of 1 to 300 ints on the same bytes, and gets of up to 2 KiB; a model
     * applies each in issue order (rank 0 draws the same operations to build its own). Each get
     * returns what the model held when it was issued, and rank 0's memory at the end is the model's.
     * The waits are bounded by a short {@value Rma#TIMEOUT_PROP}, so a failed rank ends the job.
     */
    @Test
    void mixedSizesAccumulatesAndGetsTakeEffectInIssueOrder() throws Exception {
        int bytes = 24 * 1024;
        System.setProperty(Rma.TIMEOUT_PROP, "120");
        try {
            WorldJob.run(2, "tcp", (w, me) -> {
                try (Window win = Window.allocate(w, bytes, 1)) {
                    win.fence();
                    byte[] model = new byte[bytes];
                    issue(me == 1 ? win : null, model, bytes);
                    win.fence();
                    if (me == 0) {
                        byte[] held = new byte[bytes];
                        MemorySegment.copy(win.memory(), ValueLayout.JAVA_BYTE, 0, held, 0, bytes);
                        int at = java.util.Arrays.mismatch(held, model);
                        assertThat(at).as("first byte that differs (" + (at < 0 ? "" : held[at] + " held, " + model[at]
                                + " in the model") + ")").isEqualTo(-1);
                    }
                }
            });
        } finally {
            System.clearProperty(Rma.TIMEOUT_PROP);
        }
    }

    /** The operations of the test above, applied to {@code model}, and issued to rank 0 of {@code win} unless null. */
    private static void issue(Window win, byte[] model, int bytes) {
        MemorySegment m = MemorySegment.ofArray(model);
        Random rnd = new Random(27);
        for (int epoch = 0; epoch < 12; epoch++) {
            List<Got> gets = new ArrayList<>();
            if (win != null) {
                win.lock(Window.LOCK_EXCLUSIVE, 0);
            }
            for (int op = 0; op < 150; op++) {
                int pick = rnd.nextInt(10);
                if (pick < 3) {
                    int ints = 1 + rnd.nextInt(300);
                    int at = rnd.nextInt((bytes - 4 * ints) / 4 + 1) * 4;
                    int[] v = new int[ints];
                    for (int i = 0; i < ints; i++) {
                        v[i] = rnd.nextInt();
                    }
                    boolean replace = pick == 0;
                    if (win != null) {
                        win.accumulate(v, 0, ints, 0, at, replace ? Op.REPLACE : Op.SUM);
                    }
                    for (int i = 0; i < ints; i++) {
                        int was = m.get(INT, at + 4L * i);
                        m.set(INT, at + 4L * i, replace ? v[i] : was + v[i]);
                    }
                } else if (pick == 3) {
                    int len = 1 + rnd.nextInt(2048);
                    int at = rnd.nextInt(bytes - len + 1);
                    byte[] into = new byte[len];
                    if (win != null) {
                        win.get(into, 0, len, 0, at);
                    }
                    gets.add(new Got(into, java.util.Arrays.copyOfRange(model, at, at + len), at));
                } else {
                    int len = switch (pick) {
                        case 4, 5 -> 1 + rnd.nextInt(256);
                        case 9 -> 8193 + rnd.nextInt(12 * 1024 - 8192);
                        default -> 257 + rnd.nextInt(8192 - 256);
                    };
                    int at = rnd.nextInt(bytes - len + 1);
                    byte[] data = new byte[len + 5];
                    rnd.nextBytes(data);
                    if (win != null) {
                        win.put(data, 5, len, 0, at);
                    }
                    System.arraycopy(data, 5, model, at, len);
                }
            }
            if (win != null) {
                win.unlock(0);
                for (Got g : gets) {
                    int diff = java.util.Arrays.mismatch(g.into(), g.expected());
                    assertThat(diff).as("epoch %d: first byte that differs in a get of %d bytes at %d", epoch,
                            g.into().length, g.at()).isEqualTo(-1);
                }
            }
        }
    }

    /**
     * The bandwidth benchmark's pattern at 1 KiB: puts in windows of 64, each window flushed. Once
     * warm, all threads of the job together (the origin, the target and their progress) allocate
     * under 256 bytes per put: the data travels in the origin's batch buffers and is applied from
     * the target's receive buffer. A put with a data message of its own, applied from a copy at
     * the target, allocated more than its kilobyte.
     */
    @Test
    void kibPutsCostNoHeapCopyPerPutOnceWarm() throws Exception {
        com.sun.management.ThreadMXBean mx = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
        long[] total = new long[2];
        WorldJob.run(2, "tcp", (w, me) -> {
            int len = 1024;
            try (Window win = Window.allocate(w, 64 * len, 1)) {
                byte[] data = new byte[64 * len];
                int warm = 1500;
                int timed = 1500;
                for (int phase = 0; phase < 2; phase++) {
                    win.fence(); // both ranks are here: the other rank's allocation is its idle progress only
                    if (me == 1) {
                        if (phase == 1) {
                            total[0] = mx.getTotalThreadAllocatedBytes();
                        }
                        win.lock(Window.LOCK_SHARED, 0);
                        for (int i = 0; i < (phase == 0 ? warm : timed); i++) {
                            for (int j = 0; j < 64; j++) {
                                win.put(data, j * len, len, 0, (long) j * len);
                            }
                            win.flush(0);
                        }
                        win.unlock(0);
                        if (phase == 1) {
                            total[1] = mx.getTotalThreadAllocatedBytes();
                        }
                    }
                }
                win.fence();
                if (me == 1) {
                    double perPut = (total[1] - total[0]) / (64.0 * timed);
                    assertThat(perPut).as("bytes allocated by the job per 1 KiB put").isLessThan(256);
                }
            }
        });
    }
}
