package org.railyard.engine.rma;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;
import org.railyard.types.Kind;
import org.railyard.wire.RmaHeader;

/**
 * The origin's batch with request forms ({@link Outbound}, engine services faked): rgets batched
 * for one target send nothing until the next progress pass, which sends them as one message with
 * one receive for their reply; the reply's results land in each get's buffer and complete the
 * requests in issue order.
 */
class OutboundRequestsTest {
    @Test
    void rgetsLeaveTogetherAtTheNextProgressPassAndCompleteInOrderWithTheirValues() {
        RecordingServices s = new RecordingServices();
        Outbound out = new Outbound(null, s, null, 2);
        int gets = 5;
        long[] got = new long[2 * gets];
        RmaRequest[] reqs = new RmaRequest[gets];
        for (int i = 0; i < gets; i++) {
            long[] h = RmaHeader.make(RmaHeader.OP_GET, Kind.LONG.ordinal(), 0, 0, 8L * i, 1, 0, 0, 1);
            assertThat(out.batchableWithResult(h, 8)).isTrue();
            // each get lands in every other element of got
            reqs[i] = out.batchWithResult(1, h, got, 2 * i, Kind.LONG, 1, true);
            assertThat(reqs[i]).as("a request form returns its request").isNotNull();
        }
        assertThat(s.posted).as("nothing leaves before a progress pass").isEmpty();
        assertThat(reqs[0].isDone()).isFalse();

        out.progress();
        assertThat(s.posted).as("one receive for the reply, one message with the batch").hasSize(2);
        RecordingServices.Posted reply = s.posted.get(0);
        RecordingServices.Posted batch = s.posted.get(1);
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
