package org.railyard.transport.shm;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.railyard.engine.NativeSetup;
import org.railyard.util.CpuBinding;
import org.railyard.util.Futex;
import org.railyard.util.TimerSlack;

/**
 * A fresh JVM for NativeSetupTest: with argument {@code ahead} it runs init's native set-up thread
 * to its end first (so every handle is made there), with {@code lazy} it does not (each is made
 * where first used); then it uses every prepared call and prints what each gave, one line each.
 * The two runs must print the same lines.
 */
public final class NativeSetupProbe {
    public static void main(String[] args) throws Exception {
        if (args[0].equals("ahead")) {
            Thread t = NativeSetup.start();
            t.join(TimeUnit.SECONDS.toMillis(60));
            if (t.isAlive()) {
                throw new IllegalStateException("the native set-up thread did not end within 60 s");
            }
        }
        System.out.println("futex: " + Futex.available() + " " + Futex.unavailableReason());
        if (Futex.available()) {
            try (Arena arena = Arena.ofConfined()) {
                MemorySegment word = arena.allocate(4, 4);
                word.set(ValueLayout.JAVA_INT, 0, 7);
                Futex.Waiter w = new Futex.Waiter();
                w.add(word, 6);
                System.out.println("futex sleep on a changed word: " + w.sleep(TimeUnit.SECONDS.toNanos(5))
                        + ", wake with no sleeper: " + Futex.wakeAll(word));
            }
        }
        System.out.println("cross-memory reads: " + ProcessMemory.available() + " " + ProcessMemory.unavailableReason());
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment src = arena.allocate(16, 8);
            src.set(ValueLayout.JAVA_LONG, 0, 0x1234_5678_9abcL);
            MemorySegment dst = arena.allocate(16, 8);
            long n = ProcessMemory.read(ProcessHandle.current().pid(), dst, src.address(), 16);
            System.out.println("read of own memory: " + (n < 0 ? ProcessMemory.errorName(n)
                    : n + " bytes, " + Long.toHexString(dst.get(ValueLayout.JAVA_LONG, 0))));
        }
        System.out.println("timer slack: " + TimerSlack.available() + ", set 20000: " + TimerSlack.set(20_000)
                + ", now " + TimerSlack.current());
        // one rank alone on its node, railyard.bind=core (the JVM's -D): bound to the first allowed processor
        System.out.println("binding: " + CpuBinding.apply(Map.of("RAILYARD_LOCAL_RANK", "0", "RAILYARD_LOCAL_SIZE", "1")));
    }
}
