package org.railyard.bench;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.knowm.xchart.BitmapEncoder;
import org.knowm.xchart.XYChart;
import org.knowm.xchart.XYChartBuilder;
import org.knowm.xchart.XYSeries;
import org.knowm.xchart.style.Styler;
import org.knowm.xchart.style.markers.SeriesMarkers;

/**
 * What a {@link StreamRank} job printed, read back: the receiver's result, every rank's per-rail
 * series and state changes, and the steps the command ran; turned into a throughput table over
 * time (Mbit/s per rail per sample interval, as received by rank 1) and a PNG plot of it with the
 * faults marked (like seed 002 figures 10.13-10.20).
 */
final class StreamReport {
    /** A sample of one rail of one rank. */
    record Sample(double ms, long sent, long received, double weight) { }

    /** A state change of a rail, as a rank saw it. */
    record Event(int rank, int rail, double ms, String state, String why) { }

    /** A step the command ran: when (ms since START) and what. */
    record Step(double ms, String label) { }

    String result;
    long bytes;
    double seconds;
    double mbit;
    boolean crcOk;
    /** rank -> rail -> samples. */
    final Map<Integer, Map<Integer, List<Sample>>> series = new TreeMap<>();
    final List<Event> events = new ArrayList<>();
    final List<String> rails = new ArrayList<>();
    final List<Step> steps = new ArrayList<>();
    /** Why a rank's stream failed, per rank ("1: message"), and when. */
    final List<String> failures = new ArrayList<>();
    final List<Step> failedAt = new ArrayList<>();

    /** Takes one line of rank {@code rank}'s standard output; false if it is none of StreamRank's records. */
    boolean add(int rank, String line) {
        String[] f = line.split(" ", 7);
        try {
            switch (f[0]) {
                case "RESULT" -> {
                    result = line.substring("RESULT ".length());
                    bytes = Long.parseLong(f[1]);
                    seconds = Double.parseDouble(f[2]);
                    mbit = Double.parseDouble(f[3]);
                    crcOk = f[4].equals("ok");
                }
                case "SERIES" -> series.computeIfAbsent(Integer.parseInt(f[1]), k -> new TreeMap<>())
                        .computeIfAbsent(Integer.parseInt(f[2]), k -> new ArrayList<>())
                        .add(new Sample(Double.parseDouble(f[3]), Long.parseLong(f[4]), Long.parseLong(f[5]), Double.parseDouble(f[6])));
                case "EVENT" -> {
                    String[] g = line.split(" ", 6);
                    events.add(new Event(Integer.parseInt(g[1]), Integer.parseInt(g[2]), Double.parseDouble(g[3]), g[4],
                            g.length > 5 ? g[5] : ""));
                }
                case "RAIL" -> rails.add(line.substring(line.indexOf(' ', 5) + 1));
                case "FAILED" -> {
                    String[] g = line.split(" ", 3);
                    failures.add(rank + ": " + g[2]);
                    failedAt.add(new Step(Double.parseDouble(g[1]), "rank " + rank + " failed"));
                }
                case "START", "PROGRESS" -> { }
                default -> {
                    return false;
                }
            }
            return true;
        } catch (RuntimeException e) {
            return false;
        }
    }

    /** Rank 1's received throughput per rail: rail -> (time ms at the interval's end, Mbit/s over it). */
    Map<Integer, double[][]> throughput() {
        Map<Integer, double[][]> out = new TreeMap<>();
        Map<Integer, List<Sample>> rx = series.getOrDefault(1, Map.of());
        for (Map.Entry<Integer, List<Sample>> e : rx.entrySet()) {
            List<Sample> s = e.getValue();
            if (s.size() < 2) {
                continue;
            }
            double[] t = new double[s.size() - 1];
            double[] v = new double[s.size() - 1];
            for (int i = 1; i < s.size(); i++) {
                double dt = s.get(i).ms() - s.get(i - 1).ms();
                t[i - 1] = s.get(i).ms();
                v[i - 1] = dt <= 0 ? 0 : (s.get(i).received() - s.get(i - 1).received()) * 8 / dt / 1000;
            }
            out.put(e.getKey(), new double[][] {t, v});
        }
        return out;
    }

    /**
     * The series as TSV, one row per 100 ms interval (by rank 1's sample times): per rail the
     * Mbit/s rank 1 received and rank 0 sent (rank 0's nearest interval), and the total received.
     */
    String tsv() {
        Map<Integer, double[][]> tp = throughput();
        Map<Integer, List<Sample>> tx = series.getOrDefault(0, Map.of());
        StringBuilder sb = new StringBuilder("ms");
        for (int r : tp.keySet()) {
            sb.append("\trail").append(r).append("_rx_mbit_s\trail").append(r).append("_tx_mbit_s");
        }
        sb.append("\ttotal_rx_mbit_s\n");
        int n = tp.values().stream().mapToInt(a -> a[0].length).min().orElse(0);
        for (int i = 0; i < n; i++) {
            double total = 0;
            double t = tp.values().iterator().next()[0][i];
            sb.append(String.format("%.0f", t));
            for (Map.Entry<Integer, double[][]> e : tp.entrySet()) {
                double rx = e.getValue()[1][i];
                sb.append(String.format("\t%.1f\t%.1f", rx, sentRate(tx.get(e.getKey()), t)));
                total += rx;
            }
            sb.append(String.format("\t%.1f%n", total));
        }
        return sb.toString();
    }

    /** Mbit/s rank 0 handed to a rail over its sample interval ending nearest {@code ms}; -1 if unknown. */
    private static double sentRate(List<Sample> s, double ms) {
        if (s == null || s.size() < 2) {
            return -1;
        }
        int best = 1;
        for (int i = 1; i < s.size(); i++) {
            if (Math.abs(s.get(i).ms() - ms) < Math.abs(s.get(best).ms() - ms)) {
                best = i;
            }
        }
        double dt = s.get(best).ms() - s.get(best - 1).ms();
        return dt <= 0 ? 0 : (s.get(best).sent() - s.get(best - 1).sent()) * 8 / dt / 1000;
    }

    /** Draws throughput over time, per rail and in total, with each step and each rail failure marked. */
    void plot(Path png, String title) throws IOException {
        Map<Integer, double[][]> tp = throughput();
        if (tp.isEmpty()) {
            throw new IllegalArgumentException("nothing to plot: rank 1 reported no series");
        }
        if (System.getProperty("java.awt.headless") == null) {
            System.setProperty("java.awt.headless", "true");
        }
        XYChart c = new XYChartBuilder().width(1100).height(560).title(title)
                .xAxisTitle("time since start (s)").yAxisTitle("received (Mbit/s, 100 ms intervals)").build();
        c.getStyler().setLegendPosition(Styler.LegendPosition.OutsideS);
        c.getStyler().setLegendLayout(Styler.LegendLayout.Horizontal);
        c.getStyler().setChartBackgroundColor(java.awt.Color.WHITE);
        c.getStyler().setMarkerSize(4);
        int n = tp.values().stream().mapToInt(a -> a[0].length).min().orElse(0);
        double[] total = new double[n];
        double[] totalT = new double[n];
        double max = 1;
        for (Map.Entry<Integer, double[][]> e : tp.entrySet()) {
            double[][] a = e.getValue();
            XYSeries s = c.addSeries("rail " + e.getKey(), seconds(a[0]), a[1]);
            s.setMarker(SeriesMarkers.NONE);
            for (int i = 0; i < n; i++) {
                total[i] += a[1][i];
                totalT[i] = a[0][i];
            }
            for (double v : a[1]) {
                max = Math.max(max, v);
            }
        }
        if (tp.size() > 1) {
            XYSeries s = c.addSeries("total", seconds(totalT), total);
            s.setMarker(SeriesMarkers.NONE);
            for (double v : total) {
                max = Math.max(max, v);
            }
        }
        List<Step> marks = new ArrayList<>(steps);
        marks.addAll(failedAt);
        for (Step st : marks) {
            XYSeries s = c.addSeries(String.format("%.1f s: ", st.ms() / 1000) + shorten(st.label()),
                    new double[] {st.ms() / 1000, st.ms() / 1000}, new double[] {0, max * 1.05});
            s.setMarker(SeriesMarkers.NONE);
        }
        // where rank 0 (the sender) saw rails go down and come back
        List<Double> downT = new ArrayList<>();
        List<Double> upT = new ArrayList<>();
        for (Event e : events) {
            if (e.rank() == 0 && e.ms() > 0) {
                (e.state().equals("UP") ? upT : downT).add(e.ms() / 1000);
            }
        }
        addMarks(c, "rail down (sender)", downT, max * 0.98, SeriesMarkers.TRIANGLE_DOWN);
        addMarks(c, "rail up (sender)", upT, max * 0.98, SeriesMarkers.TRIANGLE_UP);
        Path parent = png.toAbsolutePath().getParent();
        if (parent != null) {
            Files.createDirectories(parent);
        }
        try (OutputStream out = Files.newOutputStream(png)) {
            BitmapEncoder.saveBitmap(c, out, BitmapEncoder.BitmapFormat.PNG);
        }
    }

    private static void addMarks(XYChart c, String name, List<Double> times, double y,
                                 org.knowm.xchart.style.markers.Marker marker) {
        if (times.isEmpty()) {
            return;
        }
        double[] x = times.stream().mapToDouble(Double::doubleValue).toArray();
        double[] ys = new double[x.length];
        java.util.Arrays.fill(ys, y);
        XYSeries s = c.addSeries(name, x, ys);
        s.setXYSeriesRenderStyle(XYSeries.XYSeriesRenderStyle.Scatter);
        s.setMarker(marker);
    }

    private static double[] seconds(double[] ms) {
        double[] s = new double[ms.length];
        for (int i = 0; i < ms.length; i++) {
            s[i] = ms[i] / 1000;
        }
        return s;
    }

    private static String shorten(String cmd) {
        return cmd.length() <= 48 ? cmd : cmd.substring(0, 45) + "...";
    }
}
