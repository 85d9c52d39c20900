package org.railyard;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.railyard.engine.EngineJob;

/**
 * A window's target posts a receive of every member's headers ahead of any need; those receives
 * must not make the rank link to every member (a window that lived past the channel floor's
 * delay linked every rank to every other: N(N-1) links, and a socket each). On 16 ranks that
 * each talk only to their ring neighbours through the window, every rank ends with members it
 * has no channel to; the collectives of creation and fences reach a logarithmic few.
 */
class WindowChannelsTest {
    private static final int N = 16;

    @ParameterizedTest
    @ValueSource(strings = {"shm", "tcp"})
    void aWindowDoesNotLinkEveryMember(String transports) throws Exception {
        EngineJob.run(N, transports, e -> {
            Comm w = new Comm(e, e.world());
            int me = w.rank();
            try (Window win = Window.allocate(w, 8L * N, 8)) {
                win.fence(Window.MODE_NOPRECEDE);
                win.put(new long[] {me + 1}, 0, 1, (me + 1) % N, me);
                win.fence(0);
                assertThat(win.memory().get(java.lang.foreign.ValueLayout.JAVA_LONG, 8L * ((me + N - 1) % N)))
                        .as("the left neighbour's put").isEqualTo((me + N - 1) % N + 1);
                int linked = EngineJob.channelsTo(e);
                assertThat(linked).as("rank %d: members it has a channel to, of %d", me, N - 1).isLessThan(N - 1);
                win.fence(Window.MODE_NOSUCCEED);
            }
        });
    }
}
