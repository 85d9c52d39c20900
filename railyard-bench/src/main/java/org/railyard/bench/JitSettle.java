package org.railyard.bench;

import java.lang.management.CompilationMXBean;
import java.lang.management.ManagementFactory;
import javax.management.JMException;
import javax.management.ObjectName;
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
 * finished a compilation for {@link #QUIET_NS} and none has one under way or queued (at least one
 * pass, at most {@link #BOUND_NS}); every rank of the communicator takes part in the agreement after
 * each pass. The peer program against the mpiJava API ({@code bench/peers/mpijava}) applies the
 * same rule.
 *
 * <p>Finished compilations alone are not enough: the JIT's counters move when a compilation ends,
 * and an optimizing compilation of a large method can last longer than the quiet period; the
 * timed calls then ran beside it (bench/README.md, "the timed loop"). The compiler's queue, as
 * {@code jcmd <pid> Compiler.queue} prints it, says whether one is under way.
 */
final class JitSettle {
    /** How long no compilation may finish on any rank before timing starts. */
    static final long QUIET_NS = 300_000_000L;
    /** The longest warm-up, whatever the JIT does. */
    static final long BOUND_NS = 15_000_000_000L;

    private JitSettle() {
    }

    /**
     * True if this JVM's JIT has a compilation under way or queued, as the HotSpot diagnostic
     * command {@code Compiler.queue} lists them; false when it lists none or the JVM has no such
     * command (the rule then rests on finished compilations alone).
     */
    static boolean compiling() {
        Object listing;
        try {
            listing = ManagementFactory.getPlatformMBeanServer().invoke(
                    new ObjectName("com.sun.management:type=DiagnosticCommand"), "compilerQueue", null, null);
        } catch (JMException | RuntimeException e) {
            return false;
        }
        return busy(String.valueOf(listing));
    }

    /**
     * Reads a listing of {@code Compiler.queue}: headings end in a colon, an empty queue says
     * "Empty", and every other line is a compilation, under way or waiting.
     */
    static boolean busy(String listing) {
        for (String line : listing.split("\\R")) {
            String l = line.strip();
            if (!l.isEmpty() && !l.endsWith(":") && !l.equals("Empty")) {
                return true;
            }
        }
        return false;
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
            boolean quiet = now - quietSince >= QUIET_NS && !compiling();
            long done = !watch || quiet || now - start >= BOUND_NS ? 1 : 0;
            if (comm.allreduce(done, Op.MIN) == 1) {
                return passes;
            }
        }
    }
}
