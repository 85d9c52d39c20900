package org.railyard.transport.shm;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.railyard.transport.NodeMemory;

/**
 * Cross-memory reads on this process itself (reads between processes are in the system test
 * CrossMemorySystemTest): the bytes arrive whole, a wrong token or address or process is refused
 * with the errno that says why, and a heap destination is rejected before any call.
 */
class ProcessMemoryTest {
    private final long self = ProcessHandle.current().pid();

    @BeforeEach
    void linux() {
        assumeTrue(ProcessMemory.available(), () -> "cross-memory reads unavailable: " + ProcessMemory.unavailableReason());
    }

    @Test
    void readsAWholeRegionOfThreeMegabytes() {
        try (Arena a = Arena.ofConfined()) {
            long n = 3L * 1024 * 1024 + 5;
            MemorySegment src = a.allocate(n, 8);
            for (long i = 0; i < n; i++) {
                src.set(ValueLayout.JAVA_BYTE, i, (byte) (i * 7 + (i >>> 9)));
            }
            MemorySegment dst = a.allocate(n + 16, 8);
            assertThat(ProcessMemory.read(self, dst.asSlice(8, n), src.address(), n)).isEqualTo(n);
            assertThat(dst.asSlice(8, n).mismatch(src)).isEqualTo(-1);
            for (long i : new long[] {0, 7, n + 8, n + 15}) {
                assertThat(dst.get(ValueLayout.JAVA_BYTE, i)).as("byte %d outside the read", i).isZero();
            }
        }
    }

    @Test
    void identityIsReadBackOnlyWithItsOwnWords() {
        NodeMemory.Identity me = ProcessMemory.identity();
        assertThat(ProcessMemory.verify(self, me.address(), me.word0(), me.word1())).isTrue();
        assertThat(ProcessMemory.verify(self, me.address(), me.word0(), me.word1() ^ 1)).isFalse();
        assertThat(ProcessMemory.verify(self, me.address() + 8, me.word0(), me.word1())).isFalse();
    }

    @Test
    void badAddressAndMissingProcessAreReportedByErrno() {
        try (Arena a = Arena.ofConfined()) {
            MemorySegment dst = a.allocate(4096);
            long fault = ProcessMemory.read(self, dst, 8, 4096);
            assertThat(fault).isEqualTo(-14);
            assertThat(ProcessMemory.errorName(fault)).startsWith("EFAULT");
            // pids above the kernel's pid_max (4194304 at most) never exist
            long gone = ProcessMemory.read(1L << 23, dst, dst.address(), 16);
            assertThat(gone).isEqualTo(-3);
            assertThat(ProcessMemory.errorName(gone)).startsWith("ESRCH");
        }
    }

    @Test
    void refusesAHeapDestinationOrOneTooSmall() {
        MemorySegment heap = MemorySegment.ofArray(new byte[64]);
        assertThatThrownBy(() -> ProcessMemory.read(self, heap, 1, 64)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("not native");
        try (Arena a = Arena.ofConfined()) {
            MemorySegment small = a.allocate(8);
            assertThatThrownBy(() -> ProcessMemory.read(self, small, small.address(), 64))
                    .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("64 bytes into 8");
        }
    }
}
