package org.railyard.util;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.StructLayout;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.VarHandle;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Binds the calling thread, and so every thread it starts afterwards (the engine's progress agent),
 * to one processor of those this process may use, one processor per rank of the node, as MPI
 * launchers bind ranks to cores. By default ({@code full}) it binds only when the node's ranks are
 * exactly as many as the processors this process may use: unbound, the operating system at times
 * runs two ranks on one processor while the other processor runs something else, and ranks that
 * exchange every iteration then take turns instead of running together (the obstacle solve's warm
 * iterations at np 2 on 2 processors: bench/results/log/2026-11-28-1500-warm-iteration.md). With
 * fewer ranks than processors it leaves placement to the operating system: a processor is spare,
 * and jobs started side by side on a larger node would all bind to its first processors.
 *
 * <p>The threads the JVM started before (compiler, garbage collector) are left free to run anywhere.
 * Linux only ({@code sched_getaffinity} and {@code sched_setaffinity} through
 * {@link Linker#nativeLinker()}: a restricted call, which {@code railyard run} enables with
 * {@code --enable-native-access=ALL-UNNAMED}).
 *
 * <p>{@code railyard.bind}: {@code full} (default) binds when the node runs at least 2 ranks and
 * exactly as many as the processors this process may use; {@code none} never binds; {@code auto}
 * binds when the node runs at least 2 ranks and no more than the processors this process may use
 * (more ranks than processors must share them, and a rank alone on its node has no one to collide
 * with, which also keeps the ranks of a network lab, one per namespace on one machine, from all
 * landing on the first processor); {@code core} binds whenever the position on the node is known (rank {@code i} to the
 * {@code i mod n}th processor). The position on the node comes from {@code RAILYARD_LOCAL_RANK} and
 * {@code RAILYARD_LOCAL_SIZE} ({@code railyard run}) or {@code MPI_LOCALRANKID} and
 * {@code MPI_LOCALNRANKS} (MPICH Hydra).
 */
public final class CpuBinding {
    public static final String PROP = "railyard.bind";
    public static final String DEFAULT = "full";

    /** cpu_set_t of glibc: 1024 bits. */
    private static final int SET_BYTES = 128;

    private CpuBinding() {
    }

    /**
     * Applies {@code railyard.bind} to the calling thread; returns what was done, for the choices
     * the library prints. Never fails the job: a binding that cannot be made is reported, not thrown.
     */
    public static String apply(Map<String, String> env) {
        String mode = mode();
        String skip = skip(mode, env);
        if (skip != null) {
            return "not bound to a processor (" + skip + ")";
        }
        int localRank = number(env, "RAILYARD_LOCAL_RANK", "MPI_LOCALRANKID");
        int localSize = number(env, "RAILYARD_LOCAL_SIZE", "MPI_LOCALNRANKS");
        if (Affinity.error() != null) {
            return "not bound to a processor (" + Affinity.error() + ")";
        }
        try {
            List<Integer> allowed = Affinity.allowed();
            String unfit = unfit(mode, localSize, allowed.size());
            if (unfit != null) {
                return "not bound to a processor (" + unfit + ")";
            }
            int cpu = allowed.get(localRank % allowed.size());
            Affinity.bind(cpu);
            return "bound to processor " + cpu + " (rank " + localRank + " of " + localSize + " on this node, "
                    + allowed.size() + " processors allowed)";
        } catch (RuntimeException | LinkageError e) {
            return "not bound to a processor (" + e.getMessage() + ")";
        }
    }

    /**
     * Makes the downcall handles {@link #apply} will use with {@code env}, if it will use them (on
     * init's native set-up thread); a failure is kept for {@link #apply} to report. Never throws
     * for a bad setting: {@link #apply} reports that.
     */
    public static void prepare(Map<String, String> env) {
        String mode;
        try {
            mode = mode();
        } catch (IllegalArgumentException e) {
            return;
        }
        if (skip(mode, env) == null) {
            Affinity.error(); // the class's initialisation makes the handles, or keeps why it cannot
        }
    }

    /** {@code railyard.bind}, checked. */
    private static String mode() {
        String mode = Config.string(PROP, DEFAULT).toLowerCase(Locale.ROOT);
        if (!mode.equals("full") && !mode.equals("auto") && !mode.equals("core") && !mode.equals("none")) {
            throw new IllegalArgumentException(PROP + " must be full, auto, core or none, got '" + mode + "'");
        }
        return mode;
    }

    /** Why {@code mode} binds no thread whatever the processors, or null if the processors decide. */
    private static String skip(String mode, Map<String, String> env) {
        if (mode.equals("none")) {
            return PROP + "=none";
        }
        int localRank = number(env, "RAILYARD_LOCAL_RANK", "MPI_LOCALRANKID");
        int localSize = number(env, "RAILYARD_LOCAL_SIZE", "MPI_LOCALNRANKS");
        if (localRank < 0 || localSize <= 0 || localRank >= localSize) {
            return "position on the node unknown";
        }
        if (!mode.equals("core") && localSize < 2) {
            return "the only rank on its node";
        }
        if (!System.getProperty("os.name", "").toLowerCase(Locale.ROOT).contains("linux")) {
            return "binding is implemented for Linux only";
        }
        return null;
    }

    /**
     * Why {@code mode} does not bind {@code ranks} ranks of a node to {@code processors} allowed
     * processors, or null if it binds: {@code auto} binds up to as many ranks as processors,
     * {@code full} exactly as many, {@code core} any number.
     */
    static String unfit(String mode, int ranks, int processors) {
        if (mode.equals("auto") && ranks > processors) {
            return ranks + " ranks on this node share " + processors + " processors";
        }
        if (mode.equals("full") && ranks != processors) {
            return ranks + " ranks on this node, " + processors + " processors allowed: " + PROP
                    + "=full binds only ranks that fill the processors";
        }
        return null;
    }

    private static int number(Map<String, String> env, String ours, String hydra) {
        String v = env.get(ours);
        if (v == null) {
            v = env.get(hydra);
        }
        if (v == null) {
            return -1;
        }
        try {
            return Integer.parseInt(v.trim());
        } catch (NumberFormatException e) {
            return -1;
        }
    }

    /** The downcalls, bound on first use; {@link #ERROR} says why they could not be. */
    @SuppressWarnings("restricted")
    private static final class Affinity {
        private static final StructLayout CALL_STATE = Linker.Option.captureStateLayout();
        private static final VarHandle ERRNO = CALL_STATE.varHandle(MemoryLayout.PathElement.groupElement("errno"));
        private static final MethodHandle GET;
        private static final MethodHandle SET;
        private static final String ERROR;

        static {
            MethodHandle get = null;
            MethodHandle set = null;
            String error = null;
            try {
                Linker linker = Linker.nativeLinker();
                FunctionDescriptor fd = FunctionDescriptor.of(ValueLayout.JAVA_INT, ValueLayout.JAVA_INT,
                        ValueLayout.JAVA_LONG, ValueLayout.ADDRESS);
                Linker.Option errno = Linker.Option.captureCallState("errno");
                get = linker.downcallHandle(find(linker, "sched_getaffinity"), fd, errno);
                set = linker.downcallHandle(find(linker, "sched_setaffinity"), fd, errno);
            } catch (RuntimeException | LinkageError e) {
                error = String.valueOf(e.getMessage());
                get = null;
                set = null;
            }
            GET = get;
            SET = set;
            ERROR = error;
        }

        /** Why the calls cannot be made here, or null. */
        static String error() {
            return ERROR;
        }

        private static MemorySegment find(Linker linker, String name) {
            return linker.defaultLookup().find(name)
                    .orElseThrow(() -> new IllegalStateException("libc has no " + name));
        }

        /** The processors the calling thread may run on, in increasing order. */
        static List<Integer> allowed() {
            try (Arena arena = Arena.ofConfined()) {
                MemorySegment set = arena.allocate(SET_BYTES, 8);
                MemorySegment state = arena.allocate(CALL_STATE);
                int rc = (int) GET.invokeExact(state, 0, (long) SET_BYTES, set);
                if (rc != 0) {
                    throw new IllegalStateException("sched_getaffinity failed, errno " + (int) ERRNO.get(state, 0L));
                }
                List<Integer> cpus = new ArrayList<>();
                for (int cpu = 0; cpu < SET_BYTES * 8; cpu++) {
                    if ((set.get(ValueLayout.JAVA_BYTE, cpu / 8) & (1 << (cpu % 8))) != 0) {
                        cpus.add(cpu);
                    }
                }
                if (cpus.isEmpty()) {
                    throw new IllegalStateException("sched_getaffinity gave no processor");
                }
                return cpus;
            } catch (RuntimeException | Error e) {
                throw e;
            } catch (Throwable t) {
                throw new IllegalStateException("sched_getaffinity: " + t, t);
            }
        }

        /** Binds the calling thread to {@code cpu}. */
        static void bind(int cpu) {
            try (Arena arena = Arena.ofConfined()) {
                MemorySegment set = arena.allocate(SET_BYTES, 8);
                set.set(ValueLayout.JAVA_BYTE, cpu / 8, (byte) (1 << (cpu % 8)));
                MemorySegment state = arena.allocate(CALL_STATE);
                int rc = (int) SET.invokeExact(state, 0, (long) SET_BYTES, set);
                if (rc != 0) {
                    throw new IllegalStateException("sched_setaffinity to processor " + cpu + " failed, errno "
                            + (int) ERRNO.get(state, 0L));
                }
            } catch (RuntimeException | Error e) {
                throw e;
            } catch (Throwable t) {
                throw new IllegalStateException("sched_setaffinity: " + t, t);
            }
        }
    }
}
