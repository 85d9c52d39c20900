package org.railyard.launcher;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** When railyard run goes through srun, and the command it gives srun (the run itself: SlurmSystemTest). */
class SrunLaunchTest {
    private static final JobSpec LOCAL = new JobSpec(4, List.of(), "Main", List.of(), List.of(), Map.of(), List.of(),
            Duration.ofMinutes(1), null);

    @Test
    void insideAnAllocationWithoutHostsOnly() {
        assertThat(SrunLaunch.applies(LOCAL, Map.of("SLURM_JOB_ID", "42"))).isTrue();
        assertThat(SrunLaunch.applies(LOCAL, Map.of())).isFalse();
        JobSpec withHosts = LOCAL.withHosts(List.of(new Host("node1", 2), new Host("node2", 2)));
        assertThat(SrunLaunch.applies(withHosts, Map.of("SLURM_JOB_ID", "42"))).isFalse();
    }

    @Test
    void srunStartsEveryTaskWithPmi2LabelsAndEndsTheStepOnABadExit() {
        assertThat(SrunLaunch.command(4, List.of("java", "-cp", "x", "Main", "a")))
                .containsExactly("srun", "--mpi=pmi2", "--label", "--kill-on-bad-exit=1", "-n", "4", "java", "-cp", "x",
                        "Main", "a");
    }
}
