import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;
import org.knowm.xchart.BitmapEncoder;
import org.knowm.xchart.CategoryChart;
import org.knowm.xchart.CategoryChartBuilder;
import org.knowm.xchart.XYChart;
import org.knowm.xchart.XYChartBuilder;
import org.knowm.xchart.style.Styler;

/**
 * The study's plots, from the medians run.sh writes (summary.tsv). A single-file program, run by
 * bench/study/plot.sh with the XChart jar of the project's build on the class path (the library
 * railyard-bench draws its plots with), so nothing needs installing.
 *
 * <pre>
 *   java -cp railyard-cli/target/lib/xchart-3.8.8.jar bench/study/Plot.java DATA_DIR PNG_DIR
 * </pre>
 *
 * Writes time-vs-np.png and efficiency-vs-np.png (scenario scale: median wall time and
 * T_seq / (p x median wall) against the rank count, one line per scheme/transport), slow-np<N>.png
 * (scenario slow: median wall time per scheme/transport, unslowed against one rank slowed) and
 * loss-npN.png (scenario loss: median wall time per scheme/transport and loss rate, one chart per
 * rank count). A configuration without a successful run is left out and named on standard error.
 */
public final class Plot {
    private Plot() {
    }

    /** One line of summary.tsv. */
    record Row(String scenario, String scheme, String transport, int np, String condition, int n, int runs, int ok,
               double wall, double efficiency) {
        String pair() {
            return scheme + "/" + transport;
        }
    }

    private static final List<String> PAIRS = List.of("sync/tcp", "async/udp", "async/tcp", "sync/udp");

    public static void main(String[] args) throws IOException {
        if (args.length != 2) {
            System.err.println("usage: Plot DATA_DIR PNG_DIR");
            System.exit(2);
        }
        Path data = Path.of(args[0]);
        Path png = Path.of(args[1]);
        Files.createDirectories(png);
        List<Row> rows = read(data.resolve("summary.tsv"));
        String cores = cores(data.resolve("machine.txt"));
        String slowSpec = slowSpec(data.resolve("machine.txt"));
        for (Row r : rows) {
            if (r.ok() == 0) {
                System.err.printf("Plot: no successful run of %s %s np %d %s n %d (%d run(s)): left out%n", r.scenario(),
                        r.pair(), r.np(), r.condition(), r.n(), r.runs());
            }
        }
        int scaleN = size(rows, "scale");
        int slowN = size(rows, "slow");
        int lossN = size(rows, "loss");
        scale(at(rows, "scale", scaleN), png, grid(scaleN), cores);
        slow(at(rows, "slow", slowN), png, grid(slowN), cores, slowSpec);
        loss(at(rows, "loss", lossN), png, grid(lossN));
    }

    /** The largest grid size a scenario was run with (each scenario is plotted at one size). */
    static int size(List<Row> rows, String scenario) {
        TreeSet<Integer> sizes = new TreeSet<>();
        rows.stream().filter(r -> r.scenario().equals(scenario)).forEach(r -> sizes.add(r.n()));
        if (sizes.size() > 1) {
            System.err.println("Plot: " + scenario + " was run with several grid sizes " + sizes + ": plotting n = " + sizes.last());
        }
        return sizes.isEmpty() ? 0 : sizes.last();
    }

    /** The rows of a scenario at grid size {@code n}. */
    static List<Row> at(List<Row> rows, String scenario, int n) {
        return rows.stream().filter(r -> r.scenario().equals(scenario) && r.n() == n).toList();
    }

    static String grid(int n) {
        return "n = " + n + " (" + n + "^3 points)";
    }

    static List<Row> read(Path tsv) throws IOException {
        List<String> lines = Files.readAllLines(tsv);
        List<String> head = List.of(lines.get(0).split("\t"));
        List<Row> rows = new ArrayList<>();
        for (String line : lines.subList(1, lines.size())) {
            String[] f = line.split("\t");
            Map<String, String> v = new LinkedHashMap<>();
            for (int i = 0; i < head.size() && i < f.length; i++) {
                v.put(head.get(i), f[i]);
            }
            rows.add(new Row(v.get("scenario"), v.get("scheme"), v.get("transport"), Integer.parseInt(v.get("np")),
                    v.get("condition"), Integer.parseInt(v.get("n")), Integer.parseInt(v.get("runs")),
                    Integer.parseInt(v.get("ok")), number(v.get("wall_median_s")), number(v.get("efficiency"))));
        }
        return rows;
    }

    private static double number(String s) {
        return s == null || s.equals("-") || s.isEmpty() ? Double.NaN : Double.parseDouble(s);
    }

    /** "2 cores" from machine.txt's nproc line, or "" when it is not there. */
    static String cores(Path machine) throws IOException {
        if (!Files.exists(machine)) {
            return "";
        }
        return Files.readAllLines(machine).stream().filter(l -> l.startsWith("nproc: ")).reduce((a, b) -> b)
                .map(l -> l.substring(7).trim() + " cores").orElse("");
    }

    /** The --slow of the last study in machine.txt ("1:2:spin"), or "" when it is not there. */
    static String slowSpec(Path machine) throws IOException {
        if (!Files.exists(machine)) {
            return "";
        }
        return Files.readAllLines(machine).stream().filter(l -> l.startsWith("command: ")).reduce((a, b) -> b)
                .map(l -> l.replaceFirst(".* --slow (\\S+).*", "$1")).filter(s -> !s.startsWith("command: ")).orElse("");
    }

    static void scale(List<Row> rows, Path png, String grid, String cores) throws IOException {
        List<Row> scale = rows.stream().filter(r -> r.scenario().equals("scale") && r.ok() > 0).toList();
        if (scale.isEmpty()) {
            System.err.println("Plot: no scale runs: time-vs-np.png and efficiency-vs-np.png not drawn");
            return;
        }
        String over = cores.isEmpty() ? "" : ", " + cores + ": more ranks than cores share them";
        XYChart time = xy("Obstacle demo: median wall time against ranks, " + grid + over, "wall time (s)");
        XYChart eff = xy("Efficiency T_seq / (p x T_par) against ranks, " + grid + over, "efficiency");
        for (String pair : List.of("sync/tcp", "sync/udp", "async/tcp", "async/udp")) {
            List<Row> s = scale.stream().filter(r -> r.pair().equals(pair)).sorted((a, b) -> Integer.compare(a.np(), b.np()))
                    .toList();
            if (s.isEmpty()) {
                continue;
            }
            time.addSeries(pair, s.stream().mapToDouble(Row::np).toArray(), s.stream().mapToDouble(Row::wall).toArray());
            List<Row> e = s.stream().filter(r -> !Double.isNaN(r.efficiency())).toList();
            if (!e.isEmpty()) {
                eff.addSeries(pair, e.stream().mapToDouble(Row::np).toArray(), e.stream().mapToDouble(Row::efficiency).toArray());
            }
        }
        save(time, png.resolve("time-vs-np.png"));
        if (!eff.getSeriesMap().isEmpty()) {
            save(eff, png.resolve("efficiency-vs-np.png"));
        }
    }

    static void slow(List<Row> rows, Path png, String grid, String cores, String spec) throws IOException {
        for (Map.Entry<Integer, List<Row>> e : byNp(rows, "slow").entrySet()) {
            int np = e.getKey();
            List<Row> at = e.getValue();
            CategoryChart c = bars("One rank slowed" + (spec.isEmpty() ? "" : " (--slow " + spec + ")") + ", " + np + " ranks, "
                    + grid + (cores.isEmpty() ? "" : ", " + cores), "median wall time (s)");
            List<String> pairs = List.of("sync/tcp", "async/tcp", "sync/udp", "async/udp");
            series(c, "no rank slowed", pairs, at, "none");
            series(c, "one rank slowed", pairs, at, "slow");
            save(c, png.resolve("slow-np" + np + ".png"));
        }
    }

    static void loss(List<Row> rows, Path png, String grid) throws IOException {
        for (Map.Entry<Integer, List<Row>> e : byNp(rows, "loss").entrySet()) {
            int np = e.getKey();
            List<Row> at = e.getValue();
            TreeSet<Double> rates = new TreeSet<>();
            at.forEach(r -> rates.add(Double.parseDouble(r.condition().substring(4))));
            CategoryChart c = bars("Packet loss in a network lab, " + np + " hosts (one rank each), " + grid,
                    "median wall time (s)");
            for (double rate : rates) {
                String cond = "loss" + (rate == Math.rint(rate) ? Long.toString((long) rate) : Double.toString(rate));
                series(c, (rate == Math.rint(rate) ? Long.toString((long) rate) : Double.toString(rate)) + " % lost", PAIRS, at,
                        cond);
            }
            save(c, png.resolve("loss-np" + np + ".png"));
        }
    }

    /**
     * The rows of {@code scenario} by rank count, ascending (a plot {@code SCENARIO-np<N>.png} each);
     * none, said on standard error, when the scenario has no rows.
     */
    private static TreeMap<Integer, List<Row>> byNp(List<Row> rows, String scenario) {
        TreeMap<Integer, List<Row>> byNp = new TreeMap<>();
        rows.stream().filter(r -> r.scenario().equals(scenario))
                .forEach(r -> byNp.computeIfAbsent(r.np(), np -> new ArrayList<>()).add(r));
        if (byNp.isEmpty()) {
            System.err.println("Plot: no " + scenario + " runs: " + scenario + "-np*.png not drawn");
        }
        return byNp;
    }

    /** One bar series: the median wall time of each scheme/transport under {@code condition}; a failed one counts 0. */
    private static void series(CategoryChart c, String name, List<String> pairs, List<Row> rows, String condition) {
        List<String> x = new ArrayList<>();
        List<Double> y = new ArrayList<>();
        for (String pair : pairs) {
            Row r = rows.stream().filter(w -> w.pair().equals(pair) && w.condition().equals(condition)).findFirst().orElse(null);
            if (r == null) {
                continue;
            }
            // a configuration with no successful run shows as a missing bar (0), named by main on stderr
            x.add(pair + (r.ok() < r.runs() ? " (" + r.ok() + "/" + r.runs() + " ok)" : ""));
            y.add(r.ok() > 0 ? r.wall() : 0.0);
        }
        if (!x.isEmpty()) {
            c.addSeries(name, x, y);
        }
    }

    private static XYChart xy(String title, String yTitle) {
        XYChart c = new XYChartBuilder().width(1000).height(560).title(title).xAxisTitle("ranks (np)").yAxisTitle(yTitle).build();
        c.getStyler().setLegendPosition(Styler.LegendPosition.OutsideS);
        c.getStyler().setLegendLayout(Styler.LegendLayout.Horizontal);
        c.getStyler().setChartBackgroundColor(java.awt.Color.WHITE);
        c.getStyler().setMarkerSize(8);
        c.getStyler().setYAxisMin(0.0);
        c.getStyler().setXAxisDecimalPattern("#");
        c.getStyler().setYAxisDecimalPattern("0.0##");
        return c;
    }

    private static CategoryChart bars(String title, String yTitle) {
        CategoryChart c = new CategoryChartBuilder().width(1000).height(560).title(title).xAxisTitle("scheme/transport")
                .yAxisTitle(yTitle).build();
        c.getStyler().setLegendPosition(Styler.LegendPosition.OutsideS);
        c.getStyler().setLegendLayout(Styler.LegendLayout.Horizontal);
        c.getStyler().setChartBackgroundColor(java.awt.Color.WHITE);
        c.getStyler().setLabelsVisible(true);
        c.getStyler().setDecimalPattern("0.00");
        c.getStyler().setYAxisMin(0.0);
        return c;
    }

    private static void save(org.knowm.xchart.internal.chartpart.Chart<?, ?> c, Path file) throws IOException {
        BitmapEncoder.saveBitmap(c, file.toString(), BitmapEncoder.BitmapFormat.PNG);
        System.out.println("Plot: wrote " + file);
    }
}
