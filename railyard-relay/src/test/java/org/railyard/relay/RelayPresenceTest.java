package org.railyard.relay;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import org.junit.jupiter.api.Test;
import org.railyard.testkit.Await;
import org.railyard.transport.relay.RelayClient;
import org.railyard.wire.RelayFrame;

/**
 * PRESENCE_REQUEST / PRESENCE: a relay tells whether a rank of the job has its receiving
 * connection open there (0), and otherwise for how long it has been away; a newer receiving
 * connection makes the rank present again, and the end of a replaced one does not count.
 */
class RelayPresenceTest {

    private static long ask(RelayClient asker, int rank) throws Exception {
        asker.presenceLater(rank);
        asker.flush();
        RelayClient.Incoming in = asker.next(Relays.BOUND);
        assertThat(in.header().type()).isEqualTo(RelayFrame.PRESENCE);
        assertThat(in.header().destination()).isEqualTo(rank);
        return in.header().sequence();
    }

    @Test
    void aRankIsPresentWhileItReceivesAndAwayForGrowingTimeAfter() throws Exception {
        List<String> lines = Relays.lines();
        try (RelayServer relay = Relays.start(null, RelayLog.Fsync.NEVER, 1L << 20, Long.MAX_VALUE, lines);
             RelayClient asker = Relays.rank(relay, "job-p", 0, 3, false)) {
            assertThat(ask(asker, 2)).as("rank 2 never connected: away since the job was learnt").isPositive();
            RelayClient first = Relays.rank(relay, "job-p", 1, 3, true);
            // the relay registers the receiving connection on its own thread, after the client's hello
            Await.awaitUntil(() -> {
                try {
                    return ask(asker, 1) == 0;
                } catch (Exception e) {
                    throw new IllegalStateException(e);
                }
            }, Relays.BOUND, "rank 1 counted present once its receiving connection is open");
            RelayClient second = Relays.rank(relay, "job-p", 1, 3, true); // rank 1 came back on a new connection
            // the relay closes the replaced connection itself
            assertThatThrownBy(() -> first.next(Relays.BOUND)).isInstanceOf(java.io.EOFException.class);
            first.close();
            assertThat(ask(asker, 1)).as("the end of a replaced connection does not make rank 1 away").isZero();
            second.close();
            Await.awaitUntil(() -> {
                try {
                    return ask(asker, 1) > 0;
                } catch (Exception e) {
                    throw new IllegalStateException(e);
                }
            }, Relays.BOUND, "rank 1 counted away after its receiving connection closed");
            long a = ask(asker, 1);
            Await.awaitUntil(() -> {
                try {
                    return ask(asker, 1) > a;
                } catch (Exception e) {
                    throw new IllegalStateException(e);
                }
            }, Relays.BOUND, "rank 1's absence grows");
        }
    }
}
