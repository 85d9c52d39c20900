package org.railyard.launcher;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The sites file: hosts grouped by site with their gateways, ranks placed as hosts files place them, faults named. */
class SitesTest {
    @TempDir
    Path dir;

    private Sites read(String text) throws IOException {
        Path f = dir.resolve("sites");
        Files.writeString(f, text);
        return Sites.readFile(f);
    }

    @Test
    void sitesHostsAndGatewaysReadBackAndRanksArePlacedInFileOrder() throws IOException {
        Sites s = read("# two sites\nsite east gateway gw1:7430\nn1 slots=2\nn2\n\nsite west gateway gw2:7430,gw3:7431\nn7 slots=2 # big\n");
        assertThat(s.sites()).extracting(Sites.Site::name).containsExactly("east", "west");
        assertThat(s.sites().get(1).gateways()).containsExactly("gw2:7430", "gw3:7431");
        assertThat(s.hosts()).containsExactly(new Host("n1", 2), Host.of("n2"), new Host("n7", 2));
        assertThat(s.placeSites(7)).extracting(Sites.Site::name)
                .containsExactly("east", "east", "east", "west", "west", "east", "east");
        List<Host> placed = Host.place(7, s.hosts());
        assertThat(placed.get(3).name()).isEqualTo("n7");
    }

    @Test
    void faultsNameTheLine() {
        assertThatThrownBy(() -> read("n1\nsite east\n")).hasMessageContaining("line 1: host 'n1' before any 'site NAME' line");
        assertThatThrownBy(() -> read("site east\nn1\nsite east\nn2\n")).hasMessageContaining("line 3: site east is named twice");
        assertThatThrownBy(() -> read("site east gateway gw1\nn1\n")).hasMessageContaining("gateway 'gw1' is not HOST:PORT");
        assertThatThrownBy(() -> read("site east\nsite west\nn1\n")).hasMessageContaining("site east lists no host");
        assertThatThrownBy(() -> read("site east\nn1 slots=0\n")).hasMessageContaining("'slots=0'");
        assertThatThrownBy(() -> read("# nothing\n")).hasMessageContaining("names no site");
        assertThatThrownBy(() -> read("site a:b\nn1\n")).hasMessageContaining("site name 'a:b'");
    }

    @Test
    void externalGatewaysMustBeNamed() throws IOException {
        Sites s = read("site east\nlocalhost\nsite west gateway gw:1\nlocalhost\n");
        assertThatThrownBy(() -> SiteJob.prepare(s, 2, false, (r, l) -> { }))
                .hasMessageContaining("site east names no gateway");
    }

    @Test
    void embeddedGatewaysGiveEachRankItsSiteAndGateway() throws IOException {
        Sites s = read("site east\nlocalhost\nsite west\nlocalhost\n");
        try (SiteJob sj = SiteJob.prepare(s, 3, true, (r, l) -> { })) {
            assertThat(sj.gateways()).hasSize(2);
            assertThat(sj.rankEnv().apply(0)).containsEntry("RAILYARD_SITE", "east")
                    .containsEntry("RAILYARD_GATEWAY", "127.0.0.1:" + sj.gateways().get(0).address().getPort());
            assertThat(sj.rankEnv().apply(1)).containsEntry("RAILYARD_SITE", "west");
            assertThat(sj.rankEnv().apply(2)).containsEntry("RAILYARD_SITE", "east");
        }
    }
}
