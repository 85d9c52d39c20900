package org.railyard.bench;

import java.io.PrintStream;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.zip.CRC32C;
import org.railyard.Comm;
import org.railyard.Railyard;
import org.railyard.Request;
import org.railyard.stats.RailStats;
import org.railyard.stats.Stats;
import org.railyard.stats.StatsGroup;
import org.railyard.util.Config;

/**
 * The program of {@code railyard bench stream}: rank 0 streams {@code --bytes} to rank 1 as
 * messages of {@code --message} bytes, {@code --window} of them in flight; rank 1 checks every
 * byte and reports what arrived over time, per rail, as seen by its channel floor.
 *
 * <pre>
 * railyard run -np 2 org.railyard.bench.StreamRank [--bytes 1g] [--message 4m] [--window 4] [--warmup 0]
 * </pre>
 *
 * <p>{@code --warmup} bytes go first, as part of the same stream (checked alike), but outside the
 * timed part: a JVM compiles its hot paths during the first seconds, and on a loaded machine that
 * costs as much as the network.
 *
 * <p>Data: {@code window + 3} buffers of seeded random bytes; message i is buffer {@code i mod
 * (window + 3)} with its index written into its first 8 bytes, so a frame placed in the wrong
 * message or at the wrong offset shows. Both ranks fold every message into a CRC32C in message
 * order; rank 0 sends its CRC at the end and rank 1 compares.
 *
 * <p>Output, one record per line (the fields are separated by single spaces; times are wall-clock
 * milliseconds since rank 1's {@code START}, so the two ranks' records line up):
 * <pre>
 * rank 1: START &lt;wall ms&gt;
 * rank 1: PROGRESS &lt;bytes received&gt; &lt;ms&gt; r&lt;rail&gt;=&lt;bytes&gt;:&lt;state&gt;...   every 100 ms, also when nothing
 *          arrives: the stream so far, and per rail (channel counters, 100 ms old at most) bytes and state
 * rank 1: RESULT &lt;bytes&gt; &lt;seconds&gt; &lt;Mbit/s&gt; &lt;crc ok|MISMATCH&gt;   the bytes timed, from the arrival
 *          of the first timed message (the one after the {@code --warmup} bytes) to the last's (the
 *          check covers the whole stream, warm-up included)
 * both:   SERIES &lt;rank&gt; &lt;rail&gt; &lt;ms&gt; &lt;bytes sent&gt; &lt;bytes received&gt; &lt;weight&gt;   every 100 ms sample
 * both:   EVENT &lt;rank&gt; &lt;rail&gt; &lt;ms&gt; &lt;state&gt; &lt;why...&gt;       a rail's state changes
 * both:   RAIL &lt;rank&gt; &lt;describe...&gt;                        each rail's totals at the end
 * both:   FAILED &lt;ms&gt; &lt;message&gt;                            the stream failed (then the records above, and exit)
 * </pre>
 */
public final class StreamRank {
    static final int TAG_DATA = 1;
    static final int TAG_CRC = 2;
    static final int TAG_START = 3;

    private StreamRank() {
    }

    /** Options; see the class comment. */
    record Options(long bytes, int message, int window, long progressMillis, long warmup) {
        /** Messages in all: the warm-up and the timed stream. */
        long messages() {
            return (warmup + bytes) / message;
        }

        /** Messages of the warm-up, which the clock leaves out. */
        long warmupMessages() {
            return warmup / message;
        }

        static Options parse(String... args) {
            long bytes = 1L << 30;
            long message = 4L << 20;
            long window = 4;
            long progress = 100;
            long warmup = 0;
            for (int i = 0; i < args.length; i++) {
                String a = args[i];
                String v = i + 1 < args.length ? args[i + 1] : null;
                if (v == null) {
                    throw new IllegalArgumentException(a + " needs a value");
                }
                switch (a) {
                    case "--bytes" -> bytes = Config.parseBytes("--bytes", v);
                    case "--message" -> message = Config.parseBytes("--message", v);
                    case "--window" -> window = Long.parseLong(v);
                    case "--progress-ms" -> progress = Long.parseLong(v);
                    case "--warmup" -> warmup = Config.parseBytes("--warmup", v);
                    default -> throw new IllegalArgumentException("unknown option " + a);
                }
                i++;
            }
            if (message < 8 || message > Integer.MAX_VALUE - 8) {
                throw new IllegalArgumentException("--message must be between 8 bytes and 2 GiB, got " + message);
            }
            if (window < 1 || window > 1024) {
                throw new IllegalArgumentException("--window must be between 1 and 1024, got " + window);
            }
            if (bytes < message) {
                throw new IllegalArgumentException("--bytes must be at least one message (" + message + "), got " + bytes);
            }
            return new Options(bytes / message * message, (int) message, (int) window, progress, warmup / message * message);
        }
    }

    public static void main(String[] args) {
        Options o = Options.parse(args);
        try (Railyard ry = Railyard.init(args)) {
            if (ry.size() != 2) {
                throw new IllegalArgumentException("the stream benchmark runs on exactly 2 ranks, not " + ry.size());
            }
            Comm w = ry.world();
            long[] start = new long[1];
            if (ry.rank() == 1) {
                start[0] = System.currentTimeMillis();
                System.out.println("START " + start[0]);
                System.out.flush();
            }
            // rank 0 learns rank 1's time origin, so both report times on one axis
            w.bcast(start, 0, 1, 1);
            try {
                if (ry.rank() == 0) {
                    send(w, o);
                } else {
                    receive(w, o, start[0]);
                }
            } catch (RuntimeException e) {
                // the rails' story up to the failure is what the plot of a failure shows
                System.out.println("FAILED " + (System.currentTimeMillis() - start[0]) + " " + e.getMessage());
                report(ry.rank(), start[0], System.out);
                throw e;
            }
            report(ry.rank(), start[0], System.out);
            w.barrier();
        }
    }

    private static byte[][] buffers(Options o) {
        byte[][] b = new byte[o.window() + 3][];
        Random r = new Random(42);
        for (int i = 0; i < b.length; i++) {
            b[i] = new byte[o.message()];
            r.nextBytes(b[i]);
        }
        return b;
    }

    private static void stamp(byte[] b, long index) {
        for (int k = 0; k < 8; k++) {
            b[k] = (byte) (index >>> (8 * k));
        }
    }

    private static long stampOf(byte[] b) {
        long v = 0;
        for (int k = 7; k >= 0; k--) {
            v = (v << 8) | (b[k] & 0xff);
        }
        return v;
    }

    private static void send(Comm w, Options o) {
        byte[][] bufs = buffers(o);
        long messages = o.messages();
        CRC32C crc = new CRC32C();
        Request[] inflight = new Request[o.window()];
        for (long i = 0; i < messages; i++) {
            int slot = (int) (i % o.window());
            if (inflight[slot] != null) {
                inflight[slot].await();
            }
            byte[] b = bufs[(int) (i % bufs.length)];
            stamp(b, i);
            crc.update(b);
            inflight[slot] = w.isend(b, 0, b.length, 1, TAG_DATA);
        }
        for (Request r : inflight) {
            if (r != null) {
                r.await();
            }
        }
        w.send(new long[] {crc.getValue()}, 0, 1, 1, TAG_CRC);
    }

    private static void receive(Comm w, Options o, long start) {
        long messages = o.messages();
        long warm = o.warmupMessages();
        byte[][] bufs = new byte[o.window()][o.message()];
        Request[] posted = new Request[o.window()];
        for (int k = 0; k < o.window() && k < messages; k++) {
            posted[k] = w.irecv(bufs[k], 0, o.message(), 0, TAG_DATA);
        }
        CRC32C crc = new CRC32C();
        long received = 0;
        long bad = 0;
        long t0 = 0;
        long nextProgress = 0;
        for (long i = 0; i < messages; i++) {
            int slot = (int) (i % o.window());
            // wake up every period even when nothing arrives, so a stalled stream (a partition) still reports
            while (posted[slot].await(Duration.ofMillis(o.progressMillis())) == null) {
                long now = System.currentTimeMillis();
                System.out.println("PROGRESS " + received + " " + (now - start) + perRail());
                System.out.flush();
                nextProgress = now + o.progressMillis();
            }
            byte[] b = bufs[slot];
            if (stampOf(b) != i) {
                bad++;
            }
            crc.update(b);
            received += b.length;
            if (i == warm) {
                // the clock starts once the first timed message is in: connecting, compiling and
                // the warm-up messages are not the stream
                t0 = System.nanoTime();
            }
            if (i + o.window() < messages) {
                posted[slot] = w.irecv(b, 0, o.message(), 0, TAG_DATA);
            }
            long now = System.currentTimeMillis();
            if (now >= nextProgress || i == messages - 1) {
                nextProgress = now + o.progressMillis();
                System.out.println("PROGRESS " + received + " " + (now - start) + perRail());
                System.out.flush();
            }
        }
        double seconds = (System.nanoTime() - t0) / 1e9;
        long timed = received - (warm + 1) * o.message();
        long[] theirs = new long[1];
        w.recv(theirs, 0, 1, 0, TAG_CRC);
        boolean ok = theirs[0] == crc.getValue() && bad == 0;
        System.out.printf("RESULT %d %.3f %.1f %s%n", timed, seconds, seconds > 0 ? timed * 8 / seconds / 1e6 : 0.0,
                ok ? "ok" : "MISMATCH(" + bad + " misplaced messages, crc " + Long.toHexString(crc.getValue()) + " vs "
                        + Long.toHexString(theirs[0]) + ")");
        System.out.flush();
    }

    /** " r0=<bytes received> r1=..." from the channel floor's last sample. */
    private static String perRail() {
        StatsGroup g = Stats.current();
        StringBuilder sb = new StringBuilder();
        if (g != null) {
            for (RailStats.Snapshot s : g.snapshot()) {
                if (s.peer() == 0) {
                    sb.append(" r").append(s.rail()).append('=').append(s.bytesReceived()).append(':').append(s.state());
                }
            }
        }
        return sb.toString();
    }

    /**
     * Waits (at most a second) until the channel floor has sampled its counters after this call,
     * so the totals printed include the last messages.
     */
    private static void awaitFreshSample() {
        StatsGroup g = Stats.current();
        if (g == null) {
            return;
        }
        double now = System.currentTimeMillis();
        long deadline = System.nanoTime() + 1_000_000_000L;
        while (System.nanoTime() < deadline) {
            boolean fresh = g.snapshot().stream().allMatch(s -> s.wallMillis().length > 0
                    && s.wallMillis()[s.wallMillis().length - 1] >= now);
            if (fresh) {
                return;
            }
            try {
                Thread.sleep(10); // the progress agent samples every 100 ms meanwhile
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
        }
    }

    /** Prints this rank's rails: the sampled series, the state changes, the totals. */
    static void report(int rank, long start, PrintStream out) {
        StatsGroup g = Stats.current();
        if (g == null) {
            return;
        }
        awaitFreshSample();
        List<RailStats.Snapshot> rails = new ArrayList<>(g.snapshot());
        for (RailStats.Snapshot s : rails) {
            if (s.peer() == rank) {
                continue; // the self link
            }
            for (int i = 0; i < s.wallMillis().length; i++) {
                out.printf("SERIES %d %d %.1f %d %d %.4f%n", rank, s.rail(), s.wallMillis()[i] - start, s.sentSeries()[i],
                        s.receivedSeries()[i], s.weightSeries()[i]);
            }
            for (RailStats.Event e : s.events()) {
                out.printf("EVENT %d %d %.1f %s %s%n", rank, s.rail(), e.wallMillis() - start, e.state(),
                        e.why() == null ? "" : e.why());
            }
            out.println("RAIL " + rank + " " + s.describe());
        }
        out.flush();
    }
}
