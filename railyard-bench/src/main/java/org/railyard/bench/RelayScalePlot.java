package org.railyard.bench;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.knowm.xchart.BitmapEncoder;
import org.knowm.xchart.XYChart;
import org.knowm.xchart.XYChartBuilder;
import org.knowm.xchart.style.Styler;

/**
 * The plot of {@code bench/relay-scale.sh}: round trip of 8 B and aggregate throughput against the
 * number of ranks, one series per relay count, each point the median over rounds.
 *
 * <p>Usage: {@code RelayScalePlot SCALE.tsv OUT.png}; the TSV's rows are {@code relays, ranks,
 * round, rtt_us, aggregate_MB_s, load} after a header line and {@code #} comments.
 */
public final class RelayScalePlot {
    private RelayScalePlot() {
    }

    public static void main(String[] args) throws IOException {
        if (args.length != 2) {
            throw new IllegalArgumentException("usage: RelayScalePlot SCALE.tsv OUT.png");
        }
        // relays -> ranks -> values over rounds
        Map<Integer, Map<Integer, List<double[]>>> points = new TreeMap<>();
        int line = 0;
        for (String l : Files.readAllLines(Path.of(args[0]), StandardCharsets.UTF_8)) {
            line++;
            if (l.isBlank() || l.startsWith("#") || l.startsWith("relays")) {
                continue;
            }
            String[] f = l.split("\t");
            if (f.length < 5) {
                throw new IllegalArgumentException(args[0] + " line " + line + ": 5 columns expected, got " + f.length);
            }
            points.computeIfAbsent(Integer.parseInt(f[0]), k -> new TreeMap<>())
                    .computeIfAbsent(Integer.parseInt(f[1]), k -> new ArrayList<>())
                    .add(new double[] {Double.parseDouble(f[3]), Double.parseDouble(f[4])});
        }
        if (points.isEmpty()) {
            throw new IllegalArgumentException("nothing to plot in " + args[0]);
        }
        List<XYChart> charts = List.of(chart(points, 0, "Round trip of 8 B through relays", "round trip (us), median of pairs"),
                chart(points, 1, "Aggregate throughput through relays", "MB/s (10^6 B/s), sum of pairs"));
        System.setProperty("java.awt.headless", "true");
        try (OutputStream out = Files.newOutputStream(Path.of(args[1]))) {
            BitmapEncoder.saveBitmap(charts, 1, charts.size(), out, BitmapEncoder.BitmapFormat.PNG);
        }
    }

    private static XYChart chart(Map<Integer, Map<Integer, List<double[]>>> points, int column, String title, String yTitle) {
        XYChart c = new XYChartBuilder().width(Plot.WIDTH).height(Plot.HEIGHT).title(title)
                .xAxisTitle("ranks (in pairs)").yAxisTitle(yTitle).build();
        c.getStyler().setLegendPosition(Styler.LegendPosition.InsideNW);
        c.getStyler().setChartBackgroundColor(java.awt.Color.WHITE);
        for (Map.Entry<Integer, Map<Integer, List<double[]>>> e : points.entrySet()) {
            double[] x = new double[e.getValue().size()];
            double[] y = new double[x.length];
            int i = 0;
            for (Map.Entry<Integer, List<double[]>> p : e.getValue().entrySet()) {
                x[i] = p.getKey();
                y[i] = median(p.getValue().stream().mapToDouble(v -> v[column]).sorted().toArray());
                i++;
            }
            c.addSeries(e.getKey() + (e.getKey() == 1 ? " relay" : " relays"), x, y);
        }
        return c;
    }

    private static double median(double[] sorted) {
        int n = sorted.length;
        return n % 2 == 1 ? sorted[n / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2;
    }
}
