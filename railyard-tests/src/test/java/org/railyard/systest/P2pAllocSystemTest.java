package org.railyard.systest;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.railyard.systest.ranks.P2pAllocRanks;

/**
 * A blocking send and receive take nothing from the Java heap once warm, over shared memory and
 * over tcp: eager messages go straight into the rail's memory with no request, rendezvous and
 * synchronous sends take their requests from pools, and the channel describes each frame in a
 * reused header. Two processes on this node run {@link P2pAllocRanks}; every case must stay under
 * {@link #BOUND} bytes a round trip over all threads of the JVM of rank 0.
 */
@Timeout(value = 4, unit = TimeUnit.MINUTES)
class P2pAllocSystemTest {
    private static final int NP = 2;
    /** Bytes per round trip: room for a pool growing once during the measured calls, not for a request per message. */
    private static final double BOUND = P2pAllocRanks.GOAL;
    /** Bytes per round trip of the cross-memory read case: see {@link P2pAllocRanks#READ_GOAL}. */
    private static final double READ_BOUND = P2pAllocRanks.READ_GOAL;

    @ParameterizedTest
    @ValueSource(strings = {"shm", "tcp"})
    void warmPointToPointCallsAllocateNothingPerMessage(String transport) {
        Jobs.Finished job = Jobs.run("p2p-alloc-" + transport, Jobs.spec(NP, P2pAllocRanks.class,
                Map.of("RAILYARD_TRANSPORTS", transport), Duration.ofSeconds(180)));
        assertThat(job.result().exitCode()).as("exit code\n%s", job.report()).isZero();
        for (int r = 0; r < NP; r++) {
            assertThat(job.transcript().texts(r, Transcript.Stream.OUT)).as("rank %d\n%s", r, job.report())
                    .contains("OK p2p-alloc rank " + r);
        }
        List<String> rows = job.transcript().texts(0, Transcript.Stream.OUT).stream().filter(l -> l.startsWith("ALLOC ")).toList();
        // send at 3 sizes with heap and off-heap buffers, and ssend of 8 B
        assertThat(rows).as("measurements\n%s", job.report()).hasSize(7);
        for (String row : rows) {
            String[] f = row.split(" ");
            boolean read = transport.equals("shm") && row.startsWith("ALLOC send 262144 offheap");
            assertThat(Double.parseDouble(f[4])).as("%s: %s (bytes allocated per round trip)", transport, row)
                    .isLessThan(read ? READ_BOUND : BOUND);
        }
    }
}
