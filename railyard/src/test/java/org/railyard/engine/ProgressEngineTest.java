package org.railyard.engine;

import static org.assertj.core.api.Assertions.assertThat;
import static org.railyard.testkit.Await.awaitUntil;

import java.time.Duration;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.railyard.engine.comm.CommState;
import org.railyard.engine.request.StatusSink;
import org.railyard.engine.request.Transfer;
import org.railyard.types.Kind;

/**
 * The progress protocol (package documentation of {@code engine.progress}) in whole engines: a
 * blocking ping-pong is driven by the threads that wait, not by the agents, and a rendezvous send
 * completes while its sender computes and never calls the library (the agent finishes it).
 */
class ProgressEngineTest {
    private static final int STD = Engine.MODE_STANDARD;
    private static final Duration BOUND = Duration.ofSeconds(60);

    @ParameterizedTest
    @ValueSource(strings = {"shm", "tcp"})
    void aBlockingPingPongRunsNoAgentCyclesPerMessage(String tr) throws Exception {
        InMemoryJob.run(2, tr, (e, w) -> {
            byte[] buf = new byte[8];
            int rounds = 3000;
            int peer = 1 - e.rank();
            St st = new St();
            // a first exchange opens the connection (its set-up may well be the agent's work)
            pingPong(e, w, buf, peer, st, 100);
            long before = e.agentCycles();
            pingPong(e, w, buf, peer, st, rounds);
            long cycles = e.agentCycles() - before;
            // the agent may see the application away when a thread is descheduled between two calls
            // for more than a look (a loaded machine); it never takes part in every exchange
            assertThat(cycles).as("agent cycles of rank %d during %d round trips over %s", e.rank(), rounds, tr)
                    .isLessThanOrEqualTo(rounds / 10);
        });
    }

    private static void pingPong(Engine e, CommState w, byte[] buf, int peer, St st, int rounds) {
        for (int i = 0; i < rounds; i++) {
            if (e.rank() == 0) {
                e.send(w, buf, Kind.BYTE, 0, buf.length, peer, 1, STD);
                e.recv(w, buf, Kind.BYTE, 0, buf.length, peer, 1, st);
            } else {
                e.recv(w, buf, Kind.BYTE, 0, buf.length, peer, 1, st);
                e.send(w, buf, Kind.BYTE, 0, buf.length, peer, 1, STD);
            }
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"shm", "tcp"})
    void aRendezvousSendCompletesWhileItsSenderComputes(String tr) throws Exception {
        InMemoryJob.run(2, tr, (e, w) -> {
            int n = 1 << 20;
            if (e.rank() == 0) {
                byte[] data = new byte[n];
                data[n - 1] = 42;
                assertThat((long) n).isGreaterThan(e.eagerLimit());
                Transfer t = e.isend(w, data, Kind.BYTE, 0, n, 1, 7, STD);
                // the sender computes: it reads the request's state, and calls nothing that drives
                awaitUntil(() -> t.state != Transfer.PENDING, BOUND, () -> "the rendezvous send completed by the agent, "
                        + "after " + e.agentCycles() + " agent cycles");
                assertThat(e.agentCycles()).isPositive();
                e.await(t);
            } else {
                byte[] data = new byte[n];
                St st = new St();
                e.recv(w, data, Kind.BYTE, 0, n, 0, 7, st);
                assertThat(data[n - 1]).isEqualTo((byte) 42);
            }
        });
    }

    private static final class St implements StatusSink {
        @Override
        public void setStatus(int source, int tag, long bytes, int elementSize) {
        }
    }
}
