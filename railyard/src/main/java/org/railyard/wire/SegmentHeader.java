package org.railyard.wire;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;

/**
 * The header of a stack segment: what the micro-protocols of the stack floor put in front of each
 * datagram they send over a transport that is not reliable (udp). Little endian. One layout for
 * every composition: a field belongs to one micro-protocol (named below), which alone writes it;
 * a field whose owner is not in the stack stays 0. The only place that knows these offsets.
 *
 * <pre>
 *  0                   1                   2                   3
 *  0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
 * +-------------------------------+---------------+---------------+
 * |        magic 'R' 'S'          |     port      |     kind      |  0  TransportDrive
 * +---------------+---------------+-------------------------------+
 * |     epoch     |   (unused)    |        fragment index         |  4  TransportDrive | Resize
 * +-------------------------------+-------------------------------+
 * |        fragment count         |          (unused)             |  8  Resize
 * +-------------------------------+-------------------------------+
 * |                       connection token                        | 12  TransportDrive
 * +---------------------------------------------------------------+
 * |                  sequence number (64 bits)                    | 16  SequencedSegment | DCCPAck
 * +---------------------------------------------------------------+
 * |                  acknowledgement (64 bits)                    | 24  PositiveAck | DCCPAck
 * +---------------------------------------------------------------+
 * |                   ack vector (64 bits)                        | 32  DCCPAck
 * +---------------------------------------------------------------+
 * |                  timestamp (microseconds)                     | 40  RTTEstimation
 * +---------------------------------------------------------------+
 * |                timestamp echo (microseconds)                  | 44  RTTEstimation
 * +---------------------------------------------------------------+
 * |                         message id                            | 48  Resize
 * +---------------------------------------------------------------+
 * |                          (unused)                             | 52
 * +---------------------------------------------------------------+
 * |                         payload ...                           | 56
 * </pre>
 *
 * <p>{@code port} names the flow: {@link #PORT_FRAMES} carries the channel's sequenced frames,
 * {@link #PORT_VALUES} the latest-value flow ({@link FrameType#VALUE} frames). {@code kind} says
 * which way the segment goes within its flow: {@link #KIND_DATA} from the flow's sender,
 * {@link #KIND_ACK} back from its receiver. {@code epoch} numbers the compositions a flow has had
 * (it changes at each reconfiguration); a segment of another epoch than the flow's current one is
 * dropped. The token is the receiving end's random connection token, exchanged in the handshake,
 * so a stray datagram (another job, an earlier connection on a reused port) is never taken.
 *
 * <p>Acknowledgements: PositiveAck's is cumulative (every sequence number below it has been
 * received). DCCPAck's names the highest sequence number received, and bit {@code i} of the ack
 * vector says whether {@code ack - 1 - i} was received too.
 */
public final class SegmentHeader {
    private SegmentHeader() {
    }

    public static final int MAGIC_OFFSET = 0;
    public static final int PORT_OFFSET = 2;
    public static final int KIND_OFFSET = 3;
    public static final int EPOCH_OFFSET = 4;
    public static final int FRAGMENT_INDEX_OFFSET = 6;
    public static final int FRAGMENT_COUNT_OFFSET = 8;
    public static final int TOKEN_OFFSET = 12;
    public static final int SEQ_OFFSET = 16;
    public static final int ACK_OFFSET = 24;
    public static final int ACK_VECTOR_OFFSET = 32;
    public static final int TIMESTAMP_OFFSET = 40;
    public static final int TIMESTAMP_ECHO_OFFSET = 44;
    public static final int MESSAGE_ID_OFFSET = 48;
    /** Header length; payloads start here (a multiple of 8). */
    public static final int LENGTH = 56;

    /** 'R' 'S' read as a little-endian short. */
    public static final short MAGIC = (short) ('R' | ('S' << 8));

    /** The flow of the channel's sequenced frames (every frame type but VALUE). */
    public static final int PORT_FRAMES = 0;
    /** The flow of VALUE frames (the latest-value exchange of iterative schemes). */
    public static final int PORT_VALUES = 1;
    /** Number of ports. */
    public static final int PORTS = 2;

    /** From the flow's sender: carries (part of) a frame. */
    public static final int KIND_DATA = 1;
    /** From the flow's receiver: carries acknowledgements only. */
    public static final int KIND_ACK = 2;

    private static final ValueLayout.OfInt INT = ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);
    private static final ValueLayout.OfLong LONG = ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);
    private static final ValueLayout.OfShort SHORT = ValueLayout.JAVA_SHORT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);

    /** Zeroes the header at {@code o}, so fields of absent micro-protocols read 0. */
    public static void clear(MemorySegment s, long o) {
        for (int i = 0; i < LENGTH; i += Long.BYTES) {
            s.set(LONG, o + i, 0L);
        }
    }

    public static short magic(MemorySegment s, long o) {
        return s.get(SHORT, o + MAGIC_OFFSET);
    }

    /** Writes magic, port, kind, epoch and token: TransportDrive's fields. */
    public static void address(MemorySegment s, long o, int port, int kind, int epoch, int token) {
        s.set(SHORT, o + MAGIC_OFFSET, MAGIC);
        s.set(ValueLayout.JAVA_BYTE, o + PORT_OFFSET, (byte) port);
        s.set(ValueLayout.JAVA_BYTE, o + KIND_OFFSET, (byte) kind);
        s.set(ValueLayout.JAVA_BYTE, o + EPOCH_OFFSET, (byte) epoch);
        s.set(INT, o + TOKEN_OFFSET, token);
    }

    public static int port(MemorySegment s, long o) {
        return s.get(ValueLayout.JAVA_BYTE, o + PORT_OFFSET) & 0xff;
    }

    public static int kind(MemorySegment s, long o) {
        return s.get(ValueLayout.JAVA_BYTE, o + KIND_OFFSET) & 0xff;
    }

    public static int epoch(MemorySegment s, long o) {
        return s.get(ValueLayout.JAVA_BYTE, o + EPOCH_OFFSET) & 0xff;
    }

    public static int token(MemorySegment s, long o) {
        return s.get(INT, o + TOKEN_OFFSET);
    }

    public static int fragmentIndex(MemorySegment s, long o) {
        return s.get(SHORT, o + FRAGMENT_INDEX_OFFSET) & 0xffff;
    }

    public static int fragmentCount(MemorySegment s, long o) {
        return s.get(SHORT, o + FRAGMENT_COUNT_OFFSET) & 0xffff;
    }

    public static int messageId(MemorySegment s, long o) {
        return s.get(INT, o + MESSAGE_ID_OFFSET);
    }

    /** Resize's fields: which fragment of which message this segment carries. */
    public static void fragment(MemorySegment s, long o, int messageId, int index, int count) {
        s.set(INT, o + MESSAGE_ID_OFFSET, messageId);
        s.set(SHORT, o + FRAGMENT_INDEX_OFFSET, (short) index);
        s.set(SHORT, o + FRAGMENT_COUNT_OFFSET, (short) count);
    }

    public static long seq(MemorySegment s, long o) {
        return s.get(LONG, o + SEQ_OFFSET);
    }

    public static void seq(MemorySegment s, long o, long seq) {
        s.set(LONG, o + SEQ_OFFSET, seq);
    }

    public static long ack(MemorySegment s, long o) {
        return s.get(LONG, o + ACK_OFFSET);
    }

    public static void ack(MemorySegment s, long o, long ack) {
        s.set(LONG, o + ACK_OFFSET, ack);
    }

    public static long ackVector(MemorySegment s, long o) {
        return s.get(LONG, o + ACK_VECTOR_OFFSET);
    }

    public static void ackVector(MemorySegment s, long o, long vector) {
        s.set(LONG, o + ACK_VECTOR_OFFSET, vector);
    }

    public static int timestamp(MemorySegment s, long o) {
        return s.get(INT, o + TIMESTAMP_OFFSET);
    }

    public static void timestamp(MemorySegment s, long o, int micros) {
        s.set(INT, o + TIMESTAMP_OFFSET, micros);
    }

    public static int timestampEcho(MemorySegment s, long o) {
        return s.get(INT, o + TIMESTAMP_ECHO_OFFSET);
    }

    public static void timestampEcho(MemorySegment s, long o, int micros) {
        s.set(INT, o + TIMESTAMP_ECHO_OFFSET, micros);
    }

    /**
     * Checks a received datagram's header; null if it is sound, else why not. The token must be
     * the receiving end's; port and kind must name a flow.
     */
    public static String validate(MemorySegment s, long o, int length, int token) {
        if (length < LENGTH || s.byteSize() - o < LENGTH) {
            return "datagram of " + length + " bytes is shorter than a segment header";
        }
        if (magic(s, o) != MAGIC) {
            return String.format("foreign datagram: magic 0x%04x", magic(s, o) & 0xffff);
        }
        if (token(s, o) != token) {
            return "datagram for another connection (token mismatch)";
        }
        int k = kind(s, o);
        if (port(s, o) >= PORTS || (k != KIND_DATA && k != KIND_ACK)) {
            return "datagram names port " + port(s, o) + " kind " + k;
        }
        return null;
    }
}
