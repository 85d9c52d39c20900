package org.railyard.fuzz;

import static org.assertj.core.api.Assertions.fail;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.net.URISyntaxException;
import java.net.URL;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Random;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Predicate;
import java.util.stream.Stream;

/**
 * A property test over arbitrary bytes for a decoder of input that comes from outside the process:
 * every input must end in a valid result or a clean error (the decoder's documented exception, with
 * a message naming what was wrong), never another exception, a hang, or an allocation that grows
 * with what the input claims rather than with the input itself.
 *
 * <p>Inputs: every file of the checked-in corpus {@code src/test/resources/fuzz/<name>/} (valid
 * samples and known edge cases; {@code .hex} files hold hex digits, with {@code #} comments and
 * free white space, other files are taken as they are), then a fixed budget of inputs drawn from a
 * {@link Random} with a fixed seed: random bytes, and corpus samples with bytes flipped, cut short,
 * extended, spliced, or with a 1, 2, 4 or 8-byte field overwritten by an extreme value (0, -1,
 * minimum, maximum). The same seed gives the same inputs on every run, so a failure reproduces; the
 * failure names the input in hex.
 *
 * <p>Bounds per input: {@link #TIME_BOUND_MS} of wall time, and at most
 * {@code ALLOCATION_BASE + ALLOCATION_PER_BYTE * input length} bytes allocated by the decoding
 * thread (measured with the JVM's per-thread allocation counter).
 */
public final class Fuzz {
    /** Wall time one input may take before it counts as a hang. */
    public static final long TIME_BOUND_MS = 5_000;
    /** Allocation any input may cause, whatever its length. */
    public static final long ALLOCATION_BASE = 1L << 20;
    /** Allocation allowed per byte of input, on top of the base. */
    public static final long ALLOCATION_PER_BYTE = 32;
    /** Longest random input. */
    public static final int MAX_RANDOM = 4096;

    private static final long[] EXTREMES = {0, -1, Long.MIN_VALUE, Long.MAX_VALUE, Integer.MIN_VALUE,
        Integer.MAX_VALUE, Short.MAX_VALUE, 0xffff, 0x80, 0x7f, 1};

    /** A decoder under test: returns normally on a valid result, or throws. */
    @FunctionalInterface
    public interface Decoder {
        void decode(byte[] input) throws Exception;
    }

    private final String name;
    private final Decoder decoder;
    private Predicate<Throwable> clean;
    private long allocationBase = ALLOCATION_BASE;
    private long timeBoundMs = TIME_BOUND_MS;
    private long seed = 20_201;
    private int tries = 2_000;

    private Fuzz(String name, Decoder decoder, Predicate<Throwable> clean) {
        this.name = name;
        this.decoder = decoder;
        this.clean = clean;
    }

    /**
     * A fuzz run of {@code decoder} on the corpus {@code fuzz/<name>/}; an exception that is a
     * clean error is one of type {@code cleanType} with a message that is not blank.
     */
    public static Fuzz of(String name, Class<? extends Throwable> cleanType, Decoder decoder) {
        return new Fuzz(name, decoder, cleanAs(cleanType));
    }

    private static Predicate<Throwable> cleanAs(Class<? extends Throwable> type) {
        return t -> type.isInstance(t) && t.getMessage() != null && !t.getMessage().isBlank();
    }

    /** Counts an exception of {@code type} with a message as a clean error (a check's reason, raised by the test). */
    public Fuzz withCleanError(Class<? extends Throwable> type) {
        this.clean = cleanAs(type);
        return this;
    }

    /** A fuzz run of a decoder that reports every problem as a result and never throws. */
    public static Fuzz neverThrowing(String name, Decoder decoder) {
        return new Fuzz(name, decoder, t -> false);
    }

    /**
     * Replaces {@link #ALLOCATION_BASE} for a decoder whose test sets up more per input (a
     * connection); still a bound that the input's claims cannot move.
     */
    public Fuzz allocationBase(long bytes) {
        this.allocationBase = bytes;
        return this;
    }

    /** Replaces {@link #TIME_BOUND_MS}. */
    public Fuzz timeBound(long millis) {
        this.timeBoundMs = millis;
        return this;
    }

    /** Replaces the random budget: {@code tries} inputs from {@code seed}. */
    public Fuzz budget(long seed, int tries) {
        this.seed = seed;
        this.tries = tries;
        return this;
    }

    /** The corpus samples of this decoder, in file-name order. */
    public List<byte[]> corpus() {
        URL dir = Fuzz.class.getResource("/fuzz/" + name);
        if (dir == null) {
            throw new IllegalStateException("no corpus src/test/resources/fuzz/" + name);
        }
        List<byte[]> out = new ArrayList<>();
        try (Stream<Path> files = Files.list(Path.of(dir.toURI()))) {
            for (Path f : files.sorted().toList()) {
                out.add(f.toString().endsWith(".hex") ? unhex(Files.readString(f)) : Files.readAllBytes(f));
            }
        } catch (IOException | URISyntaxException e) {
            throw new IllegalStateException("cannot read the corpus of " + name + ": " + e, e);
        }
        if (out.isEmpty()) {
            throw new IllegalStateException("the corpus of " + name + " is empty");
        }
        return out;
    }

    /**
     * Runs the corpus and the random budget; fails naming the first input that ended otherwise than
     * in a valid result or a clean error.
     *
     * @return how many inputs ended in a valid result (the rest ended in clean errors)
     */
    public int run() {
        List<byte[]> corpus = corpus();
        Random random = new Random(seed);
        ExecutorService worker = Executors.newSingleThreadExecutor(r -> {
            Thread t = new Thread(r, "fuzz-" + name);
            t.setDaemon(true);
            return t;
        });
        int valid = 0;
        try {
            warmUp(worker, corpus);
            for (int i = 0; i < corpus.size() + tries; i++) {
                byte[] input = i < corpus.size() ? corpus.get(i) : next(random, corpus);
                if (one(worker, input, i < corpus.size() ? "corpus sample " + i : "random input " + (i - corpus.size()))) {
                    valid++;
                }
            }
        } finally {
            worker.shutdownNow();
        }
        return valid;
    }

    /**
     * Decodes every corpus sample once, unmeasured, on the worker: the first call of a decoder
     * loads and initialises its classes (megabytes, the first time a test of this JVM touches
     * them), which is no allocation sized by any input. Without it the measured allocation of the
     * first sample depended on which tests ran before in the same JVM.
     */
    private void warmUp(ExecutorService worker, List<byte[]> corpus) {
        for (byte[] sample : corpus) {
            try {
                worker.submit(() -> {
                    try {
                        decoder.decode(sample.clone());
                    } catch (Throwable ignored) {
                        // judged when the sample is run for real
                    }
                }).get(timeBoundMs, TimeUnit.MILLISECONDS);
            } catch (TimeoutException e) {
                return; // the real run reports the hang on this sample
            } catch (InterruptedException | ExecutionException e) {
                throw new IllegalStateException(name + ": the fuzz worker failed while warming up: " + e, e);
            }
        }
    }

    private boolean one(ExecutorService worker, byte[] input, String which) {
        Future<Outcome> f = worker.submit(() -> {
            com.sun.management.ThreadMXBean mx = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
            long before = mx.getCurrentThreadAllocatedBytes();
            Throwable thrown = null;
            try {
                decoder.decode(input.clone());
            } catch (Throwable t) {
                thrown = t;
            }
            return new Outcome(thrown, mx.getCurrentThreadAllocatedBytes() - before);
        });
        Outcome o;
        try {
            o = f.get(timeBoundMs, TimeUnit.MILLISECONDS);
        } catch (TimeoutException e) {
            f.cancel(true);
            return fail("%s: %s did not end within %d ms (a hang) on input %s", name, which, timeBoundMs, show(input));
        } catch (InterruptedException | ExecutionException e) {
            return fail("%s: the fuzz worker failed: %s", name, e);
        }
        long bound = allocationBase + ALLOCATION_PER_BYTE * input.length;
        if (o.allocated > bound) {
            return fail("%s: %s allocated %d bytes, more than %d for %d bytes of input: %s", name, which, o.allocated,
                    bound, input.length, show(input));
        }
        if (o.thrown != null && !clean.test(o.thrown)) {
            AssertionError e = new AssertionError(name + ": " + which + " ended in " + o.thrown
                    + ", not in a valid result or a clean error; input " + show(input), o.thrown);
            throw e;
        }
        return o.thrown == null;
    }

    private record Outcome(Throwable thrown, long allocated) { }

    /** The next random input: fresh bytes or a mutated corpus sample. */
    static byte[] next(Random r, List<byte[]> corpus) {
        byte[] base = corpus.get(r.nextInt(corpus.size()));
        switch (r.nextInt(7)) {
            case 0 -> {
                byte[] b = new byte[r.nextInt(4) == 0 ? r.nextInt(MAX_RANDOM) : r.nextInt(96)];
                r.nextBytes(b);
                return b;
            }
            case 1 -> {
                byte[] b = base.clone();
                for (int k = 1 + r.nextInt(4); k > 0 && b.length > 0; k--) {
                    b[r.nextInt(b.length)] ^= (byte) (1 << r.nextInt(8));
                }
                return b;
            }
            case 2 -> {
                return java.util.Arrays.copyOf(base, base.length == 0 ? 0 : r.nextInt(base.length));
            }
            case 3 -> {
                byte[] b = java.util.Arrays.copyOf(base, base.length + 1 + r.nextInt(64));
                for (int i = base.length; i < b.length; i++) {
                    b[i] = (byte) r.nextInt(256);
                }
                return b;
            }
            case 4 -> {
                byte[] other = corpus.get(r.nextInt(corpus.size()));
                int cut = base.length == 0 ? 0 : r.nextInt(base.length);
                int from = other.length == 0 ? 0 : r.nextInt(other.length);
                byte[] b = new byte[cut + other.length - from];
                System.arraycopy(base, 0, b, 0, cut);
                System.arraycopy(other, from, b, cut, other.length - from);
                return b;
            }
            default -> {
                byte[] b = base.clone();
                int width = 1 << r.nextInt(4);
                if (b.length < width) {
                    return b;
                }
                int at = r.nextInt(b.length - width + 1);
                long v = EXTREMES[r.nextInt(EXTREMES.length)];
                boolean little = r.nextBoolean();
                for (int i = 0; i < width; i++) {
                    int shift = 8 * (little ? i : width - 1 - i);
                    b[at + i] = (byte) (v >>> shift);
                }
                return b;
            }
        }
    }

    /** Hex digits with white space and {@code #} comments (to the end of the line) left out. */
    public static byte[] unhex(String text) {
        StringBuilder digits = new StringBuilder();
        for (String line : text.split("\n")) {
            int hash = line.indexOf('#');
            digits.append((hash < 0 ? line : line.substring(0, hash)).replaceAll("\\s+", ""));
        }
        return HexFormat.of().parseHex(digits);
    }

    private static String show(byte[] input) {
        String hex = HexFormat.of().formatHex(input, 0, Math.min(input.length, 256));
        return "(" + input.length + " bytes) " + hex + (input.length > 256 ? "..." : "");
    }
}
