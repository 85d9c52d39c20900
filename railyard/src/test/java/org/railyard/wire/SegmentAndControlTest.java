package org.railyard.wire;

import static org.assertj.core.api.Assertions.assertThat;

import java.lang.foreign.MemorySegment;
import org.junit.jupiter.api.Test;

/** {@link SegmentHeader} and {@link ControlMessage}: fields read back, and each rejected datagram or message says why. */
class SegmentAndControlTest {
    private final MemorySegment s = MemorySegment.ofArray(new byte[96]);

    @Test
    void everySegmentFieldReadsBackAndAClearedHeaderReadsZero() {
        SegmentHeader.address(s, 0, SegmentHeader.PORT_VALUES, SegmentHeader.KIND_ACK, 200, 0x0a0b0c0d);
        SegmentHeader.fragment(s, 0, -7, 65535, 65535);
        SegmentHeader.seq(s, 0, Long.MAX_VALUE);
        SegmentHeader.ack(s, 0, 11);
        SegmentHeader.ackVector(s, 0, -1L);
        SegmentHeader.timestamp(s, 0, 123);
        SegmentHeader.timestampEcho(s, 0, -4);
        assertThat(SegmentHeader.port(s, 0)).isEqualTo(SegmentHeader.PORT_VALUES);
        assertThat(SegmentHeader.kind(s, 0)).isEqualTo(SegmentHeader.KIND_ACK);
        assertThat(SegmentHeader.epoch(s, 0)).isEqualTo(200);
        assertThat(SegmentHeader.token(s, 0)).isEqualTo(0x0a0b0c0d);
        assertThat(SegmentHeader.messageId(s, 0)).isEqualTo(-7);
        assertThat(SegmentHeader.fragmentIndex(s, 0)).isEqualTo(65535);
        assertThat(SegmentHeader.fragmentCount(s, 0)).isEqualTo(65535);
        assertThat(SegmentHeader.seq(s, 0)).isEqualTo(Long.MAX_VALUE);
        assertThat(SegmentHeader.ack(s, 0)).isEqualTo(11);
        assertThat(SegmentHeader.ackVector(s, 0)).isEqualTo(-1L);
        assertThat(SegmentHeader.timestamp(s, 0)).isEqualTo(123);
        assertThat(SegmentHeader.timestampEcho(s, 0)).isEqualTo(-4);
        assertThat(SegmentHeader.validate(s, 0, 60, 0x0a0b0c0d)).isNull();
        SegmentHeader.clear(s, 0);
        assertThat(SegmentHeader.seq(s, 0)).isZero();
        assertThat(SegmentHeader.magic(s, 0)).isZero();
    }

    @Test
    void eachRejectedDatagramIsNamed() {
        SegmentHeader.address(s, 0, SegmentHeader.PORT_FRAMES, SegmentHeader.KIND_DATA, 0, 5);
        assertThat(SegmentHeader.validate(s, 0, 55, 5)).isEqualTo("datagram of 55 bytes is shorter than a segment header");
        assertThat(SegmentHeader.validate(s, 50, 56, 5)).as("fewer bytes than claimed")
                .isEqualTo("datagram of 56 bytes is shorter than a segment header");
        assertThat(SegmentHeader.validate(s, 0, 56, 6)).isEqualTo("datagram for another connection (token mismatch)");
        SegmentHeader.address(s, 0, 2, SegmentHeader.KIND_DATA, 0, 5);
        assertThat(SegmentHeader.validate(s, 0, 56, 5)).isEqualTo("datagram names port 2 kind 1");
        SegmentHeader.address(s, 0, 0, 3, 0, 5);
        assertThat(SegmentHeader.validate(s, 0, 56, 5)).isEqualTo("datagram names port 0 kind 3");
        SegmentHeader.clear(s, 0);
        assertThat(SegmentHeader.validate(s, 0, 56, 5)).isEqualTo("foreign datagram: magic 0x0000");
    }

    @Test
    void aControlMessageReadsBackAndEachBadOneIsNamed() {
        ControlMessage.write(s, 4, ControlMessage.SWITCH, 1, 255, ControlMessage.SCHEME_ASYNC);
        assertThat(ControlMessage.validate(s, 4)).isNull();
        assertThat(ControlMessage.bodyLength(s, 4)).isEqualTo(ControlMessage.LENGTH - 2);
        assertThat(ControlMessage.type(s, 4)).isEqualTo(ControlMessage.SWITCH);
        assertThat(ControlMessage.port(s, 4)).isEqualTo(1);
        assertThat(ControlMessage.epoch(s, 4)).isEqualTo(255);
        assertThat(ControlMessage.scheme(s, 4)).isEqualTo(ControlMessage.SCHEME_ASYNC);
        ControlMessage.write(s, 0, (byte) 3, 0, 0, ControlMessage.SCHEME_SYNC);
        assertThat(ControlMessage.validate(s, 0)).isEqualTo("unknown control message type 3");
        ControlMessage.write(s, 0, ControlMessage.SWITCHED, 2, 0, ControlMessage.SCHEME_SYNC);
        assertThat(ControlMessage.validate(s, 0)).isEqualTo("control message names port 2");
        ControlMessage.write(s, 0, ControlMessage.SWITCHED, 0, 0, (byte) 2);
        assertThat(ControlMessage.validate(s, 0)).isEqualTo("control message names scheme 2");
        s.set(java.lang.foreign.ValueLayout.JAVA_SHORT_UNALIGNED, 0, (short) 7);
        assertThat(ControlMessage.validate(s, 0)).startsWith("control message of ");
        assertThat(ControlMessage.validate(s, 90)).isEqualTo("control message cut short: 6 bytes, a message has 8");
    }
}
