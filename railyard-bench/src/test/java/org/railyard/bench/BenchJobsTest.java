package org.railyard.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.railyard.launcher.JobSpec;
import org.railyard.util.Config;

/** The jobs {@code railyard bench} hands the launcher. */
class BenchJobsTest {
    private static final String AOT = Config.envName(Config.AOT_PROP);

    @Test
    void benchmarksRunWithoutTheAheadOfTimeCacheUnlessAskedFor() {
        // the launcher's auto would train the cache at the second run of a program and time the training
        assertThat(System.getenv(AOT)).as("this test needs %s unset", AOT).isNull();
        List<JobSpec> plain = BenchCommand.perTransport("Main", 2, List.of(), List.of("shm", "tcp"), Map.of(), List.of(),
                "1m", null, null);
        assertThat(plain).hasSize(2).allSatisfy(j -> assertThat(j.env()).containsEntry(AOT, "off"));
        List<JobSpec> asked = BenchCommand.perTransport("Main", 2, List.of(), List.of(), Map.of(AOT, "on"), List.of(),
                "1m", null, null);
        assertThat(asked).singleElement().satisfies(j -> assertThat(j.env()).containsEntry(AOT, "on"));
    }
}
