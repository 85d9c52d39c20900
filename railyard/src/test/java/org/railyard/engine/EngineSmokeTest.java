package org.railyard.engine;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class EngineSmokeTest {
    private static final Kind B = Kind.BYTE;

    static final class St implements StatusSink {
        int source, tag;
        long bytes;

        @Override
        public void setStatus(int source, int tag, long bytes, int elementSize) {
            this.source = source;
            this.tag = tag;
            this.bytes = bytes;
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"shm", "tcp"})
    void pingPongSmallAndLarge(String transport) throws Exception {
        InMemoryJob.run(2, transport, e -> {
            CommState w = e.world();
            for (int size : new int[] {0, 1, 8, 1000, 70_000, 1 << 20, 3_000_001}) {
                byte[] buf = new byte[size];
                St st = new St();
                if (e.rank() == 0) {
                    for (int i = 0; i < size; i++) {
                        buf[i] = (byte) (i * 31 + 7);
                    }
                    e.send(w, buf, B, 0, size, 1, 5, Engine.MODE_STANDARD);
                    byte[] back = new byte[size];
                    e.recv(w, back, B, 0, size, 1, 6, st);
                    assertThat(back).isEqualTo(buf);
                } else {
                    e.recv(w, buf, B, 0, size, 0, 5, st);
                    assertThat(st.bytes).isEqualTo(size);
                    assertThat(st.source).isEqualTo(0);
                    e.send(w, buf, B, 0, size, 0, 6, Engine.MODE_STANDARD);
                }
            }
            e.barrier(w);
            double[] v = {e.rank() + 1.0};
            double[] r = new double[1];
            e.allreduce(w, v, 0, r, 0, 1, Kind.DOUBLE, Reduction.SUM);
            assertThat(r[0]).isEqualTo(3.0);
        });
    }
}
