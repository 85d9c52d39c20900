package org.railyard.bootstrap;

import static org.assertj.core.api.Assertions.assertThat;
import static org.railyard.testkit.Failures.assertFails;

import java.time.Duration;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.railyard.error.ErrorClass;

/** How {@link Bootstraps#detect(Map)} chooses between PMI-1, PMI-2 and a singleton job. */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class PmiDetectTest {

    @Test
    void processStartedAloneIsASingletonJob() {
        try (Bootstrap boot = Bootstraps.detect(Map.of())) {
            assertThat(boot).isInstanceOf(SingletonBootstrap.class);
            assertThat(boot.name()).isEqualTo("singleton");
            assertThat(boot.size()).isEqualTo(1);
            assertThat(boot.rank()).isZero();
            assertThat(boot.jobSecret()).hasSize(32);
            boot.put("k", "v");
            boot.fence(Duration.ofMillis(1));
            assertThat(boot.get("k")).isEqualTo("v");
            assertFails(ErrorClass.BOOTSTRAP, () -> boot.get("absent"))
                    .hasMessageContaining("'absent'");
        }
    }

    @Test
    void pmiPortSelectsPmi1() throws Exception {
        try (PmiFakeServer server = new PmiFakeServer(1);
                Bootstrap boot = Bootstraps.detect(server.portEnv(0))) {
            assertThat(boot).isInstanceOf(Pmi1Bootstrap.class);
            assertThat(boot.name()).isEqualTo("pmi-1");
            assertThat(boot.jobId()).isEqualTo(server.kvsname);
        }
    }

    @Test
    void pmiJobIdAsSrunSetsItSelectsPmi2() throws Throwable {
        try (Pmi2FakeServer server = new Pmi2FakeServer(1);
                Bootstrap boot = Bootstraps.detect(server.fdEnv(0))) {
            assertThat(boot).isInstanceOf(Pmi2Bootstrap.class);
            assertThat(boot.name()).isEqualTo("pmi-2");
            assertThat(boot.jobId()).isEqualTo(server.jobId);
        }
    }

    @Test
    void theSettingForcesTheVersionAndRefusesOthers() {
        Map<String, String> hydra = Map.of("PMI_FD", "6", "PMI_RANK", "0", "PMI_SIZE", "1");
        assertThat(Bootstraps.choose(hydra)).isEqualTo(Bootstraps.Kind.PMI1);
        Map<String, String> forced = new java.util.HashMap<>(hydra);
        forced.put("RAILYARD_PMI", "2");
        assertThat(Bootstraps.choose(forced)).isEqualTo(Bootstraps.Kind.PMI2);
        forced.put("RAILYARD_PMI", "3");
        assertFails(ErrorClass.ARG, () -> Bootstraps.choose(forced))
                .hasMessageContaining("railyard.pmi='3'");
        assertThat(Bootstraps.choose(Map.of("RAILYARD_KV", "h:1", "PMI_FD", "6"))).isEqualTo(Bootstraps.Kind.KV);
    }

    @Test
    void srunWithoutPmiIsRefusedInsteadOfStartingSingletons() {
        Map<String, String> env = Map.of("SLURM_PROCID", "1", "SLURM_STEP_NUM_TASKS", "4", "SLURM_JOB_ID", "9");
        assertFails(ErrorClass.BOOTSTRAP, () -> Bootstraps.detect(env))
                .hasMessageContaining("task 1 of 4").hasMessageContaining("srun --mpi=pmi2");
        assertThat(Bootstraps.choose(Map.of("SLURM_PROCID", "0", "SLURM_STEP_NUM_TASKS", "1")))
                .isEqualTo(Bootstraps.Kind.SINGLETON);
    }
}
