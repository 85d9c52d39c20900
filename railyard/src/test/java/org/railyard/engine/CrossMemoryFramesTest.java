package org.railyard.engine;

import org.railyard.engine.request.Transfer;
import org.railyard.types.Kind;

import static org.assertj.core.api.Assertions.assertThat;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.railyard.channel.VirtualChannel;
import org.railyard.engine.p2p.PointToPoint;
import org.railyard.wire.FrameHeader;
import org.railyard.wire.FrameType;

/**
 * Frames of the cross-memory read that a correct peer never sends: each closes the connection
 * with a reason naming what was wrong, instead of reading memory at a bad address or completing a
 * send that never offered its payload.
 */
class CrossMemoryFramesTest {
    private static final int PEER = 1;

    @Test
    void rtsOfferingAReadWithoutItsPayloadClosesTheConnection() throws Exception {
        String why = inject(seg -> {
            FrameHeader.write(seg, 0, FrameHeader.LENGTH, FrameType.RTS, FrameHeader.FLAG_REMOTE_READ, 0, PEER, 5,
                    1 << 20, 77, 4096);
            return FrameHeader.LENGTH;
        });
        assertThat(why).contains("RTS offering a cross-memory read is 48 bytes long");
    }

    @Test
    void rtsOfferingAReadAtAddressZeroClosesTheConnection() throws Exception {
        String why = inject(seg -> {
            int len = FrameHeader.LENGTH + FrameHeader.REMOTE_READ_PAYLOAD;
            FrameHeader.write(seg, 0, len, FrameType.RTS, FrameHeader.FLAG_REMOTE_READ, 0, PEER, 5, 1 << 20, 77, 0);
            return len;
        });
        assertThat(why).contains("with address 0");
    }

    @Test
    void ctsClaimingAReadOfAnUnknownSendClosesTheConnection() throws Exception {
        String why = inject(seg -> {
            FrameHeader.write(seg, 0, FrameHeader.LENGTH, FrameType.CTS, FrameHeader.FLAG_READ_DONE, 0, PEER, 5, 1 << 20,
                    123_456_789L, 3);
            return FrameHeader.LENGTH;
        });
        assertThat(why).contains("CTS names no rendezvous send");
    }

    @Test
    void ctsClaimingAReadTheSendNeverOfferedClosesTheConnection() throws Exception {
        String why = injectAfter(e -> {
            // a 1 MiB heap array: the RTS offers no read; rank 1 posts no receive, so the send waits for its CTS
            Transfer t = e.isend(e.world(), new byte[1 << 20], Kind.BYTE, 0, 1 << 20, PEER, 6, Engine.MODE_STANDARD);
            assertThat(PointToPoint.waitsForCts(t)).as("the send waits for its CTS").isTrue();
            return seg -> {
                FrameHeader.write(seg, 0, FrameHeader.LENGTH, FrameType.CTS, FrameHeader.FLAG_READ_DONE, 0, PEER, 6, 1 << 20,
                        t.id, 3);
                return FrameHeader.LENGTH;
            };
        });
        assertThat(why).contains("CTS says the payload was read from memory the send never offered");
    }

    interface Frame {
        int write(MemorySegment seg);
    }

    interface Setup {
        Frame prepare(Engine e);
    }

    /** Rank 0 of 2 over shm receives {@code frame} as if from rank 1; returns why its channel went down. */
    private static String inject(Frame frame) throws Exception {
        return injectAfter(e -> frame);
    }

    /**
     * Rank 0 of 2 over shm prepares (with its engine), then receives the frame as if from rank 1;
     * returns why its channel went down.
     */
    private static String injectAfter(Setup setup) throws Exception {
        String[] why = new String[1];
        // rank 1 stays (its engine open, its end of the connection up) until rank 0 has looked
        CountDownLatch checked = new CountDownLatch(1);
        InMemoryJob.run(2, "shm", e -> {
            e.collectives().barrier(e.world());
            if (e.rank() == PEER) {
                assertThat(checked.await(60, TimeUnit.SECONDS)).as("rank 0 done within 60 s").isTrue();
            } else {
                try (Arena a = Arena.ofConfined()) {
                    VirtualChannel ch = e.channels().existing(PEER);
                    assertThat(ch.state()).isEqualTo(VirtualChannel.State.UP);
                    Frame frame = setup.prepare(e);
                    MemorySegment seg = a.allocate(256, 8);
                    int len = frame.write(seg);
                    e.deliverForTest(ch, seg, 0, len);
                    assertThat(ch.state()).isNotEqualTo(VirtualChannel.State.UP);
                    why[0] = ch.failure();
                } finally {
                    checked.countDown();
                }
            }
        });
        return why[0];
    }
}
