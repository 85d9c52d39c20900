package org.railyard.engine;

import static org.assertj.core.api.Assertions.assertThat;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.railyard.engine.request.StatusSink;
import org.railyard.types.Kind;

/**
 * The rule that picks each message's protocol (PointToPoint.protocolFor), seen from the receiver
 * of two engines over shm and over tcp: only a large or synchronous send of native memory to a
 * native receive, between processes that share the node's memory (shm), is read from the
 * sender's memory; a standard send within the eager limit, a payload below railyard.cma.min, a heap
 * buffer at either end, and every message over tcp (no node memory) are not. Every payload arrives whole.
 */
class ProtocolRuleTest {
    private static final int SMALL = 1024;
    private static final int LARGE = 1 << 20;

    /** A case: the sender's and receiver's buffers native or not, bytes, synchronous or not, read over shm. */
    private record Case(String name, boolean sendNative, boolean recvNative, int bytes, boolean sync, boolean readOverShm) {
    }

    private static final Case[] CASES = {
        new Case("eager, native", true, true, SMALL, false, false),
        new Case("synchronous below cma.min, native", true, true, SMALL, true, false),
        new Case("large, native to native", true, true, LARGE, false, true),
        new Case("large synchronous, native to native", true, true, LARGE, true, true),
        new Case("large, heap to native", false, true, LARGE, false, false),
        new Case("large, native to heap", true, false, LARGE, false, false),
    };

    @ParameterizedTest
    @ValueSource(strings = {"shm", "tcp"})
    void onlyWhatTheRuleAllowsIsReadFromTheSendersMemory(String transports) throws Exception {
        InMemoryJob.run(2, transports, (e, w) -> {
            try (Arena arena = Arena.ofShared()) {
                for (int i = 0; i < CASES.length; i++) {
                    Case c = CASES[i];
                    if (e.rank() == 0) {
                        Object buf = buffer(arena, c.sendNative(), c.bytes());
                        fill(buf, c.bytes(), i);
                        e.await(e.isend(w, buf, Kind.BYTE, 0, c.bytes(), 1, i, c.sync() ? Engine.MODE_SYNC : Engine.MODE_STANDARD));
                    } else {
                        Object buf = buffer(arena, c.recvNative(), c.bytes());
                        long before = e.remoteReads();
                        e.recv(w, buf, Kind.BYTE, 0, c.bytes(), 0, i, NO_STATUS);
                        boolean read = transports.equals("shm") && c.readOverShm();
                        assertThat(e.remoteReads() - before).as("%s over %s: reads", c.name(), transports).isEqualTo(read ? 1 : 0);
                        for (int at : new int[] {0, c.bytes() / 2, c.bytes() - 1}) {
                            assertThat(byteAt(buf, at)).as("%s over %s: byte %d", c.name(), transports, at)
                                    .isEqualTo((byte) (at * 7 + i));
                        }
                    }
                }
            }
        });
    }

    private static final StatusSink NO_STATUS = (source, tag, bytes, elementSize) -> { };

    private static Object buffer(Arena arena, boolean nativeMemory, int bytes) {
        return nativeMemory ? arena.allocate(bytes, 64) : new byte[bytes];
    }

    private static void fill(Object buf, int bytes, int salt) {
        for (int at = 0; at < bytes; at++) {
            byte b = (byte) (at * 7 + salt);
            if (buf instanceof byte[] a) {
                a[at] = b;
            } else {
                ((MemorySegment) buf).set(ValueLayout.JAVA_BYTE, at, b);
            }
        }
    }

    private static byte byteAt(Object buf, int at) {
        return buf instanceof byte[] a ? a[at] : ((MemorySegment) buf).get(ValueLayout.JAVA_BYTE, at);
    }
}
