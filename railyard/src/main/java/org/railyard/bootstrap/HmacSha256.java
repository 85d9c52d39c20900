package org.railyard.bootstrap;

import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;

/**
 * HMAC-SHA256 (RFC 2104) over the JDK's {@code SHA-256} digest, for the proofs of the job secret
 * in the key-value handshake, the transports' handshake and the relay and gateway verifiers.
 *
 * <p>Why not {@code javax.crypto.Mac}: the first {@code Mac.getInstance("HmacSHA256")} of a JVM
 * walks the security providers until SunJCE (loading SunRsaSign, SunEC and SunJSSE on the way) and
 * reads the JCE policy files, a cost every rank paid at start-up (measured in
 * bench/results/log/2026-11-28-0500-startup.md), while SHA-256 comes from the first provider, which
 * the job's {@code SecureRandom} loads anyway. The result is the same bytes as
 * {@code Mac("HmacSHA256")} for every key and message (a test holds it to that).
 */
public final class HmacSha256 {
    private HmacSha256() {
    }

    /** Length of a result, bytes. */
    public static final int LENGTH = 32;
    /** SHA-256's block: longer keys are hashed first, shorter ones padded with zeros to it. */
    private static final int BLOCK = 64;
    private static final byte IPAD = 0x36;
    private static final byte OPAD = 0x5c;

    /** {@code HMAC-SHA256(key, parts[0] || parts[1] || ...)}, 32 bytes. */
    public static byte[] of(byte[] key, byte[]... parts) {
        MessageDigest sha = sha256();
        byte[] k = new byte[BLOCK];
        byte[] given = key.length > BLOCK ? sha.digest(key) : key;
        System.arraycopy(given, 0, k, 0, given.length);
        byte[] pad = new byte[BLOCK];
        for (int i = 0; i < BLOCK; i++) {
            pad[i] = (byte) (k[i] ^ IPAD);
        }
        sha.update(pad);
        for (byte[] p : parts) {
            sha.update(p);
        }
        byte[] inner = sha.digest();
        for (int i = 0; i < BLOCK; i++) {
            pad[i] = (byte) (k[i] ^ OPAD);
        }
        sha.update(pad);
        return sha.digest(inner);
    }

    private static MessageDigest sha256() {
        try {
            return MessageDigest.getInstance("SHA-256");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is not available in this JVM", e);
        }
    }
}
