package org.railyard.wire;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * The header every data frame starts with, on every transport. Little endian. The only place that
 * knows these byte offsets; everyone else reads and writes through the accessors, which allocate
 * nothing.
 *
 * <pre>
 *  0                   1                   2                   3
 *  0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
 * +---------------------------------------------------------------+
 * |                 frame length (header + payload)               |  0
 * +-------------------------------+---------------+---------------+
 * |          magic 'R' 'Y'        |     type      |     flags     |  4
 * +-------------------------------+---------------+---------------+
 * |                          context id                           |  8
 * +---------------------------------------------------------------+
 * |                  source rank (in the world)                   | 12
 * +---------------------------------------------------------------+
 * |                              tag                              | 16
 * +---------------------------------------------------------------+
 * |                 message length (bytes, whole message)         | 20
 * +---------------------------------------------------------------+
 * |                packet sequence number (64 bits)               | 24
 * +---------------------------------------------------------------+
 * |        cookie (64 bits): a request id, meaning per type       | 32
 * +---------------------------------------------------------------+
 * |   arg (64 bits): offset of a data fragment, or a request id   | 40
 * +---------------------------------------------------------------+
 * |                         payload ...                           | 48
 * </pre>
 *
 * <p>Meaning per {@link FrameType}: EAGER carries a whole message (envelope + payload); RTS carries
 * the envelope of a rendezvous message with cookie = the sender's request id; CTS answers it with
 * cookie = the sender's request id and arg = the receiver's request id; DATA carries a fragment
 * with cookie = the receiver's request id and arg = the fragment's offset in the message. The
 * packet sequence number is stamped by the virtual channel (one sequence per peer), never by the
 * engine. ACK and HEARTBEAT are link control frames; their fields are read and written only through
 * {@link LinkControl}.
 *
 * <p>Flags: {@link #FLAG_ACK_REQUEST} asks the receiver to acknowledge the rail at once (the
 * channel sets it on the last frame of a stripe, so the stripe's delivery time can be measured).
 * The engine writes flags 0 (but on VALUE frames, and {@link #FLAG_REMOTE_READ} on an RTS and
 * {@link #FLAG_READ_DONE} on a CTS, see below); the channel sets its bits after the engine wrote
 * the frame.
 *
 * <p>VALUE carries one value of the latest-value exchange ({@code org.railyard.IterativeComm}):
 * context, source, tag and message length as EAGER; cookie = the value's sequence number in its
 * (context, source, tag) flow, counting from 1; flags bit {@link #FLAG_VALUE_ASYNC} set when the
 * value was sent under the asynchronous scheme (a newer value of the same flow may supersede it).
 * VALUE frames carry no packet sequence number: the channel neither stamps nor checks it.
 */
public final class FrameHeader {
    private FrameHeader() {
    }

    public static final int FRAME_LENGTH_OFFSET = FramePrefix.FRAME_LENGTH_OFFSET;
    public static final int MAGIC_OFFSET = FramePrefix.MAGIC_OFFSET;
    public static final int TYPE_OFFSET = FramePrefix.TYPE_OFFSET;
    public static final int FLAGS_OFFSET = FramePrefix.FLAGS_OFFSET;
    public static final int CONTEXT_OFFSET = 8;
    public static final int SOURCE_OFFSET = 12;
    public static final int TAG_OFFSET = 16;
    public static final int MESSAGE_LENGTH_OFFSET = 20;
    public static final int PSN_OFFSET = 24;
    public static final int COOKIE_OFFSET = 32;
    public static final int ARG_OFFSET = 40;
    /** Header length; payloads start here. Multiple of 8 so payloads stay aligned. */
    public static final int LENGTH = 48;

    /**
     * RTS flag bit: the sender's payload lies in native memory of a process on the receiver's node,
     * and the receiver may read it itself (cross-memory attach: the {@code NodeMemory} a transport shares):
     * arg = the payload's address in the sender; the RTS carries {@link #REMOTE_READ_PAYLOAD} bytes,
     * the sender's identity token (its address, then its two words), which the receiver checks once
     * per peer before trusting the address.
     */
    public static final byte FLAG_REMOTE_READ = 0x04;
    /** CTS flag bit: the receiver has read the whole payload itself; the send is complete, no DATA follows. */
    public static final byte FLAG_READ_DONE = 0x08;
    /** Payload bytes of an RTS with {@link #FLAG_REMOTE_READ}. */
    public static final int REMOTE_READ_PAYLOAD = 24;

    /** Flag bit: acknowledge this rail as soon as this frame is received. */
    public static final byte FLAG_ACK_REQUEST = 0x01;
    /** VALUE flag bit: sent under the asynchronous scheme; a newer value of its flow may supersede it. */
    public static final byte FLAG_VALUE_ASYNC = 0x02;

    /** 'R' 'Y' read as a little-endian short. */
    public static final short MAGIC = FramePrefix.magicOf('R', 'Y');

    private static final ValueLayout.OfInt INT = FramePrefix.INT;
    private static final ValueLayout.OfLong LONG = FramePrefix.LONG;

    /** Writes a whole header; the PSN is left for the channel to stamp. */
    public static void write(MemorySegment s, long o, int frameLength, byte type, byte flags, int context,
                             int source, int tag, int messageLength, long cookie, long arg) {
        FramePrefix.write(s, o, frameLength, MAGIC, type, flags);
        s.set(INT, o + CONTEXT_OFFSET, context);
        s.set(INT, o + SOURCE_OFFSET, source);
        s.set(INT, o + TAG_OFFSET, tag);
        s.set(INT, o + MESSAGE_LENGTH_OFFSET, messageLength);
        s.set(LONG, o + COOKIE_OFFSET, cookie);
        s.set(LONG, o + ARG_OFFSET, arg);
    }

    public static int frameLength(MemorySegment s, long o) {
        return FramePrefix.frameLength(s, o);
    }

    public static short magic(MemorySegment s, long o) {
        return FramePrefix.magic(s, o);
    }

    public static byte type(MemorySegment s, long o) {
        return FramePrefix.type(s, o);
    }

    /**
     * Writes the payload of an RTS with {@link #FLAG_REMOTE_READ}: the sender's identity token (its
     * address in the sender, then its two words).
     */
    public static void writeReadOffer(MemorySegment s, long o, long identityAddress, long word0, long word1) {
        s.set(LONG, o + LENGTH, identityAddress);
        s.set(LONG, o + LENGTH + 8, word0);
        s.set(LONG, o + LENGTH + 16, word1);
    }

    /** Of an RTS with {@link #FLAG_REMOTE_READ}: the address of the sender's identity token. */
    public static long offerIdentityAddress(MemorySegment s, long o) {
        return s.get(LONG, o + LENGTH);
    }

    /** Of an RTS with {@link #FLAG_REMOTE_READ}: word {@code i} (0 or 1) of the sender's identity token. */
    public static long offerIdentityWord(MemorySegment s, long o, int i) {
        return s.get(LONG, o + LENGTH + 8 + 8L * i);
    }

    public static byte flags(MemorySegment s, long o) {
        return FramePrefix.flags(s, o);
    }

    /** Sets {@code bits} in the flags of the frame at {@code o}, keeping the others. */
    public static void addFlags(MemorySegment s, long o, byte bits) {
        s.set(ValueLayout.JAVA_BYTE, o + FLAGS_OFFSET, (byte) (flags(s, o) | bits));
    }

    public static int context(MemorySegment s, long o) {
        return s.get(INT, o + CONTEXT_OFFSET);
    }

    public static int source(MemorySegment s, long o) {
        return s.get(INT, o + SOURCE_OFFSET);
    }

    public static int tag(MemorySegment s, long o) {
        return s.get(INT, o + TAG_OFFSET);
    }

    public static int messageLength(MemorySegment s, long o) {
        return s.get(INT, o + MESSAGE_LENGTH_OFFSET);
    }

    public static long psn(MemorySegment s, long o) {
        return s.get(LONG, o + PSN_OFFSET);
    }

    public static void psn(MemorySegment s, long o, long psn) {
        s.set(LONG, o + PSN_OFFSET, psn);
    }

    public static long cookie(MemorySegment s, long o) {
        return s.get(LONG, o + COOKIE_OFFSET);
    }

    public static long arg(MemorySegment s, long o) {
        return s.get(LONG, o + ARG_OFFSET);
    }

    /**
     * Checks a header read from a peer; returns null if it is sound, else the reason it is not
     * (for the log line that accompanies closing the connection). Reads nothing past the end of
     * {@code s}; a sound header's frame length is still to be checked against the bytes received.
     */
    public static String validate(MemorySegment s, long o, int maxFrame) {
        if (s.byteSize() - o < LENGTH) {
            return "truncated frame: " + Math.max(0, s.byteSize() - o) + " bytes, a header has " + LENGTH;
        }
        String fault = FramePrefix.check(s, o, MAGIC, LENGTH, maxFrame);
        if (fault != null) {
            return fault;
        }
        byte type = type(s, o);
        if (!FrameType.valid(type)) {
            return FramePrefix.unknownType(type);
        }
        if (messageLength(s, o) < 0) {
            return "malformed frame: negative message length " + messageLength(s, o);
        }
        return null;
    }
}
