package org.railyard.bench;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.function.ToDoubleFunction;
import org.knowm.xchart.BitmapEncoder;
import org.knowm.xchart.CategoryChart;
import org.knowm.xchart.CategoryChartBuilder;
import org.knowm.xchart.XYChart;
import org.knowm.xchart.XYChartBuilder;
import org.knowm.xchart.internal.chartpart.Chart;
import org.knowm.xchart.style.Styler;

/**
 * The tables and plots of {@code bench/compare-app.sh}: the obstacle solver on Railyard
 * ({@code ObstacleDemo}) against its C twin on MPI ({@code bench/peers/c/obstacle.c}), from the
 * script's raw TSV, one row per run:
 * <pre>
 *   impl  round  n  np  iterations  residual  solve_s  compute_s  halo_wait_s  send_wait_s  test_s  job_s
 * </pre>
 * ({@code impl} is {@code railyard}, {@code railyard-async} for the asynchronous scheme, or the
 * twin's {@code c-...}; the phase times are the mean over ranks, {@code solve_s} the slowest
 * rank's solve, {@code job_s} the whole job from the shell).
 *
 * <p>Per round, each implementation's speed-up is its np-1 solve time of that round over its solve
 * time at np (its own sequential run, the same program on one rank), and Railyard's figures are
 * divided by the twin's of the same round; a table cell is the median over rounds, of the times and
 * of those per-round ratios. Time per iteration is split into compute, halo (waiting for the planes
 * and for the sends) and test (the convergence allreduce), in microseconds.
 *
 * <p>The asynchronous scheme, where it ran, is a column of its own: its speed-up over its own np-1
 * run of the same round, and per round its solve time over the synchronous scheme's and its
 * speed-up over the twin's (which runs the synchronous scheme). Its iterations differ from the
 * others' by design (ranks iterate on the planes they have), so it is not in the agreement check.
 *
 * <p>Usage: {@code AppCompare RAW_TSV OUT_DIR [LABEL]}: writes {@code OUT_DIR/tables.md} (also on
 * standard output), {@code OUT_DIR/app-speedup.png} and {@code OUT_DIR/app-per-iteration.png}.
 */
public final class AppCompare {
    /** Name of Railyard's runs in the raw TSV. */
    public static final String RAILYARD = "railyard";
    /** Name of Railyard's runs of the asynchronous scheme in the raw TSV. */
    public static final String ASYNC = "railyard-async";

    /** One run of one implementation. */
    record Run(String impl, int round, int n, int np, int iterations, double residual, double solve, double compute,
               double haloWait, double sendWait, double test, double job) {
        double perIterationUs(double seconds) {
            return iterations == 0 ? Double.NaN : seconds / iterations * 1e6;
        }

        double computeUs() {
            return perIterationUs(compute);
        }

        double haloUs() {
            return perIterationUs(haloWait + sendWait);
        }

        double testUs() {
            return perIterationUs(test);
        }

        /** Communication per iteration: halo and test. */
        double commUs() {
            return haloUs() + testUs();
        }
    }

    /**
     * The medians of one cell (n, np) for both implementations and their per-round ratios; with the
     * asynchronous scheme's ({@code async} null where it did not run).
     */
    record Cell(int n, int np, int rounds, Summary twin, Summary railyard, double wallRatio, double speedupRatio,
                double commRatio, boolean agree, Async async) {
    }

    /**
     * The asynchronous scheme in one cell: its medians, its iterations (median over rounds), and the
     * medians of the per-round ratios of its solve time to the synchronous scheme's and of its
     * speed-up to the twin's.
     */
    record Async(Summary summary, double iterations, double solveToSync, double speedupToTwin) {
    }

    /** Medians over rounds of one implementation in one cell; speed-up NaN without an np-1 run. */
    record Summary(double solve, double job, double speedup, double computeUs, double haloUs, double testUs) {
    }

    private AppCompare() {
    }

    public static void main(String[] args) throws IOException {
        if (args.length < 2 || args.length > 3) {
            System.err.println("usage: AppCompare RAW_TSV OUT_DIR [LABEL]");
            System.exit(2);
        }
        List<Run> runs = parse(Files.readAllLines(Path.of(args[0]), StandardCharsets.UTF_8));
        Path out = Path.of(args[1]);
        Files.createDirectories(out);
        List<Cell> cells = cells(runs);
        String label = args.length == 3 ? args[2] : "";
        String tables = tables(cells, twinName(runs), label);
        Files.writeString(out.resolve("tables.md"), tables, StandardCharsets.UTF_8);
        System.out.print(tables);
        writePlots(cells, twinName(runs), out);
    }

    /** Parses the raw TSV; a line that is not a run is an error naming the line. */
    static List<Run> parse(List<String> lines) {
        List<Run> runs = new ArrayList<>();
        for (int i = 0; i < lines.size(); i++) {
            String line = lines.get(i).strip();
            if (line.isEmpty() || line.startsWith("#")) {
                continue;
            }
            String[] f = line.split("\t");
            if (f.length != 12) {
                throw new IllegalArgumentException("raw TSV line " + (i + 1) + ": 12 fields expected, got " + f.length
                        + ": '" + line + "'");
            }
            try {
                runs.add(new Run(f[0], Integer.parseInt(f[1]), Integer.parseInt(f[2]), Integer.parseInt(f[3]),
                        Integer.parseInt(f[4]), Double.parseDouble(f[5]), Double.parseDouble(f[6]), Double.parseDouble(f[7]),
                        Double.parseDouble(f[8]), Double.parseDouble(f[9]), Double.parseDouble(f[10]),
                        Double.parseDouble(f[11])));
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException("raw TSV line " + (i + 1) + ": not a number in '" + line + "'", e);
            }
        }
        if (runs.isEmpty()) {
            throw new IllegalArgumentException("raw TSV has no runs");
        }
        return runs;
    }

    /** The implementation other than Railyard (the C twin's name), or "c" if none ran. */
    static String twinName(List<Run> runs) {
        return runs.stream().map(Run::impl).filter(s -> !s.equals(RAILYARD) && !s.equals(ASYNC)).findFirst().orElse("c");
    }

    /** One cell per (n, np) that both implementations ran, in order of n then np. */
    static List<Cell> cells(List<Run> runs) {
        String twin = twinName(runs);
        Map<String, Run> byKey = new TreeMap<>();
        TreeSet<List<Integer>> keys = new TreeSet<>((a, b) -> a.get(0).equals(b.get(0)) ? a.get(1) - b.get(1) : a.get(0) - b.get(0));
        TreeSet<Integer> rounds = new TreeSet<>();
        for (Run r : runs) {
            byKey.put(key(r.impl(), r.round(), r.n(), r.np()), r);
            keys.add(List.of(r.n(), r.np()));
            rounds.add(r.round());
        }
        List<Cell> cells = new ArrayList<>();
        for (List<Integer> k : keys) {
            int n = k.get(0);
            int np = k.get(1);
            List<Run> twinRuns = new ArrayList<>();
            List<Run> ryRuns = new ArrayList<>();
            List<Double> twinSpeedups = new ArrayList<>();
            List<Double> rySpeedups = new ArrayList<>();
            List<Double> wall = new ArrayList<>();
            List<Double> speedup = new ArrayList<>();
            List<Double> comm = new ArrayList<>();
            boolean agree = true;
            List<Run> asyncRuns = new ArrayList<>();
            List<Double> asyncSpeedups = new ArrayList<>();
            List<Double> asyncToSync = new ArrayList<>();
            List<Double> asyncToTwin = new ArrayList<>();
            for (int round : rounds) {
                Run c = byKey.get(key(twin, round, n, np));
                Run ry = byKey.get(key(RAILYARD, round, n, np));
                if (c == null || ry == null) {
                    continue;
                }
                twinRuns.add(c);
                ryRuns.add(ry);
                agree &= c.iterations() == ry.iterations() && c.residual() == ry.residual();
                wall.add(ry.solve() / c.solve());
                comm.add(ry.commUs() / c.commUs());
                Run c1 = byKey.get(key(twin, round, n, 1));
                Run ry1 = byKey.get(key(RAILYARD, round, n, 1));
                if (c1 != null && ry1 != null) {
                    double cs = c1.solve() / c.solve();
                    double rs = ry1.solve() / ry.solve();
                    twinSpeedups.add(cs);
                    rySpeedups.add(rs);
                    speedup.add(rs / cs);
                }
                Run as = byKey.get(key(ASYNC, round, n, np));
                if (as != null) {
                    asyncRuns.add(as);
                    asyncToSync.add(as.solve() / ry.solve());
                    Run as1 = byKey.get(key(ASYNC, round, n, 1));
                    if (as1 != null && c1 != null) {
                        double a = as1.solve() / as.solve();
                        asyncSpeedups.add(a);
                        asyncToTwin.add(a / (c1.solve() / c.solve()));
                    }
                }
            }
            if (twinRuns.isEmpty()) {
                continue;
            }
            Async async = asyncRuns.isEmpty() ? null : new Async(summary(asyncRuns, asyncSpeedups),
                    median(asyncRuns, Run::iterations), median(asyncToSync), median(asyncToTwin));
            cells.add(new Cell(n, np, twinRuns.size(), summary(twinRuns, twinSpeedups), summary(ryRuns, rySpeedups),
                    median(wall), median(speedup), median(comm), agree, async));
        }
        return cells;
    }

    private static String key(String impl, int round, int n, int np) {
        return impl + "/" + round + "/" + n + "/" + np;
    }

    private static Summary summary(List<Run> runs, List<Double> speedups) {
        return new Summary(median(runs, Run::solve), median(runs, Run::job), median(speedups), median(runs, Run::computeUs),
                median(runs, Run::haloUs), median(runs, Run::testUs));
    }

    private static double median(List<Run> runs, ToDoubleFunction<Run> f) {
        return median(runs.stream().map(f::applyAsDouble).toList());
    }

    /** The median (the mean of the middle two for an even count); NaN for none. */
    static double median(List<Double> values) {
        if (values.isEmpty()) {
            return Double.NaN;
        }
        double[] v = values.stream().mapToDouble(Double::doubleValue).toArray();
        Arrays.sort(v);
        int m = v.length / 2;
        return v.length % 2 == 1 ? v[m] : (v[m - 1] + v[m]) / 2;
    }

    /** The markdown report: one table of times and speed-ups, one of the time per iteration, the targets. */
    static String tables(List<Cell> cells, String twin, String label) {
        StringBuilder b = new StringBuilder();
        int rounds = cells.stream().mapToInt(Cell::rounds).max().orElse(0);
        b.append(String.format(Locale.ROOT, "## Obstacle solver, synchronous: Railyard against its C twin (%s)%n%n", twin));
        if (!label.isEmpty()) {
            b.append(label).append(System.lineSeparator()).append(System.lineSeparator());
        }
        b.append(String.format(Locale.ROOT, "Medians of %d alternating round(s); ratios are Railyard / %s, the median of"
                + " the per-round ratios. Solve: the slowest rank's solve time; job: the whole job from the shell"
                + " (start-up included). Speed-up: over the same program's np-1 solve of the same round.%n%n", rounds, twin));
        b.append("| n | np | ").append(twin).append(" solve s | Railyard solve s | solve ratio | ").append(twin)
                .append(" speed-up | Railyard speed-up | speed-up ratio | ").append(twin)
                .append(" job s | Railyard job s | same iterations and residual |\n");
        b.append("|---|---|---|---|---|---|---|---|---|---|---|\n");
        for (Cell c : cells) {
            b.append(String.format(Locale.ROOT, "| %d | %d | %.3f | %.3f | %.2f | %s | %s | %s | %.2f | %.2f | %s |%n",
                    c.n(), c.np(), c.twin().solve(), c.railyard().solve(), c.wallRatio(), num(c.twin().speedup()),
                    num(c.railyard().speedup()), num(c.speedupRatio()), c.twin().job(), c.railyard().job(),
                    c.agree() ? "yes" : "NO"));
        }
        b.append(String.format(Locale.ROOT, "%nTime per iteration, microseconds (mean over ranks): compute / halo / test;"
                + " comm ratio = Railyard (halo + test) / %s (halo + test).%n%n", twin));
        b.append("| n | np | ").append(twin).append(" compute | halo | test | Railyard compute | halo | test | comm ratio |\n");
        b.append("|---|---|---|---|---|---|---|---|---|\n");
        for (Cell c : cells) {
            b.append(String.format(Locale.ROOT, "| %d | %d | %.1f | %.1f | %.1f | %.1f | %.1f | %.1f | %s |%n", c.n(), c.np(),
                    c.twin().computeUs(), c.twin().haloUs(), c.twin().testUs(), c.railyard().computeUs(),
                    c.railyard().haloUs(), c.railyard().testUs(), c.np() == 1 ? "-" : num(c.commRatio())));
        }
        if (cells.stream().anyMatch(c -> c.async() != null)) {
            b.append(String.format(Locale.ROOT, "%nThe asynchronous scheme (Railyard, `--scheme async`; the twin runs the"
                    + " synchronous one): medians over rounds; the ratios are medians of per-round ratios. Speed-up: over"
                    + " its own np-1 solve of the same round. Time per iteration in microseconds (mean over ranks; the"
                    + " scheme times no halo or test phase of its own: -).%n%n"));
            b.append("| n | np | async solve s | iterations | async speed-up | async / sync solve | async speed-up / ")
                    .append(twin).append(" speed-up | compute | halo | test |\n");
            b.append("|---|---|---|---|---|---|---|---|---|---|\n");
            for (Cell c : cells) {
                Async a = c.async();
                if (a != null) {
                    b.append(String.format(Locale.ROOT, "| %d | %d | %.3f | %.0f | %s | %.2f | %s | %.1f | %s | %s |%n",
                            c.n(), c.np(), a.summary().solve(), a.iterations(), num(a.summary().speedup()), a.solveToSync(),
                            num(a.speedupToTwin()), a.summary().computeUs(), num1(a.summary().haloUs()),
                            num1(a.summary().testUs())));
                }
            }
        }
        b.append(System.lineSeparator()).append("Targets of issue 21 (met / missed / not measured):").append(System.lineSeparator());
        target(b, cells, 96, 2, "np 2, n 96: speed-up ratio >= 0.9", c -> c.speedupRatio() >= 0.9, c -> c.speedupRatio());
        target(b, cells, 96, 2, "np 2, n 96: solve ratio <= 1.3", c -> c.wallRatio() <= 1.3, c -> c.wallRatio());
        target(b, cells, 48, 2, "np 2, n 48: Railyard speed-up > 1", c -> c.railyard().speedup() > 1,
                c -> c.railyard().speedup());
        target(b, cells, 48, 2, "np 2, n 48: speed-up ratio >= 0.8", c -> c.speedupRatio() >= 0.8, c -> c.speedupRatio());
        for (int n : new int[] {48, 96}) {
            for (int np : new int[] {4, 8}) {
                target(b, cells, n, np, "np " + np + ", n " + n + ": speed-up ratio >= 0.8", c -> c.speedupRatio() >= 0.8,
                        c -> c.speedupRatio());
            }
        }
        for (int n : new int[] {48, 96}) {
            target(b, cells, n, 2, "np 2, n " + n + ": comm ratio <= 2", c -> c.commRatio() <= 2, c -> c.commRatio());
        }
        return b.toString();
    }

    private static void target(StringBuilder b, List<Cell> cells, int n, int np, String what,
                               java.util.function.Predicate<Cell> met, ToDoubleFunction<Cell> value) {
        Cell cell = cells.stream().filter(c -> c.n() == n && c.np() == np).findFirst().orElse(null);
        String verdict;
        if (cell == null || Double.isNaN(value.applyAsDouble(cell))) {
            verdict = "not measured";
        } else {
            verdict = String.format(Locale.ROOT, "%s (%.2f)", met.test(cell) ? "met" : "missed", value.applyAsDouble(cell));
        }
        b.append(String.format(Locale.ROOT, "- %s: %s%n", what, verdict));
    }

    private static String num1(double v) {
        return Double.isNaN(v) ? "-" : String.format(Locale.ROOT, "%.1f", v);
    }

    private static String num(double v) {
        return Double.isNaN(v) ? "-" : String.format(Locale.ROOT, "%.2f", v);
    }

    /** Speed-up against np, one chart per n; time per iteration as stacked bars, one chart per n. */
    static void writePlots(List<Cell> cells, String twin, Path dir) throws IOException {
        if (System.getProperty("java.awt.headless") == null) {
            System.setProperty("java.awt.headless", "true");
        }
        TreeSet<Integer> ns = new TreeSet<>();
        cells.forEach(c -> ns.add(c.n()));
        List<XYChart> speedups = new ArrayList<>();
        List<CategoryChart> perIteration = new ArrayList<>();
        for (int n : ns) {
            List<Cell> row = cells.stream().filter(c -> c.n() == n).toList();
            XYChart s = new XYChartBuilder().width(Plot.WIDTH).height(Plot.HEIGHT)
                    .title("Obstacle solver n=" + n + ": speed-up over own np-1 run").xAxisTitle("ranks (np)")
                    .yAxisTitle("speed-up").build();
            s.getStyler().setLegendPosition(Styler.LegendPosition.InsideNW);
            addSeries(s, twin, row, c -> c.twin().speedup());
            addSeries(s, "railyard", row, c -> c.railyard().speedup());
            addSeries(s, "railyard async", row, c -> c.async() == null ? Double.NaN : c.async().summary().speedup());
            if (!s.getSeriesMap().isEmpty()) {
                speedups.add(s);
            }
            CategoryChart t = new CategoryChartBuilder().width(Plot.WIDTH).height(Plot.HEIGHT)
                    .title("Obstacle solver n=" + n + ": time per iteration")
                    .xAxisTitle("ranks, implementation (C: " + twin + ", Ry: Railyard)")
                    .yAxisTitle("microseconds per iteration").build();
            t.getStyler().setStacked(true);
            t.getStyler().setLegendPosition(Styler.LegendPosition.InsideNW);
            List<String> labels = new ArrayList<>();
            double[][] parts = new double[3][2 * row.size()];
            for (int i = 0; i < row.size(); i++) {
                Cell c = row.get(i);
                labels.add("np" + c.np() + " C");
                labels.add("np" + c.np() + " Ry");
                Summary[] both = {c.twin(), c.railyard()};
                for (int j = 0; j < 2; j++) {
                    parts[0][2 * i + j] = both[j].computeUs();
                    parts[1][2 * i + j] = both[j].haloUs();
                    parts[2][2 * i + j] = both[j].testUs();
                }
            }
            String[] names = {"compute", "halo", "test"};
            for (int p = 0; p < 3; p++) {
                t.addSeries(names[p], labels, Arrays.stream(parts[p]).boxed().toList());
            }
            perIteration.add(t);
        }
        save(speedups, dir.resolve("app-speedup.png"));
        save(perIteration, dir.resolve("app-per-iteration.png"));
    }

    private static void addSeries(XYChart chart, String name, List<Cell> row, ToDoubleFunction<Cell> y) {
        List<Double> xs = new ArrayList<>();
        List<Double> ys = new ArrayList<>();
        for (Cell c : row) {
            double v = y.applyAsDouble(c);
            if (!Double.isNaN(v)) {
                xs.add((double) c.np());
                ys.add(v);
            }
        }
        if (!xs.isEmpty()) {
            chart.addSeries(name, xs, ys);
        }
    }

    private static <C extends Chart<?, ?>> void save(List<C> charts, Path png) throws IOException {
        if (charts.isEmpty()) {
            return;
        }
        try (OutputStream out = Files.newOutputStream(Objects.requireNonNull(png))) {
            BitmapEncoder.saveBitmap(charts, 1, charts.size(), out, BitmapEncoder.BitmapFormat.PNG);
        }
    }
}
