package org.railyard.util;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import org.railyard.testkit.Allocation;

/**
 * A process of its own for {@code FutexTest}: sleeps on a word that changed (the call returns at
 * once) and on one that holds its value for 1 us (the time runs out), each warm, then prints
 * {@code SLEEP changed <least B/call> (windows ...)} and {@code SLEEP timed-out ...}. Run under the
 * C1 compiler, which removes no allocation, so that what the call itself allocates shows.
 */
public final class FutexSleepAllocation {
    private FutexSleepAllocation() {
    }

    public static void main(String[] args) throws Exception {
        MemorySegment word = Arena.global().allocate(4, 4);
        Futex.Waiter waiter = new Futex.Waiter();
        for (int held = 0; held <= 1; held++) {
            int expected = held == 0 ? 1 : 0;
            Allocation.Call sleep = () -> {
                waiter.clear();
                waiter.add(word, expected);
                waiter.sleep(1000);
            };
            for (int i = 0; i < 20000; i++) {
                sleep.run();
            }
            System.out.println("SLEEP " + (held == 0 ? "changed " : "timed-out ") + Allocation.perCall(5, 5000, () -> { }, sleep));
        }
        word.set(ValueLayout.JAVA_INT, 0, 0);
    }
}
