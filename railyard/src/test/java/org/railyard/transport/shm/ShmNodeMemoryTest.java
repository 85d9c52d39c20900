package org.railyard.transport.shm;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.railyard.transport.Capability;
import org.railyard.transport.NodeMemory;
import org.railyard.transport.TransportEnv;

/**
 * The node memory the shm transport shares ({@link ShmNodeMemory}), through the SPI only: it is
 * there once the transport started and says so in its capabilities; a segment created under a
 * name is the same memory in two mappings, the name goes at unlink while the mappings stay; a name
 * that is not one of its own, or a size that differs, is refused with the reason; reads of this
 * process's memory copy the bytes and fail with an errno name.
 */
class ShmNodeMemoryTest {

    private static NodeMemory started() throws IOException {
        ShmTransport shm = new ShmTransport();
        assertThat(shm.capabilities()).contains(Capability.NODE_MEMORY);
        assertThatThrownBy(shm::nodeMemory).as("before start").isInstanceOf(IllegalStateException.class);
        assertThat(shm.start(new TransportEnv(0, 2, "nodemem-" + ProcessHandle.current().pid(), "node-a"))).isTrue();
        return shm.nodeMemory();
    }

    @Test
    void aSegmentIsSharedByItsMappingsAndOutlivesItsName() throws IOException {
        NodeMemory m = started();
        String name = m.create("test", 8192);
        Path file = SharedFiles.directory().resolve(name);
        assertThat(name).startsWith("railyard-nodemem-").contains("-test-").doesNotContain("/");
        assertThat(file).exists();
        try (Arena a = Arena.ofShared(); Arena b = Arena.ofShared()) {
            MemorySegment one = m.attach(name, 8192, a, "");
            MemorySegment two = m.attach(name, 8192, b, "");
            m.unlink(name);
            assertThat(file).doesNotExist();
            one.set(ValueLayout.JAVA_LONG, 4096, 0x5eed_1234_abcdL);
            assertThat(two.get(ValueLayout.JAVA_LONG, 4096)).isEqualTo(0x5eed_1234_abcdL);
            assertThat(two.get(ValueLayout.JAVA_LONG, 0)).as("written out as zeros").isZero();
        } finally {
            Files.deleteIfExists(file);
        }
        m.unlink(name); // a second unlink is no error
    }

    @Test
    void namesNotItsOwnAndWrongSizesAreRefusedWithTheReason() throws IOException {
        NodeMemory m = started();
        try (Arena a = Arena.ofShared()) {
            for (String bad : new String[] {"/etc/passwd", "../railyard-x", "railyard-a/../../b", "other-file", ""}) {
                assertThatThrownBy(() -> m.attach(bad, 4096, a, "")).as(bad).isInstanceOf(IOException.class)
                        .hasMessageContaining("names no shared segment");
            }
            String name = m.create("size", 4096);
            try {
                assertThatThrownBy(() -> m.attach(name, 8192, a, " (sizes differ)")).isInstanceOf(IOException.class)
                        .hasMessageContaining("has 4096 bytes, expected 8192 (sizes differ)");
            } finally {
                m.unlink(name);
            }
        }
    }

    @Test
    void readsCopyThisProcesssMemoryAndNameTheirFailure() throws IOException {
        NodeMemory m = started();
        assumeTrue(m.whyNoReads() == null, () -> "cross-memory reads unavailable: " + m.whyNoReads());
        long self = ProcessHandle.current().pid();
        NodeMemory.Identity me = m.identity();
        assertThat(m.identity()).as("one token per process").isSameAs(me);
        assertThat(m.verify(self, me.address(), me.word0(), me.word1())).isTrue();
        assertThat(m.verify(self, me.address(), me.word0() ^ 1, me.word1())).isFalse();
        try (Arena a = Arena.ofConfined()) {
            MemorySegment src = a.allocate(1000, 8);
            for (int i = 0; i < 1000; i++) {
                src.set(ValueLayout.JAVA_BYTE, i, (byte) (i * 31));
            }
            MemorySegment dst = a.allocate(1000, 8);
            NodeMemory.Reader r = m.reader();
            assertThat(r.read(self, dst.address(), src.address(), 1000)).isEqualTo(1000);
            assertThat(dst.mismatch(src)).isEqualTo(-1);
            long fault = r.read(self, dst.address(), 8, 64);
            assertThat(m.errorName(fault)).startsWith("EFAULT");
        }
    }
}
