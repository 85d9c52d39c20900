package org.railyard.bootstrap;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.StructLayout;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.VarHandle;
import java.util.concurrent.TimeUnit;
import org.railyard.error.ErrorClass;
import org.railyard.error.RailyardException;

/**
 * The connection of Hydra's default mode: a file descriptor the process inherited, named by
 * number in {@code PMI_FD} (one end of a socketpair Hydra's proxy made before it forked us).
 *
 * <p><b>Why java.lang.foreign.</b> The Java platform has no public way to turn a descriptor
 * number into a stream or channel: {@code FileDescriptor} cannot be built from an int without
 * reflective access into {@code java.base}, and re-opening {@code /proc/self/fd/N} fails for a
 * socket. So this class calls libc's {@code poll(2)}, {@code read(2)}, {@code write(2)} and
 * {@code close(2)} on the number directly, through {@link Linker#nativeLinker()} downcalls. That is
 * pure Java (no JNI library to build or ship); the JVM only needs native access enabled for the
 * unnamed module ({@code --enable-native-access=ALL-UNNAMED}, else JDK 25 prints a warning).
 * {@code poll} comes first on every read and write so that each wait is bounded by the deadline,
 * whatever blocking mode the descriptor was left in.
 *
 * <p>Instances are used by one thread at a time ({@link Pmi1Bootstrap} synchronizes), but that
 * thread may change between calls, so native memory lives in a shared arena.
 */
final class PmiFdConnection extends PmiConnection {
    // Linux values; poll's bits are the same on every Unix, errno values are not (macOS EAGAIN=35).
    private static final short POLLIN = 0x1;
    private static final short POLLOUT = 0x4;
    private static final short POLLERR = 0x8;
    private static final short POLLHUP = 0x10;
    private static final short POLLNVAL = 0x20;
    private static final int EINTR = 4;
    private static final int EAGAIN = 11;

    /** struct pollfd { int fd; short events; short revents; } */
    private static final StructLayout POLLFD = MemoryLayout.structLayout(
            ValueLayout.JAVA_INT.withName("fd"),
            ValueLayout.JAVA_SHORT.withName("events"),
            ValueLayout.JAVA_SHORT.withName("revents"));
    private static final long POLLFD_EVENTS = POLLFD.byteOffset(MemoryLayout.PathElement.groupElement("events"));
    private static final long POLLFD_REVENTS = POLLFD.byteOffset(MemoryLayout.PathElement.groupElement("revents"));

    private static final int BUFFER = 8192;

    private final int fd;
    private final String where;
    private final Arena arena = Arena.ofShared();
    private final MemorySegment pollfd;
    private final MemorySegment buffer;
    private final MemorySegment callState;
    private boolean closed;

    /**
     * Wraps descriptor {@code fd}; checks at once that it is open, so a stale PMI_FD (a program
     * that was exec'ed with descriptors closed) is reported here rather than at the first request.
     *
     * @throws RailyardException BOOTSTRAP if the descriptor is not open
     */
    PmiFdConnection(int fd, String where) {
        this.fd = fd;
        this.where = where;
        this.pollfd = arena.allocate(POLLFD);
        this.buffer = arena.allocate(BUFFER);
        this.callState = arena.allocate(Libc.CALL_STATE);
        try {
            poll(POLLOUT, 0);
        } catch (IOException e) {
            close();
            throw new RailyardException(ErrorClass.BOOTSTRAP, "cannot use the " + where + ": " + e.getMessage(), e);
        }
    }

    @Override
    String describe() {
        return where;
    }

    @Override
    protected synchronized int readSome(byte[] dst, int off, int len, long timeoutMillis) throws IOException {
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(timeoutMillis);
        while (true) {
            long left = deadline - System.nanoTime();
            if (left <= 0) {
                return 0;
            }
            if (!poll(POLLIN, left)) {
                return 0;
            }
            long n = Libc.read(callState, fd, buffer, Math.min(len, BUFFER));
            if (n > 0) {
                MemorySegment.copy(buffer, ValueLayout.JAVA_BYTE, 0, dst, off, (int) n);
                return (int) n;
            }
            if (n == 0) {
                return -1;
            }
            int errno = Libc.errno(callState);
            // Interrupted, or readiness that vanished (another reader, spurious wakeup): wait again.
            if (errno != EINTR && errno != EAGAIN) {
                throw new IOException("read(" + fd + ") failed: " + Libc.strerror(errno));
            }
        }
    }

    @Override
    protected synchronized void writeAll(byte[] src, long deadlineNanos) throws IOException {
        int done = 0;
        while (done < src.length) {
            long left = deadlineNanos - System.nanoTime();
            if (left <= 0 || !poll(POLLOUT, left)) {
                throw new IOException("the descriptor stayed full: " + (src.length - done) + " of " + src.length
                        + " bytes unsent when the time ran out");
            }
            int chunk = Math.min(src.length - done, BUFFER);
            MemorySegment.copy(src, done, buffer, ValueLayout.JAVA_BYTE, 0, chunk);
            long n = Libc.write(callState, fd, buffer, chunk);
            if (n > 0) {
                done += (int) n;
            } else if (n < 0) {
                int errno = Libc.errno(callState);
                if (errno != EINTR && errno != EAGAIN) {
                    throw new IOException("write(" + fd + ") failed: " + Libc.strerror(errno));
                }
            }
        }
    }

    /**
     * Waits until the descriptor is ready for {@code events} or has hung up/failed (then the
     * following read or write reports it), at most {@code timeoutNanos}.
     *
     * @return false if the time ran out first
     * @throws IOException if the descriptor is not open or poll itself fails
     */
    private boolean poll(short events, long timeoutNanos) throws IOException {
        // Whole milliseconds, rounded up so that a short remaining wait does not become a busy loop.
        int millis = Math.clamp(TimeUnit.NANOSECONDS.toMillis(timeoutNanos + 999_999), 0, Integer.MAX_VALUE);
        pollfd.set(ValueLayout.JAVA_INT, 0, fd);
        pollfd.set(ValueLayout.JAVA_SHORT, POLLFD_EVENTS, events);
        pollfd.set(ValueLayout.JAVA_SHORT, POLLFD_REVENTS, (short) 0);
        int rc = Libc.poll(callState, pollfd, millis);
        if (rc < 0) {
            int errno = Libc.errno(callState);
            if (errno == EINTR) {
                return false; // the caller recomputes what is left of its deadline and polls again
            }
            throw new IOException("poll(" + fd + ") failed: " + Libc.strerror(errno));
        }
        if (rc == 0) {
            return false;
        }
        short revents = pollfd.get(ValueLayout.JAVA_SHORT, POLLFD_REVENTS);
        if ((revents & POLLNVAL) != 0) {
            throw new IOException("file descriptor " + fd + " is not open in this process"
                    + " (was it closed, or not inherited across exec?)");
        }
        return (revents & (events | POLLERR | POLLHUP)) != 0;
    }

    @Override
    public synchronized void close() {
        if (closed) {
            return;
        }
        closed = true;
        Libc.close(fd);
        arena.close();
    }

    /**
     * The libc functions used, bound once per JVM. Downcalls are "restricted" methods: they are the
     * point of this class (see the class comment), hence the suppressed lint warning.
     */
    @SuppressWarnings("restricted")
    private static final class Libc {
        static final StructLayout CALL_STATE = Linker.Option.captureStateLayout();
        private static final VarHandle ERRNO =
                CALL_STATE.varHandle(MemoryLayout.PathElement.groupElement("errno"));
        private static final MethodHandle READ;
        private static final MethodHandle WRITE;
        private static final MethodHandle POLL;
        private static final MethodHandle CLOSE;
        private static final MethodHandle STRERROR;

        static {
            Linker linker = Linker.nativeLinker();
            // ssize_t, size_t and nfds_t are 64-bit on the LP64 Unixes Hydra runs on (Linux, macOS).
            ValueLayout cLong = ValueLayout.JAVA_LONG;
            ValueLayout sizeT = ValueLayout.JAVA_LONG;
            Linker.Option errno = Linker.Option.captureCallState("errno");
            READ = linker.downcallHandle(find(linker, "read"),
                    FunctionDescriptor.of(cLong, ValueLayout.JAVA_INT, ValueLayout.ADDRESS, sizeT), errno);
            WRITE = linker.downcallHandle(find(linker, "write"),
                    FunctionDescriptor.of(cLong, ValueLayout.JAVA_INT, ValueLayout.ADDRESS, sizeT), errno);
            POLL = linker.downcallHandle(find(linker, "poll"),
                    FunctionDescriptor.of(ValueLayout.JAVA_INT, ValueLayout.ADDRESS, cLong, ValueLayout.JAVA_INT), errno);
            CLOSE = linker.downcallHandle(find(linker, "close"),
                    FunctionDescriptor.of(ValueLayout.JAVA_INT, ValueLayout.JAVA_INT));
            STRERROR = linker.downcallHandle(find(linker, "strerror"),
                    FunctionDescriptor.of(ValueLayout.ADDRESS, ValueLayout.JAVA_INT));
        }

        private static MemorySegment find(Linker linker, String name) {
            return linker.defaultLookup().find(name).orElseThrow(() -> new RailyardException(ErrorClass.BOOTSTRAP,
                    "libc function " + name + " not found: PMI_FD needs a Unix C library"));
        }

        static long read(MemorySegment state, int fd, MemorySegment buf, long len) {
            try {
                return (long) READ.invokeExact(state, fd, buf, len);
            } catch (Throwable t) {
                throw unexpected("read", t);
            }
        }

        static long write(MemorySegment state, int fd, MemorySegment buf, long len) {
            try {
                return (long) WRITE.invokeExact(state, fd, buf, len);
            } catch (Throwable t) {
                throw unexpected("write", t);
            }
        }

        static int poll(MemorySegment state, MemorySegment fds, int timeoutMillis) {
            try {
                return (int) POLL.invokeExact(state, fds, 1L, timeoutMillis);
            } catch (Throwable t) {
                throw unexpected("poll", t);
            }
        }

        static void close(int fd) {
            try {
                // A failing close leaves nothing to retry (POSIX: the descriptor is gone either way).
                int ignored = (int) CLOSE.invokeExact(fd);
            } catch (Throwable t) {
                throw unexpected("close", t);
            }
        }

        static int errno(MemorySegment state) {
            return (int) ERRNO.get(state, 0L);
        }

        static String strerror(int errno) {
            try {
                MemorySegment text = (MemorySegment) STRERROR.invokeExact(errno);
                // strerror returns a NUL-terminated string of unknown length; messages are short.
                return text.reinterpret(1024).getString(0) + " (errno " + errno + ")";
            } catch (Throwable t) {
                return "errno " + errno;
            }
        }

        private static RailyardException unexpected(String function, Throwable t) {
            return new RailyardException(ErrorClass.INTERNAL, "native call " + function + "(2) could not be made: " + t, t);
        }
    }
}
