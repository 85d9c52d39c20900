package org.railyard.wire;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;

/**
 * Messages of a stack's control channel: the handshake socket a datagram transport keeps open
 * next to its datagrams (P2PSAP's control channel). It is reliable and ordered, so these messages
 * need no sequence numbers. Little endian; each message is preceded on the socket by its length.
 *
 * <pre>
 *  0               1               2               3
 * +---------------+---------------+---------------+---------------+
 * |   length (u16, bytes after)   |     type      |     port      |  0
 * +---------------+---------------+---------------+---------------+
 * |     epoch     |    scheme     |          (unused)             |  4
 * +---------------+---------------+-------------------------------+
 * </pre>
 *
 * <p>Types: {@link #SWITCH}: "my flow on {@code port} is drained; from now on its segments carry
 * {@code epoch} and are composed for {@code scheme}" (the sender of the flow to its receiver).
 * {@link #SWITCHED}: "my receiving side of {@code port} is at {@code epoch}" (the answer; the sender
 * resumes only then). Scheme: {@link #SCHEME_SYNC} or {@link #SCHEME_ASYNC}.
 */
public final class ControlMessage {
    private ControlMessage() {
    }

    public static final int LENGTH_OFFSET = 0;
    public static final int TYPE_OFFSET = 2;
    public static final int PORT_OFFSET = 3;
    public static final int EPOCH_OFFSET = 4;
    public static final int SCHEME_OFFSET = 5;
    /** Every message is this long, length field included. */
    public static final int LENGTH = 8;

    public static final byte SWITCH = 1;
    public static final byte SWITCHED = 2;

    public static final byte SCHEME_SYNC = 0;
    public static final byte SCHEME_ASYNC = 1;

    private static final ValueLayout.OfShort SHORT = ValueLayout.JAVA_SHORT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);

    /** Writes a whole message at {@code o}. */
    public static void write(MemorySegment s, long o, byte type, int port, int epoch, byte scheme) {
        s.set(SHORT, o + LENGTH_OFFSET, (short) (LENGTH - 2));
        s.set(ValueLayout.JAVA_BYTE, o + TYPE_OFFSET, type);
        s.set(ValueLayout.JAVA_BYTE, o + PORT_OFFSET, (byte) port);
        s.set(ValueLayout.JAVA_BYTE, o + EPOCH_OFFSET, (byte) epoch);
        s.set(ValueLayout.JAVA_BYTE, o + SCHEME_OFFSET, scheme);
        s.set(SHORT, o + 6, (short) 0);
    }

    /** Bytes after the length field of the message at {@code o}. */
    public static int bodyLength(MemorySegment s, long o) {
        return s.get(SHORT, o + LENGTH_OFFSET) & 0xffff;
    }

    public static byte type(MemorySegment s, long o) {
        return s.get(ValueLayout.JAVA_BYTE, o + TYPE_OFFSET);
    }

    public static int port(MemorySegment s, long o) {
        return s.get(ValueLayout.JAVA_BYTE, o + PORT_OFFSET) & 0xff;
    }

    public static int epoch(MemorySegment s, long o) {
        return s.get(ValueLayout.JAVA_BYTE, o + EPOCH_OFFSET) & 0xff;
    }

    public static byte scheme(MemorySegment s, long o) {
        return s.get(ValueLayout.JAVA_BYTE, o + SCHEME_OFFSET);
    }

    /** Null if the message at {@code o} is sound, else why not; reads nothing past the end of {@code s}. */
    public static String validate(MemorySegment s, long o) {
        if (s.byteSize() - o < LENGTH) {
            return "control message cut short: " + Math.max(0, s.byteSize() - o) + " bytes, a message has " + LENGTH;
        }
        if (bodyLength(s, o) != LENGTH - 2) {
            return "control message of " + bodyLength(s, o) + " bytes, expected " + (LENGTH - 2);
        }
        byte t = type(s, o);
        if (t != SWITCH && t != SWITCHED) {
            return "unknown control message type " + t;
        }
        if (port(s, o) >= SegmentHeader.PORTS) {
            return "control message names port " + port(s, o);
        }
        byte sc = scheme(s, o);
        if (sc != SCHEME_SYNC && sc != SCHEME_ASYNC) {
            return "control message names scheme " + sc;
        }
        return null;
    }
}
