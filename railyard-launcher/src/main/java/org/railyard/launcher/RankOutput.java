package org.railyard.launcher;

import java.io.ByteArrayOutputStream;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.charset.Charset;
import java.nio.charset.StandardCharsets;

/**
 * {@code System.out} and {@code System.err} of a JVM whose ranks are threads: each line goes to
 * the job's sinks under the rank of the thread that wrote it, as the process launcher forwards a
 * rank process's pipes. A thread's rank is an inheritable thread-local value set on the rank's
 * main thread, so every thread a rank starts (platform or virtual) writes as that rank; a thread
 * without one (the launcher's, or a pool of the JDK shared by all ranks) writes to the streams
 * that were there before, unchanged.
 *
 * <p>{@link #install} replaces the two streams of {@link System} and {@link #close} puts the
 * previous ones back. A line longer than {@link #MAX_LINE} bytes is forwarded in pieces.
 */
final class RankOutput implements AutoCloseable {
    /** The rank of the current thread, inherited by the threads it starts; null outside ranks. */
    static final InheritableThreadLocal<Integer> RANK = new InheritableThreadLocal<>();

    private static final int MAX_LINE = 1 << 20;

    private final PrintStream previousOut;
    private final PrintStream previousErr;
    private final Lines[] out;
    private final Lines[] err;

    private RankOutput(int np, LineSink outSink, LineSink errSink, Charset charset) {
        this.previousOut = System.out;
        this.previousErr = System.err;
        this.out = new Lines[np];
        this.err = new Lines[np];
        for (int r = 0; r < np; r++) {
            out[r] = new Lines(r, outSink, charset);
            err[r] = new Lines(r, errSink, charset);
        }
    }

    /** Replaces System.out and System.err with streams that forward each rank's lines to the sinks. */
    static RankOutput install(int np, LineSink outSink, LineSink errSink) {
        Charset charset = charset("stdout.encoding");
        RankOutput o = new RankOutput(np, outSink, errSink, charset);
        System.setOut(new PrintStream(new Dispatch(o.out, o.previousOut), true, charset));
        System.setErr(new PrintStream(new Dispatch(o.err, o.previousErr), true, charset));
        return o;
    }

    /** Forwards what the rank wrote after its last line break, as the last line of each stream. */
    void flush(int rank) {
        System.out.flush();
        System.err.flush();
        out[rank].end();
        err[rank].end();
    }

    @Override
    public void close() {
        System.out.flush();
        System.err.flush();
        System.setOut(previousOut);
        System.setErr(previousErr);
    }

    private static Charset charset(String property) {
        try {
            return Charset.forName(System.getProperty(property, "UTF-8"));
        } catch (RuntimeException e) {
            return StandardCharsets.UTF_8;
        }
    }

    /** Writes to the current thread's rank's line buffer, or to the previous stream. */
    private static final class Dispatch extends OutputStream {
        private final Lines[] ranks;
        private final PrintStream previous;

        Dispatch(Lines[] ranks, PrintStream previous) {
            this.ranks = ranks;
            this.previous = previous;
        }

        private Lines current() {
            Integer r = RANK.get();
            return r == null || r < 0 || r >= ranks.length ? null : ranks[r];
        }

        @Override
        public void write(int b) {
            write(new byte[] {(byte) b}, 0, 1);
        }

        @Override
        public void write(byte[] b, int off, int len) {
            Lines l = current();
            if (l == null) {
                previous.write(b, off, len);
            } else {
                l.write(b, off, len);
            }
        }

        @Override
        public void flush() {
            if (current() == null) {
                previous.flush();
            }
        }
    }

    /** One rank's stream: bytes gathered into lines, each line handed to the sink whole. */
    private static final class Lines {
        private final int rank;
        private final LineSink sink;
        private final Charset charset;
        private final ByteArrayOutputStream line = new ByteArrayOutputStream(256);

        Lines(int rank, LineSink sink, Charset charset) {
            this.rank = rank;
            this.sink = sink;
            this.charset = charset;
        }

        synchronized void write(byte[] b, int off, int len) {
            int start = off;
            for (int i = off; i < off + len; i++) {
                if (b[i] == '\n') {
                    line.write(b, start, i - start);
                    emit();
                    start = i + 1;
                }
            }
            line.write(b, start, off + len - start);
            if (line.size() >= MAX_LINE) {
                emit();
            }
        }

        synchronized void end() {
            if (line.size() > 0) {
                emit();
            }
        }

        private void emit() {
            String s = line.toString(charset);
            line.reset();
            sink.line(rank, s.endsWith("\r") ? s.substring(0, s.length() - 1) : s);
        }
    }
}
