package org.railyard.systest.slurm;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.railyard.systest.Jobs;

/**
 * Railyard under a Slurm of two nodes on this one host (two slurmd, {@link SlurmCluster} in
 * multiple-slurmd mode), {@code srun --mpi=pmi2 -N 2 --ntasks-per-node=2}: the obstacle demo
 * gives the result {@code railyard run} gives, and the node layout (splitShared, the node count
 * of the collectives) is Slurm's two nodes of two ranks, from {@code PMI_process_mapping}, though
 * every rank's host and boot id are the same.
 */
@Timeout(value = 15, unit = TimeUnit.MINUTES)
class SlurmTwoNodeSystemTest {
    @TempDir
    static Path work;
    private static SlurmCluster slurm;

    @BeforeAll
    static void startSlurm() throws Exception {
        slurm = SlurmCluster.startOrSkip(work.resolve("slurm2"), 2);
    }

    @AfterAll
    static void stopSlurm() {
        if (slurm != null) {
            slurm.close();
        }
    }

    private static SlurmCluster.Result twoByTwo(List<String> program) throws Exception {
        List<String> c = new ArrayList<>(List.of("srun", "--mpi=pmi2", "--label", "--overcommit", "-N", "2",
                "--ntasks-per-node=2"));
        c.addAll(program);
        SlurmCluster.Result r = slurm.exec(c, SlurmSystemTest.JOB_LIMIT);
        assertThat(r.exitCode()).as("srun -N 2 --ntasks-per-node=2\n%s\n%s", r, slurm.logs()).isZero();
        return r;
    }

    @Test
    void obstacleDemoOnTwoNodesAgreesWithRailyardRun() throws Exception {
        SlurmCluster.Result r = twoByTwo(Jobs.rankJava(SlurmSystemTest.classOf(SlurmSystemTest.DEMO), "--n", "16"));
        assertThat(r.stdout()).contains("0: OK: parallel solution agrees with sequential");
        Matcher underSrun = SlurmSystemTest.find(SlurmSystemTest.RESULT, r.stdout(), "the RESULT line");
        Matcher underRun = SlurmSystemTest.find(SlurmSystemTest.RESULT, SlurmSystemTest.demoUnderRailyardRun(),
                "the RESULT line of railyard run");
        assertThat(underSrun.group(1)).isEqualTo(underRun.group(1));
        assertThat(underSrun.group(2)).isEqualTo(underRun.group(2));
    }

    @Test
    void theNodeLayoutIsSlurmsTwoNodesOfTwoRanks() throws Exception {
        SlurmCluster.Result r = twoByTwo(Jobs.rankJava(CollectiveRanks.class));
        assertThat(r.stdout()).contains("0: COLL OK");
        Matcher m = SlurmSystemTest.COLL.matcher(r.stdout());
        int lines = 0;
        while (m.find()) {
            lines++;
            assertThat(m.group(2)).isEqualTo("4");
            assertThat(m.group(3)).as("ranks on rank %s's node", m.group(1)).isEqualTo("2");
            assertThat(m.group(4)).as("nodes").isEqualTo("2");
        }
        assertThat(lines).as("one COLL line per task\n%s", r).isEqualTo(4);
    }
}
