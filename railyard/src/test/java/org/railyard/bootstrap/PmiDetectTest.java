package org.railyard.bootstrap;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.railyard.error.ErrorClass;
import org.railyard.error.RailyardException;

/** How {@link Bootstraps#detect(Map)} chooses between PMI-1 and a singleton job. */
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
            assertThatThrownBy(() -> boot.get("absent"))
                    .isInstanceOfSatisfying(RailyardException.class, e -> assertThat(e.errorClass()).isEqualTo(ErrorClass.BOOTSTRAP))
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
}
