package org.railyard.stack;

import static org.assertj.core.api.Assertions.assertThat;

import java.lang.foreign.MemorySegment;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.railyard.wire.SegmentHeader;

/** TransportDrive and its multiplexer: addressing on the way down, demultiplexing and filtering on the way up. */
class TransportDriveTest {
    @Test
    void segmentsAreAddressedAndOnlyThoseOfThisFlowAndEpochGoUp() {
        Harness h = new Harness(List.of("TransportDrive"), StackSettings.defaults(), "");
        h.send(new byte[] {1, 2, 3});
        h.step(100_000);
        assertThat(h.delivered).hasSize(1);
        assertThat(h.delivered.getFirst()).containsExactly(1, 2, 3);

        TransportDrive.Mux mux = new TransportDrive.Mux(Harness.TOKEN_B, (port, role) ->
                port == SegmentHeader.PORT_VALUES && role == Session.Role.RECEIVER ? h.receiver : null);
        int before = h.delivered.size();
        mux.up(datagram(h, SegmentHeader.PORT_VALUES, SegmentHeader.KIND_DATA, 0, Harness.TOKEN_B));
        assertThat(h.delivered).hasSize(before + 1);
        mux.up(datagram(h, SegmentHeader.PORT_VALUES, SegmentHeader.KIND_DATA, 0, 0x9999));
        assertThat(mux.lastRefusal).contains("token");
        mux.up(datagram(h, SegmentHeader.PORT_FRAMES, SegmentHeader.KIND_DATA, 0, Harness.TOKEN_B));
        assertThat(mux.lastRefusal).contains("no session for port 0");
        assertThat(mux.refused).isEqualTo(2);
        // a late datagram of an earlier composition (epoch) reaches the session and is dropped there
        mux.up(datagram(h, SegmentHeader.PORT_VALUES, SegmentHeader.KIND_DATA, 5, Harness.TOKEN_B));
        assertThat(h.delivered).hasSize(before + 1);
        assertThat(h.receiver.stale).isEqualTo(1);
        h.close();
        assertThat(h.poolB.outstanding()).isZero();
    }

    private static Segment datagram(Harness h, int port, int kind, int epoch, int token) {
        Segment s = h.poolB.datagramSegment();
        SegmentHeader.address(s.mem, 0, port, kind, epoch, token);
        MemorySegment.copy(MemorySegment.ofArray(new byte[] {9}), 0, s.mem, SegmentHeader.LENGTH, 1);
        s.length = SegmentHeader.LENGTH + 1;
        return s;
    }
}
