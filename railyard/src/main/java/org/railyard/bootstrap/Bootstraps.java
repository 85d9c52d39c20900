package org.railyard.bootstrap;

import java.time.Duration;
import java.util.Map;
import org.railyard.error.ErrorClass;
import org.railyard.error.RailyardException;
import org.railyard.util.Config;

/** Picks the bootstrap that matches how this process was started. */
public final class Bootstraps {
    private Bootstraps() {
    }

    /** Bound on fences and lookups unless the setting railyard.bootstrap.timeout says otherwise. */
    public static final Duration DEFAULT_TIMEOUT =
            Config.duration(Config.BOOTSTRAP_TIMEOUT_PROP, Config.BOOTSTRAP_TIMEOUT_DEFAULT);

    /**
     * Setting that forces the PMI version where the environment offers PMI ({@code 1} or {@code 2});
     * unset, it is chosen as {@link #detect(Map)} says. Hydra serves both versions on one
     * connection, so {@code RAILYARD_PMI=2} under {@code mpiexec.hydra} selects its PMI-2.
     */
    public static final String PMI_VERSION_PROP = "railyard.pmi";

    /**
     * The Railyard launcher's key-value server when {@code RAILYARD_KV} is set; PMI when
     * {@code PMI_FD} or {@code PMI_PORT} is set: PMI-2 when {@code PMI_JOBID} is set too (Slurm's
     * {@code srun --mpi=pmi2} sets it, Hydra does not) or the setting {@value #PMI_VERSION_PROP}
     * says 2, else PMI-1 (MPICH Hydra); otherwise a singleton job, except under {@code srun} with
     * several tasks and no PMI, which is refused (each task would run alone).
     */
    public static Bootstrap detect() {
        return detect(Config.env());
    }

    public static Bootstrap detect(Map<String, String> env) {
        return switch (choose(env)) {
            case KV -> new KvBootstrap(env);
            case PMI1 -> new Pmi1Bootstrap(env);
            case PMI2 -> new Pmi2Bootstrap(env);
            case SINGLETON -> new SingletonBootstrap();
        };
    }

    /** The mechanisms {@link #choose} picks from. */
    public enum Kind {
        /** The Railyard launcher's key-value server. */
        KV,
        /** PMI-1 (MPICH Hydra). */
        PMI1,
        /** PMI-2 (Slurm's srun --mpi=pmi2, Hydra). */
        PMI2,
        /** A process started alone. */
        SINGLETON
    }

    /**
     * Which bootstrap {@link #detect(Map)} makes for {@code env}, without connecting to anything.
     *
     * @throws RailyardException ARG if the setting {@value #PMI_VERSION_PROP} is neither 1 nor 2;
     *         BOOTSTRAP under {@code srun} with several tasks and no PMI in the environment
     */
    public static Kind choose(Map<String, String> env) {
        if (env.get(KvBootstrap.ENV_KV) != null) {
            return Kind.KV;
        }
        if (env.get("PMI_FD") != null || env.get("PMI_PORT") != null) {
            String forced = System.getProperty(PMI_VERSION_PROP);
            if (forced == null) {
                forced = env.get(Config.envName(PMI_VERSION_PROP));
            }
            if (forced != null && !forced.isBlank()) {
                return switch (forced.trim()) {
                    case "1" -> Kind.PMI1;
                    case "2" -> Kind.PMI2;
                    default -> throw new RailyardException(ErrorClass.ARG, "setting " + PMI_VERSION_PROP + "='"
                            + forced + "' must be 1 or 2 (the PMI version to speak)");
                };
            }
            return env.get("PMI_JOBID") != null ? Kind.PMI2 : Kind.PMI1;
        }
        String tasks = env.get("SLURM_STEP_NUM_TASKS");
        if (env.get("SLURM_PROCID") != null && tasks != null && !tasks.trim().equals("1")) {
            throw new RailyardException(ErrorClass.BOOTSTRAP, "this process is task " + env.get("SLURM_PROCID") + " of "
                    + tasks + " started by srun, but srun gave it no PMI (PMI_FD is not set), so it cannot find the"
                    + " other tasks: run srun --mpi=pmi2 (or set MpiDefault=pmi2 in slurm.conf)");
        }
        return Kind.SINGLETON;
    }
}
