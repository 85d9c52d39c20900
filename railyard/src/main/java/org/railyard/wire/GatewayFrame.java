package org.railyard.wire;

import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;

/**
 * The routing header of seed 003 (MPI5000): every frame between a rank and its site's gateway, and
 * between two gateways, starts with these 40 bytes. Little endian. The only place that knows these
 * offsets.
 *
 * <pre>
 *  0                   1                   2                   3
 *  0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
 * +---------------------------------------------------------------+
 * |                 frame length (header + body)                  |  0
 * +-------------------------------+---------------+---------------+
 * |          magic 'G' 'W'        |     type      |     flags     |  4
 * +-------------------------------+---------------+---------------+
 * |                 job (64 bits: SHA-256 of the job id)          |  8
 * +---------------------------------------------------------------+
 * |                 source site                                   | 16
 * +---------------------------------------------------------------+
 * |                 source node                                   | 20
 * +---------------------------------------------------------------+
 * |                 source process (world rank; -1: a gateway)    | 24
 * +---------------------------------------------------------------+
 * |                 destination site                              | 28
 * +---------------------------------------------------------------+
 * |                 destination node                              | 32
 * +---------------------------------------------------------------+
 * |                 destination process (world rank; -1: none)    | 36
 * +---------------------------------------------------------------+
 * |                            body ...                           | 40
 * </pre>
 *
 * <p>Addresses. A site is the 32-bit {@link #siteId} of its name (setting {@code railyard.site});
 * a node the 32-bit {@link #nodeId} of the node identity in the rank's address card; a process is
 * the world rank. Gateways route by (job, destination site, destination process); the node lets the
 * destination gateway check that the process it delivers to is the one the sender meant (a rank
 * restarted on another node is another process). A gateway's own address is (its site, the port
 * it listens on, -1): the port in its HELLO tells the peer where to open stripes of its own.
 *
 * <p>Conversation. A rank (or a peer gateway, with {@link #FLAG_GATEWAY} and source process -1)
 * opens with HELLO (header: job, its own address; body below). The gateway answers CHALLENGE (its
 * nonce and its proof {@code HMAC(V, "G", process, nonceC, nonceG)}, V the job's gateway verifier,
 * {@code org.railyard.bootstrap.JobKeys#gatewayVerifier}); when it does not know the job yet it sets
 * {@link #FLAG_NEW_JOB} and the proof is zeros. The opener sends PROOF ({@code HMAC(V, "C",
 * process, nonceG, nonceC)}, and V after it with {@link #FLAG_NEW_JOB}). WELCOME, or ERROR (UTF-8
 * reason) and the connection closes. Then DATA frames, whose body is one Railyard frame that no
 * gateway reads. UNREACHABLE (gateway to rank; source = the address that could not be reached, body
 * the UTF-8 reason) says that frames to that process are lost; with process -1, to every process of
 * that site (the gateway lost its connection to that site's gateway).
 *
 * <p>Cut-through. A gateway writes a DATA frame's header before it has read the whole body; when
 * it did (or the frame came to it already cut), the header carries {@link #FLAG_CUT} and the frame
 * is followed at once, on the same connection, by END (the body was whole) or ABORT (the source's
 * connection ended inside the body: the rest of it is filler, and the UTF-8 body of the ABORT says
 * why), both with the frame's source and destination. A receiver holds a cut frame until its END,
 * and drops it on ABORT, failing only that source's flow. Ranks never send either. WARM (gateway to
 * peer gateway on a WAN stripe, no body, addresses the two gateways') carries nothing: a gateway
 * sends it on a stripe that has been quiet for a while, so that TCP does not take the stripe for
 * idle and restart it from a small window; the peer reads and drops it. STATS_REQUEST or IDENT_REQUEST, sent
 * instead of HELLO without any proof, get STATS (UTF-8 lines {@code name value}) or IDENT (the
 * gateway's site name).
 *
 * <pre>
 * HELLO body      u8 version  u8 zero  u16 stripe  i32 job size  16B nonce
 *                 u8 n  n bytes job id (printable ASCII)  u8 m  m bytes site name (printable ASCII)
 * CHALLENGE body  16B nonce  32B proof
 * PROOF body      32B proof  [32B verifier, with FLAG_NEW_JOB]
 * </pre>
 */
public final class GatewayFrame {
    private GatewayFrame() {
    }

    public static final int FRAME_LENGTH_OFFSET = FramePrefix.FRAME_LENGTH_OFFSET;
    public static final int MAGIC_OFFSET = FramePrefix.MAGIC_OFFSET;
    public static final int TYPE_OFFSET = FramePrefix.TYPE_OFFSET;
    public static final int FLAGS_OFFSET = FramePrefix.FLAGS_OFFSET;
    public static final int JOB_OFFSET = 8;
    public static final int SRC_SITE_OFFSET = 16;
    public static final int SRC_NODE_OFFSET = 20;
    public static final int SRC_PROCESS_OFFSET = 24;
    public static final int DST_SITE_OFFSET = 28;
    public static final int DST_NODE_OFFSET = 32;
    public static final int DST_PROCESS_OFFSET = 36;
    /** Header length; bodies start here. */
    public static final int HEADER = 40;

    /** 'G' 'W' read as a little-endian short. */
    public static final short MAGIC = FramePrefix.magicOf('G', 'W');
    public static final byte VERSION = 1;

    public static final byte HELLO = 1;
    public static final byte CHALLENGE = 2;
    public static final byte PROOF = 3;
    public static final byte WELCOME = 4;
    public static final byte DATA = 5;
    public static final byte UNREACHABLE = 6;
    public static final byte STATS_REQUEST = 7;
    public static final byte STATS = 8;
    public static final byte ERROR = 9;
    public static final byte IDENT_REQUEST = 10;
    public static final byte IDENT = 11;
    public static final byte END = 12;
    public static final byte ABORT = 13;
    public static final byte WARM = 14;

    /** CHALLENGE, PROOF: the gateway does not know this job; the proof carries the verifier. */
    public static final byte FLAG_NEW_JOB = RelayFrame.FLAG_NEW_JOB;
    /** HELLO, CHALLENGE, PROOF, WELCOME: the opener is a peer gateway, not a rank. */
    public static final byte FLAG_GATEWAY = 0x08;
    /** DATA from a gateway: forwarded before its body was whole; END or ABORT follows it at once. */
    public static final byte FLAG_CUT = 0x10;
    /**
     * DATA from a rank, body one zero byte: the source closed its link to the destination (to
     * link it again); frames from the source before this one belong to the old link, frames after
     * it to a new one.
     */
    public static final byte FLAG_RESET = 0x20;

    public static final int NONCE_BYTES = RelayFrame.NONCE_BYTES;
    public static final int MAC_BYTES = RelayFrame.MAC_BYTES;
    public static final int VERIFIER_BYTES = RelayFrame.VERIFIER_BYTES;
    public static final int MAX_NAME = 255;
    /** Longest text body (STATS, ERROR, UNREACHABLE, IDENT, ABORT). */
    public static final int MAX_TEXT = 65536;

    public static final int HELLO_VERSION_OFFSET = 0;
    public static final int HELLO_STRIPE_OFFSET = 2;
    public static final int HELLO_SIZE_OFFSET = 4;
    public static final int HELLO_NONCE_OFFSET = 8;
    public static final int HELLO_JOB_ID_LENGTH_OFFSET = 24;
    public static final int HELLO_JOB_ID_OFFSET = 25;
    public static final int CHALLENGE_NONCE_OFFSET = RelayFrame.CHALLENGE_NONCE_OFFSET;
    public static final int CHALLENGE_MAC_OFFSET = RelayFrame.CHALLENGE_MAC_OFFSET;
    public static final int CHALLENGE_BODY = RelayFrame.CHALLENGE_BODY;
    public static final int PROOF_MAC_OFFSET = RelayFrame.PROOF_MAC_OFFSET;
    public static final int PROOF_VERIFIER_OFFSET = RelayFrame.PROOF_VERIFIER_OFFSET;

    private static final ValueLayout.OfInt INT = FramePrefix.INT;
    private static final ValueLayout.OfLong LONG = FramePrefix.LONG;
    private static final ValueLayout.OfShort SHORT = FramePrefix.SHORT;

    /** An address: (site, node, process). */
    public record Address(int site, int node, int process) {
        @Override
        public String toString() {
            return String.format("(site %08x, node %08x, process %d)", site, node, process);
        }
    }

    /** A frame's header fields, checked by {@link #validate}; {@code bodyLength} bytes follow it. */
    public record Header(byte type, byte flags, long job, Address source, Address destination, int bodyLength) {
        public boolean has(byte flag) {
            return (flags & flag) != 0;
        }
    }

    /** A whole frame as read: its header and the body that followed it. */
    public record Frame(Header header, byte[] body) { }

    /** What a HELLO carries besides the header's job and source. */
    public record Hello(int stripe, int jobSize, byte[] nonce, String jobId, String site) { }

    /** The 32-bit id of a site name (the unnamed site, "", has one too). */
    public static int siteId(String site) {
        return hash32("site:" + site);
    }

    /** The 32-bit id of a node identity. */
    public static int nodeId(String node) {
        return hash32("node:" + node);
    }

    /** The 64-bit id of a job (the first 8 bytes of SHA-256 of its id). */
    public static long jobId(String jobId) {
        return java.nio.ByteBuffer.wrap(sha256(jobId)).getLong();
    }

    private static int hash32(String s) {
        return java.nio.ByteBuffer.wrap(sha256(s)).getInt();
    }

    private static byte[] sha256(String s) {
        try {
            return MessageDigest.getInstance("SHA-256").digest(s.getBytes(StandardCharsets.UTF_8));
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("SHA-256 unavailable", e);
        }
    }

    public static String typeName(byte t) {
        return switch (t) {
            case HELLO -> "HELLO";
            case CHALLENGE -> "CHALLENGE";
            case PROOF -> "PROOF";
            case WELCOME -> "WELCOME";
            case DATA -> "DATA";
            case UNREACHABLE -> "UNREACHABLE";
            case STATS_REQUEST -> "STATS_REQUEST";
            case STATS -> "STATS";
            case ERROR -> "ERROR";
            case IDENT_REQUEST -> "IDENT_REQUEST";
            case IDENT -> "IDENT";
            case END -> "END";
            case ABORT -> "ABORT";
            case WARM -> "WARM";
            default -> "type " + t;
        };
    }

    public static void writeHeader(MemorySegment s, long o, int frameLength, byte type, byte flags, long job,
                                   int srcSite, int srcNode, int srcProcess, int dstSite, int dstNode, int dstProcess) {
        FramePrefix.write(s, o, frameLength, MAGIC, type, flags);
        s.set(LONG, o + JOB_OFFSET, job);
        s.set(INT, o + SRC_SITE_OFFSET, srcSite);
        s.set(INT, o + SRC_NODE_OFFSET, srcNode);
        s.set(INT, o + SRC_PROCESS_OFFSET, srcProcess);
        s.set(INT, o + DST_SITE_OFFSET, dstSite);
        s.set(INT, o + DST_NODE_OFFSET, dstNode);
        s.set(INT, o + DST_PROCESS_OFFSET, dstProcess);
    }

    public static long job(MemorySegment s, long o) {
        return s.get(LONG, o + JOB_OFFSET);
    }

    public static int srcSite(MemorySegment s, long o) {
        return s.get(INT, o + SRC_SITE_OFFSET);
    }

    public static int srcNode(MemorySegment s, long o) {
        return s.get(INT, o + SRC_NODE_OFFSET);
    }

    public static int srcProcess(MemorySegment s, long o) {
        return s.get(INT, o + SRC_PROCESS_OFFSET);
    }

    public static int dstSite(MemorySegment s, long o) {
        return s.get(INT, o + DST_SITE_OFFSET);
    }

    public static int dstNode(MemorySegment s, long o) {
        return s.get(INT, o + DST_NODE_OFFSET);
    }

    public static int dstProcess(MemorySegment s, long o) {
        return s.get(INT, o + DST_PROCESS_OFFSET);
    }

    /** The flags and body length each type allows. */
    private static final FramePrefix.TypeRules RULES = new FramePrefix.TypeRules() {
        @Override
        public int allowedFlags(byte type) {
            return switch (type) {
                case HELLO, WELCOME -> FLAG_GATEWAY;
                case CHALLENGE, PROOF -> FLAG_NEW_JOB | FLAG_GATEWAY;
                case DATA -> FLAG_CUT | FLAG_RESET;
                case STATS_REQUEST, IDENT_REQUEST, END, STATS, ERROR, UNREACHABLE, IDENT, ABORT, WARM -> 0;
                default -> -1;
            };
        }

        @Override
        public String bodyRule(byte type, byte flags, int body) {
            return switch (type) {
                case HELLO -> FramePrefix.between(body, HELLO_JOB_ID_OFFSET + 1 + 1, HELLO_JOB_ID_OFFSET + 1 + 2 * MAX_NAME);
                case CHALLENGE -> FramePrefix.exactly(body, CHALLENGE_BODY);
                case PROOF -> RelayFrame.proofBodyRule(flags, body);
                case DATA -> FramePrefix.atLeast(body, 1);
                case STATS, ERROR, UNREACHABLE, IDENT, ABORT -> FramePrefix.atMost(body, MAX_TEXT);
                default -> FramePrefix.exactly(body, 0);
            };
        }

        @Override
        public String typeName(byte type) {
            return GatewayFrame.typeName(type);
        }
    };

    /**
     * Checks a header read from the other side; null if sound, else the reason it is not. Checks the
     * magic, the length against {@code maxBody}, the type, the flags the type may carry, the body
     * length the type must have, and the processes of DATA frames. Reads only the 40 header bytes.
     */
    public static String validate(MemorySegment s, long o, int maxBody) {
        String fault = FramePrefix.checkTyped(s, o, MAGIC, HEADER, maxBody, RULES);
        if (fault != null) {
            return fault;
        }
        byte type = FramePrefix.type(s, o);
        byte flags = FramePrefix.flags(s, o);
        if ((type == DATA || type == END || type == ABORT) && (srcProcess(s, o) < 0 || dstProcess(s, o) < 0)) {
            return "malformed " + typeName(type) + " frame: source process " + srcProcess(s, o) + ", destination process "
                    + dstProcess(s, o) + " (world ranks are never negative)";
        }
        if (type == HELLO && (flags & FLAG_GATEWAY) == 0 && srcProcess(s, o) < 0) {
            return "malformed HELLO frame: process " + srcProcess(s, o);
        }
        return null;
    }

    /** The header at {@code o}, already {@linkplain #validate validated}. */
    public static Header header(MemorySegment s, long o) {
        return new Header(FramePrefix.type(s, o), FramePrefix.flags(s, o), job(s, o),
                new Address(srcSite(s, o), srcNode(s, o), srcProcess(s, o)),
                new Address(dstSite(s, o), dstNode(s, o), dstProcess(s, o)), FramePrefix.frameLength(s, o) - HEADER);
    }

    /**
     * Reads and checks one header; blocks until its 40 bytes are in.
     *
     * @param scratch at least {@link #HEADER} bytes, overwritten
     * @throws EOFException when the stream ends before the first byte (a clean close) or inside the header
     * @throws IOException  naming the fault when the header is foreign or malformed
     */
    public static Header readHeader(DataInputStream in, byte[] scratch, int maxBody) throws IOException {
        int n = 0;
        while (n < HEADER) {
            int r = in.read(scratch, n, HEADER - n);
            if (r < 0) {
                throw new EOFException(n == 0 ? "connection closed" : "truncated header: stream ended after " + n
                        + " of " + HEADER + " bytes");
            }
            n += r;
        }
        MemorySegment s = MemorySegment.ofArray(scratch);
        String fault = validate(s, 0, maxBody);
        if (fault != null) {
            throw new IOException(fault);
        }
        return header(s, 0);
    }

    /** Reads the body that follows {@code h}; a stream that ends first is a truncated frame. */
    public static byte[] readBody(DataInputStream in, Header h) throws IOException {
        return FramePrefix.readBody(in, h.bodyLength(), typeName(h.type()));
    }

    /** Reads one whole frame, its header ({@link #readHeader}) then its body ({@link #readBody}). */
    public static Frame readFrame(DataInputStream in, byte[] scratch, int maxBody) throws IOException {
        Header h = readHeader(in, scratch, maxBody);
        return new Frame(h, readBody(in, h));
    }

    /** Writes one frame (header, then {@code body}); does not flush. */
    public static void write(DataOutputStream out, byte[] scratch, byte type, byte flags, long job, Address src,
                             Address dst, byte[] body) throws IOException {
        writeHeader(MemorySegment.ofArray(scratch), 0, HEADER + body.length, type, flags, job,
                src.site(), src.node(), src.process(), dst.site(), dst.node(), dst.process());
        out.write(scratch, 0, HEADER);
        out.write(body);
    }

    /** The body of a HELLO. */
    public static byte[] helloBody(int stripe, int jobSize, byte[] nonce, String jobId, String site) {
        byte[] id = jobId.getBytes(StandardCharsets.US_ASCII);
        byte[] st = site.getBytes(StandardCharsets.US_ASCII);
        if (id.length < 1 || id.length > MAX_NAME || !FramePrefix.printable(id)) {
            throw new IllegalArgumentException("job id must be 1 to " + MAX_NAME + " printable ASCII characters: " + jobId);
        }
        if (st.length > MAX_NAME || !FramePrefix.printable(st)) {
            throw new IllegalArgumentException("site name must be at most " + MAX_NAME + " printable ASCII characters: " + site);
        }
        if (stripe < 0 || stripe > 0xffff) {
            throw new IllegalArgumentException("stripe " + stripe + " is outside 0..65535");
        }
        byte[] b = new byte[HELLO_JOB_ID_OFFSET + id.length + 1 + st.length];
        MemorySegment s = MemorySegment.ofArray(b);
        s.set(ValueLayout.JAVA_BYTE, HELLO_VERSION_OFFSET, VERSION);
        s.set(SHORT, HELLO_STRIPE_OFFSET, (short) stripe);
        s.set(INT, HELLO_SIZE_OFFSET, jobSize);
        MemorySegment.copy(MemorySegment.ofArray(nonce), 0, s, HELLO_NONCE_OFFSET, NONCE_BYTES);
        s.set(ValueLayout.JAVA_BYTE, HELLO_JOB_ID_LENGTH_OFFSET, (byte) id.length);
        MemorySegment.copy(MemorySegment.ofArray(id), 0, s, HELLO_JOB_ID_OFFSET, id.length);
        s.set(ValueLayout.JAVA_BYTE, HELLO_JOB_ID_OFFSET + id.length, (byte) st.length);
        MemorySegment.copy(MemorySegment.ofArray(st), 0, s, HELLO_JOB_ID_OFFSET + id.length + 1, st.length);
        return b;
    }

    /**
     * Decodes and checks a HELLO whose header passed {@link #validate}: the version, the job size
     * against the opener's process, both names' lengths and characters, and the job and site ids
     * of the header against the names.
     */
    public static Hello hello(Header h, byte[] body) throws IOException {
        if (body.length < HELLO_JOB_ID_OFFSET + 2) {
            throw new IOException("malformed HELLO: body of " + body.length + " bytes");
        }
        MemorySegment s = MemorySegment.ofArray(body);
        int version = s.get(ValueLayout.JAVA_BYTE, HELLO_VERSION_OFFSET) & 0xff;
        if (version != VERSION) {
            throw new IOException("gateway protocol version " + version + ", this side speaks " + VERSION);
        }
        int stripe = s.get(SHORT, HELLO_STRIPE_OFFSET) & 0xffff;
        int size = s.get(INT, HELLO_SIZE_OFFSET);
        boolean gateway = h.has(FLAG_GATEWAY);
        if (size < 1 || (!gateway && h.source().process() >= size)) {
            throw new IOException("malformed HELLO: process " + h.source().process() + " of a job of " + size + " ranks");
        }
        int n = s.get(ValueLayout.JAVA_BYTE, HELLO_JOB_ID_LENGTH_OFFSET) & 0xff;
        if (n == 0 || HELLO_JOB_ID_OFFSET + n + 1 > body.length) {
            throw new IOException("malformed HELLO: job id of " + n + " bytes in a body of " + body.length);
        }
        int m = s.get(ValueLayout.JAVA_BYTE, HELLO_JOB_ID_OFFSET + n) & 0xff;
        if (HELLO_JOB_ID_OFFSET + n + 1 + m != body.length) {
            throw new IOException("malformed HELLO: site name of " + m + " bytes after a job id of " + n
                    + " in a body of " + body.length);
        }
        byte[] id = slice(body, HELLO_JOB_ID_OFFSET, n);
        byte[] st = slice(body, HELLO_JOB_ID_OFFSET + n + 1, m);
        if (!FramePrefix.printable(id) || !FramePrefix.printable(st)) {
            throw new IOException("malformed HELLO: job id or site name is not printable ASCII");
        }
        String jobId = new String(id, StandardCharsets.US_ASCII);
        String site = new String(st, StandardCharsets.US_ASCII);
        if (jobId(jobId) != h.job()) {
            throw new IOException("malformed HELLO: the header's job does not match job id '" + jobId + "'");
        }
        if (siteId(site) != h.source().site()) {
            throw new IOException("malformed HELLO: the header's source site does not match site '" + site + "'");
        }
        return new Hello(stripe, size, slice(body, HELLO_NONCE_OFFSET, NONCE_BYTES), jobId, site);
    }

    /** The body of a CHALLENGE: the gateway's nonce, then its proof (the relay's layout). */
    public static byte[] challengeBody(byte[] nonce, byte[] mac) {
        return RelayFrame.challengeBody(nonce, mac);
    }

    /** The body of a PROOF: the opener's proof, then the verifier when the job is new (the relay's layout). */
    public static byte[] proofBody(byte[] mac, byte[] verifier) {
        return RelayFrame.proofBody(mac, verifier);
    }

    /** A text body (ERROR, STATS, UNREACHABLE, IDENT), cut to {@link #MAX_TEXT} bytes. */
    public static byte[] text(String s) {
        byte[] b = s.getBytes(StandardCharsets.UTF_8);
        return b.length <= MAX_TEXT ? b : slice(b, 0, MAX_TEXT);
    }

    public static byte[] slice(byte[] body, int offset, int length) {
        return FramePrefix.slice(body, offset, length);
    }
}
