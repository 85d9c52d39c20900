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
import java.util.Locale;

/**
 * Linux futexes on 32-bit words in native memory, called through {@link Linker#nativeLinker()}
 * (the C library's {@code syscall}; no JNI). A word in a file that two processes map is one futex
 * for both (the calls use the shared form, keyed by the file page), so one process can sleep on it
 * and another wake it.
 *
 * <p>A {@link Waiter} sleeps on several words at once ({@code futex_waitv}, Linux 5.16 and later):
 * it returns when any of them is woken, when any no longer holds the value it was given, or when
 * the time is up. {@link #wakeAll} wakes every sleeper on a word.
 */
public final class Futex {
    /** The most words one {@link Waiter} can sleep on (the kernel's limit). */
    public static final int MAX_WORDS = 128;

    /** How a {@link Waiter#sleep} ended. */
    public enum Outcome {
        /** Another thread or process woke one of the words. */
        WOKEN,
        /** A word no longer held its expected value when the call began. */
        CHANGED,
        /** The time was up. */
        TIMED_OUT,
        /** A signal interrupted the call. */
        INTERRUPTED
    }

    private Futex() {
    }

    /** True if the calls work here (Linux, a kernel with futex_waitv, native access allowed). */
    public static boolean available() {
        return Calls.ERROR == null;
    }

    /** Why the calls do not work here, or null. */
    public static String unavailableReason() {
        return Calls.ERROR;
    }

    /**
     * Wakes every thread (of any process) sleeping on the 32-bit word at the start of {@code word}.
     *
     * @return the number woken
     */
    public static int wakeAll(MemorySegment word) {
        if (Calls.ERROR != null) {
            return 0;
        }
        try {
            return (int) (long) Calls.WAKE.invokeExact(Calls.SYS_FUTEX, word.address(), Calls.FUTEX_WAKE,
                    (long) Integer.MAX_VALUE, 0L, 0L, 0L);
        } catch (Throwable t) {
            throw new IllegalStateException("futex wake failed: " + t, t);
        }
    }

    /**
     * A thread's sleep on up to {@link #MAX_WORDS} words: the kernel's argument block is allocated
     * once. Not for concurrent use; keep one per thread.
     */
    public static final class Waiter {
        private static final long ENTRY = 24;
        private final MemorySegment entries = Arena.ofAuto().allocate(ENTRY * MAX_WORDS, 8);
        private final MemorySegment timeout = Arena.ofAuto().allocate(16, 8);
        /** The words and the values given, to tell a word that changed from a sleep that ended otherwise. */
        private final MemorySegment[] words = new MemorySegment[MAX_WORDS];
        private final int[] values = new int[MAX_WORDS];
        private int count;

        /** Forgets the words set so far. */
        public void clear() {
            for (int i = 0; i < count; i++) {
                words[i] = null;
            }
            count = 0;
        }

        /** Adds the word at the start of {@code word} (native memory), to sleep while it holds {@code expected}. */
        public void add(MemorySegment word, int expected) {
            if (count == MAX_WORDS) {
                throw new IllegalStateException("a futex waiter takes at most " + MAX_WORDS + " words");
            }
            if (!word.isNative() || (word.address() & 3) != 0) {
                throw new IllegalArgumentException("a futex word must be native and 4-byte aligned");
            }
            long at = count * ENTRY;
            entries.set(ValueLayout.JAVA_LONG, at, expected & 0xffffffffL);
            entries.set(ValueLayout.JAVA_LONG, at + 8, word.address());
            entries.set(ValueLayout.JAVA_INT, at + 16, Calls.FUTEX2_SIZE_U32);
            entries.set(ValueLayout.JAVA_INT, at + 20, 0);
            words[count] = word;
            values[count] = expected;
            count++;
        }

        /** The number of words set. */
        public int size() {
            return count;
        }

        /**
         * Sleeps at most {@code nanos} (on the monotonic clock, as {@link System#nanoTime}).
         *
         * <p>The call does not capture {@code errno}: a downcall that does allocates a few dozen bytes
         * per call until the compiler has optimised its caller fully, and waits run in loops that
         * must allocate nothing. A failed call is told apart by what it leaves behind instead: a word
         * that no longer holds its value (or whose memory was unmapped) is {@link Outcome#CHANGED}, a
         * deadline passed is {@link Outcome#TIMED_OUT}, anything else {@link Outcome#INTERRUPTED}
         * (a signal, or a spurious return). Whether the call exists at all was tried once, with
         * {@code errno}, when the class was loaded.
         */
        public Outcome sleep(long nanos) {
            if (Calls.ERROR != null) {
                throw new IllegalStateException("futexes are not available: " + Calls.ERROR);
            }
            long deadline = System.nanoTime() + nanos;
            timeout.set(ValueLayout.JAVA_LONG, 0, deadline / 1_000_000_000L);
            timeout.set(ValueLayout.JAVA_LONG, 8, deadline % 1_000_000_000L);
            long r;
            try {
                r = (long) Calls.WAITV.invokeExact(Calls.SYS_FUTEX_WAITV, entries.address(), (long) count, 0L,
                        timeout.address(), Calls.CLOCK_MONOTONIC, 0L);
            } catch (Throwable t) {
                throw new IllegalStateException("futex_waitv failed: " + t, t);
            }
            if (r >= 0) {
                return Outcome.WOKEN;
            }
            if (anyChanged()) {
                return Outcome.CHANGED;
            }
            return System.nanoTime() - deadline >= 0 ? Outcome.TIMED_OUT : Outcome.INTERRUPTED;
        }

        /** True if a word no longer holds the value it was given, or its memory is gone. */
        private boolean anyChanged() {
            for (int i = 0; i < count; i++) {
                try {
                    if ((int) Calls.INT.getVolatile(words[i], 0L) != values[i]) {
                        return true;
                    }
                } catch (IllegalStateException e) {
                    // the memory's arena was closed (a link closed and unmapped it): as EFAULT
                    return true;
                }
            }
            return false;
        }
    }

    /** The downcalls, bound and tried on first use; {@link #ERROR} says why they could not be. */
    @SuppressWarnings("restricted")
    private static final class Calls {
        static final int EAGAIN = 11;
        static final VarHandle INT = ValueLayout.JAVA_INT.varHandle();
        static final long FUTEX_WAKE = 1;
        static final int FUTEX2_SIZE_U32 = 2;
        static final long CLOCK_MONOTONIC = 1;
        static final long SYS_FUTEX;
        static final long SYS_FUTEX_WAITV = 449;
        static final StructLayout CALL_STATE = Linker.Option.captureStateLayout();
        static final VarHandle ERRNO = CALL_STATE.varHandle(MemoryLayout.PathElement.groupElement("errno"));
        static final MethodHandle WAKE;
        static final MethodHandle WAITV;
        static final String ERROR;

        static {
            String arch = System.getProperty("os.arch", "");
            SYS_FUTEX = switch (arch) {
                case "amd64", "x86_64" -> 202;
                case "aarch64" -> 98;
                default -> -1;
            };
            MethodHandle wake = null;
            MethodHandle waitv = null;
            String error = null;
            if (!System.getProperty("os.name", "").toLowerCase(Locale.ROOT).contains("linux")) {
                error = "futexes are implemented for Linux only";
            } else if (SYS_FUTEX < 0) {
                error = "futex system call numbers unknown for architecture " + arch;
            } else {
                try {
                    Linker linker = Linker.nativeLinker();
                    MemorySegment sym = linker.defaultLookup().find("syscall").orElse(null);
                    if (sym == null) {
                        error = "the C library has no syscall()";
                    } else {
                        FunctionDescriptor seven = FunctionDescriptor.of(ValueLayout.JAVA_LONG, ValueLayout.JAVA_LONG,
                                ValueLayout.JAVA_LONG, ValueLayout.JAVA_LONG, ValueLayout.JAVA_LONG, ValueLayout.JAVA_LONG,
                                ValueLayout.JAVA_LONG, ValueLayout.JAVA_LONG);
                        // waking never blocks: no thread state change around it
                        wake = linker.downcallHandle(sym, seven, Linker.Option.firstVariadicArg(1),
                                Linker.Option.critical(false));
                        // the tried call captures errno to say why it fails; the sleeps do not (see Waiter.sleep)
                        MethodHandle tried = linker.downcallHandle(sym, FunctionDescriptor.of(ValueLayout.JAVA_LONG,
                                ValueLayout.JAVA_LONG, ValueLayout.JAVA_LONG, ValueLayout.JAVA_LONG, ValueLayout.JAVA_LONG,
                                ValueLayout.JAVA_LONG, ValueLayout.JAVA_LONG), Linker.Option.firstVariadicArg(1),
                                Linker.Option.captureCallState("errno"));
                        error = tryOnce(tried);
                        waitv = linker.downcallHandle(sym, seven, Linker.Option.firstVariadicArg(1));
                    }
                } catch (RuntimeException | LinkageError e) {
                    error = "native calls not available: " + e.getMessage();
                }
            }
            WAKE = wake;
            WAITV = waitv;
            ERROR = error;
        }

        /** Sleeps on a word that does not hold the expected value: EAGAIN at once if the call exists. */
        private static String tryOnce(MethodHandle waitv) {
            try (Arena arena = Arena.ofConfined()) {
                MemorySegment word = arena.allocate(4, 4);
                word.set(ValueLayout.JAVA_INT, 0, 1);
                MemorySegment entry = arena.allocate(24, 8);
                entry.set(ValueLayout.JAVA_LONG, 0, 0L);
                entry.set(ValueLayout.JAVA_LONG, 8, word.address());
                entry.set(ValueLayout.JAVA_INT, 16, FUTEX2_SIZE_U32);
                MemorySegment state = arena.allocate(CALL_STATE);
                long r = (long) waitv.invokeExact(state, SYS_FUTEX_WAITV, entry.address(), 1L, 0L, 0L, CLOCK_MONOTONIC);
                int errno = (int) ERRNO.get(state, 0L);
                if (r == -1 && errno == EAGAIN) {
                    return null;
                }
                return r == -1 && errno == 38 ? "the kernel has no futex_waitv (Linux 5.16 or later needed)"
                        : "futex_waitv answered " + r + " (errno " + errno + ") to a test call";
            } catch (Throwable t) {
                return "futex_waitv cannot be called: " + t;
            }
        }
    }
}
