package org.railyard.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class AppCompareTest {
    // impl round n np iterations residual solve compute halo_wait send_wait test job
    private static final List<String> RAW = List.of(
            "c-openmpi\t1\t48\t1\t1000\t9.9e-8\t1.0\t0.99\t0\t0\t0.01\t1.5",
            "railyard\t1\t48\t1\t1000\t9.9e-8\t2.0\t1.9\t0\t0\t0.1\t5.0",
            "c-openmpi\t1\t48\t2\t1000\t9.9e-8\t0.5\t0.4\t0.05\t0.01\t0.04\t1.0",
            "railyard\t1\t48\t2\t1000\t9.9e-8\t2.0\t1.0\t0.5\t0.1\t0.4\t6.0",
            "c-openmpi\t2\t48\t1\t1000\t9.9e-8\t1.2\t1.19\t0\t0\t0.01\t1.7",
            "railyard\t2\t48\t1\t1000\t9.9e-8\t1.8\t1.7\t0\t0\t0.1\t4.8",
            "c-openmpi\t2\t48\t2\t1000\t9.9e-8\t0.6\t0.5\t0.05\t0.01\t0.04\t1.1",
            "railyard\t2\t48\t2\t1001\t9.9e-8\t1.2\t0.8\t0.2\t0.0\t0.2\t5.5");

    @Test
    void cellsAreMediansOfPerRoundRatiosAgainstEachOnesOwnSequentialRun() {
        List<AppCompare.Cell> cells = AppCompare.cells(AppCompare.parse(RAW));
        assertThat(cells).extracting(AppCompare.Cell::np).containsExactly(1, 2);
        AppCompare.Cell two = cells.get(1);
        assertThat(two.rounds()).isEqualTo(2);
        // round 1: C speed-up 2, Railyard 1 -> 0.5; round 2: C 2, Railyard 1.5 -> 0.75; median 0.625
        assertThat(two.twin().speedup()).isCloseTo(2.0, within(1e-12));
        assertThat(two.railyard().speedup()).isCloseTo(1.25, within(1e-12));
        assertThat(two.speedupRatio()).isCloseTo(0.625, within(1e-12));
        // solve ratios 4 and 2
        assertThat(two.wallRatio()).isCloseTo(3.0, within(1e-12));
        // comm per iteration: C 100 us both rounds; Railyard 1000 then 400/1001*1000
        assertThat(two.commRatio()).isCloseTo((10.0 + 4000.0 / 1001) / 2, within(1e-9));
        assertThat(two.twin().haloUs()).isCloseTo(60.0, within(1e-9));
        assertThat(two.agree()).as("round 2 stopped one iteration later").isFalse();
        assertThat(cells.get(0).agree()).isTrue();
    }

    @Test
    void theTablesSayWhichTargetsWereMetAndWhichWereNotMeasured() {
        List<AppCompare.Cell> cells = AppCompare.cells(AppCompare.parse(RAW));
        String md = AppCompare.tables(cells, "c-openmpi", "loaded machine");
        assertThat(md).contains("loaded machine", "| 48 | 2 | 0.550 | 1.600 | 3.00 | 2.00 | 1.25 | 0.63 |", "| NO |",
                "- np 2, n 48: speed-up ratio >= 0.8: missed (0.63)", "- np 2, n 48: Railyard speed-up > 1: met (1.25)",
                "- np 2, n 96: speed-up ratio >= 0.9: not measured");
    }

    @Test
    void theAsynchronousSchemeIsAColumnOfItsOwnOutsideTheAgreementCheck() {
        List<String> raw = new java.util.ArrayList<>(RAW);
        raw.addAll(List.of(
                "railyard-async\t1\t48\t1\t1000\t9.9e-8\t2.0\t1.9\t0\t0\t0.1\t5.0",
                "railyard-async\t1\t48\t2\t1400\t9.0e-8\t1.0\t0.8\t0.1\t0\t0.1\t5.0",
                "railyard-async\t2\t48\t1\t1000\t9.9e-8\t1.8\t1.7\t0\t0\t0.1\t4.8",
                "railyard-async\t2\t48\t2\t1600\t9.1e-8\t1.2\t0.9\t0.1\t0\t0.1\t5.0"));
        List<AppCompare.Run> runs = AppCompare.parse(raw);
        assertThat(AppCompare.twinName(runs)).isEqualTo("c-openmpi");
        List<AppCompare.Cell> cells = AppCompare.cells(runs);
        AppCompare.Cell two = cells.get(1);
        assertThat(two.agree()).as("still the synchronous runs' check alone (round 2 differs)").isFalse();
        assertThat(cells.get(0).agree()).as("the async runs' iterations are not compared").isTrue();
        // async speed-ups: round 1 2.0/1.0 = 2, round 2 1.8/1.2 = 1.5; C's 2 both rounds
        assertThat(two.async().summary().speedup()).isCloseTo(1.75, within(1e-12));
        assertThat(two.async().speedupToTwin()).isCloseTo(0.875, within(1e-12));
        // async / sync solve: 1.0/2.0 and 1.2/1.2
        assertThat(two.async().solveToSync()).isCloseTo(0.75, within(1e-12));
        assertThat(two.async().iterations()).isEqualTo(1500.0);
        assertThat(two.railyard().speedup()).as("the synchronous column unchanged").isCloseTo(1.25, within(1e-12));
        String md = AppCompare.tables(cells, "c-openmpi", "");
        assertThat(md).contains("The asynchronous scheme", "| 48 | 2 | 1.100 | 1500 | 1.75 | 0.75 | 0.88 |");
        assertThat(AppCompare.tables(AppCompare.cells(AppCompare.parse(RAW)), "c-openmpi", ""))
                .as("no async table without async runs").doesNotContain("asynchronous scheme");
    }

    @Test
    void writesBothPlots(@TempDir Path dir) throws Exception {
        AppCompare.writePlots(AppCompare.cells(AppCompare.parse(RAW)), "c-openmpi", dir);
        assertThat(Files.size(dir.resolve("app-speedup.png"))).isPositive();
        assertThat(Files.size(dir.resolve("app-per-iteration.png"))).isPositive();
    }

    @Test
    void aMalformedLineIsNamed() {
        assertThatThrownBy(() -> AppCompare.parse(List.of("railyard\t1\t48")))
                .hasMessageContaining("line 1").hasMessageContaining("12 fields");
        assertThatThrownBy(() -> AppCompare.parse(List.of("railyard\t1\t48\t2\tx\t1\t1\t1\t1\t1\t1\t1")))
                .hasMessageContaining("not a number");
        assertThatThrownBy(() -> AppCompare.parse(List.of("# header only"))).hasMessageContaining("no runs");
    }
}
