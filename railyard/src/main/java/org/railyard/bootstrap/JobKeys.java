package org.railyard.bootstrap;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;

/**
 * Keys derived from a job's secret for parties that must not hold the secret itself. A relay server
 * serves several jobs and is told nothing by a launcher: the first rank of a job to reach it hands
 * it the job's <em>relay verifier</em> (an HMAC of the job id under the secret), and every later
 * connection of that job proves it knows the verifier by challenge and response, as the direct
 * handshake proves the secret. Holding the verifier lets a relay check ranks (and ranks check the
 * relay), but not pose as a rank to another rank's direct handshake, which needs the secret.
 */
public final class JobKeys {
    private JobKeys() {
    }

    /** The job's relay verifier: {@code HMAC-SHA256(secret, "railyard relay verifier" || jobId)}, 32 bytes. */
    public static byte[] relayVerifier(String jobId, byte[] secret) {
        return hmac(secret, "railyard relay verifier".getBytes(StandardCharsets.US_ASCII),
                jobId.getBytes(StandardCharsets.UTF_8), new byte[0]);
    }

    /**
     * The job's gateway verifier: {@code HMAC-SHA256(secret, "railyard gateway verifier" || jobId)},
     * 32 bytes; what a site gateway holds of a job (proved with {@link #relayProof} and the labels of
     * {@code org.railyard.wire.GatewayFrame}).
     */
    public static byte[] gatewayVerifier(String jobId, byte[] secret) {
        return hmac(secret, "railyard gateway verifier".getBytes(StandardCharsets.US_ASCII),
                jobId.getBytes(StandardCharsets.UTF_8), new byte[0]);
    }

    /**
     * A proof of the verifier over one connection's two nonces: {@code HMAC-SHA256(verifier, label ||
     * rank || n1 || n2)}; label "R" for the relay's proof, "C" for the rank's.
     */
    public static byte[] relayProof(byte[] verifier, String label, int rank, byte[] n1, byte[] n2) {
        byte[] head = ByteBuffer.allocate(label.length() + 4).put(label.getBytes(StandardCharsets.US_ASCII))
                .putInt(rank).array();
        return hmac(verifier, head, n1, n2);
    }

    /** Compares two proofs in time independent of where they differ. */
    public static boolean same(byte[] a, byte[] b) {
        return MessageDigest.isEqual(a, b);
    }

    private static byte[] hmac(byte[] key, byte[] a, byte[] b, byte[] c) {
        return HmacSha256.of(key, a, b, c);
    }
}
