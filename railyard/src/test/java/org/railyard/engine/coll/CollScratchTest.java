package org.railyard.engine.coll;

import org.railyard.types.Reduction;

import static org.assertj.core.api.Assertions.assertThat;

import java.lang.management.ManagementFactory;
import org.junit.jupiter.api.Test;
import org.railyard.engine.EngineJob;
import org.railyard.types.Kind;
import org.railyard.engine.comm.CommState;

/**
 * A large collective called in a loop keeps its intermediate buffers ({@code railyard.coll.scratch.keep}),
 * even when collectives of other kinds and sizes borrow its pooled schedule in between.
 */
class CollScratchTest {
    private static final int COUNT = 128 * 1024; // 1 MiB of doubles: Rabenseifner's scratch is that large

    private static long allocated() {
        return ((com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean()).getCurrentThreadAllocatedBytes();
    }

    @Test
    void aRepeatedLargeAllreduceAllocatesNoNewScratchBuffer() throws Exception {
        EngineJob.run(2, "shm", e -> {
            CollExpect.force(e, "allreduce", "rabenseifner");
            CommState w = e.world();
            double[] in = new double[COUNT];
            double[] out = new double[COUNT];
            long[] small = {e.rank()};
            long[] smallOut = new long[1];
            for (int i = 0; i < COUNT; i++) {
                in[i] = e.rank() + i;
            }
            long[] perCall = new long[4];
            for (int call = 0; call < perCall.length; call++) {
                long before = allocated();
                e.collectives().allreduce(w, in, 0, out, 0, COUNT, Kind.DOUBLE, Reduction.SUM);
                perCall[call] = allocated() - before;
                // another collective in between, of another kind and size, on the same pool
                e.collectives().allreduce(w, small, 0, smallOut, 0, 1, Kind.LONG, Reduction.SUM);
                assertThat(smallOut[0]).isEqualTo(1);
                for (int i = 0; i < COUNT; i += 4099) {
                    assertThat(out[i]).isEqualTo(1 + 2.0 * i);
                }
            }
            // the first call allocates its buffer of COUNT doubles; the later ones reuse it
            assertThat(perCall[0]).as("first call").isGreaterThanOrEqualTo((long) COUNT * Double.BYTES / 2);
            for (int call = 1; call < perCall.length; call++) {
                assertThat(perCall[call]).as("call %d allocated %d bytes", call, perCall[call])
                        .isLessThan((long) COUNT * Double.BYTES / 8);
            }
        });
    }
}
