package org.railyard.bench;

import java.io.BufferedInputStream;
import java.io.ByteArrayOutputStream;
import java.io.FileInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;

/**
 * The commands of a benchmark that serves (CollectiveBenchRank {@code --serve}): a plain file that
 * the driver appends lines to (bench/compare-coll.sh {@code --paired}), read from its start by every
 * rank on its own. {@link #next()} returns the next complete line, waiting for it by looking at the
 * file every 10 ms: a rank that waits takes no processor from the implementation being measured
 * meanwhile, and needs no collective call that might spin. The wait is bounded.
 *
 * <p>bench/peers/c/ry_coll.c and bench/peers/mpijava/RyCollPeer.java read the same file the same way.
 */
final class CommandFile implements AutoCloseable {
    private static final long POLL_MS = 10;

    private final Path file;
    private final InputStream in;
    private final Duration idleLimit;
    /** The bytes of the line being read, kept across a wait that ended before its end. */
    private final ByteArrayOutputStream line = new ByteArrayOutputStream();

    /** Opens {@code file}, which must exist; {@link #next()} fails after {@code idleLimit} without a new line. */
    CommandFile(Path file, Duration idleLimit) {
        this.file = file;
        this.idleLimit = idleLimit;
        try {
            this.in = new BufferedInputStream(new FileInputStream(file.toFile()));
        } catch (IOException e) {
            throw new IllegalArgumentException("--serve: cannot read the command file " + file + ": " + e.getMessage(), e);
        }
    }

    /**
     * The next line, without its line end; a line still being written is waited for. Throws
     * IllegalStateException when no line is completed within the idle limit.
     */
    String next() {
        long deadline = System.nanoTime() + idleLimit.toNanos();
        try {
            while (true) {
                int b = in.read(); // at the end of the file -1, and later what was appended since
                if (b == '\n') {
                    String s = line.toString(StandardCharsets.UTF_8);
                    line.reset();
                    return s;
                }
                if (b >= 0) {
                    line.write(b);
                    continue;
                }
                if (System.nanoTime() - deadline > 0) {
                    throw new IllegalStateException("--serve: no command in " + file + " for " + idleLimit.toSeconds()
                            + " s (the driver is gone?)");
                }
                Thread.sleep(POLL_MS);
            }
        } catch (IOException e) {
            throw new UncheckedIOException("--serve: reading " + file, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("--serve: interrupted while waiting for a command in " + file, e);
        }
    }

    @Override
    public void close() {
        try {
            in.close();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
