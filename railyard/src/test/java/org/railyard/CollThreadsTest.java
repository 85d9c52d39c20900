package org.railyard;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.railyard.engine.EngineJob;

/**
 * MPI_THREAD_MULTIPLE as {@link Railyard} documents it: four threads per process at once, two
 * exchanging on the world with their own tags, two on communicators of their own (one of them
 * also running collectives there), every message checked.
 */
class CollThreadsTest {
    @ParameterizedTest
    @ValueSource(strings = {"shm", "tcp"})
    void fourThreadsDoConcurrentPointToPointOnSeparateTagsAndCommunicators(String transport) throws Exception {
        EngineJob.run(2, transport, e -> {
            Comm world = new Comm(e, e.world());
            Comm[] own = {world.dup(), world.dup()};
            int me = world.rank();
            int other = 1 - me;
            ExecutorService pool = Executors.newFixedThreadPool(4);
            try {
                List<Future<?>> fs = new ArrayList<>();
                for (int t = 0; t < 4; t++) {
                    int thread = t;
                    Comm comm = t < 2 ? world : own[t - 2];
                    int tag = 10 + t;
                    fs.add(pool.submit(() -> {
                        for (int i = 0; i < 300; i++) {
                            int len = i % 50 == 0 ? 40_000 : 1 + i % 7;
                            long[] out = new long[len];
                            out[0] = me * 1_000_000L + thread * 1000L + i;
                            if (len > 1) {
                                out[len - 1] = -out[0];
                            }
                            long[] in = new long[len];
                            Status st = comm.sendrecv(out, 0, len, other, tag, in, 0, len, other, tag);
                            long expect = other * 1_000_000L + thread * 1000L + i;
                            assertThat(st.tag()).isEqualTo(tag);
                            assertThat(in[0]).isEqualTo(expect);
                            assertThat(in[len - 1]).isEqualTo(len == 1 ? expect : -expect);
                            if (thread == 3 && i % 20 == 0) {
                                // collectives on a communicator only this thread uses
                                assertThat(comm.allreduce((long) i + me, Op.SUM)).isEqualTo(2L * i + 1);
                            }
                            Request r = comm.irecv(in, 0, 1, other, tag + 100);
                            comm.send(out, 0, 1, other, tag + 100);
                            assertThat(r.await().source()).isEqualTo(other);
                            assertThat(in[0]).isEqualTo(expect);
                        }
                        return null;
                    }));
                }
                for (Future<?> f : fs) {
                    f.get(120, TimeUnit.SECONDS);
                }
            } finally {
                pool.shutdownNow();
            }
            world.barrier();
        });
    }
}
