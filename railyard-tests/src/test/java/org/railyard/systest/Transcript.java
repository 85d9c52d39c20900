package org.railyard.systest;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.function.Predicate;
import org.railyard.launcher.LineSink;
import org.railyard.testkit.Await;

/**
 * Every line a job or a set of processes wrote, in arrival order, with the rank and the stream it
 * came from; waits (bounded) for a line to appear. Thread-safe: the launcher's output pumps and
 * the test thread share it.
 */
public final class Transcript {
    /** Which stream a line came from. */
    public enum Stream { OUT, ERR }

    /** One line; {@code rank} is {@link LineSink#LAUNCHER} for the launcher's own messages. */
    public record Line(int rank, Stream stream, String text) {
        @Override
        public String toString() {
            return (rank == LineSink.LAUNCHER ? "[launcher]" : "[" + rank + (stream == Stream.ERR ? " err" : "") + "]") + " " + text;
        }
    }

    private final List<Line> lines = new ArrayList<>();

    /** The sink for the ranks' stdout. */
    public LineSink out() {
        return (rank, text) -> add(new Line(rank, Stream.OUT, text));
    }

    /** The sink for the ranks' stderr and the launcher's messages. */
    public LineSink err() {
        return (rank, text) -> add(new Line(rank, Stream.ERR, text));
    }

    public synchronized void add(Line line) {
        lines.add(line);
    }

    public synchronized List<Line> lines() {
        return List.copyOf(lines);
    }

    /** Texts of the lines of {@code rank} on {@code stream}. */
    public synchronized List<String> texts(int rank, Stream stream) {
        return lines.stream().filter(l -> l.rank() == rank && l.stream() == stream).map(Line::text).toList();
    }

    public synchronized Optional<Line> find(Predicate<Line> p) {
        return lines.stream().filter(p).findFirst();
    }

    /** Waits at most {@code bound} for a line matching {@code p}; empty if none came. */
    public Optional<Line> await(Predicate<Line> p, Duration bound) {
        int[] seen = {0};
        return Await.valueWithin(bound, () -> next(p, seen));
    }

    /** The first line from {@code seen[0]} on that matches, or null; {@code seen[0]} moves past the lines looked at. */
    private synchronized Line next(Predicate<Line> p, int[] seen) {
        for (; seen[0] < lines.size(); seen[0]++) {
            if (p.test(lines.get(seen[0]))) {
                return lines.get(seen[0]);
            }
        }
        return null;
    }

    /**
     * Writes every line to {@code target/systest-logs/<name>.log} (relative to the working
     * directory, the module's directory under Maven), for a look after the run; best effort.
     */
    public void save(String name) {
        try {
            java.nio.file.Path dir = java.nio.file.Path.of("target", "systest-logs");
            java.nio.file.Files.createDirectories(dir);
            java.nio.file.Files.writeString(dir.resolve(name.replaceAll("[^A-Za-z0-9_.,=-]", "_") + ".log"), tail(Integer.MAX_VALUE));
        } catch (java.io.IOException | RuntimeException e) {
            System.err.println("could not save the transcript " + name + ": " + e);
        }
    }

    /** The last {@code max} lines, one per line, for failure messages. */
    public synchronized String tail(int max) {
        StringBuilder sb = new StringBuilder();
        int from = Math.max(0, lines.size() - max);
        if (from > 0) {
            sb.append("... (").append(from).append(" earlier lines)\n");
        }
        for (Line l : lines.subList(from, lines.size())) {
            sb.append(l).append('\n');
        }
        return sb.toString();
    }
}
