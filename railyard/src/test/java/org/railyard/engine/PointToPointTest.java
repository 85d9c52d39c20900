package org.railyard.engine;

import org.railyard.engine.request.StatusSink;
import org.railyard.engine.request.Transfer;
import org.railyard.types.Kind;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.railyard.types.Reduction;
import org.railyard.error.ErrorClass;
import org.railyard.error.RailyardException;

/**
 * MPI point-to-point semantics, on engines that talk over real shared memory and real loopback
 * sockets (several engines in one JVM; the multi-process suite in railyard-tests repeats the
 * essentials across processes).
 */
class PointToPointTest {
    private static final int STD = Engine.MODE_STANDARD;

    static final class St implements StatusSink {
        int source = -99, tag = -99;
        long bytes = -1;

        @Override
        public void setStatus(int source, int tag, long bytes, int elementSize) {
            this.source = source;
            this.tag = tag;
            this.bytes = bytes;
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"shm", "tcp"})
    void messagesFromOneSenderArriveInSendOrderAcrossEagerAndRendezvous(String tr) throws Exception {
        InMemoryJob.run(2, tr, (e, w) -> {
            int n = 120;
            if (e.rank() == 0) {
                List<Transfer> ts = new ArrayList<>();
                for (int i = 0; i < n; i++) {
                    int len = i % 7 == 0 ? 200_000 : 1 + i;
                    int[] data = new int[len];
                    data[0] = i;
                    data[len - 1] = -i;
                    ts.add(e.isend(w, data, Kind.INT, 0, len, 1, i % 5, STD));
                }
                for (Transfer t : ts) {
                    e.await(t);
                }
            } else {
                for (int i = 0; i < n; i++) {
                    int[] data = new int[200_000];
                    St st = new St();
                    e.recv(w, data, Kind.INT, 0, data.length, 0, Engine.ANY_TAG, st);
                    int len = i % 7 == 0 ? 200_000 : 1 + i;
                    assertThat(st.tag).isEqualTo(i % 5);
                    assertThat(st.bytes).isEqualTo(4L * len);
                    assertThat(data[0]).isEqualTo(i);
                    assertThat(data[len - 1]).isEqualTo(len == 1 ? i : -i);
                }
            }
        });
    }

    @ParameterizedTest
    @ValueSource(strings = {"shm", "tcp"})
    void anySourceAndAnyTagReportTheRealSenderAndTag(String tr) throws Exception {
        InMemoryJob.run(4, tr, (e, w) -> {
            if (e.rank() == 0) {
                boolean[] seen = new boolean[4];
                for (int i = 0; i < 3; i++) {
                    long[] v = new long[1];
                    St st = new St();
                    e.recv(w, v, Kind.LONG, 0, 1, Engine.ANY_SOURCE, Engine.ANY_TAG, st);
                    assertThat(st.tag).isEqualTo(100 + st.source);
                    assertThat(v[0]).isEqualTo(st.source * 1000L);
                    seen[st.source] = true;
                }
                assertThat(seen).containsExactly(false, true, true, true);
            } else {
                e.send(w, new long[] {e.rank() * 1000L}, Kind.LONG, 0, 1, 0, 100 + e.rank(), STD);
            }
        });
    }

    @ParameterizedTest
    @ValueSource(strings = {"shm", "tcp"})
    void aTooLongMessageFailsTheReceiveWithTruncateAndTheChannelStaysUsable(String tr) throws Exception {
        InMemoryJob.run(2, tr, (e, w) -> {
            if (e.rank() == 0) {
                e.send(w, new byte[100], Kind.BYTE, 0, 100, 1, 1, STD);
                e.send(w, new byte[300_000], Kind.BYTE, 0, 300_000, 1, 2, STD);
                e.send(w, new byte[] {42}, Kind.BYTE, 0, 1, 1, 3, STD);
            } else {
                St st = new St();
                assertThatThrownBy(() -> e.recv(w, new byte[50], Kind.BYTE, 0, 50, 0, 1, st))
                        .isInstanceOf(RailyardException.class)
                        .hasMessageContaining("message of 100 bytes from rank 0 tag 1")
                        .hasMessageContaining("holds 50 bytes")
                        .extracting(x -> ((RailyardException) x).errorClass()).isEqualTo(ErrorClass.TRUNCATE);
                byte[] mid = new byte[1000];
                assertThatThrownBy(() -> e.recv(w, mid, Kind.BYTE, 0, 1000, 0, 2, st))
                        .hasMessageContaining("message of 300000 bytes");
                byte[] last = new byte[1];
                e.recv(w, last, Kind.BYTE, 0, 1, 0, 3, st);
                assertThat(last[0]).isEqualTo((byte) 42);
            }
        });
    }

    @ParameterizedTest
    @ValueSource(strings = {"shm", "tcp"})
    void sizesAroundTheEagerLimitAndTypedBuffersWithOffsetsArriveIntact(String tr) throws Exception {
        InMemoryJob.run(2, tr, (e, w) -> {
            long limit = e.eagerLimit();
            long[] sizes = {0, 1, limit / 8 - 1, limit / 8, limit / 8 + 1, 3 * limit / 8 + 5, 1 << 20};
            for (long s : sizes) {
                int n = (int) s;
                double[] a = new double[n + 3];
                if (e.rank() == 0) {
                    for (int i = 0; i < a.length; i++) {
                        a[i] = i * 0.5 - 7;
                    }
                    e.send(w, a, Kind.DOUBLE, 3, n, 1, 9, STD);
                } else {
                    St st = new St();
                    e.recv(w, a, Kind.DOUBLE, 2, n + 1, 0, 9, st);
                    assertThat(st.bytes).isEqualTo(8L * n);
                    for (int i = 0; i < n; i++) {
                        assertThat(a[2 + i]).isEqualTo((3 + i) * 0.5 - 7);
                    }
                }
            }
            // byte buffers (direct and heap) carry the same bytes
            ByteBuffer bb = ByteBuffer.allocateDirect(200_000);
            if (e.rank() == 0) {
                for (int i = 0; i < bb.capacity(); i++) {
                    bb.put(i, (byte) i);
                }
                e.send(w, bb, Kind.BYTE, 0, bb.capacity(), 1, 10, STD);
            } else {
                ByteBuffer in = ByteBuffer.allocate(200_000);
                e.recv(w, in, Kind.BYTE, 0, in.capacity(), 0, 10, new St());
                for (int i = 0; i < in.capacity(); i += 997) {
                    assertThat(in.get(i)).isEqualTo((byte) i);
                }
            }
        });
    }

    @ParameterizedTest
    @ValueSource(strings = {"shm", "tcp"})
    void aSynchronousSendCompletesOnlyAfterTheReceiveMatches(String tr) throws Exception {
        InMemoryJob.run(2, tr, (e, w) -> {
            byte[] one = new byte[8];
            if (e.rank() == 0) {
                Transfer s = e.isend(w, one, Kind.BYTE, 0, 8, 1, 1, Engine.MODE_SYNC);
                // ping/pong on another tag: the pong proves rank 1 has the envelope of the
                // synchronous send (same channel, earlier in order) and has not matched it
                e.send(w, one, Kind.BYTE, 0, 1, 1, 2, STD);
                e.recv(w, one, Kind.BYTE, 0, 1, 1, 3, new St());
                assertThat(e.test(s)).isFalse();
                e.send(w, one, Kind.BYTE, 0, 1, 1, 4, STD);
                e.await(s);
            } else {
                e.recv(w, one, Kind.BYTE, 0, 1, 0, 2, new St());
                e.send(w, one, Kind.BYTE, 0, 1, 0, 3, STD);
                e.recv(w, one, Kind.BYTE, 0, 1, 0, 4, new St());
                e.recv(w, one, Kind.BYTE, 0, 8, 0, 1, new St());
            }
        });
    }

    @ParameterizedTest
    @ValueSource(strings = {"shm", "tcp"})
    void manyOutstandingRequestsInBothDirectionsComplete(String tr) throws Exception {
        InMemoryJob.run(2, tr, (e, w) -> {
            int n = 1000;
            int peer = 1 - e.rank();
            List<Transfer> recvs = new ArrayList<>();
            int[][] in = new int[n][];
            for (int i = n - 1; i >= 0; i--) {
                in[i] = new int[1 + (i % 3 == 0 ? 30_000 : i)];
                recvs.add(e.irecv(w, in[i], Kind.INT, 0, in[i].length, peer, i));
            }
            List<Transfer> sends = new ArrayList<>();
            for (int i = 0; i < n; i++) {
                int[] out = new int[1 + (i % 3 == 0 ? 30_000 : i)];
                out[out.length - 1] = i * 10 + e.rank();
                sends.add(e.isend(w, out, Kind.INT, 0, out.length, peer, i, STD));
            }
            for (Transfer t : sends) {
                e.await(t);
            }
            for (Transfer t : recvs) {
                e.await(t);
            }
            for (int i = 0; i < n; i++) {
                assertThat(in[i][in[i].length - 1]).isEqualTo(i * 10 + peer);
            }
        });
    }

    @ParameterizedTest
    @ValueSource(strings = {"shm", "tcp"})
    void probeDescribesAMessageWithoutReceivingIt(String tr) throws Exception {
        InMemoryJob.run(2, tr, (e, w) -> {
            if (e.rank() == 0) {
                e.send(w, new short[77], Kind.SHORT, 0, 77, 1, 5, STD);
                e.send(w, new byte[500_000], Kind.BYTE, 0, 500_000, 1, 6, STD);
            } else {
                St st = new St();
                assertThat(e.iprobe(w, 0, 7, st)).isFalse();
                e.probe(w, 0, 5, st);
                assertThat(st.bytes).isEqualTo(154);
                e.probe(w, Engine.ANY_SOURCE, 6, st);
                assertThat(st.bytes).isEqualTo(500_000);
                assertThat(st.source).isEqualTo(0);
                e.recv(w, new short[77], Kind.SHORT, 0, 77, 0, 5, new St());
                e.recv(w, new byte[500_000], Kind.BYTE, 0, 500_000, 0, 6, new St());
            }
        });
    }

    @ParameterizedTest
    @ValueSource(strings = {"shm", "tcp"})
    void aCancelledReceiveNeverMatchesAndTheMessageGoesToTheNextReceive(String tr) throws Exception {
        InMemoryJob.run(2, tr, (e, w) -> {
            if (e.rank() == 1) {
                int[] a = new int[1];
                Transfer t = e.irecv(w, a, Kind.INT, 0, 1, 0, 1);
                assertThat(e.cancel(t)).isTrue();
                assertThat(t.isCancelled()).isTrue();
                e.send(w, a, Kind.INT, 0, 1, 0, 2, STD);
                int[] b = new int[1];
                e.recv(w, b, Kind.INT, 0, 1, 0, 1, new St());
                assertThat(b[0]).isEqualTo(31);
                assertThat(a[0]).isZero();
            } else {
                e.recv(w, new int[1], Kind.INT, 0, 1, 1, 2, new St());
                e.send(w, new int[] {31}, Kind.INT, 0, 1, 1, 1, STD);
            }
        });
    }

    @ParameterizedTest
    @ValueSource(strings = {"shm", "tcp"})
    void aProcessSendsToItselfAndProcNullMovesNothing(String tr) throws Exception {
        InMemoryJob.run(2, tr, (e, w) -> {
            int me = e.rank();
            byte[] big = new byte[700_000];
            big[699_999] = 9;
            Transfer r = e.irecv(w, new byte[700_000], Kind.BYTE, 0, 700_000, me, 1);
            e.send(w, big, Kind.BYTE, 0, big.length, me, 1, STD);
            e.await(r);
            e.send(w, big, Kind.BYTE, 0, 10, Engine.PROC_NULL, 1, STD);
            St st = new St();
            e.recv(w, big, Kind.BYTE, 0, 10, Engine.PROC_NULL, 1, st);
            assertThat(st.source).isEqualTo(Engine.PROC_NULL);
            assertThat(st.bytes).isZero();
        });
    }

    @ParameterizedTest
    @ValueSource(strings = {"shm"})
    void invalidArgumentsAreRefusedWithMessagesThatNameThem(String tr) throws Exception {
        InMemoryJob.run(2, tr, (e, w) -> {
            byte[] b = new byte[4];
            assertThatThrownBy(() -> e.send(w, b, Kind.BYTE, 0, 1, 2, 0, STD))
                    .hasMessage("dest rank 2 is out of range [0, 2) for communicator WORLD (or PROC_NULL)");
            assertThatThrownBy(() -> e.send(w, b, Kind.BYTE, 0, 1, -7, 0, STD))
                    .hasMessageContaining("dest rank -7 is out of range");
            assertThatThrownBy(() -> e.send(w, b, Kind.BYTE, 0, 1, 1, -1, STD))
                    .hasMessage("tag -1 is out of range [0, " + Engine.TAG_UB + "]");
            assertThatThrownBy(() -> e.recv(w, b, Kind.BYTE, 0, 1, 5, 0, new St()))
                    .hasMessageContaining("source rank 5 is out of range [0, 2)");
            assertThatThrownBy(() -> e.send(w, b, Kind.BYTE, 2, 3, 1, 0, STD))
                    .hasMessage("count 3 at offset 2 exceeds the buffer of 4 BYTE elements (at most 2)");
            assertThatThrownBy(() -> e.send(w, b, Kind.BYTE, 0, -1, 1, 0, STD))
                    .hasMessage("count -1 is negative");
            assertThatThrownBy(() -> e.send(w, b, Kind.INT, 0, 1, 1, 0, STD))
                    .hasMessageContaining("datatype INT does not match a buffer of type byte[]");
            assertThatThrownBy(() -> e.send(w, "text", Kind.BYTE, 0, 1, 1, 0, STD))
                    .hasMessageContaining("java.lang.String is not supported");
            assertThatThrownBy(() -> e.collectives().bcast(w, b, Kind.BYTE, 0, 1, 3))
                    .hasMessage("root rank 3 is out of range [0, 2) for communicator WORLD");
            // the progress thread (or another caller's wait) may move a message's bytes: a segment
            // only its owner may touch is refused at the call, not failed from another thread later
            try (java.lang.foreign.Arena confined = java.lang.foreign.Arena.ofConfined();
                 java.lang.foreign.Arena shared = java.lang.foreign.Arena.ofShared()) {
                java.lang.foreign.MemorySegment mine = confined.allocate(64);
                String why = "a MemorySegment of a confined arena is not accepted";
                assertThatThrownBy(() -> e.send(w, mine, Kind.BYTE, 0, 8, 1, 0, STD)).hasMessageContaining(why)
                        .hasMessageContaining("Arena.ofShared()").isInstanceOf(RailyardException.class)
                        .extracting(x -> ((RailyardException) x).errorClass()).isEqualTo(ErrorClass.BUFFER);
                assertThatThrownBy(() -> e.irecv(w, mine, Kind.BYTE, 0, 8, 1, 0)).hasMessageContaining(why);
                assertThatThrownBy(() -> e.collectives().allreduce(w, mine, 0, mine, 0, 8, Kind.BYTE, Reduction.SUM))
                        .hasMessageContaining(why);
                java.lang.foreign.MemorySegment open = shared.allocate(64);
                open.set(java.lang.foreign.ValueLayout.JAVA_BYTE, 3, (byte) (7 + e.rank()));
                e.collectives().allreduce(w, open, 0, open, 0, 8, Kind.BYTE, Reduction.SUM);
                assertThat(open.get(java.lang.foreign.ValueLayout.JAVA_BYTE, 3)).as("a shared segment works").isEqualTo((byte) 15);
            }
        });
    }

    /**
     * A rank that only receives from a peer which left before it ever connected: without a
     * connection of its own the receive would wait forever; the channel asks for one after a while,
     * the peer's refusal fails the receive with PEER_FAILED naming it, and a probe of it alike.
     */
    @ParameterizedTest
    @ValueSource(strings = {"shm", "tcp"})
    void aReceiveFromAPeerThatLeftBeforeItEverConnectedFails(String tr) throws Exception {
        java.util.concurrent.CountDownLatch gone = new java.util.concurrent.CountDownLatch(1);
        InMemoryJob.run(3, tr, (e, w) -> {
            if (e.rank() == 2) {
                gone.countDown();
                return; // closes its engine: nobody ever connected to it
            }
            assertThat(gone.await(30, java.util.concurrent.TimeUnit.SECONDS)).isTrue();
            if (e.rank() == 0) {
                St st = new St();
                assertThatThrownBy(() -> e.recv(w, new byte[8], Kind.BYTE, 0, 8, 2, 5, st))
                        .isInstanceOf(RailyardException.class)
                        .satisfies(x -> assertThat(((RailyardException) x).errorClass()).isEqualTo(ErrorClass.PEER_FAILED))
                        .hasMessageContaining("rank 2");
            }
        });
    }
}
