package org.railyard.bootstrap;

import java.time.Duration;
import java.util.Map;
import org.railyard.util.Config;

/** Picks the bootstrap that matches how this process was started. */
public final class Bootstraps {
    private Bootstraps() {
    }

    /** Bound on fences and lookups unless the setting railyard.bootstrap.timeout says otherwise. */
    public static final Duration DEFAULT_TIMEOUT =
            Config.duration(Config.BOOTSTRAP_TIMEOUT_PROP, Config.BOOTSTRAP_TIMEOUT_DEFAULT);

    /**
     * The Railyard launcher's key-value server when {@code RAILYARD_KV} is set; PMI-1 when
     * {@code PMI_FD} or {@code PMI_PORT} is set (MPICH Hydra); otherwise a singleton job.
     */
    public static Bootstrap detect() {
        return detect(System.getenv());
    }

    public static Bootstrap detect(Map<String, String> env) {
        if (env.get(KvBootstrap.ENV_KV) != null) {
            return new KvBootstrap(env);
        }
        if (env.get("PMI_FD") != null || env.get("PMI_PORT") != null) {
            return new Pmi1Bootstrap(env);
        }
        return new SingletonBootstrap();
    }
}
