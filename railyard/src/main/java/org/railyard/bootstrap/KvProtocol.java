package org.railyard.bootstrap;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.BitSet;
import java.util.HexFormat;

/**
 * What both ends of the key-value protocol share: message words, line framing, the HMAC proofs.
 * The protocol itself is described on {@link KvBootstrap}.
 */
final class KvProtocol {
    private KvProtocol() {
    }

    static final String MAGIC = "RAILYARD-KV";
    static final int VERSION = 1;

    static final String HELLO = "HELLO";
    static final String WELCOME = "WELCOME";
    static final String DENIED = "DENIED";
    static final String PUT = "PUT";
    static final String GET = "GET";
    static final String VALUE = "VALUE";
    static final String MGET = "MGET";
    static final String VALUES = "VALUES";
    static final String FENCE = "FENCE";
    static final String FENCED = "FENCED";
    static final String TIMEOUT = "TIMEOUT";
    static final String FAILED = "FAILED";
    static final String ERROR = "ERROR";
    static final String BYE = "BYE";

    /** Longest line either side accepts; a bound so a confused peer cannot make the other buffer forever. */
    static final int MAX_LINE = 1 << 20;
    static final int NONCE_BYTES = 32;
    static final int SECRET_BYTES = 32;

    private static final HexFormat HEX = HexFormat.of();
    private static final SecureRandom RANDOM = new SecureRandom();

    /**
     * Reads one '\n'-terminated ASCII line without the terminator; null at end of stream. A final
     * line without terminator is a truncated message, so it counts as end of stream too.
     */
    static String readLine(InputStream in) throws IOException {
        ByteArrayOutputStream line = new ByteArrayOutputStream(128);
        while (true) {
            int b = in.read();
            if (b < 0) {
                return null;
            }
            if (b == '\n') {
                return line.toString(StandardCharsets.US_ASCII);
            }
            if (line.size() >= MAX_LINE) {
                throw new IOException("line longer than " + MAX_LINE + " bytes");
            }
            line.write(b);
        }
    }

    static void writeLine(OutputStream out, String line) throws IOException {
        out.write((line + "\n").getBytes(StandardCharsets.US_ASCII));
        out.flush();
    }

    /** A key or value: printable ASCII without space, '=' or newline; values may be empty. */
    static boolean isWord(String s, boolean mayBeEmpty) {
        if (s == null || (s.isEmpty() && !mayBeEmpty)) {
            return false;
        }
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (c <= ' ' || c > '~' || c == '=') {
                return false;
            }
        }
        return true;
    }

    static String nonce() {
        byte[] n = new byte[NONCE_BYTES];
        RANDOM.nextBytes(n);
        return HEX.formatHex(n);
    }

    static String hex(byte[] bytes) {
        return HEX.formatHex(bytes);
    }

    /** Parses hex; null when it is not exactly {@code bytes} bytes of hex digits. */
    static byte[] unhex(String s, int bytes) {
        if (s == null || s.length() != 2 * bytes) {
            return null;
        }
        try {
            return HEX.parseHex(s);
        } catch (IllegalArgumentException e) {
            return null;
        }
    }

    /**
     * The proof one side gives: HMAC-SHA256 under the job secret over both nonces and the identity
     * claimed. The role word differs per direction so a server cannot replay a client's proof back
     * to it (and vice versa); the nonces make every connection's proofs fresh.
     */
    static String proof(byte[] secret, String role, String jobId, int rank, String serverNonce, String clientNonce) {
        String text = MAGIC + " " + VERSION + " " + role + " " + jobId + " " + rank + " " + serverNonce + " " + clientNonce;
        return HEX.formatHex(HmacSha256.of(secret, text.getBytes(StandardCharsets.US_ASCII)));
    }

    /** Compares proofs in constant time, so timing does not reveal how much of a guess was right. */
    static boolean sameProof(String expected, String given) {
        return given != null && MessageDigest.isEqual(expected.getBytes(StandardCharsets.US_ASCII),
                given.getBytes(StandardCharsets.US_ASCII));
    }

    /** Milliseconds of a wait bound as sent on the wire: never negative, never more than an int. */
    static long wireMillis(Duration timeout) {
        if (timeout.isNegative()) {
            return 0;
        }
        try {
            return Math.min(Integer.MAX_VALUE, timeout.toMillis());
        } catch (ArithmeticException e) {
            return Integer.MAX_VALUE;
        }
    }

    /** "2 and 5", "rank 3", "ranks 0, 1, 4 and 12 more": the ranks a fence still waits for. */
    static String ranks(BitSet set) {
        int n = set.cardinality();
        StringBuilder sb = new StringBuilder(n == 1 ? "rank " : "ranks ");
        int shown = 0;
        for (int r = set.nextSetBit(0); r >= 0 && shown < 10; r = set.nextSetBit(r + 1), shown++) {
            if (shown > 0) {
                sb.append(", ");
            }
            sb.append(r);
        }
        if (n > shown) {
            sb.append(" and ").append(n - shown).append(" more");
        }
        return sb.toString();
    }

    /** A duration the way a person writes it: 500ms, 20s, 2m30s, 1h. */
    static String human(Duration d) {
        if (d.toMillis() < 1000) {
            return d.toMillis() + "ms";
        }
        long s = d.toSeconds();
        StringBuilder sb = new StringBuilder();
        if (s >= 3600) {
            sb.append(s / 3600).append('h');
        }
        if (s % 3600 >= 60) {
            sb.append(s % 3600 / 60).append('m');
        }
        if (s % 60 != 0 || sb.isEmpty()) {
            sb.append(s % 60).append('s');
        }
        return sb.toString();
    }
}
