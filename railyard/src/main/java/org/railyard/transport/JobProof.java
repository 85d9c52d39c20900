package org.railyard.transport;

import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.security.SecureRandom;
import org.railyard.bootstrap.HmacSha256;

/**
 * The handshake's proof of the job secret: fresh nonces, and an HMAC-SHA256 under the secret over a
 * label, the two ranks and both nonces, so that each side proves it holds the secret without
 * sending it and no proof can be replayed on another connection.
 */
final class JobProof {
    private final byte[] secret;
    private final SecureRandom random = new SecureRandom();

    JobProof(byte[] secret) {
        this.secret = secret.clone();
    }

    byte[] nonce() {
        byte[] n = new byte[org.railyard.wire.Handshake.NONCE_BYTES];
        random.nextBytes(n);
        return n;
    }

    /** The proof for a connection from {@code from} to {@code to} with the two nonces in this order. */
    byte[] mac(String label, int from, int to, byte[] n1, byte[] n2) {
        return HmacSha256.of(secret, label.getBytes(StandardCharsets.US_ASCII),
                java.nio.ByteBuffer.allocate(8).putInt(from).putInt(to).array(), n1, n2);
    }

    /** The 64-bit identity of a job id that a hello carries. */
    static long jobHash(String jobId) {
        try {
            byte[] d = MessageDigest.getInstance("SHA-256").digest(jobId.getBytes(StandardCharsets.UTF_8));
            return java.nio.ByteBuffer.wrap(d).getLong();
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("SHA-256 unavailable", e);
        }
    }
}
