package org.railyard.wire;

import java.io.DataInputStream;
import java.io.EOFException;
import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;

/**
 * The eight bytes that {@link FrameHeader}, {@link RelayFrame} and {@link GatewayFrame} frames all
 * start with, and the checks of a frame read from outside that the three make in the same words.
 * Little endian. Each format keeps its own magic, types and the fields that follow; this class owns
 * only what they share, so that a fault is reported the same way whichever format it is found in.
 *
 * <pre>
 *  0                   1                   2                   3
 *  0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
 * +---------------------------------------------------------------+
 * |                 frame length (header + body)                  |  0
 * +-------------------------------+---------------+---------------+
 * |       magic (two letters)     |     type      |     flags     |  4
 * +-------------------------------+---------------+---------------+
 * </pre>
 *
 * <p>The checks return null when the field is sound, else the reason it is not, naming the field
 * and the value found; they allocate only on failure.
 */
final class FramePrefix {
    private FramePrefix() {
    }

    static final int FRAME_LENGTH_OFFSET = 0;
    static final int MAGIC_OFFSET = 4;
    static final int TYPE_OFFSET = 6;
    static final int FLAGS_OFFSET = 7;

    static final ValueLayout.OfInt INT = ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);
    static final ValueLayout.OfLong LONG = ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);
    static final ValueLayout.OfShort SHORT = ValueLayout.JAVA_SHORT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);

    /** Two ASCII letters as the little-endian short a frame carries at {@link #MAGIC_OFFSET}. */
    static short magicOf(char first, char second) {
        return (short) (first | (second << 8));
    }

    static void write(MemorySegment s, long o, int frameLength, short magic, byte type, byte flags) {
        s.set(INT, o + FRAME_LENGTH_OFFSET, frameLength);
        s.set(SHORT, o + MAGIC_OFFSET, magic);
        s.set(ValueLayout.JAVA_BYTE, o + TYPE_OFFSET, type);
        s.set(ValueLayout.JAVA_BYTE, o + FLAGS_OFFSET, flags);
    }

    static int frameLength(MemorySegment s, long o) {
        return s.get(INT, o + FRAME_LENGTH_OFFSET);
    }

    static short magic(MemorySegment s, long o) {
        return s.get(SHORT, o + MAGIC_OFFSET);
    }

    static byte type(MemorySegment s, long o) {
        return s.get(ValueLayout.JAVA_BYTE, o + TYPE_OFFSET);
    }

    static byte flags(MemorySegment s, long o) {
        return s.get(ValueLayout.JAVA_BYTE, o + FLAGS_OFFSET);
    }

    /**
     * Whether the frame at {@code o} carries the magic {@code expected} (else the fault names both
     * and the expected letters) and then a frame length in [{@code minLength}, {@code maxLength}].
     * The caller has made sure the eight bytes are there.
     */
    static String check(MemorySegment s, long o, short expected, long minLength, long maxLength) {
        String fault = checkMagic(s, o, expected);
        return fault != null ? fault : checkLength(frameLength(s, o), minLength, maxLength);
    }

    private static String checkMagic(MemorySegment s, long o, short expected) {
        short magic = magic(s, o);
        if (magic == expected) {
            return null;
        }
        return String.format("foreign frame: magic 0x%04x, expected 0x%04x ('%c%c')", magic & 0xffff, expected & 0xffff,
                (char) (expected & 0xff), (char) ((expected >> 8) & 0xff));
    }

    private static String checkLength(int length, long min, long max) {
        if (length >= min && length <= max) {
            return null;
        }
        return "malformed frame: length " + length + " outside [" + min + ", " + max + "]";
    }

    /** The fault of a type byte the format does not define. */
    static String unknownType(byte type) {
        return "malformed frame: unknown type " + type;
    }

    /**
     * What a format with typed bodies ({@link RelayFrame}, {@link GatewayFrame}) allows of each of
     * its types: the flags it may carry and the length its body must have. One constant instance
     * per format, so that a check allocates nothing unless it fails.
     */
    interface TypeRules {
        /** The flags {@code type} may carry, or -1 if the format has no such type. */
        int allowedFlags(byte type);

        /**
         * Null if a body of {@code body} bytes fits {@code type} with {@code flags}, else what its
         * length must be ("exactly 0", "between 26 and 280"; see {@link #exactly}).
         */
        String bodyRule(byte type, byte flags, int body);

        String typeName(byte type);
    }

    /**
     * Checks the prefix of a frame of a typed format: the magic, the frame length against
     * [{@code header}, {@code header + maxBody}], that the type is the format's, that it carries
     * only its flags, and its body length. The caller has made sure the {@code header} bytes are there
     * and checks the format's other fields after.
     */
    static String checkTyped(MemorySegment s, long o, short magic, int header, int maxBody, TypeRules rules) {
        String fault = check(s, o, magic, header, (long) header + maxBody);
        if (fault != null) {
            return fault;
        }
        byte type = type(s, o);
        int allowed = rules.allowedFlags(type);
        if (allowed < 0) {
            return unknownType(type);
        }
        byte flags = flags(s, o);
        if ((flags & ~allowed) != 0) {
            return String.format("malformed %s frame: flags 0x%02x, allowed 0x%02x", rules.typeName(type), flags & 0xff,
                    allowed);
        }
        int body = frameLength(s, o) - header;
        String bodyRule = rules.bodyRule(type, flags, body);
        if (bodyRule != null) {
            return "malformed " + rules.typeName(type) + " frame: body of " + body + " bytes, must be " + bodyRule;
        }
        return null;
    }

    /** A body-length rule for {@link TypeRules#bodyRule}: null if {@code body == n}. */
    static String exactly(int body, int n) {
        return body != n ? "exactly " + n : null;
    }

    /** A body-length rule for {@link TypeRules#bodyRule}: null if {@code body <= n}. */
    static String atMost(int body, int n) {
        return body > n ? "at most " + n : null;
    }

    /** A body-length rule for {@link TypeRules#bodyRule}: null if {@code body >= n}. */
    static String atLeast(int body, int n) {
        return body < n ? "at least " + n : null;
    }

    /** A body-length rule for {@link TypeRules#bodyRule}: null if {@code min <= body <= max}. */
    static String between(int body, int min, int max) {
        return body < min || body > max ? "between " + min + " and " + max : null;
    }

    /** Reads a body of {@code length} bytes; a stream that ends first is a truncated frame of {@code typeName}. */
    static byte[] readBody(DataInputStream in, int length, String typeName) throws IOException {
        byte[] body = new byte[length];
        try {
            in.readFully(body);
        } catch (EOFException e) {
            throw new EOFException("truncated " + typeName + " frame: stream ended inside its body of " + length + " bytes");
        }
        return body;
    }

    /** Whether every byte is a printable ASCII character other than the space. */
    static boolean printable(byte[] text) {
        for (byte c : text) {
            if (c <= ' ' || c >= 127) {
                return false;
            }
        }
        return true;
    }

    static byte[] slice(byte[] body, int offset, int length) {
        byte[] b = new byte[length];
        System.arraycopy(body, offset, b, 0, length);
        return b;
    }
}
