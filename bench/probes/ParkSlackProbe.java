import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.util.concurrent.locks.LockSupport;

/**
 * How long {@code LockSupport.parkNanos(n)} really sleeps, with the thread's timer slack as the
 * system leaves it and with the slack set (prctl PR_SET_TIMERSLACK, what railyard.idle.timerslack
 * does for a waiting thread): three rounds of 2000 parks each.
 *
 * <pre>
 * J=/usr/lib/jvm/temurin-25-jdk-amd64/bin
 * $J/java --enable-native-access=ALL-UNNAMED bench/probes/ParkSlackProbe.java 1000          # system slack
 * $J/java --enable-native-access=ALL-UNNAMED bench/probes/ParkSlackProbe.java 1000 1000     # slack 1000 ns
 * </pre>
 */
public final class ParkSlackProbe {
    public static void main(String[] args) throws Throwable {
        long park = Long.parseLong(args[0]);
        Linker linker = Linker.nativeLinker();
        MethodHandle prctl = linker.downcallHandle(linker.defaultLookup().find("prctl").orElseThrow(),
                FunctionDescriptor.of(ValueLayout.JAVA_INT, ValueLayout.JAVA_INT, ValueLayout.JAVA_LONG,
                        ValueLayout.JAVA_LONG, ValueLayout.JAVA_LONG, ValueLayout.JAVA_LONG));
        if (args.length > 1) {
            int rc = (int) prctl.invokeExact(29, Long.parseLong(args[1]), 0L, 0L, 0L);
            if (rc != 0) {
                throw new IllegalStateException("prctl(PR_SET_TIMERSLACK) returned " + rc);
            }
        }
        System.out.println("timer slack " + (int) prctl.invokeExact(30, 0L, 0L, 0L, 0L) + " ns");
        for (int round = 0; round < 3; round++) {
            long t0 = System.nanoTime();
            for (int i = 0; i < 2000; i++) {
                LockSupport.parkNanos(park);
            }
            System.out.printf("parkNanos(%d): mean %.1f us%n", park, (System.nanoTime() - t0) / 2000 / 1000.0);
        }
    }
}
