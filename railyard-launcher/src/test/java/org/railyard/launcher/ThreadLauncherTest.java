package org.railyard.launcher;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The carriers a thread job asks for its virtual threads (the property is only set, never read back here). */
class ThreadLauncherTest {
    @Test
    void aThreadJobAsksForACarrierPerRankUnlessTheJvmsOptionsChose() {
        String carriers = System.getProperty(ThreadLauncher.CARRIERS_PROP);
        String max = System.getProperty(ThreadLauncher.MAX_CARRIERS_PROP);
        try {
            System.clearProperty(ThreadLauncher.CARRIERS_PROP);
            System.clearProperty(ThreadLauncher.MAX_CARRIERS_PROP);
            ThreadLauncher.carriersFor(64);
            assertThat(System.getProperty(ThreadLauncher.CARRIERS_PROP)).isEqualTo(
                    Integer.toString(Math.max(64, Runtime.getRuntime().availableProcessors())));
            assertThat(System.getProperty(ThreadLauncher.MAX_CARRIERS_PROP)).isEqualTo("256");

            System.clearProperty(ThreadLauncher.CARRIERS_PROP);
            ThreadLauncher.carriersFor(100_000);
            assertThat(System.getProperty(ThreadLauncher.CARRIERS_PROP)).as("at most").isEqualTo("256");

            System.setProperty(ThreadLauncher.CARRIERS_PROP, "3");
            ThreadLauncher.carriersFor(64);
            assertThat(System.getProperty(ThreadLauncher.CARRIERS_PROP)).as("the JVM's option kept").isEqualTo("3");
        } finally {
            restore(ThreadLauncher.CARRIERS_PROP, carriers);
            restore(ThreadLauncher.MAX_CARRIERS_PROP, max);
        }
    }

    @Test
    void theRanksNativeSetUpThreadIsOffUnlessTheEnvironmentSetsIt() {
        assumeTrue(System.getenv("RAILYARD_NATIVE_SETUP") == null, "this process's environment sets RAILYARD_NATIVE_SETUP");
        assertThat(ThreadLauncher.ENV_NATIVE_SETUP).isEqualTo("RAILYARD_NATIVE_SETUP");
        Map<String, String> env = new HashMap<>();
        ThreadLauncher.nativeSetupOff(env);
        assertThat(env).containsEntry("RAILYARD_NATIVE_SETUP", "false");
        Map<String, String> job = new HashMap<>(Map.of("RAILYARD_NATIVE_SETUP", "true"));
        ThreadLauncher.nativeSetupOff(job);
        assertThat(job).as("the job's --env kept").containsEntry("RAILYARD_NATIVE_SETUP", "true");
    }

    private static void restore(String key, String value) {
        if (value == null) {
            System.clearProperty(key);
        } else {
            System.setProperty(key, value);
        }
    }
}
