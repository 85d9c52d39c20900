package org.railyard.wire;

import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.charset.StandardCharsets;

/**
 * The frames a rank and a relay server (a Channel Memory, seed 001) exchange over one TCP
 * connection. Little endian. Every frame starts with the same 24-byte header; the body that
 * follows is laid out per type below. The only place that knows these offsets.
 *
 * <pre>
 *  0                   1                   2                   3
 *  0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
 * +---------------------------------------------------------------+
 * |                 frame length (header + body)                  |  0
 * +-------------------------------+---------------+---------------+
 * |          magic 'R' 'L'        |     type      |     flags     |  4
 * +-------------------------------+---------------+---------------+
 * |                 source rank (-1: none)                        |  8
 * +---------------------------------------------------------------+
 * |                 destination rank (-1: none)                   | 12
 * +---------------------------------------------------------------+
 * |        sequence number (64 bits): per (source, destination)   | 16
 * +---------------------------------------------------------------+
 * |                            body ...                           | 24
 * </pre>
 *
 * <p>Conversation. A rank opens with HELLO (source = its rank; body: version, job size, its nonce,
 * the job id). The relay answers CHALLENGE (body: its nonce, then its proof
 * {@code HMAC(V, "R", rank, nonceC, nonceR)}, where V is the job's relay verifier,
 * {@code org.railyard.bootstrap.JobKeys#relayVerifier}); when the relay does not know the job yet it
 * sets {@link #FLAG_NEW_JOB} and the proof is zeros. The rank sends PROOF (body:
 * {@code HMAC(V, "C", rank, nonceR, nonceC)}, and V itself after it when the job is new: the first
 * rank to arrive registers the job). The relay answers WELCOME, or ERROR naming what was wrong and
 * closes. {@link #FLAG_RECEIVE} on HELLO makes the connection the rank's delivery connection
 * (the relay is its owner relay).
 *
 * <p>Messages. STORE (source = the sender's rank, destination, sequence counting from 1 per
 * (source, destination), body = the message) asks the relay to keep a message; STORED (same three
 * fields, no body) says it is stored, and logged under the relay's fsync policy. DELIVER (same
 * fields and body) hands a stored message to its destination; DELIVERED (no body) is the
 * destination's cumulative acknowledgement: every message from {@code source} up to
 * {@code sequence} is consumed and may be forgotten. {@link #FLAG_CONTROL} on STORE and DELIVER
 * files the message in the destination's control queue instead of its source's data queue.
 * STATS_REQUEST, sent instead of HELLO without any proof, gets one STATS (body: UTF-8 lines
 * {@code name value}). ERROR (body: UTF-8 reason) precedes the closing of a connection.
 * PRESENCE_REQUEST (after the handshake; destination = a rank of the job, no body) asks whether that
 * rank is connected to receive here; PRESENCE (destination = that rank, no body) answers with the
 * sequence field: 0 if it is, else the milliseconds since its last receiving connection ended (or,
 * if it never had one, since the relay learnt the job).
 *
 * <pre>
 * HELLO body      u8 version  3 x u8 zero  i32 job size  16B nonce  u8 n  n bytes job id (printable ASCII)
 * CHALLENGE body  16B nonce  32B proof
 * PROOF body      32B proof  [32B verifier, with FLAG_NEW_JOB]
 * </pre>
 */
public final class RelayFrame {
    private RelayFrame() {
    }

    public static final int FRAME_LENGTH_OFFSET = FramePrefix.FRAME_LENGTH_OFFSET;
    public static final int MAGIC_OFFSET = FramePrefix.MAGIC_OFFSET;
    public static final int TYPE_OFFSET = FramePrefix.TYPE_OFFSET;
    public static final int FLAGS_OFFSET = FramePrefix.FLAGS_OFFSET;
    public static final int SOURCE_OFFSET = 8;
    public static final int DESTINATION_OFFSET = 12;
    public static final int SEQUENCE_OFFSET = 16;
    /** Header length; bodies start here. */
    public static final int HEADER = 24;

    /** 'R' 'L' read as a little-endian short. */
    public static final short MAGIC = FramePrefix.magicOf('R', 'L');
    public static final byte VERSION = 1;

    public static final byte HELLO = 1;
    public static final byte CHALLENGE = 2;
    public static final byte PROOF = 3;
    public static final byte WELCOME = 4;
    public static final byte STORE = 5;
    public static final byte STORED = 6;
    public static final byte DELIVER = 7;
    public static final byte DELIVERED = 8;
    public static final byte STATS_REQUEST = 9;
    public static final byte STATS = 10;
    public static final byte ERROR = 11;
    public static final byte PRESENCE_REQUEST = 12;
    public static final byte PRESENCE = 13;

    /** HELLO: deliver the messages for this rank on this connection. */
    public static final byte FLAG_RECEIVE = 0x01;
    /** STORE, DELIVER: a control message (the destination's control queue), not data. */
    public static final byte FLAG_CONTROL = 0x02;
    /** CHALLENGE, PROOF: the relay does not know this job; the proof carries the verifier. */
    public static final byte FLAG_NEW_JOB = 0x04;

    public static final int NONCE_BYTES = 16;
    public static final int MAC_BYTES = 32;
    public static final int VERIFIER_BYTES = 32;
    public static final int MAX_JOB_ID = 255;
    /** Longest text body (STATS, ERROR). */
    public static final int MAX_TEXT = 65536;

    public static final int HELLO_VERSION_OFFSET = 0;
    public static final int HELLO_SIZE_OFFSET = 4;
    public static final int HELLO_NONCE_OFFSET = 8;
    public static final int HELLO_JOB_ID_LENGTH_OFFSET = 24;
    public static final int HELLO_JOB_ID_OFFSET = 25;
    public static final int CHALLENGE_NONCE_OFFSET = 0;
    public static final int CHALLENGE_MAC_OFFSET = 16;
    public static final int CHALLENGE_BODY = 48;
    public static final int PROOF_MAC_OFFSET = 0;
    public static final int PROOF_VERIFIER_OFFSET = 32;

    private static final ValueLayout.OfInt INT = FramePrefix.INT;
    private static final ValueLayout.OfLong LONG = FramePrefix.LONG;
    private static final ValueLayout.OfShort SHORT = FramePrefix.SHORT;

    /** A frame's header fields, checked by {@link #readHeader}; {@code bodyLength} bytes follow it. */
    public record Header(byte type, byte flags, int source, int destination, long sequence, int bodyLength) {
        public boolean has(byte flag) {
            return (flags & flag) != 0;
        }
    }

    /** What HELLO carries besides the rank (the header's source). */
    public record Hello(int rank, int jobSize, byte[] nonce, String jobId, boolean receive) { }

    public static String typeName(byte t) {
        return switch (t) {
            case HELLO -> "HELLO";
            case CHALLENGE -> "CHALLENGE";
            case PROOF -> "PROOF";
            case WELCOME -> "WELCOME";
            case STORE -> "STORE";
            case STORED -> "STORED";
            case DELIVER -> "DELIVER";
            case DELIVERED -> "DELIVERED";
            case STATS_REQUEST -> "STATS_REQUEST";
            case STATS -> "STATS";
            case ERROR -> "ERROR";
            case PRESENCE_REQUEST -> "PRESENCE_REQUEST";
            case PRESENCE -> "PRESENCE";
            default -> "type " + t;
        };
    }

    public static void writeHeader(MemorySegment s, long o, int frameLength, byte type, byte flags, int source,
                                   int destination, long sequence) {
        FramePrefix.write(s, o, frameLength, MAGIC, type, flags);
        s.set(INT, o + SOURCE_OFFSET, source);
        s.set(INT, o + DESTINATION_OFFSET, destination);
        s.set(LONG, o + SEQUENCE_OFFSET, sequence);
    }

    public static int source(MemorySegment s, long o) {
        return s.get(INT, o + SOURCE_OFFSET);
    }

    public static int destination(MemorySegment s, long o) {
        return s.get(INT, o + DESTINATION_OFFSET);
    }

    public static long sequence(MemorySegment s, long o) {
        return s.get(LONG, o + SEQUENCE_OFFSET);
    }

    /** The flags and body length each type allows. */
    private static final FramePrefix.TypeRules RULES = new FramePrefix.TypeRules() {
        @Override
        public int allowedFlags(byte type) {
            return switch (type) {
                case HELLO -> FLAG_RECEIVE;
                case CHALLENGE, PROOF -> FLAG_NEW_JOB;
                case STORE, DELIVER -> FLAG_CONTROL;
                case WELCOME, STORED, DELIVERED, STATS_REQUEST, PRESENCE_REQUEST, PRESENCE, STATS, ERROR -> 0;
                default -> -1;
            };
        }

        @Override
        public String bodyRule(byte type, byte flags, int body) {
            return switch (type) {
                case HELLO -> FramePrefix.between(body, HELLO_JOB_ID_OFFSET + 1, HELLO_JOB_ID_OFFSET + MAX_JOB_ID);
                case CHALLENGE -> FramePrefix.exactly(body, CHALLENGE_BODY);
                case PROOF -> proofBodyRule(flags, body);
                case STORE, DELIVER -> null;
                case STATS, ERROR -> FramePrefix.atMost(body, MAX_TEXT);
                default -> FramePrefix.exactly(body, 0);
            };
        }

        @Override
        public String typeName(byte type) {
            return RelayFrame.typeName(type);
        }
    };

    /**
     * Checks a header read from the other side; null if sound, else the reason it is not. Checks
     * the magic, the length against {@code maxBody}, the type, the flags the type may carry, the
     * body length the type must have, and the ranks and sequence number of message frames.
     */
    public static String validate(MemorySegment s, long o, int maxBody) {
        String fault = FramePrefix.checkTyped(s, o, MAGIC, HEADER, maxBody, RULES);
        if (fault != null) {
            return fault;
        }
        byte type = FramePrefix.type(s, o);
        if (type == STORE || type == STORED || type == DELIVER || type == DELIVERED) {
            if (source(s, o) < 0 || destination(s, o) < 0) {
                return "malformed " + typeName(type) + " frame: source " + source(s, o) + ", destination "
                        + destination(s, o) + " (ranks are never negative)";
            }
            if (sequence(s, o) < 1) {
                return "malformed " + typeName(type) + " frame: sequence " + sequence(s, o) + " (counts from 1)";
            }
        }
        if ((type == PRESENCE_REQUEST || type == PRESENCE) && (destination(s, o) < 0 || sequence(s, o) < 0)) {
            return "malformed " + typeName(type) + " frame: rank " + destination(s, o) + ", sequence " + sequence(s, o);
        }
        if (type == HELLO && source(s, o) < 0) {
            return "malformed HELLO frame: rank " + source(s, o);
        }
        return null;
    }

    /**
     * The body-length rule of a PROOF (also the gateway's): the proof, and the verifier after it
     * when {@link #FLAG_NEW_JOB} is set.
     */
    static String proofBodyRule(byte flags, int body) {
        return FramePrefix.exactly(body, (flags & FLAG_NEW_JOB) != 0 ? MAC_BYTES + VERIFIER_BYTES : MAC_BYTES);
    }

    /**
     * Reads and checks one header; blocks until its 24 bytes are in.
     *
     * @param scratch at least {@link #HEADER} bytes, overwritten
     * @throws EOFException when the stream ends before the first byte (a clean close) or inside the header
     * @throws IOException  naming the fault when the header is foreign or malformed
     */
    public static Header readHeader(DataInputStream in, byte[] scratch, int maxBody) throws IOException {
        in.readFully(scratch, 0, HEADER);
        MemorySegment s = MemorySegment.ofArray(scratch);
        String fault = validate(s, 0, maxBody);
        if (fault != null) {
            throw new IOException(fault);
        }
        return header(s, 0);
    }

    /** The length of the frame at {@code o} in {@code s}, header included (check it with {@link #validate} first). */
    public static int frameLength(MemorySegment s, long o) {
        return FramePrefix.frameLength(s, o);
    }

    /** The header at {@code o} in {@code s}, which {@link #validate} found sound. */
    public static Header header(MemorySegment s, long o) {
        return new Header(FramePrefix.type(s, o), FramePrefix.flags(s, o), source(s, o), destination(s, o), sequence(s, o),
                FramePrefix.frameLength(s, o) - HEADER);
    }

    /** Reads the body that follows {@code h}; a stream that ends first is a truncated frame. */
    public static byte[] readBody(DataInputStream in, Header h) throws IOException {
        return FramePrefix.readBody(in, h.bodyLength(), typeName(h.type()));
    }

    /** Writes one frame (header, then {@code len} bytes of {@code body} from {@code off}); does not flush. */
    public static void write(DataOutputStream out, byte[] scratch, byte type, byte flags, int source, int destination,
                             long sequence, byte[] body, int off, int len) throws IOException {
        writeHeader(MemorySegment.ofArray(scratch), 0, HEADER + len, type, flags, source, destination, sequence);
        out.write(scratch, 0, HEADER);
        if (len > 0) {
            out.write(body, off, len);
        }
    }

    /** The body of a HELLO. */
    public static byte[] helloBody(int jobSize, byte[] nonce, String jobId) {
        byte[] id = jobId.getBytes(StandardCharsets.US_ASCII);
        if (id.length < 1 || id.length > MAX_JOB_ID || !FramePrefix.printable(id)) {
            throw new IllegalArgumentException("job id must be 1 to " + MAX_JOB_ID + " printable ASCII characters: " + jobId);
        }
        byte[] b = new byte[HELLO_JOB_ID_OFFSET + id.length];
        MemorySegment s = MemorySegment.ofArray(b);
        s.set(ValueLayout.JAVA_BYTE, HELLO_VERSION_OFFSET, VERSION);
        s.set(INT, HELLO_SIZE_OFFSET, jobSize);
        MemorySegment.copy(MemorySegment.ofArray(nonce), 0, s, HELLO_NONCE_OFFSET, NONCE_BYTES);
        s.set(ValueLayout.JAVA_BYTE, HELLO_JOB_ID_LENGTH_OFFSET, (byte) id.length);
        MemorySegment.copy(MemorySegment.ofArray(id), 0, s, HELLO_JOB_ID_OFFSET, id.length);
        return b;
    }

    /** Decodes and checks a HELLO whose header passed {@link #readHeader}. */
    public static Hello hello(Header h, byte[] body) throws IOException {
        MemorySegment s = MemorySegment.ofArray(body);
        int version = s.get(ValueLayout.JAVA_BYTE, HELLO_VERSION_OFFSET) & 0xff;
        if (version != VERSION) {
            throw new IOException("relay protocol version " + version + ", this side speaks " + VERSION);
        }
        int size = s.get(INT, HELLO_SIZE_OFFSET);
        if (size < 1 || h.source() >= size) {
            throw new IOException("malformed HELLO: rank " + h.source() + " of a job of " + size + " ranks");
        }
        int n = s.get(ValueLayout.JAVA_BYTE, HELLO_JOB_ID_LENGTH_OFFSET) & 0xff;
        if (n == 0 || HELLO_JOB_ID_OFFSET + n != body.length) {
            throw new IOException("malformed HELLO: job id of " + n + " bytes in a body of " + body.length);
        }
        byte[] id = new byte[n];
        System.arraycopy(body, HELLO_JOB_ID_OFFSET, id, 0, n);
        if (!FramePrefix.printable(id)) {
            throw new IOException("malformed HELLO: job id is not printable ASCII");
        }
        byte[] nonce = new byte[NONCE_BYTES];
        System.arraycopy(body, HELLO_NONCE_OFFSET, nonce, 0, NONCE_BYTES);
        return new Hello(h.source(), size, nonce, new String(id, StandardCharsets.US_ASCII), h.has(FLAG_RECEIVE));
    }

    /** The body of a CHALLENGE: the relay's nonce, then its proof. */
    public static byte[] challengeBody(byte[] nonce, byte[] mac) {
        return concat(nonce, NONCE_BYTES, mac, MAC_BYTES);
    }

    /** The body of a PROOF: the rank's proof, then the verifier when the job is new (else null). */
    public static byte[] proofBody(byte[] mac, byte[] verifier) {
        return verifier == null ? slice(mac, 0, MAC_BYTES) : concat(mac, MAC_BYTES, verifier, VERIFIER_BYTES);
    }

    public static byte[] slice(byte[] body, int offset, int length) {
        return FramePrefix.slice(body, offset, length);
    }

    private static byte[] concat(byte[] a, int na, byte[] b, int nb) {
        byte[] r = new byte[na + nb];
        System.arraycopy(a, 0, r, 0, na);
        System.arraycopy(b, 0, r, na, nb);
        return r;
    }
}
