package org.railyard.systest;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.railyard.relay.RelayCommand;

/**
 * A {@code railyard relay} process started by a test ({@link RelayCommand} with this JVM's class
 * path), on a free loopback port or the one given, its lines collected; closing it kills it.
 */
public final class RelayProcess implements AutoCloseable {
    private static final Duration START_BOUND = Duration.ofSeconds(90);
    private static final Pattern LISTENING = Pattern.compile("listening on [^ ]+:(\\d+)");

    private final Process process;
    private final int port;
    private final BlockingQueue<String> lines;
    private final List<String> all;

    private RelayProcess(Process process, int port, BlockingQueue<String> lines, List<String> all) {
        this.process = process;
        this.port = port;
        this.lines = lines;
        this.all = all;
    }

    /** Starts a relay; {@code extra} are more {@code railyard relay} options (--log, --fsync, ...). */
    public static RelayProcess start(String bind, int port, String... extra) throws IOException, InterruptedException {
        return startWith(List.of(), bind, port, extra);
    }

    /** Like {@link #start}, the command run under {@code prefix} (e.g. {@code ip netns exec NS}). */
    public static RelayProcess startWith(List<String> prefix, String bind, int port, String... extra)
            throws IOException, InterruptedException {
        List<String> cmd = new ArrayList<>(prefix);
        cmd.addAll(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-Xmx256m", "-XX:+UseSerialGC", "-cp", System.getProperty("java.class.path"), RelayCommand.class.getName(),
                "--port", String.valueOf(port), "--bind", bind));
        cmd.addAll(List.of(extra));
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        BlockingQueue<String> lines = new LinkedBlockingQueue<>();
        List<String> all = java.util.Collections.synchronizedList(new ArrayList<>());
        Thread.ofPlatform().daemon().name("systest-relay-pump").start(() -> {
            try (BufferedReader r = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8))) {
                for (String l = r.readLine(); l != null; l = r.readLine()) {
                    lines.add(l);
                    all.add(l);
                }
            } catch (IOException ignored) {
                // the process ended
            }
        });
        while (true) {
            String l = lines.poll(START_BOUND.toSeconds(), TimeUnit.SECONDS);
            if (l == null) {
                p.destroyForcibly();
                throw new IllegalStateException("the relay did not say where it listens within " + START_BOUND.toSeconds()
                        + " s; it said " + all);
            }
            Matcher m = LISTENING.matcher(l);
            if (m.find()) {
                return new RelayProcess(p, Integer.parseInt(m.group(1)), lines, all);
            }
        }
    }

    /** Where the relay listens, as {@code railyard.relays} wants it (loopback). */
    public String address() {
        return "127.0.0.1:" + port;
    }

    public int port() {
        return port;
    }

    public Process process() {
        return process;
    }

    /** Waits at most {@code bound} for a line (after those already awaited) that starts with {@code prefix}. */
    public String awaitLine(String prefix, Duration bound) throws InterruptedException {
        long deadline = System.nanoTime() + bound.toNanos();
        while (true) {
            String l = lines.poll(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
            if (l == null) {
                throw new AssertionError("the relay printed no line starting with '" + prefix + "' within " + bound.toSeconds()
                        + " s; it printed " + lines());
            }
            if (l.startsWith(prefix)) {
                return l;
            }
        }
    }

    /** Every line the relay printed so far. */
    public List<String> lines() {
        synchronized (all) {
            return List.copyOf(all);
        }
    }

    @Override
    public void close() {
        process.destroyForcibly();
        try {
            process.waitFor(10, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
