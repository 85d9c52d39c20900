import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.util.Locale;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Which cross-core copies the machine's slow state hits. Two threads share a buffer of two
 * halves; in each round each thread copies the other's half into a private buffer, with a
 * barrier on either side. Every half second the probe switches to the next of three kinds of round:
 * <ul>
 * <li>{@code w} (written): each thread first writes its half from a private buffer, so the
 *     other reads lines just written on another core, as a receiver does from a shared segment
 *     the sender fills each call;</li>
 * <li>{@code n} (written by the C library): as {@code w}, but the half is written by the C
 *     library's {@code memcpy}. Run with {@code GLIBC_TUNABLES=glibc.cpu.x86_non_temporal_threshold=0x4040}
 *     and glibc copies that large with non-temporal stores, which send the lines to memory rather
 *     than keep them in the writer's cache: the reader then takes them from memory;</li>
 * <li>{@code c} (clean): nobody writes; each thread reads lines the other wrote long ago, as a
 *     single-copy read does from a send buffer that a benchmark never changes.</li>
 * </ul>
 * It prints the mean microseconds of a round in each half second, the kind first.
 *
 * <p>Run with a JDK 25: {@code java --enable-native-access=ALL-UNNAMED bench/probes/DirtyLineProbe.java
 * [KIB] [SECONDS]} (defaults 1024 and 60). On the 2-core development machine (a KVM guest)
 * {@code w} rounds of 1 MiB took about 50 us and, for spells of seconds to tens of seconds,
 * about 500; {@code c} rounds took about 23 us throughout. {@code n} rounds with non-temporal
 * stores took about 78 us, and in a spell as long as {@code w} rounds
 * (bench/results/log/2026-11-27-0232-touch.md): the spells price every line that moves between
 * the cores, through a cache or through memory.
 */
public final class DirtyLineProbe {
    private static final AtomicInteger ARRIVED = new AtomicInteger();
    /** The kind of the current rounds: an index into {@link #KINDS}. */
    private static final AtomicInteger KIND = new AtomicInteger();
    private static final String KINDS = "wnc";
    private static final MethodHandle MEMCPY = Linker.nativeLinker().downcallHandle(
            Linker.nativeLinker().defaultLookup().find("memcpy").orElseThrow(),
            FunctionDescriptor.of(ValueLayout.ADDRESS, ValueLayout.ADDRESS, ValueLayout.ADDRESS, ValueLayout.JAVA_LONG));
    private static final AtomicBoolean STOP = new AtomicBoolean();
    private static final AtomicLong ROUNDS = new AtomicLong();

    private DirtyLineProbe() {
    }

    /** Counts this thread in and waits for the other: generation {@code g} is reached at 2 g arrivals. */
    private static void barrier(int g) {
        ARRIVED.incrementAndGet();
        while (ARRIVED.get() < 2 * g) {
            Thread.onSpinWait();
        }
    }

    private static void libcCopy(MemorySegment to, MemorySegment from, long bytes) {
        try {
            MemorySegment unused = (MemorySegment) MEMCPY.invokeExact(to, from, bytes);
        } catch (Throwable e) {
            throw new IllegalStateException("memcpy", e);
        }
    }

    public static void main(String[] args) throws InterruptedException {
        long bytes = (args.length > 0 ? Long.parseLong(args[0]) : 1024) << 10;
        long seconds = args.length > 1 ? Long.parseLong(args[1]) : 60;
        MemorySegment shared = Arena.global().allocate(2 * bytes, 4096);
        Thread[] threads = new Thread[2];
        for (int t = 0; t < 2; t++) {
            int me = t;
            threads[t] = Thread.ofPlatform().start(() -> {
                MemorySegment own = Arena.global().allocate(bytes, 4096);
                MemorySegment got = Arena.global().allocate(bytes, 4096);
                own.fill((byte) (me + 1));
                MemorySegment.copy(own, 0, shared, me * bytes, bytes);
                int g = 0;
                while (true) {
                    barrier(++g);
                    char kind = KINDS.charAt(KIND.get());
                    barrier(++g); // both have read the kind of this round
                    if (kind == 'w') {
                        MemorySegment.copy(own, 0, shared, me * bytes, bytes);
                    } else if (kind == 'n') {
                        libcCopy(shared.asSlice(me * bytes, bytes), own, bytes);
                    }
                    barrier(++g);
                    MemorySegment.copy(shared, (1 - me) * bytes, got, 0, bytes);
                    if (me == 0) {
                        ROUNDS.incrementAndGet();
                    }
                    barrier(++g);
                    if (STOP.get()) {
                        return;
                    }
                }
            });
        }
        StringBuilder line = new StringBuilder();
        long end = System.nanoTime() + seconds * 1_000_000_000L;
        long lastRounds = ROUNDS.get();
        long lastTime = System.nanoTime();
        while (System.nanoTime() < end) {
            Thread.sleep(500);
            long rounds = ROUNDS.get();
            long now = System.nanoTime();
            line.append(String.format(Locale.ROOT, "%s%.1f ", KINDS.charAt(KIND.get()),
                    (now - lastTime) / 1000.0 / Math.max(1, rounds - lastRounds)));
            KIND.set((KIND.get() + 1) % KINDS.length());
            // the half second that starts now counts from here; a round in flight may be of either kind
            lastRounds = ROUNDS.get();
            lastTime = System.nanoTime();
        }
        STOP.set(true);
        for (Thread t : threads) {
            t.join();
        }
        System.out.println(line.toString().trim());
    }
}
