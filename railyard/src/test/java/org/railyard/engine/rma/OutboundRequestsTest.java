package org.railyard.engine.rma;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.Test;
import org.railyard.channel.LocalMemory;
import org.railyard.engine.comm.CommState;
import org.railyard.engine.request.Transfer;
import org.railyard.types.Kind;
import org.railyard.wire.RmaHeader;

/**
 * The origin's batch with request forms ({@link Outbound}, engine services faked): rgets batched
 * for one target send nothing until the next progress pass, which sends them as one message with
 * one receive for their reply; the reply's results land in each get's buffer and complete the
 * requests in issue order.
 */
class OutboundRequestsTest {
    /** A message or a receive the outbound posted. */
    private record Posted(boolean send, Object buf, int count, int peer, int tag, Transfer t) {
    }

    /** Engine services that only record what is posted; the test completes the transfers itself. */
    private static final class Recording implements RmaServices {
        final List<Posted> posted = new ArrayList<>();
        private final ReentrantLock lock = new ReentrantLock();

        @Override public int rank() { return 0; }
        @Override public int size() { return 2; }
        @Override public void checkComm(CommState c) { }
        @Override public ReentrantLock progressLock() { return lock; }
        @Override public boolean driveUntil(BooleanSupplier done, long timeoutNanos) { return done.getAsBoolean(); }

        @Override
        public Transfer isend(CommState c, Object buf, Kind k, int off, int count, int dest, int tag) {
            RmaRequest t = new RmaRequest();
            posted.add(new Posted(true, buf, count, dest, tag, t));
            return t;
        }

        @Override
        public Transfer irecv(CommState c, Object buf, Kind k, int off, int count, int source, int tag) {
            RmaRequest t = new RmaRequest();
            posted.add(new Posted(false, buf, count, source, tag, t));
            return t;
        }

        @Override public void recycle(Transfer t) { }
        @Override public boolean cancel(Transfer t) { return false; }
        @Override public CommState dup(CommState c) { throw new UnsupportedOperationException(); }
        @Override public void free(CommState c) { }
        @Override public void barrier(CommState c) { }
        @Override public void allgather(CommState c, long[] mine, long[] all) { throw new UnsupportedOperationException(); }
        @Override public void bcast(CommState c, byte[] buf, int root) { throw new UnsupportedOperationException(); }
        @Override public String nodeOf(int worldRank) { return "n"; }
        @Override public LocalMemory localMemory() { return null; }
        @Override public void choice(String line) { }
    }

    @Test
    void rgetsLeaveTogetherAtTheNextProgressPassAndCompleteInOrderWithTheirValues() {
        Recording s = new Recording();
        Outbound out = new Outbound(null, s, null, 2);
        int gets = 5;
        long[] got = new long[2 * gets];
        RmaRequest[] reqs = new RmaRequest[gets];
        for (int i = 0; i < gets; i++) {
            long[] h = RmaHeader.make(RmaHeader.OP_GET, Kind.LONG.ordinal(), 0, 0, 8L * i, 1, 0, 0, 1);
            assertThat(Outbound.batchableWithResult(h, 8)).isTrue();
            // each get lands in every other element of got
            reqs[i] = out.batchWithResult(1, h, got, 2 * i, Kind.LONG, 1, true);
            assertThat(reqs[i]).as("a request form returns its request").isNotNull();
        }
        assertThat(s.posted).as("nothing leaves before a progress pass").isEmpty();
        assertThat(reqs[0].isDone()).isFalse();

        out.progress();
        assertThat(s.posted).as("one receive for the reply, one message with the batch").hasSize(2);
        Posted reply = s.posted.get(0);
        Posted batch = s.posted.get(1);
        assertThat(reply.send()).isFalse();
        assertThat(batch.send()).isTrue();
        assertThat(batch.peer()).isEqualTo(1);
        assertThat(batch.tag()).isEqualTo(Target.TAG_HDR);
        assertThat(batch.count()).as("the five records back to back").isEqualTo(gets * RmaHeader.LONGS);
        assertThat(reply.count()).as("one long per result").isEqualTo(gets);
        out.progress();
        assertThat(s.posted).as("a second pass sends nothing more").hasSize(2);

        // the target's reply: result i is 100 + i
        long[] results = (long[]) reply.buf();
        for (int i = 0; i < gets; i++) {
            results[i] = 100 + i;
        }
        batch.t().complete();
        assertThat(reqs[0].isDone()).as("done only once the reply is in").isFalse();
        reply.t().complete();
        out.progress();
        for (int i = 0; i < gets; i++) {
            assertThat(reqs[i].isDone()).as("request %d", i).isTrue();
            assertThat(got[2 * i]).as("get %d", i).isEqualTo(100 + i);
            assertThat(got[2 * i + 1]).as("nothing written between the gets' places").isZero();
        }
    }
}
