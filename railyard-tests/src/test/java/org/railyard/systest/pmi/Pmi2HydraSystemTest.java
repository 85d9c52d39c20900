package org.railyard.systest.pmi;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.railyard.systest.Jobs;
import org.railyard.systest.slurm.MpiPingPong;

/**
 * Hydra's PMI-2: the same {@code mpiexec.hydra} serves PMI-1 and PMI-2 on one connection, and
 * {@code RAILYARD_PMI=2} makes the ranks speak PMI-2 to it, over the inherited PMI_FD and over
 * {@code -pmi-port}. Four JVMs run the mpiJava ping-pong and must each say they bootstrapped
 * through pmi-2. Skips, saying why, without {@code mpiexec.hydra}.
 */
@Timeout(value = 10, unit = TimeUnit.MINUTES)
class Pmi2HydraSystemTest {
    private static final int RANKS = 4;
    private static final long LIMIT_SECONDS = 180;

    @TempDir
    Path work;

    @Test
    void pingPongOverHydrasPmi2OnTheInheritedFd() throws Exception {
        assertPmi2Job(List.of());
    }

    @Test
    void pingPongOverHydrasPmi2OnThePmiPort() throws Exception {
        assertPmi2Job(List.of("-pmi-port"));
    }

    private void assertPmi2Job(List<String> hydraOptions) throws Exception {
        Path hydra = Jobs.onPath("mpiexec.hydra").orElse(null);
        Assumptions.assumeTrue(hydra != null, "mpiexec.hydra is not installed (apt-get install mpich): skipping");
        List<String> command = new ArrayList<>(List.of(hydra.toString(), "-n", Integer.toString(RANKS)));
        command.addAll(hydraOptions);
        command.addAll(Jobs.rankJava(MpiPingPong.class));
        Path out = work.resolve("out.txt");
        ProcessBuilder pb = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(out.toFile());
        pb.environment().keySet().removeIf(k -> k.startsWith("PMI_") || k.startsWith("SLURM_") || k.equals("RAILYARD_KV"));
        pb.environment().put("RAILYARD_PMI", "2");
        pb.environment().put("RAILYARD_BOOTSTRAP_TIMEOUT", "60s");
        Process p = pb.start();
        if (!p.waitFor(LIMIT_SECONDS, TimeUnit.SECONDS)) {
            p.descendants().forEach(ProcessHandle::destroyForcibly);
            p.destroyForcibly();
            p.waitFor(10, TimeUnit.SECONDS);
        }
        String text = Files.readString(out);
        assertThat(p.isAlive()).as("the job ended within %ds\n%s", LIMIT_SECONDS, text).isFalse();
        assertThat(p.exitValue()).as(text).isZero();
        assertThat(text).contains("PINGPONG OK size=" + RANKS);
        for (int r = 0; r < RANKS; r++) {
            assertThat(text).contains("BOOTSTRAP rank=" + r + " name=pmi-2");
        }
    }
}
