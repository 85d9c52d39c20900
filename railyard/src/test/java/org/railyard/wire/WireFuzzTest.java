package org.railyard.wire;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayInputStream;
import java.io.DataInputStream;
import java.io.IOException;
import java.lang.foreign.MemorySegment;
import org.junit.jupiter.api.Test;
import org.railyard.fuzz.Fuzz;

/**
 * Every wire decoder of bytes a peer sends, over arbitrary bytes (corpus in {@code fuzz/<name>/}
 * plus a seeded random budget, see {@link Fuzz}): the header checks return null or a reason and
 * read nothing outside the bytes they are given; the handshake readers return a message or throw
 * an {@link IOException} that names what was wrong.
 */
class WireFuzzTest {
    private static final int TOKEN = 0x0a0b0c0d;
    private static final int TRIES = 2000;

    /** The corpus holds samples that decode and samples that do not; the fuzz run decodes some of both. */
    private static void run(Fuzz fuzz, int validInCorpusAtLeast) {
        int valid = fuzz.run();
        assertThat(valid).as("inputs that decoded").isGreaterThanOrEqualTo(validInCorpusAtLeast)
                .isLessThan(TRIES + fuzz.corpus().size());
    }

    @Test
    void frameHeader() {
        run(Fuzz.neverThrowing("frame-header", input -> {
            MemorySegment s = MemorySegment.ofArray(input);
            String bad = FrameHeader.validate(s, 0, 1 << 20);
            if (bad == null) {
                assertThat(FrameHeader.frameLength(s, 0)).isBetween(FrameHeader.LENGTH, 1 << 20);
                assertThat(FrameType.valid(FrameHeader.type(s, 0))).isTrue();
                assertThat(FrameHeader.messageLength(s, 0)).isNotNegative();
            } else {
                assertThat(bad).isNotBlank();
                throw new Rejected(bad);
            }
        }).budget(1, TRIES).withCleanError(Rejected.class), 3);
    }

    @Test
    void segmentHeader() {
        run(Fuzz.neverThrowing("segment", input -> {
            MemorySegment s = MemorySegment.ofArray(input);
            String bad = SegmentHeader.validate(s, 0, input.length, TOKEN);
            if (bad != null) {
                throw new Rejected(bad);
            }
            assertThat(SegmentHeader.port(s, 0)).isLessThan(SegmentHeader.PORTS);
            SegmentHeader.fragmentCount(s, 0);
            SegmentHeader.seq(s, 0);
            SegmentHeader.messageId(s, 0);
        }).budget(2, TRIES).withCleanError(Rejected.class), 2);
    }

    @Test
    void controlMessage() {
        run(Fuzz.neverThrowing("control", input -> {
            MemorySegment s = MemorySegment.ofArray(input);
            String bad = ControlMessage.validate(s, 0);
            if (bad != null) {
                throw new Rejected(bad);
            }
            assertThat(ControlMessage.port(s, 0)).isLessThan(SegmentHeader.PORTS);
        }).budget(3, TRIES).withCleanError(Rejected.class), 2);
    }

    @Test
    void rmaHeader() {
        run(Fuzz.neverThrowing("rma-header", input -> {
            // what a target's header receive holds: at most MAX_LONGS longs, the message's length known
            long[] h = new long[RmaHeader.MAX_LONGS];
            int bytes = Math.min(input.length, 8 * RmaHeader.MAX_LONGS);
            MemorySegment.copy(MemorySegment.ofArray(input), 0, MemorySegment.ofArray(h), 0, bytes);
            int kind = RmaHeader.kind(h);
            String bad = RmaHeader.check(h, 8, 14, bytes, kind < 8 ? new int[] {1, 1, 2, 2, 4, 8, 4, 8}[kind] : 1);
            if (bad != null) {
                throw new Rejected(bad);
            }
            assertThat(RmaHeader.op(h)).isBetween(RmaHeader.OP_PUT, RmaHeader.OP_POST);
            assertThat(RmaHeader.values(h)).isBetween(0L, (long) Integer.MAX_VALUE);
            assertThat(RmaHeader.count(h)).isNotNegative();
        }).budget(4, TRIES).withCleanError(Rejected.class), 5);
    }

    private static DataInputStream stream(byte[] input) {
        return new DataInputStream(new ByteArrayInputStream(input));
    }

    @Test
    void handshakeHello() {
        run(Fuzz.of("handshake-hello", IOException.class, input -> {
            Handshake.Hello h = Handshake.readHello(stream(input));
            assertThat(h.rail()).isBetween(0, h.rails() - 1);
            assertThat(h.rails()).isBetween(1, Handshake.MAX_RAILS);
        }).budget(4, TRIES), 2);
    }

    @Test
    void handshakeChallenge() {
        run(Fuzz.of("handshake-challenge", IOException.class, input -> {
            Handshake.Challenge c = Handshake.readChallenge(stream(input));
            assertThat(c.nonce()).hasSize(Handshake.NONCE_BYTES);
            assertThat(c.mac()).hasSize(Handshake.MAC_BYTES);
        }).budget(5, TRIES), 2);
    }

    @Test
    void handshakeProof() {
        run(Fuzz.of("handshake-proof", IOException.class, input -> {
            Handshake.Proof p = Handshake.readProof(stream(input));
            assertThat(p.offers().size()).isLessThanOrEqualTo(255);
        }).budget(6, TRIES), 3);
    }

    @Test
    void handshakeAccept() {
        run(Fuzz.of("handshake-accept", IOException.class, input -> {
            Handshake.Accept a = Handshake.readAccept(stream(input));
            assertThat(a.transport().length()).isLessThanOrEqualTo(255);
        }).budget(7, TRIES), 3);
    }

    @Test
    void aHandshakeCutShortNamesTheMessage() {
        byte[] cut = {0x52, 0x59, 0x48, 0x53, 3, 0};
        for (String name : new String[] {"HELLO", "CHALLENGE", "PROOF", "ACCEPT"}) {
            org.assertj.core.api.Assertions.assertThatThrownBy(() -> {
                switch (name) {
                    case "HELLO" -> Handshake.readHello(stream(cut));
                    case "CHALLENGE" -> Handshake.readChallenge(stream(cut));
                    case "PROOF" -> Handshake.readProof(stream(cut));
                    default -> Handshake.readAccept(stream(cut));
                }
            }).isInstanceOf(java.io.EOFException.class).hasMessage("handshake " + name
                    + " cut short: the peer closed the connection in the middle of it");
        }
    }

    /** The reason a header check gave, raised so the fuzz run counts the input as a clean error. */
    static final class Rejected extends RuntimeException {
        private static final long serialVersionUID = 1L;

        Rejected(String reason) {
            super(reason);
        }
    }
}
