package org.railyard.channel;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import org.junit.jupiter.api.Test;

/** The default bound on opening a connection, by the share of a processor each rank of the node gets. */
class ConnectBoundTest {
    private static final Duration BASE = Duration.ofSeconds(20);

    @Test
    void aRankWithAProcessorOfItsOwnKeepsTheBase() {
        assertThat(ChannelTable.connectBound(BASE, 1, 2)).isEqualTo(BASE);
        assertThat(ChannelTable.connectBound(BASE, 2, 2)).isEqualTo(BASE);
        assertThat(ChannelTable.connectBound(BASE, 64, 64)).isEqualTo(BASE);
    }

    @Test
    void moreRanksThanProcessorsScaleItByTheRanksPerProcessorRoundedUp() {
        assertThat(ChannelTable.connectBound(BASE, 3, 2)).isEqualTo(Duration.ofSeconds(40));
        assertThat(ChannelTable.connectBound(BASE, 8, 2)).isEqualTo(Duration.ofSeconds(80));
        assertThat(ChannelTable.connectBound(BASE, 65, 64)).isEqualTo(Duration.ofSeconds(40));
    }

    @Test
    void aVeryCrowdedNodeStopsAtTheCapAndABaseAboveTheCapIsKept() {
        assertThat(ChannelTable.connectBound(BASE, 64, 2)).isEqualTo(ChannelTable.CONNECT_BOUND_MAX);
        assertThat(ChannelTable.connectBound(BASE, 128, 1)).isEqualTo(ChannelTable.CONNECT_BOUND_MAX);
        assertThat(ChannelTable.connectBound(Duration.ofMinutes(30), 8, 2)).isEqualTo(Duration.ofMinutes(30));
    }

    @Test
    void noProcessorCountLeavesTheBase() {
        assertThat(ChannelTable.connectBound(BASE, 8, 0)).isEqualTo(BASE);
    }
}
