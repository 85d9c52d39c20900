package org.railyard.bootstrap;

import java.security.SecureRandom;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;

/** A process started on its own, without a launcher: a job of size 1. */
public final class SingletonBootstrap implements Bootstrap {
    private final Map<String, String> kv = new HashMap<>();
    private final byte[] secret = new byte[32];
    private final String jobId;

    public SingletonBootstrap() {
        SecureRandom random = new SecureRandom();
        random.nextBytes(secret);
        jobId = "singleton-" + ProcessHandle.current().pid() + "-" + Long.toHexString(random.nextLong());
    }

    @Override public int rank() { return 0; }
    @Override public int size() { return 1; }
    @Override public String jobId() { return jobId; }
    @Override public byte[] jobSecret() { return secret.clone(); }
    @Override public void put(String key, String value) { kv.put(key, value); }
    @Override public void fence(Duration timeout) { }

    @Override
    public String get(String key) {
        String v = kv.get(key);
        if (v == null) {
            throw new org.railyard.error.RailyardException(org.railyard.error.ErrorClass.BOOTSTRAP,
                    "key '" + key + "' was not published in this singleton job");
        }
        return v;
    }

    @Override public String name() { return "singleton"; }
    @Override public void close() { }
}
