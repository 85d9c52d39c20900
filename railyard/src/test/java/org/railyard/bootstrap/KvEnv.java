package org.railyard.bootstrap;

import java.util.HashMap;
import java.util.HexFormat;
import java.util.Map;

/** The environment a rank of a key-value job starts with (what the launcher sets), for tests to edit further. */
final class KvEnv {
    private KvEnv() {
    }

    /** A modifiable map: the server at {@code 127.0.0.1:port}, this rank, the job's size, id and secret. */
    static Map<String, String> of(int port, int rank, int size, String job, byte[] secret) {
        Map<String, String> env = new HashMap<>();
        env.put(KvBootstrap.ENV_KV, "127.0.0.1:" + port);
        env.put(KvBootstrap.ENV_RANK, Integer.toString(rank));
        env.put(KvBootstrap.ENV_SIZE, Integer.toString(size));
        env.put(KvBootstrap.ENV_JOB, job);
        env.put(KvBootstrap.ENV_SECRET, HexFormat.of().formatHex(secret));
        return env;
    }
}
