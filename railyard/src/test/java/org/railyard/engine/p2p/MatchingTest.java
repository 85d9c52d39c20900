package org.railyard.engine.p2p;

import static org.assertj.core.api.Assertions.assertThat;

import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.railyard.types.Kind;

/** Matching kept per context: the order within a context, wildcards, contexts found by index and by map. */
class MatchingTest {
    private static final int ANY_SOURCE = PointToPoint.ANY_SOURCE;
    private static final int ANY_TAG = PointToPoint.ANY_TAG;

    private static RecvTransfer recv(int ctx, int src, int tag) {
        RecvTransfer t = new RecvTransfer(x -> { }, 0);
        t.init(null, ctx, new byte[8], Kind.BYTE, 0, 8, src, tag);
        return t;
    }

    private static Unexpected arrive(Matching m, int ctx, int src, int tag) {
        m.addUnexpected(ctx, src, tag, 0, null, true, null, 0, 0, MemorySegment.NULL, 0);
        List<Unexpected> all = new ArrayList<>();
        m.forEachUnexpected(all::add);
        return all.stream().filter(u -> u.context == ctx && u.source == src && u.tag == tag).reduce((a, b) -> b).orElseThrow();
    }

    @Test
    void theOldestReceiveOfTheMessagesOwnContextMatchesWildcardsIncluded() {
        Matching m = new Matching();
        RecvTransfer any = recv(5, ANY_SOURCE, 1);
        RecvTransfer exact = recv(5, 2, 1);
        RecvTransfer other = recv(7, 2, 1);
        RecvTransfer anyTag = recv(5, 2, ANY_TAG);
        m.post(any);
        m.post(exact);
        m.post(other);
        m.post(anyTag);
        assertThat(m.findPosted(5, 2, 1)).isSameAs(any);
        assertThat(m.findPosted(7, 2, 1)).isSameAs(other);
        assertThat(m.findPosted(6, 2, 1)).isNull();
        assertThat(m.findPosted(5, 2, 9)).isSameAs(anyTag);
        m.unlinkPosted(any);
        assertThat(m.isPosted(any)).isFalse();
        assertThat(m.isPosted(exact)).isTrue();
        assertThat(m.findPosted(5, 2, 1)).isSameAs(exact);
        m.unlinkPosted(anyTag);
        m.unlinkPosted(exact);
        assertThat(m.anyPosted()).isTrue();
        assertThat(m.findPosted(5, 2, 1)).isNull();
        m.unlinkPosted(other);
        assertThat(m.anyPosted()).isFalse();
        assertThat(m.isPosted(other)).isFalse();
    }

    @Test
    void contextsBeyondTheIndexedOnesMatchAlike() {
        Matching m = new Matching();
        int far = Matching.DENSE + 12345;
        RecvTransfer a = recv(far, 3, 4);
        RecvTransfer b = recv(Matching.DENSE - 1, 3, 4);
        m.post(a);
        m.post(b);
        assertThat(m.findPosted(far, 3, 4)).isSameAs(a);
        assertThat(m.findPosted(Matching.DENSE - 1, 3, 4)).isSameAs(b);
        m.unlinkPosted(a);
        assertThat(m.findPosted(far, 3, 4)).isNull();
        assertThat(m.isPosted(b)).isTrue();
    }

    @Test
    void unexpectedMessagesKeepTheirOrderWithinEachContext() {
        Matching m = new Matching();
        Unexpected first = arrive(m, 9, 0, 3);
        Unexpected elsewhere = arrive(m, 4, 0, 3);
        Unexpected second = arrive(m, 9, 1, 3);
        assertThat(m.findUnexpected(9, ANY_SOURCE, ANY_TAG)).isSameAs(first);
        assertThat(m.findUnexpected(9, 1, 3)).isSameAs(second);
        assertThat(m.findUnexpected(4, ANY_SOURCE, 3)).isSameAs(elsewhere);
        List<Unexpected> order = new ArrayList<>();
        m.forEachUnexpected(order::add);
        assertThat(order).containsExactly(first, second, elsewhere);
        m.unlink(first);
        assertThat(m.findUnexpected(9, ANY_SOURCE, ANY_TAG)).isSameAs(second);
        m.unlink(second);
        assertThat(m.findUnexpected(9, ANY_SOURCE, ANY_TAG)).isNull();
        assertThat(m.findUnexpected(4, 0, 3)).isSameAs(elsewhere);
    }
}
