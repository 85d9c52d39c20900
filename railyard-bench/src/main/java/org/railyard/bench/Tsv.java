package org.railyard.bench;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * The tab-separated result format shared by {@link BenchRank} and the peer programs: one header line,
 * then one line per benchmark and size, columns {@link #COLUMNS} (plus {@code alloc_B_msg} when
 * allocation is measured). Times are in microseconds with three decimals, throughput in MB/s
 * (10^6 bytes per second) with two.
 */
public final class Tsv {
    /** The columns every producer writes, in order. */
    public static final List<String> COLUMNS = List.of("benchmark", "transport", "np", "bytes", "iterations", "mean_us",
            "p50_us", "p99_us", "max_us", "MB_s");

    /** The optional last column: heap bytes allocated per message. */
    public static final String ALLOC_COLUMN = "alloc_B_msg";

    private Tsv() {
    }

    /** The header line, with the allocation column if {@code alloc}. */
    public static String header(boolean alloc) {
        return String.join("\t", COLUMNS) + (alloc ? "\t" + ALLOC_COLUMN : "");
    }

    /** True if the line is a header line (its first field is {@code benchmark}), whatever its optional columns. */
    public static boolean isHeader(String line) {
        return line.strip().startsWith(COLUMNS.get(0) + "\t" + COLUMNS.get(1) + "\t");
    }

    /** One row as a line (no line terminator); the allocation column is written when the row has it. */
    public static String format(Row r) {
        return format(r, r.hasAlloc());
    }

    /**
     * One row as a line (no line terminator). With {@code allocColumn} the line has the allocation
     * column, left empty when the row has no measurement, so that every line of a document has as
     * many fields as its header.
     */
    public static String format(Row r, boolean allocColumn) {
        String s = String.format(Locale.ROOT, "%s\t%s\t%d\t%d\t%d\t%.3f\t%.3f\t%.3f\t%.3f\t%.2f", r.benchmark(),
                r.transport(), r.np(), r.bytes(), r.iterations(), r.meanUs(), r.p50Us(), r.p99Us(), r.maxUs(),
                r.mbPerS());
        if (!allocColumn) {
            return s;
        }
        return s + "\t" + (r.hasAlloc() ? String.format(Locale.ROOT, "%.1f", r.allocPerMsg()) : "");
    }

    /**
     * Reads one line. Returns null for a line that is not a result row (fewer than ten tab-separated
     * fields, or the header). Text before the benchmark name in the first field, up to the last
     * blank (such as a launcher's rank prefix {@code "[0] "}), is ignored.
     *
     * @throws IllegalArgumentException if the line has the shape of a row but a number does not parse
     */
    public static Row parseRow(String line) {
        String[] f = line.strip().split("\t", -1);
        if (f.length < COLUMNS.size()) {
            return null;
        }
        String bench = f[0].strip();
        int blank = Math.max(bench.lastIndexOf(' '), bench.lastIndexOf('\t'));
        if (blank >= 0) {
            bench = bench.substring(blank + 1);
        }
        if (bench.equals(COLUMNS.get(0))) {
            return null;
        }
        try {
            double alloc = f.length > COLUMNS.size() && !f[10].isBlank() ? Double.parseDouble(f[10].strip()) : Double.NaN;
            return new Row(bench, f[1].strip(), Integer.parseInt(f[2].strip()), Long.parseLong(f[3].strip()),
                    Long.parseLong(f[4].strip()), num(f[5]), num(f[6]), num(f[7]), num(f[8]), num(f[9]), alloc);
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("malformed result line (" + e.getMessage() + "): " + line);
        }
    }

    private static double num(String s) {
        return Double.parseDouble(s.strip());
    }

    /** All result rows of a text, skipping every line that is not one (see {@link #parseRow}). */
    public static List<Row> parse(String text) {
        return parse(text.lines().toList());
    }

    /** All result rows among lines, skipping every line that is not one (see {@link #parseRow}). */
    public static List<Row> parse(List<String> lines) {
        List<Row> out = new ArrayList<>();
        for (String l : lines) {
            Row r = parseRow(l);
            if (r != null) {
                out.add(r);
            }
        }
        return out;
    }

    /** The rows as a document: header then one line per row, each ending in a newline. */
    public static String write(List<Row> rows) {
        boolean alloc = rows.stream().anyMatch(Row::hasAlloc);
        StringBuilder sb = new StringBuilder(header(alloc)).append('\n');
        for (Row r : rows) {
            sb.append(format(r, alloc)).append('\n');
        }
        return sb.toString();
    }
}
