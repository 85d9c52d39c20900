package org.railyard.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** RmaCompare's medians, per-round ratios and targets, from a raw TSV written by hand. */
class RmaCompareTest {
    private static String line(String impl, int round, String path, String bench, long bytes, double mean, double mbs) {
        return String.join("\t", impl, Integer.toString(round), path, bench, path, "2", Long.toString(bytes), "100",
                Double.toString(mean), "0", "0", "0", Double.toString(mbs));
    }

    @Test
    void aCellIsTheMedianOfEachSideAndOfThePerRoundRatios() {
        List<String> raw = List.of(
                line("railyard", 1, "shm", "put_latency-flush", 8, 2.0, 4),
                line("ompi", 1, "shm", "put_latency-flush", 8, 1.0, 8),
                line("ompi", 2, "shm", "put_latency-flush", 8, 4.0, 2),
                line("railyard", 2, "shm", "put_latency-flush", 8, 3.0, 2.7),
                line("railyard", 3, "shm", "put_latency-flush", 8, 10.0, 0.8),
                line("ompi", 3, "shm", "put_latency-flush", 8, 20.0, 0.4),
                "", "benchmark\ttransport\tnp");
        List<RmaCompare.Cell> cells = RmaCompare.cells(RmaCompare.parse(raw));
        assertThat(cells).hasSize(1);
        RmaCompare.Cell c = cells.get(0);
        assertThat(c.rounds()).isEqualTo(3);
        assertThat(c.railyard()).isEqualTo(3.0);
        assertThat(c.ompi()).isEqualTo(4.0);
        // per-round ratios 2.0, 0.75, 0.5: the median is 0.75, not 3.0 / 4.0 by chance
        assertThat(c.ratio()).isEqualTo(0.75);
        assertThat(c.target()).isEqualTo(1.0);
        assertThat(c.met()).isTrue();
    }

    @Test
    void bandwidthCellsCompareMegabytesAndHigherIsBetter() {
        List<String> raw = List.of(
                line("railyard", 1, "tcp", "get_bw-flush", 1 << 20, 50, 850),
                line("ompi", 1, "tcp", "get_bw-flush", 1 << 20, 40, 1000));
        RmaCompare.Cell c = RmaCompare.cells(RmaCompare.parse(raw)).get(0);
        assertThat(c.ratio()).isEqualTo(0.85);
        assertThat(c.target()).isEqualTo(0.9);
        assertThat(c.met()).isFalse();
        assertThat(RmaCompare.missed(List.of(c))).isEqualTo("\nMissed:\n- tcp get_bw-flush 1m: 0.85x (target >= 0.9x)\n");
        RmaCompare.Cell oneSided = new RmaCompare.Cell("tcp", "get_bw-flush", 8, 1, Double.NaN, 5, Double.NaN);
        assertThat(RmaCompare.missed(List.of(oneSided))).contains("8: no ratio (a side did not run)");
    }

    @Test
    void targetsFollowIssue24() {
        assertThat(new RmaCompare.Cell("shm", "get_latency-fence", 8, 1, 1, 1, 1).target()).isEqualTo(1.2);
        assertThat(new RmaCompare.Cell("tcp", "get_latency-fence", 8, 1, 1, 1, 1).target()).isNaN();
        assertThat(new RmaCompare.Cell("shm", "put_bw-flush", 8, 1, 1, 1, 1).target()).isEqualTo(1.0);
        assertThat(new RmaCompare.Cell("shm", "acc_latency-flush", 8, 1, 1, 1, 1).target()).isNaN();
        assertThat(new RmaCompare.Cell("shm", "put_latency-lock", 8, 1, 1, 1, 1).target()).isNaN();
    }

    @Test
    void theSharedWindowIsJudgedAgainstAnInProcessCopy() {
        List<String> raw = List.of(
                line("railyard", 1, "shm", "shared_copy-direct", 1 << 20, 1, 9000),
                line("railyard", 1, "shm", "local_copy-direct", 1 << 20, 1, 10000),
                line("railyard", 1, "shm", "shared_copy-direct", 8, 1, 70),
                line("railyard", 1, "shm", "local_copy-direct", 8, 1, 100));
        String md = RmaCompare.tables(RmaCompare.cells(RmaCompare.parse(raw)));
        assertThat(md).contains("1m: direct copy into the other rank's part 9000.0 MB/s, in-process copy 10000.0 MB/s: "
                + "90% (target >= 80%: met)").contains("8: direct copy into the other rank's part 70.0 MB/s, in-process "
                + "copy 100.0 MB/s: 70% (target >= 80%: MISSED)").contains("Targets met in 1 of 2 cells.");
    }

    @Test
    void writesTablesAndOnePlotPerPathAndMode(@TempDir Path dir) throws Exception {
        Path raw = dir.resolve("raw.tsv");
        Files.write(raw, List.of(
                line("railyard", 1, "shm", "put_latency-flush", 8, 2.0, 4),
                line("ompi", 1, "shm", "put_latency-flush", 8, 1.0, 8),
                line("railyard", 1, "shm", "put_bw-fence", 65536, 2.0, 3000),
                line("ompi", 1, "shm", "put_bw-fence", 65536, 1.0, 6000)));
        RmaCompare.main(new String[] {raw.toString(), dir.toString()});
        String md = Files.readString(dir.resolve("tables.md"));
        assertThat(md).contains("| put_latency-flush | 8 | 1 | 1.000 us | 2.000 us | 2.00 | <= 1.0x: MISSED |")
                .contains("| put_bw-fence | 64k | 1 | 6000.0 MB/s | 3000.0 MB/s | 0.50 |  |")
                .contains("Targets met in 0 of 1 cells.")
                .contains("Missed:\n- shm put_latency-flush 8: 2.00x (target <= 1.0x)\n");
        assertThat(md).doesNotContain("put_bw-fence 64k:");
        assertThat(dir.resolve("rma-shm-flush.png")).isNotEmptyFile();
        assertThat(dir.resolve("rma-shm-fence.png")).isNotEmptyFile();
    }
}
