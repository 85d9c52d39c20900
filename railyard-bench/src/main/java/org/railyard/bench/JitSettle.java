package org.railyard.bench;

import java.lang.management.CompilationMXBean;
import java.lang.management.ManagementFactory;
import org.railyard.Comm;
import org.railyard.Op;

/**
 * The JIT warm-up of the Java benchmark programs. A fixed count of untimed iterations is not
 * enough: 10000 round trips of 8 bytes last a few milliseconds, while the JIT's optimizing
 * compiler needs hundreds of milliseconds for the hot path, and on a machine with as many spinning
 * ranks as cores its compiler thread then preempts a rank inside the timed loop (a tail of 10-30 us
 * at the 99th percentile and millisecond maxima that no C program shows), and a larger size takes
 * new code (rendezvous, another collective algorithm). So before each size of each benchmark the
 * ranks repeat untimed passes of that size's loop until no rank's JIT has
 * finished a compilation for {@link #QUIET_NS} (at least one pass, at most {@link #BOUND_NS}); every
 * rank of the communicator takes part in the agreement after each pass. The peer program against
 * the mpiJava API ({@code bench/peers/mpijava}) applies the same rule.
 */
final class JitSettle {
    /** How long no compilation may finish on any rank before timing starts. */
    static final long QUIET_NS = 300_000_000L;
    /** The longest warm-up, whatever the JIT does. */
    static final long BOUND_NS = 15_000_000_000L;

    private JitSettle() {
    }

    /**
     * Runs {@code pass} until the JIT is quiet on every rank of {@code comm}; collective. Returns the
     * number of passes.
     */
    static int settle(Comm comm, Runnable pass) {
        CompilationMXBean jit = ManagementFactory.getCompilationMXBean();
        boolean watch = jit != null && jit.isCompilationTimeMonitoringSupported();
        long start = System.nanoTime();
        long quietSince = start;
        long seen = watch ? jit.getTotalCompilationTime() : 0;
        int passes = 0;
        while (true) {
            pass.run();
            passes++;
            long now = System.nanoTime();
            long compiled = watch ? jit.getTotalCompilationTime() : seen;
            if (compiled != seen) {
                seen = compiled;
                quietSince = now;
            }
            long done = !watch || now - quietSince >= QUIET_NS || now - start >= BOUND_NS ? 1 : 0;
            if (comm.allreduce(done, Op.MIN) == 1) {
                return passes;
            }
        }
    }
}
