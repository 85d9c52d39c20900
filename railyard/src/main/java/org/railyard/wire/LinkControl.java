package org.railyard.wire;

import java.lang.foreign.MemorySegment;

/**
 * The two link-control frames of a multi-rail channel, ACK and HEARTBEAT: a bare
 * {@link FrameHeader} (48 bytes, no payload) whose fields take these meanings. Both travel on the
 * rail they speak about, carry no packet sequence number (the PSN field is 0 and unused) and are
 * consumed by the channel floor, never delivered to the engine.
 *
 * <pre>
 *  field (FrameHeader offset)   ACK                                   HEARTBEAT
 *  type         (6)             {@link FrameType#ACK}                          {@link FrameType#HEARTBEAT}
 *  source      (12)             sender's world rank                   sender's world rank
 *  tag         (16)             rail index                            rail index
 *  cookie      (32)             channel's next expected PSN: every    0
 *                               sequenced frame below it has been
 *                               delivered (cumulative, all rails)
 *  arg         (40)             bytes received on this rail since     0
 *                               its link was attached (cumulative)
 * </pre>
 *
 * <p>An ACK does two jobs: the cumulative PSN lets the sender free its retransmit buffer, and the
 * per-rail byte count lets it time each stripe from hand-off to delivery (the feedback of
 * adaptive striping) and bound what is in flight on each rail.
 */
public final class LinkControl {
    private LinkControl() {
    }

    /** Length of either control frame. */
    public static final int LENGTH = FrameHeader.LENGTH;

    /** Writes an ACK at {@code o}. */
    public static void writeAck(MemorySegment s, long o, int source, int rail, long nextExpectedPsn, long railBytes) {
        FrameHeader.write(s, o, LENGTH, FrameType.ACK, (byte) 0, 0, source, rail, 0, nextExpectedPsn, railBytes);
        FrameHeader.psn(s, o, 0);
    }

    /** Writes a HEARTBEAT at {@code o}. */
    public static void writeHeartbeat(MemorySegment s, long o, int source, int rail) {
        FrameHeader.write(s, o, LENGTH, FrameType.HEARTBEAT, (byte) 0, 0, source, rail, 0, 0, 0);
        FrameHeader.psn(s, o, 0);
    }

    /** The rail an ACK or HEARTBEAT speaks about. */
    public static int rail(MemorySegment s, long o) {
        return FrameHeader.tag(s, o);
    }

    /** ACK: every sequenced frame with a lower PSN has been delivered. */
    public static long nextExpectedPsn(MemorySegment s, long o) {
        return FrameHeader.cookie(s, o);
    }

    /** ACK: bytes (whole frames) received on the rail since its link was attached. */
    public static long railBytes(MemorySegment s, long o) {
        return FrameHeader.arg(s, o);
    }
}
