package org.railyard.transport.shm;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.StructLayout;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.VarHandle;
import java.security.SecureRandom;
import java.util.Locale;
import org.railyard.transport.NodeMemory;

/**
 * Reads another process's memory in one copy, with Linux's cross-memory attach
 * ({@code process_vm_readv}, called through {@link Linker#nativeLinker()}; no JNI): what Open MPI's
 * vader and MPICH's nemesis call CMA. A rendezvous between two processes of one node whose buffers
 * are both in native memory can move its payload this way instead of through a shared ring (a copy
 * in, a copy out), and the sender's processor does no copying at all.
 *
 * <p>Only native memory has an address that holds still: a Java array can move with every garbage
 * collection, so neither end of such a read can be a heap array.
 *
 * <p>The kernel allows the read when the reader may trace the other process (same user, and the
 * Yama setting {@code kernel.yama.ptrace_scope} at most 1 with the reader an ancestor, or 0). To
 * make sure a process id names the process it should (process ids are per namespace, and a node
 * name may be shared by containers), every process keeps a random 16-byte {@link #identity() token}
 * in native memory; a reader first reads the token at the address the peer announced and compares
 * it with the value the peer sent ({@link #verify}): only then does it trust the peer's addresses.
 * The layers above reach all of this through {@link NodeMemory} ({@link ShmNodeMemory}).
 */
final class ProcessMemory {
    private static final NodeMemory.Identity IDENTITY = newIdentity();

    private ProcessMemory() {
    }

    /** This process's identity token: its address here, and its two random words. */
    static NodeMemory.Identity identity() {
        return IDENTITY;
    }

    /** True if the calls are there (Linux, the symbol found, native access allowed). */
    static boolean available() {
        return Calls.ERROR == null;
    }

    /** Why the calls are not available, or null. */
    static String unavailableReason() {
        return Calls.ERROR;
    }

    /**
     * Copies {@code length} bytes at {@code remoteAddress} in process {@code pid} to
     * {@code dst} (native memory, at least {@code length} bytes), looping over partial reads. Uses
     * a {@link Reader} of its own; callers that read often keep one.
     *
     * @return the number of bytes read (all of them), or minus the {@code errno} of the failure
     *     (EPERM: not allowed to trace; ESRCH: no such process; EFAULT: a bad address)
     */
    static long read(long pid, MemorySegment dst, long remoteAddress, long length) {
        return new Reader().read(pid, dst, remoteAddress, length);
    }

    /**
     * Reads with the call's argument block allocated once: no allocation per read. Not for
     * concurrent use (the engine keeps one and reads under its progress lock).
     */
    static final class Reader implements NodeMemory.Reader {
        private final MemorySegment iov = Arena.ofAuto().allocate(32, 8);
        private final MemorySegment remote = iov.asSlice(16);
        private final MemorySegment state = Arena.ofAuto().allocate(Calls.CALL_STATE);

        /** See {@link ProcessMemory#read}. */
        long read(long pid, MemorySegment dst, long remoteAddress, long length) {
            if (!dst.isNative()) {
                throw new IllegalArgumentException("cross-memory read into memory that is not native");
            }
            if (dst.byteSize() < length) {
                throw new IllegalArgumentException("cross-memory read of " + length + " bytes into " + dst.byteSize());
            }
            return read(pid, dst.address(), remoteAddress, length);
        }

        /**
         * As {@link #read(long, MemorySegment, long, long)}, into {@code length} bytes of native
         * memory at {@code dstAddress} of this process, which the caller keeps alive and large
         * enough; allocates nothing.
         */
        @Override
        public long read(long pid, long dstAddress, long remoteAddress, long length) {
            if (Calls.ERROR != null) {
                return -Calls.ENOSYS;
            }
            long done = 0;
            try {
                while (done < length) {
                    long n = length - done;
                    iov.set(ValueLayout.JAVA_LONG, 0, dstAddress + done);
                    iov.set(ValueLayout.JAVA_LONG, 8, n);
                    iov.set(ValueLayout.JAVA_LONG, 16, remoteAddress + done);
                    iov.set(ValueLayout.JAVA_LONG, 24, n);
                    long r = (long) Calls.READV.invokeExact(state, (int) pid, iov, 1L, remote, 1L, 0L);
                    if (r < 0) {
                        return -(int) Calls.ERRNO.get(state, 0L);
                    }
                    if (r == 0) {
                        return -Calls.EFAULT;
                    }
                    done += r;
                }
            } catch (Throwable t) {
                throw new IllegalStateException("process_vm_readv failed: " + t, t);
            }
            return done;
        }
    }

    /** A short name for an errno a read returned (minus it), for messages. */
    static String errorName(long negErrno) {
        return switch ((int) -negErrno) {
            case 1 -> "EPERM (not allowed to read the other process: another user, or ptrace_scope)";
            case 3 -> "ESRCH (no such process)";
            case 14 -> "EFAULT (an address outside the other process's memory)";
            case 38 -> "ENOSYS (" + (Calls.ERROR == null ? "not implemented" : Calls.ERROR) + ")";
            default -> "errno " + -negErrno;
        };
    }

    /**
     * A new identity token: 16 random bytes (the first word never 0) in native memory that lives
     * as long as the process. Another process that reads these bytes back from this process id
     * knows it found this process.
     */
    private static NodeMemory.Identity newIdentity() {
        MemorySegment token = Arena.global().allocate(16, 16);
        SecureRandom random = new SecureRandom();
        long a;
        do {
            a = random.nextLong();
        } while (a == 0);
        long b = random.nextLong();
        token.set(ValueLayout.JAVA_LONG, 0, a);
        token.set(ValueLayout.JAVA_LONG, 8, b);
        return new NodeMemory.Identity(token.address(), a, b);
    }

    /**
     * True if process {@code pid} holds {@code word0, word1} at {@code address}: the process id
     * names the process that sent them.
     */
    static boolean verify(long pid, long address, long word0, long word1) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment got = arena.allocate(16, 16);
            return read(pid, got, address, 16) == 16 && got.get(ValueLayout.JAVA_LONG, 0) == word0
                    && got.get(ValueLayout.JAVA_LONG, 8) == word1;
        }
    }

    /** The downcall, bound on first use; {@link #ERROR} says why it could not be. */
    @SuppressWarnings("restricted")
    private static final class Calls {
        static final int EFAULT = 14;
        static final int ENOSYS = 38;
        static final StructLayout CALL_STATE = Linker.Option.captureStateLayout();
        static final VarHandle ERRNO = CALL_STATE.varHandle(MemoryLayout.PathElement.groupElement("errno"));
        static final MethodHandle READV;
        static final String ERROR;

        static {
            MethodHandle h = null;
            String error = null;
            if (!System.getProperty("os.name", "").toLowerCase(Locale.ROOT).contains("linux")) {
                error = "cross-memory reads are implemented for Linux only";
            } else {
                try {
                    Linker linker = Linker.nativeLinker();
                    MemorySegment sym = linker.defaultLookup().find("process_vm_readv").orElse(null);
                    if (sym == null) {
                        error = "the C library has no process_vm_readv";
                    } else {
                        h = linker.downcallHandle(sym, FunctionDescriptor.of(ValueLayout.JAVA_LONG, ValueLayout.JAVA_INT,
                                ValueLayout.ADDRESS, ValueLayout.JAVA_LONG, ValueLayout.ADDRESS, ValueLayout.JAVA_LONG,
                                ValueLayout.JAVA_LONG), Linker.Option.captureCallState("errno"));
                    }
                } catch (RuntimeException | LinkageError e) {
                    error = "native calls not available: " + e.getMessage();
                }
            }
            READV = h;
            ERROR = error;
        }
    }
}
