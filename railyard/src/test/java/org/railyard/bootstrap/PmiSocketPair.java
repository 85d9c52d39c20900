package org.railyard.bootstrap;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;

/**
 * A connected pair of Unix stream sockets made with socketpair(2), as Hydra's proxy makes one
 * before it forks a rank: the test gives one descriptor number to the client as PMI_FD and serves
 * the other. Made through java.lang.foreign for the same reason {@link PmiFdConnection} uses it.
 */
final class PmiSocketPair {
    private static final int AF_UNIX = 1;
    private static final int SOCK_STREAM = 1;

    private PmiSocketPair() {
    }

    /** @return the two descriptor numbers; each side closes its own */
    @SuppressWarnings("restricted")
    static int[] open() throws Throwable {
        Linker linker = Linker.nativeLinker();
        MethodHandle socketpair = linker.downcallHandle(linker.defaultLookup().find("socketpair").orElseThrow(),
                FunctionDescriptor.of(ValueLayout.JAVA_INT, ValueLayout.JAVA_INT, ValueLayout.JAVA_INT,
                        ValueLayout.JAVA_INT, ValueLayout.ADDRESS));
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment sv = arena.allocate(ValueLayout.JAVA_INT, 2);
            int rc = (int) socketpair.invokeExact(AF_UNIX, SOCK_STREAM, 0, sv);
            if (rc != 0) {
                throw new IllegalStateException("socketpair(2) failed");
            }
            return new int[] {sv.getAtIndex(ValueLayout.JAVA_INT, 0), sv.getAtIndex(ValueLayout.JAVA_INT, 1)};
        }
    }
}
