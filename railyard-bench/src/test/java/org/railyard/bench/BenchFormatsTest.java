package org.railyard.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.awt.image.BufferedImage;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.EnumSet;
import java.util.List;
import javax.imageio.ImageIO;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.railyard.launcher.JobSpec;
import picocli.CommandLine;

class BenchFormatsTest {

    @Test
    void parsesSingleSizes() {
        assertThat(Sizes.parse("8")).isEqualTo(8);
        assertThat(Sizes.parse("64k")).isEqualTo(65536);
        assertThat(Sizes.parse("4m")).isEqualTo(4L << 20);
        assertThat(Sizes.parse(" 1MiB ")).isEqualTo(1L << 20);
        assertThat(Sizes.parse("2KB")).isEqualTo(2048);
        assertThat(Sizes.parse("1g")).isEqualTo(1L << 30);
        assertThat(Sizes.parse("0")).isZero();
        for (String bad : new String[] {"", "x", "-1", "4q", "2g", "k"}) {
            assertThatThrownBy(() -> Sizes.parse(bad)).as(bad).isInstanceOf(IllegalArgumentException.class);
        }
    }

    @Test
    void parsesSizeListsAndRanges() {
        long[] all = Sizes.parseList(Sizes.DEFAULT);
        assertThat(all).hasSize(23);
        assertThat(all[0]).isEqualTo(1);
        assertThat(all[22]).isEqualTo(4L << 20);
        assertThat(Sizes.parseList("8,1m,4m")).containsExactly(8, 1L << 20, 4L << 20);
        assertThat(Sizes.parseList("8,4:32,8")).containsExactly(8, 4, 16, 32);
        assertThat(Sizes.parseList("3:20")).containsExactly(3, 6, 12);
        for (String bad : new String[] {"", " , ", "0:4", "8:4", "1:x"}) {
            assertThatThrownBy(() -> Sizes.parseList(bad)).as(bad).isInstanceOf(IllegalArgumentException.class);
        }
    }

    @Test
    void labelsSizes() {
        assertThat(Sizes.label(8)).isEqualTo("8");
        assertThat(Sizes.label(65536)).isEqualTo("64k");
        assertThat(Sizes.label(4L << 20)).isEqualTo("4m");
        assertThat(Sizes.label(1500)).isEqualTo("1500");
    }

    @Test
    void parsesBenchmarksAndScalesIterations() {
        assertThat(Benchmark.parseList("all")).isEqualTo(EnumSet.allOf(Benchmark.class));
        assertThat(Benchmark.parseList("")).isEqualTo(EnumSet.allOf(Benchmark.class));
        assertThat(Benchmark.parseList("latency,BW")).containsExactly(Benchmark.LATENCY, Benchmark.BW);
        assertThatThrownBy(() -> Benchmark.parseList("pingpong")).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("pingpong");
        assertThat(Benchmark.LATENCY.iterations(8, -1)).isEqualTo(10_000);
        assertThat(Benchmark.LATENCY.iterations(1L << 20, -1)).isEqualTo(1_000);
        assertThat(Benchmark.BW.iterations(16 * 1024, -1)).isEqualTo(100);
        assertThat(Benchmark.BW.iterations(32 * 1024, -1)).isEqualTo(20);
        assertThat(Benchmark.ALLREDUCE.iterations(4L << 20, 5)).isEqualTo(1);
        assertThat(Benchmark.warmup(10_000)).isEqualTo(1_000);
        assertThat(Benchmark.warmup(5)).isEqualTo(1);
        assertThat(Benchmark.ALLREDUCE.accepts(4)).isFalse();
        assertThat(Benchmark.ALLREDUCE.accepts(8)).isTrue();
    }

    @Test
    void formatsAndParsesRows() {
        Row r = new Row("latency", "shm", 2, 8, 10_000, 0.5126, 0.5, 0.75, 12.0, 15.6);
        String line = Tsv.format(r);
        assertThat(line).isEqualTo("latency\tshm\t2\t8\t10000\t0.513\t0.500\t0.750\t12.000\t15.60");
        assertThat(line.split("\t")).hasSize(Tsv.COLUMNS.size());
        Row back = Tsv.parseRow(line);
        assertThat(back.benchmark()).isEqualTo("latency");
        assertThat(back.transport()).isEqualTo("shm");
        assertThat(back.np()).isEqualTo(2);
        assertThat(back.bytes()).isEqualTo(8);
        assertThat(back.iterations()).isEqualTo(10_000);
        assertThat(back.meanUs()).isEqualTo(0.513);
        assertThat(back.mbPerS()).isEqualTo(15.6);
        assertThat(back.hasAlloc()).isFalse();

        Row withAlloc = new Row("latency", "tcp", 2, 1024, 100, 9, 9, 10, 11, 113.7, 0.25);
        Row allocBack = Tsv.parseRow(Tsv.format(withAlloc));
        assertThat(allocBack.allocPerMsg()).isEqualTo(0.3); // one decimal
        assertThat(Tsv.format(r, true)).endsWith("\t15.60\t");
    }

    @Test
    void readsMixedOutputOfPeersAndLaunchers() {
        String text = """
                MPJ Express (0.44) is started in the multicore configuration
                benchmark\ttransport\tnp\tbytes\titerations\tmean_us\tp50_us\tp99_us\tmax_us\tMB_s
                latency\tvader\t2\t8\t10000\t0.260\t0.235\t0.310\t68.152\t30.80
                [0] bw\tshm\t2\t1048576\t20\t110.648\t101.366\t145.048\t145.048\t9476.68
                Stopping Process <0> on <vm>
                """;
        List<Row> rows = Tsv.parse(text);
        assertThat(rows).extracting(Row::benchmark).containsExactly("latency", "bw");
        assertThat(rows.get(1).mbPerS()).isEqualTo(9476.68);
        assertThat(Tsv.isHeader(Tsv.header(true))).isTrue();
        assertThat(Tsv.isHeader("latency\tshm")).isFalse();
        assertThatThrownBy(() -> Tsv.parseRow("latency\tshm\t2\tEIGHT\t1\t1\t1\t1\t1\t1"))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("EIGHT");
    }

    @Test
    void writesDocumentsWithOneColumnCountPerLine() {
        List<Row> rows = List.of(new Row("latency", "shm", 2, 8, 10, 1, 1, 1, 1, 8, 0.0),
                new Row("bw", "shm", 2, 8, 10, 1, 1, 1, 1, 8));
        List<String> lines = Tsv.write(rows).lines().toList();
        assertThat(lines).hasSize(3);
        assertThat(lines).allSatisfy(l -> assertThat(l.split("\t", -1)).hasSize(11));
        assertThat(Tsv.parse(lines)).hasSize(2);
    }

    @Test
    void parsesRankOptions() {
        BenchRank.Options o = BenchRank.Options.parse("latency,bw", "--sizes", "8,1m", "--iters", "50", "--alloc",
                "--transport", "shm", "--window", "16", "--no-jit-warmup");
        assertThat(o.benchmarks()).containsExactly(Benchmark.LATENCY, Benchmark.BW);
        assertThat(o.sizes()).containsExactly(8, 1L << 20);
        assertThat(o.iterBase()).isEqualTo(50);
        assertThat(o.window()).isEqualTo(16);
        assertThat(o.alloc()).isTrue();
        assertThat(o.jitWarmup()).isFalse();
        assertThat(o.transport()).isEqualTo("shm");
        assertThatThrownBy(() -> BenchRank.Options.parse("--iters", "0")).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> BenchRank.Options.parse("--sizes")).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> BenchRank.Options.parse("--bogus")).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void buildsOneJobPerTransport() {
        BenchCommand cmd = new BenchCommand();
        new CommandLine(cmd).parseArgs("bw", "--np", "3", "--transports", "shm", "--transports", "tcp",
                "--sizes", "1m,4m", "--iters", "7", "--timeout", "90s", "--jvm-arg", "-Xmx1g");
        List<JobSpec> jobs = cmd.jobs();
        assertThat(jobs).hasSize(2);
        JobSpec shm = jobs.get(0);
        assertThat(shm.np()).isEqualTo(3);
        assertThat(shm.main()).isEqualTo(BenchRank.class.getName());
        assertThat(shm.env()).containsEntry("RAILYARD_TRANSPORTS", "shm");
        assertThat(shm.args()).containsSequence("--sizes", "1m,4m").containsSequence("--iters", "7")
                .containsSequence("--transport", "shm").startsWith("bw");
        assertThat(shm.jvmArgs()).containsExactly("-Xmx1g");
        assertThat(shm.timeout()).hasSeconds(90);
        assertThat(jobs.get(1).env()).containsEntry("RAILYARD_TRANSPORTS", "tcp");

        BenchCommand plain = new BenchCommand();
        new CommandLine(plain).parseArgs();
        assertThat(plain.jobs()).singleElement().satisfies(j -> {
            // nothing but the ahead-of-time cache kept off (BenchJobsTest)
            assertThat(j.env()).containsOnlyKeys("RAILYARD_AOT");
            assertThat(j.np()).isEqualTo(2);
        });

        BenchCommand bad = new BenchCommand();
        new CommandLine(bad).parseArgs("latency", "--np", "1");
        assertThatThrownBy(bad::jobs).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("--np");
        BenchCommand badSizes = new BenchCommand();
        new CommandLine(badSizes).parseArgs("--sizes", "4:1");
        assertThatThrownBy(badSizes::jobs).isInstanceOf(IllegalArgumentException.class);
        // refused before any rank starts, not by every rank
        BenchCommand badName = new BenchCommand();
        new CommandLine(badName).parseArgs("latencies", "--np", "2");
        assertThatThrownBy(badName::jobs).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("unknown benchmark 'latencies'");
        BenchCommand badTransport = new BenchCommand();
        new CommandLine(badTransport).parseArgs("latency", "--transports", "shm", "--transports", "ib");
        assertThatThrownBy(badTransport::jobs).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("--transports ib: transport 'ib' is unknown; available: self, shm, tcp, udp, gateway, relay");
    }

    @Test
    void writesPlotsThatDecode(@TempDir Path dir) throws Exception {
        List<Row> rows = List.of(
                new Row("latency", "shm", 2, 8, 10, 0.9, 0.8, 1.2, 5, 8.9),
                new Row("latency", "shm", 2, 1024, 10, 1.5, 1.4, 2, 6, 680),
                new Row("latency", "tcp", 2, 8, 10, 9, 8, 12, 50, 0.9),
                new Row("latency", "tcp", 2, 1024, 10, 11, 10, 14, 60, 93),
                new Row("bw", "shm", 2, 8, 10, 0.2, 0.2, 0.3, 0.4, 40),
                new Row("bw", "shm", 2, 1L << 20, 10, 100, 99, 120, 130, 9000),
                new Row("allreduce", "shm", 2, 0, 10, 1, 1, 1, 1, 0));
        Path both = dir.resolve("sub/both.png");
        Plot.write(rows, both);
        BufferedImage img = ImageIO.read(both.toFile());
        assertThat(img).isNotNull();
        assertThat(img.getWidth()).isEqualTo(2 * Plot.WIDTH);
        assertThat(img.getHeight()).isEqualTo(Plot.HEIGHT);

        Path one = dir.resolve("latency.png");
        Plot.write(rows.subList(0, 4), one);
        BufferedImage img1 = ImageIO.read(one.toFile());
        assertThat(img1.getWidth()).isEqualTo(Plot.WIDTH);
        assertThat(Files.size(one)).isGreaterThan(1000);
        assertThat(distinctColours(img1)).isGreaterThan(4);

        assertThatThrownBy(() -> Plot.write(List.of(), dir.resolve("none.png")))
                .isInstanceOf(IllegalArgumentException.class);
        assertThat(dir.resolve("none.png")).doesNotExist();
    }

    private static int distinctColours(BufferedImage img) {
        java.util.Set<Integer> seen = new java.util.HashSet<>();
        for (int y = 0; y < img.getHeight(); y += 7) {
            for (int x = 0; x < img.getWidth(); x += 7) {
                seen.add(img.getRGB(x, y));
            }
        }
        return seen.size();
    }
}
