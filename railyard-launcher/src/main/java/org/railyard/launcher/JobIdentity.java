package org.railyard.launcher;

import java.security.SecureRandom;
import java.util.HexFormat;
import java.util.Map;
import org.railyard.bootstrap.KvBootstrap;

/**
 * A new job's identity, made once by the launcher that starts it: the id every rank and the
 * key-value server name it by ({@code ry-<time>-<random>}), and the 32-byte secret each rank's
 * connections prove before anything else crosses them.
 */
record JobIdentity(String id, byte[] secret) {
    /** A fresh identity: a random secret, and an id from the clock and a random number. */
    static JobIdentity fresh() {
        SecureRandom random = new SecureRandom();
        byte[] secret = new byte[32];
        random.nextBytes(secret);
        String id = "ry-" + Long.toString(System.currentTimeMillis(), 36) + "-" + Integer.toHexString(random.nextInt());
        return new JobIdentity(id, secret);
    }

    /**
     * Puts into {@code env} what rank {@code rank} of {@code size} needs to join this job through
     * the launcher's key-value server at {@code kvAddress} (HOST:PORT): the server, its rank, the
     * job's size, id and secret.
     */
    void putBootstrapEnv(Map<String, String> env, String kvAddress, int rank, int size) {
        env.put(KvBootstrap.ENV_KV, kvAddress);
        env.put(KvBootstrap.ENV_RANK, Integer.toString(rank));
        env.put(KvBootstrap.ENV_SIZE, Integer.toString(size));
        env.put(KvBootstrap.ENV_JOB, id);
        env.put(KvBootstrap.ENV_SECRET, HexFormat.of().formatHex(secret));
    }
}
