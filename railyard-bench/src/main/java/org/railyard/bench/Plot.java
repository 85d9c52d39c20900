package org.railyard.bench;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.knowm.xchart.BitmapEncoder;
import org.knowm.xchart.XYChart;
import org.knowm.xchart.XYChartBuilder;
import org.knowm.xchart.style.Styler;

/**
 * Draws results as log-log PNG charts against message size: mean time (microseconds) for latency
 * and allreduce, throughput (MB/s) for bw, bibw and the one-sided bandwidths ({@link #bandwidth}).
 * One series per benchmark, transport and process count; when the rows hold both kinds, the PNG has
 * the two charts side by side.
 */
public final class Plot {
    /** Width and height of one chart, pixels. */
    public static final int WIDTH = 900;
    public static final int HEIGHT = 600;

    private Plot() {
    }

    /**
     * Writes the chart(s) of {@code rows} to {@code png}, replacing the file.
     *
     * @throws IllegalArgumentException if no row has a positive value to plot
     * @throws IOException              if the file cannot be written
     */
    public static void write(List<Row> rows, Path png) throws IOException {
        List<XYChart> charts = charts(rows);
        if (charts.isEmpty()) {
            throw new IllegalArgumentException("nothing to plot: no result row with a positive value");
        }
        if (System.getProperty("java.awt.headless") == null) {
            System.setProperty("java.awt.headless", "true");
        }
        Path parent = png.toAbsolutePath().getParent();
        if (parent != null) {
            Files.createDirectories(parent);
        }
        try (OutputStream out = Files.newOutputStream(png)) {
            if (charts.size() == 1) {
                BitmapEncoder.saveBitmap(charts.get(0), out, BitmapEncoder.BitmapFormat.PNG);
            } else {
                BitmapEncoder.saveBitmap(charts, 1, charts.size(), out, BitmapEncoder.BitmapFormat.PNG);
            }
        }
    }

    /** The charts for the rows: time first, then bandwidth, each only if some row belongs to it. */
    static List<XYChart> charts(List<Row> rows) {
        List<XYChart> out = new ArrayList<>();
        XYChart time = chart(rows, false);
        if (time != null) {
            out.add(time);
        }
        XYChart bw = chart(rows, true);
        if (bw != null) {
            out.add(bw);
        }
        return out;
    }

    /** True for the benchmarks measured in MB/s: bw, bibw, the one-sided put_bw and get_bw, and the *_copy ones. */
    static boolean bandwidth(String benchmark) {
        return benchmark.equals("bw") || benchmark.equals("bibw") || benchmark.contains("_bw") || benchmark.contains("_copy");
    }

    private static XYChart chart(List<Row> rows, boolean bandwidth) {
        boolean multiNp = rows.stream().map(Row::np).distinct().count() > 1;
        Map<String, List<Row>> series = new LinkedHashMap<>();
        for (Row r : rows) {
            boolean isBw = bandwidth(r.benchmark());
            double y = bandwidth ? r.mbPerS() : r.meanUs();
            if (isBw != bandwidth || r.bytes() <= 0 || !(y > 0)) {
                continue;
            }
            String name = r.benchmark() + " " + r.transport() + (multiNp ? " np=" + r.np() : "");
            series.computeIfAbsent(name, k -> new ArrayList<>()).add(r);
        }
        if (series.isEmpty()) {
            return null;
        }
        XYChart c = new XYChartBuilder().width(WIDTH).height(HEIGHT)
                .title(bandwidth ? "Bandwidth vs message size" : "Time vs message size")
                .xAxisTitle("message size (bytes)")
                .yAxisTitle(bandwidth ? "MB/s (10^6 B/s)" : "mean time (us)")
                .build();
        c.getStyler().setXAxisLogarithmic(true);
        c.getStyler().setYAxisLogarithmic(true);
        c.getStyler().setLegendPosition(Styler.LegendPosition.InsideNW);
        c.getStyler().setChartBackgroundColor(java.awt.Color.WHITE);
        for (Map.Entry<String, List<Row>> e : series.entrySet()) {
            List<Row> rs = new ArrayList<>(e.getValue());
            rs.sort((a, b) -> Long.compare(a.bytes(), b.bytes()));
            double[] x = new double[rs.size()];
            double[] y = new double[rs.size()];
            for (int i = 0; i < rs.size(); i++) {
                x[i] = rs.get(i).bytes();
                y[i] = bandwidth ? rs.get(i).mbPerS() : rs.get(i).meanUs();
            }
            c.addSeries(e.getKey(), x, y);
        }
        return c;
    }
}
