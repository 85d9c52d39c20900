package org.railyard.util;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.VarHandle;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.railyard.transport.ring.Doorbell;

/**
 * Futexes and the doorbell on them, between threads of this process (between processes:
 * DoorbellSystemTest). A sleeper on a word that still holds its value is woken by a ring; a word
 * that changed before the call returns at once; a sleep nobody ends lasts its time; a doorbell
 * looks once more after arming and does not sleep when that look finds work.
 */
class FutexTest {
    private static final VarHandle INT = ValueLayout.JAVA_INT.varHandle();

    @BeforeEach
    void linux() {
        assumeTrue(Futex.available(), () -> "futexes unavailable: " + Futex.unavailableReason());
    }

    @Test
    void aSleeperOnAMappedWordIsWokenByARing(@TempDir Path dir) throws Exception {
        Path file = dir.resolve("bell");
        try (Arena arena = Arena.ofShared()) {
            MemorySegment page;
            try (FileChannel ch = FileChannel.open(file, StandardOpenOption.CREATE_NEW, StandardOpenOption.READ,
                    StandardOpenOption.WRITE)) {
                ch.write(java.nio.ByteBuffer.allocate(1), 4095);
                page = ch.map(FileChannel.MapMode.READ_WRITE, 0, 4096, arena);
            }
            MemorySegment word = page.asSlice(64, 4);
            INT.setVolatile(word, 0L, 1);
            CompletableFuture<Futex.Outcome> slept = CompletableFuture.supplyAsync(() -> {
                Futex.Waiter w = new Futex.Waiter();
                w.add(word, 1);
                return w.sleep(TimeUnit.SECONDS.toNanos(60));
            });
            // the ring disarms the word and wakes: before the call the sleeper sees the change,
            // during it the wake; only a ring that did nothing would leave it sleeping 60 s
            Doorbell.ring(word);
            assertThat(slept.get(90, TimeUnit.SECONDS)).isIn(Futex.Outcome.WOKEN, Futex.Outcome.CHANGED);
            assertThat((int) INT.getVolatile(word, 0L)).isZero();
        }
    }

    @Test
    void aWordThatNoLongerHoldsItsValueReturnsAtOnce() {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment a = arena.allocate(4, 4);
            MemorySegment b = arena.allocate(4, 4);
            a.set(ValueLayout.JAVA_INT, 0, 1);
            b.set(ValueLayout.JAVA_INT, 0, 0);
            Futex.Waiter w = new Futex.Waiter();
            w.add(a, 1);
            w.add(b, 1);
            assertThat(w.size()).isEqualTo(2);
            assertThat(w.sleep(TimeUnit.SECONDS.toNanos(60))).isEqualTo(Futex.Outcome.CHANGED);
        }
    }

    @Test
    void aSleepNobodyEndsLastsItsTime() {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment a = arena.allocate(4, 4);
            a.set(ValueLayout.JAVA_INT, 0, 1);
            Futex.Waiter w = new Futex.Waiter();
            w.add(a, 1);
            long start = System.nanoTime();
            assertThat(w.sleep(TimeUnit.MILLISECONDS.toNanos(30))).isEqualTo(Futex.Outcome.TIMED_OUT);
            assertThat(System.nanoTime() - start).as("slept nanoseconds").isGreaterThanOrEqualTo(
                    TimeUnit.MILLISECONDS.toNanos(30));
        }
    }

    @Test
    void aSleepAllocatesNothingEvenUnderTheFirstCompiler() throws Exception {
        // C1 removes no allocation: a downcall capturing errno allocated 40 B a sleep there, which the
        // waits of a loaded machine (short of C2's time) added to every message and epoch
        String jvm = ProcessHandle.current().info().command().orElseThrow();
        Process p = new ProcessBuilder(jvm, "-XX:TieredStopAtLevel=1", "--enable-native-access=ALL-UNNAMED", "-cp",
                System.getProperty("java.class.path"), FutexSleepAllocation.class.getName()).redirectErrorStream(true).start();
        String out;
        try (var in = p.getInputStream()) {
            out = new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
        assertThat(p.waitFor(120, TimeUnit.SECONDS)).as("ended\n%s", out).isTrue();
        assertThat(p.exitValue()).as("exit code\n%s", out).isZero();
        List<String> rows = out.lines().filter(l -> l.startsWith("SLEEP ")).toList();
        assertThat(rows).as("%s", out).hasSize(2);
        for (String row : rows) {
            assertThat(Double.parseDouble(row.split(" ")[2])).as("%s (bytes allocated per sleep)", row).isLessThan(8);
        }
    }

    @Test
    void wordsMustBeNativeAndAligned() {
        Futex.Waiter w = new Futex.Waiter();
        assertThatThrownBy(() -> w.add(MemorySegment.ofArray(new int[1]), 0)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("native");
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment m = arena.allocate(8, 8);
            assertThatThrownBy(() -> w.add(m.asSlice(2), 0)).isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("aligned");
        }
    }

    @Test
    void theDoorbellDoesNotSleepWhenTheLastLookFindsWork() {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment word = arena.allocate(4, 4);
            Doorbell bell = new Doorbell(true);
            assertThat(bell.sleep(1000, () -> 0)).as("no words: the caller parks").isFalse();
            bell.add(word);
            int[] armedDuringLook = new int[1];
            assertThat(bell.sleep(TimeUnit.SECONDS.toNanos(60), () -> {
                armedDuringLook[0] = (int) INT.getVolatile(word, 0L);
                return 1;
            })).isTrue();
            assertThat(armedDuringLook[0]).as("word during the last look").isEqualTo(1);
            assertThat((int) INT.getVolatile(word, 0L)).as("word after").isZero();
            assertThat(bell.counts()).containsExactly(0, 0);
            assertThat(bell.sleep(TimeUnit.MILLISECONDS.toNanos(5), () -> 0)).isTrue();
            assertThat(bell.counts()).containsExactly(1, 0);
            bell.remove(word);
            assertThat(bell.usable()).isFalse();
            assertThat(new Doorbell(false).sleep(1000, () -> 0)).as("switched off").isFalse();
        }
    }
}
