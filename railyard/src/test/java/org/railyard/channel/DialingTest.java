package org.railyard.channel;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/**
 * When an idle channel asks for its connection by itself ({@link Dialing#askNow}): a receive's
 * mark lasts; a wait's mark ({@link Dialing#awaited}) counts only while some wait is under way,
 * and the delay runs from the first of the overlapping waits.
 */
class DialingTest {
    private static final long S = 1_000_000_000L;
    private static final long DELAY = Dialing.WANTED_NANOS;

    @Test
    void aReceivesMarkLasts() {
        Dialing d = new Dialing(3, 30 * S);
        long t0 = 5 * S;
        assertThat(d.askNow(t0 + 2 * DELAY)).as("never wanted").isFalse();
        d.wanted(t0);
        assertThat(d.askNow(t0 + DELAY - 1000)).isFalse();
        assertThat(d.askNow(t0 + DELAY + 1000)).isTrue();
    }

    @Test
    void aWaitsMarkCountsWhileAWaitLasts() {
        Dialing d = new Dialing(3, 30 * S);
        long t0 = 5 * S;
        d.awaited(true, t0);
        d.awaited(true, t0 + DELAY / 2);
        assertThat(d.askNow(t0 + DELAY - 1000)).isFalse();
        assertThat(d.askNow(t0 + DELAY + 1000)).as("from the first of the two waits").isTrue();
        d.awaited(false, t0 + DELAY + 2000);
        assertThat(d.askNow(t0 + DELAY + 3000)).as("one wait still under way").isTrue();
        d.awaited(false, t0 + DELAY + 4000);
        assertThat(d.askNow(t0 + 3 * DELAY)).as("no wait under way").isFalse();
        d.awaited(false, t0 + 3 * DELAY);
        d.awaited(true, t0 + 4 * DELAY);
        assertThat(d.askNow(t0 + 5 * DELAY - 1000)).as("an unmatched end does not go below none").isFalse();
        assertThat(d.askNow(t0 + 5 * DELAY + 1000)).isTrue();
    }
}
