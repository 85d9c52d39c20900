package org.railyard.wire;

import static org.assertj.core.api.Assertions.assertThat;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import org.junit.jupiter.api.Test;

/** {@link FrameHeader} and {@link LinkControl}: every field where the diagram puts it, and each reason a check gives. */
class FrameHeaderTest {
    private final byte[] bytes = new byte[128];
    private final MemorySegment s = MemorySegment.ofArray(bytes);

    @Test
    void everyFieldReadsBackFromTheOffsetOfTheDiagram() {
        FrameHeader.write(s, 8, 80, FrameType.RTS, FrameHeader.FLAG_REMOTE_READ, 0x01020304, 7, -9, 1 << 30, 0x1122334455667788L,
                -2L);
        FrameHeader.psn(s, 8, 42);
        assertThat(FrameHeader.frameLength(s, 8)).isEqualTo(80);
        assertThat(FrameHeader.type(s, 8)).isEqualTo(FrameType.RTS);
        assertThat(FrameHeader.flags(s, 8)).isEqualTo(FrameHeader.FLAG_REMOTE_READ);
        assertThat(FrameHeader.context(s, 8)).isEqualTo(0x01020304);
        assertThat(FrameHeader.source(s, 8)).isEqualTo(7);
        assertThat(FrameHeader.tag(s, 8)).isEqualTo(-9);
        assertThat(FrameHeader.messageLength(s, 8)).isEqualTo(1 << 30);
        assertThat(FrameHeader.psn(s, 8)).isEqualTo(42);
        assertThat(FrameHeader.cookie(s, 8)).isEqualTo(0x1122334455667788L);
        assertThat(FrameHeader.arg(s, 8)).isEqualTo(-2L);
        // little endian, at the documented offsets
        assertThat(bytes[8 + FrameHeader.MAGIC_OFFSET]).isEqualTo((byte) 'R');
        assertThat(bytes[8 + FrameHeader.MAGIC_OFFSET + 1]).isEqualTo((byte) 'Y');
        assertThat(bytes[8 + FrameHeader.CONTEXT_OFFSET]).isEqualTo((byte) 0x04);
        assertThat(bytes[8 + FrameHeader.COOKIE_OFFSET]).isEqualTo((byte) 0x88);
        assertThat(bytes[8 + FrameHeader.PSN_OFFSET]).isEqualTo((byte) 42);
        assertThat(FrameHeader.validate(s, 8, 1024)).isNull();
    }

    @Test
    void addFlagsKeepsTheFlagsAlreadySet() {
        FrameHeader.write(s, 0, 48, FrameType.VALUE, FrameHeader.FLAG_VALUE_ASYNC, 0, 0, 0, 0, 0, 0);
        FrameHeader.addFlags(s, 0, FrameHeader.FLAG_ACK_REQUEST);
        assertThat(FrameHeader.flags(s, 0)).isEqualTo((byte) (FrameHeader.FLAG_VALUE_ASYNC | FrameHeader.FLAG_ACK_REQUEST));
    }

    @Test
    void theReadOfferFollowsTheHeader() {
        FrameHeader.writeReadOffer(s, 0, 0xdeadbeefL, 5, 6);
        assertThat(FrameHeader.offerIdentityAddress(s, 0)).isEqualTo(0xdeadbeefL);
        assertThat(FrameHeader.offerIdentityWord(s, 0, 0)).isEqualTo(5);
        assertThat(FrameHeader.offerIdentityWord(s, 0, 1)).isEqualTo(6);
        assertThat(s.get(ValueLayout.JAVA_BYTE, FrameHeader.LENGTH)).isEqualTo((byte) 0xef);
    }

    @Test
    void eachMalformedHeaderIsNamed() {
        FrameHeader.write(s, 0, 64, FrameType.EAGER, (byte) 0, 0, 0, 0, 16, 0, 0);
        assertThat(FrameHeader.validate(s, 0, 63)).isEqualTo("malformed frame: length 64 outside [48, 63]");
        FrameHeader.write(s, 0, 40, FrameType.EAGER, (byte) 0, 0, 0, 0, 16, 0, 0);
        assertThat(FrameHeader.validate(s, 0, 1024)).isEqualTo("malformed frame: length 40 outside [48, 1024]");
        FrameHeader.write(s, 0, 64, (byte) 0, (byte) 0, 0, 0, 0, 16, 0, 0);
        assertThat(FrameHeader.validate(s, 0, 1024)).isEqualTo("malformed frame: unknown type 0");
        FrameHeader.write(s, 0, 64, FrameType.DATA, (byte) 0, 0, 0, 0, -1, 0, 0);
        assertThat(FrameHeader.validate(s, 0, 1024)).isEqualTo("malformed frame: negative message length -1");
        bytes[FrameHeader.MAGIC_OFFSET] = 'G';
        assertThat(FrameHeader.validate(s, 0, 1024)).isEqualTo("foreign frame: magic 0x5947, expected 0x5952 ('RY')");
        assertThat(FrameHeader.validate(s, 100, 1024)).isEqualTo("truncated frame: 28 bytes, a header has 48");
    }

    @Test
    void linkControlFramesAreBareHeadersWithTheirOwnMeaning() {
        LinkControl.writeAck(s, 0, 3, 2, 1000, 1L << 40);
        assertThat(FrameHeader.validate(s, 0, LinkControl.LENGTH)).isNull();
        assertThat(FrameHeader.type(s, 0)).isEqualTo(FrameType.ACK);
        assertThat(FrameHeader.source(s, 0)).isEqualTo(3);
        assertThat(LinkControl.rail(s, 0)).isEqualTo(2);
        assertThat(LinkControl.nextExpectedPsn(s, 0)).isEqualTo(1000);
        assertThat(LinkControl.railBytes(s, 0)).isEqualTo(1L << 40);
        assertThat(FrameHeader.psn(s, 0)).isZero();
        LinkControl.writeHeartbeat(s, 0, 4, 1);
        assertThat(FrameHeader.type(s, 0)).isEqualTo(FrameType.HEARTBEAT);
        assertThat(LinkControl.rail(s, 0)).isEqualTo(1);
        assertThat(LinkControl.nextExpectedPsn(s, 0)).isZero();
        assertThat(FrameType.sequenced(FrameType.ACK)).isFalse();
        assertThat(FrameType.sequenced(FrameType.EAGER)).isTrue();
    }
}
